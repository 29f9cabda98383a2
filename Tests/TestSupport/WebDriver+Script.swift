import Foundation

extension WebDriver {
    /// Clicks the element with Shift held down, as a person selecting a range does (W3C actions:
    /// the key and the pointer move tick by tick together).
    public func shiftClick(_ css: String) async throws {
        // The element's centre in the viewport (chromedriver refuses an element as the origin of a move).
        let selector = try String(decoding: JSONSerialization.data(withJSONObject: [css]), as: UTF8.self)
        let centre =
            try await execute(
                """
                var element = document.querySelector(\(selector)[0]);
                element.scrollIntoView({ block: "center" });
                var r = element.getBoundingClientRect();
                return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];
                """) as? [Int] ?? []
        guard centre.count == 2 else { throw WebDriverError.noElement(css) }
        let keys: [[String: Any]] = [
            ["type": "keyDown", "value": Key.shift], ["type": "pause", "duration": 0], ["type": "pause", "duration": 0],
            ["type": "keyUp", "value": Key.shift],
        ]
        let pointer: [[String: Any]] = [
            ["type": "pointerMove", "origin": "viewport", "x": centre[0], "y": centre[1], "duration": 0], ["type": "pointerDown", "button": 0],
            ["type": "pointerUp", "button": 0], ["type": "pause", "duration": 0],
        ]
        _ = try await send(
            "POST", sessionPath + "/actions",
            [
                "actions": [
                    ["type": "key", "id": "keyboard", "actions": keys],
                    ["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": pointer],
                ]
            ])
        _ = try await send("DELETE", sessionPath + "/actions")
    }
}
