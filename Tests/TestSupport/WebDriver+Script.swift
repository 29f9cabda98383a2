import Foundation

extension WebDriver {
    /// Runs `script` in the page (its `return` value comes back as JSON values): for reading
    /// what a person sees (a checkbox's state, an element's position), never for acting.
    public func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await send("POST", sessionPath + "/execute/sync", ["script": script, "args": arguments])
    }

    /// Clicks the element with Shift held down, as a person selecting a range does (W3C actions:
    /// the key and the pointer move tick by tick together).
    public func shiftClick(_ css: String) async throws {
        let element = try await find(css)
        let reference = ["element-6066-11e4-a4e6-4ae0d5ae8f3b": element]
        let keys: [[String: Any]] = [
            ["type": "keyDown", "value": Key.shift], ["type": "pause", "duration": 0], ["type": "pause", "duration": 0],
            ["type": "keyUp", "value": Key.shift],
        ]
        let pointer: [[String: Any]] = [
            ["type": "pointerMove", "origin": reference, "x": 0, "y": 0, "duration": 0], ["type": "pointerDown", "button": 0],
            ["type": "pointerUp", "button": 0], ["type": "pause", "duration": 0],
        ]
        _ = try await send("POST", sessionPath + "/actions", ["actions": [
            ["type": "key", "id": "keyboard", "actions": keys],
            ["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": pointer],
        ]])
        _ = try await send("DELETE", sessionPath + "/actions")
    }
}
