import AsyncHTTPClient
import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Drives headless Chromium through chromedriver's W3C WebDriver API, for the flows a
/// person clicks through. Needs Debian's `chromium` and `chromium-driver`.
public final class WebDriver: @unchecked Sendable {
    private let process: SpawnedProcess
    private let base: String
    private(set) var sessionPath = ""
    private let http: HTTPClient

    public init() throws {
        let port = try FreePort.find()
        process = try SpawnedProcess.start(try Self.locate("chromedriver").path, ["--port=\(port)"])
        base = "http://127.0.0.1:\(port)"
        // Made last: an HTTPClient dropped without its shutdown (a failed init) ends the test process.
        http = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    /// Starts a headless browser session with a 1280×900 window; with `javaScript` false the
    /// pages' own scripts do not run (the WebDriver's `execute` still does, for the checks).
    public func start(javaScript: Bool = true) async throws {
        for _ in 0..<100 {
            if (try? await send("GET", "/status")) != nil { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "goog:chromeOptions": [
                        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"],
                        "prefs": ["profile.managed_default_content_settings.javascript": javaScript ? 1 : 2],
                    ] as [String: Any]
                ]
            ]
        ]
        let value = try await send("POST", "/session", capabilities)
        guard let id = (value as? [String: Any])?["sessionId"] as? String else { throw WebDriverError.noSession }
        sessionPath = "/session/\(id)"
    }

    /// Deletes every cookie of the current page's site, as a person clearing them would.
    public func deleteAllCookies() async throws {
        _ = try await send("DELETE", sessionPath + "/cookie")
    }

    public func go(_ url: String) async throws {
        _ = try await send("POST", sessionPath + "/url", ["url": url])
    }

    public func find(_ css: String) async throws -> String {
        let value = try await send("POST", sessionPath + "/element", ["using": "css selector", "value": css])
        guard let element = (value as? [String: Any])?.values.first as? String else { throw WebDriverError.noElement(css) }
        return element
    }

    public func type(_ text: String, into css: String) async throws {
        _ = try await send("POST", sessionPath + "/element/\(try await find(css))/value", ["text": text])
    }

    public func click(_ css: String) async throws {
        _ = try await send("POST", sessionPath + "/element/\(try await find(css))/click", [String: Any]())
    }

    /// Touches the page at (`x`, `y`) CSS pixels from the viewport's top left and lifts the
    /// finger, as a tap would (W3C actions with a touch pointer): whatever is there gets it.
    public func tap(x: Int, y: Int) async throws {
        let finger: [String: Any] = [
            "type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"],
            "actions": [
                ["type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y], ["type": "pointerDown", "button": 0],
                ["type": "pointerUp", "button": 0],
            ],
        ]
        _ = try await send("POST", sessionPath + "/actions", ["actions": [finger]])
        _ = try await send("DELETE", sessionPath + "/actions")
    }

    /// WebDriver's codes for keys that are not characters.
    public enum Key {
        public static let enter = "\u{E007}"
        public static let tab = "\u{E004}"
        public static let escape = "\u{E00C}"
        public static let shift = "\u{E008}"
        public static let arrowDown = "\u{E015}"
    }

    /// Presses `keys` one after the other on whatever has focus, as a keyboard would (W3C
    /// actions: a key down and up each, so pages see real `keydown` events). `shift` holds
    /// Shift down around them.
    public func press(_ keys: String..., shift: Bool = false) async throws {
        var actions: [[String: Any]] = []
        if shift { actions.append(["type": "keyDown", "value": Key.shift]) }
        for key in keys {
            actions.append(["type": "keyDown", "value": key])
            actions.append(["type": "keyUp", "value": key])
        }
        if shift { actions.append(["type": "keyUp", "value": Key.shift]) }
        _ = try await send("POST", sessionPath + "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
    }

    public func source() async throws -> String {
        (try await send("GET", sessionPath + "/source") as? String) ?? ""
    }

    /// The page source once it contains `text` (a click's navigation may still be under way),
    /// or the last source seen after `timeout`.
    public func source(containing text: String, timeout: Duration = .seconds(10)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var page = try await source()
        while !page.contains(text), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            page = try await source()
        }
        return page
    }

    /// The current URL once it satisfies `condition`, or the last one seen after `timeout`.
    public func currentURL(where condition: (String) -> Bool, timeout: Duration = .seconds(10)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var url = try await currentURL()
        while !condition(url), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            url = try await currentURL()
        }
        return url
    }

    /// Resizes the browser window; `setWindowSize(width: 390, height: 844)` is a phone.
    /// The viewport is the window less the browser's own frame, which headless has none of.
    public func setWindowSize(width: Int, height: Int) async throws {
        _ = try await send("POST", sessionPath + "/window/rect", ["width": width, "height": height])
    }

    /// Makes the page's viewport `width`×`height` CSS pixels, as a phone's would be (Chrome
    /// DevTools' device metrics, through chromedriver): a desktop window cannot be made
    /// narrower than about 500 px. Not a "mobile" viewport, which would zoom out to fit a page
    /// wider than the screen and hide the very overflow a test looks for.
    public func emulateViewport(width: Int, height: Int) async throws {
        _ = try await send(
            "POST", sessionPath + "/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false],
            ])
    }

    /// Makes the pages see `prefers-color-scheme: scheme` ("dark" or "light"), as a device set
    /// to that theme would show them (Chrome DevTools' emulated media, through chromedriver).
    public func emulateColorScheme(_ scheme: String) async throws {
        _ = try await send(
            "POST", sessionPath + "/goog/cdp/execute",
            [
                "cmd": "Emulation.setEmulatedMedia",
                "params": ["features": [["name": "prefers-color-scheme", "value": scheme]]],
            ])
    }

    /// Makes the browser a touch screen without a mouse, as a phone is: pages see
    /// `(hover: none) and (pointer: coarse)` and touch events (Chrome DevTools' touch emulation).
    public func emulateTouch(_ enabled: Bool = true) async throws {
        _ = try await send(
            "POST", sessionPath + "/goog/cdp/execute",
            ["cmd": "Emulation.setTouchEmulationEnabled", "params": ["enabled": enabled, "maxTouchPoints": enabled ? 5 : 1]])
    }

    /// Lets the browser save downloads into `directory`, as a person's click on a download link would.
    public func allowDownloads(to directory: String) async throws {
        _ = try await send(
            "POST", sessionPath + "/goog/cdp/execute",
            [
                "cmd": "Browser.setDownloadBehavior", "params": ["behavior": "allow", "downloadPath": directory],
            ])
    }

    /// Runs `script` (a function body: `return …` answers) in the page and returns its answer
    /// as JSON gives it: numbers, strings, arrays and dictionaries.
    public func execute(_ script: String, arguments: [Any] = []) async throws -> Any? {
        try await send("POST", sessionPath + "/execute/sync", ["script": script, "args": arguments])
    }

    /// Runs an asynchronous `script`: its last argument is a callback that answers.
    public func executeAsync(_ script: String, arguments: [Any] = []) async throws -> Any? {
        try await send("POST", sessionPath + "/execute/async", ["script": script, "args": arguments])
    }

    /// A PNG of the viewport.
    public func screenshot() async throws -> Data {
        guard let text = try await send("GET", sessionPath + "/screenshot") as? String, let data = Data(base64Encoded: text) else {
            throw WebDriverError.failed(method: "GET", path: sessionPath + "/screenshot", message: "no image")
        }
        return data
    }

    /// The page as the browser prints it (W3C "Print Page"): a PDF on A4, backgrounds left out as
    /// a printer's default does.
    public func printToPDF() async throws -> Data {
        let path = sessionPath + "/print"
        let a4 = ["width": 21.0, "height": 29.7]
        guard let text = try await send("POST", path, ["page": a4, "background": false]) as? String, let data = Data(base64Encoded: text) else {
            throw WebDriverError.failed(method: "POST", path: path, message: "no PDF")
        }
        return data
    }

    public func currentURL() async throws -> String {
        (try await send("GET", sessionPath + "/url") as? String) ?? ""
    }

    /// Ends the browser session and chromedriver.
    public func quit() async {
        if !sessionPath.isEmpty { _ = try? await send("DELETE", sessionPath) }
        // chromedriver may ignore SIGTERM while it tears a browser down; it holds no state worth saving.
        process.signal(SIGKILL)
        process.waitUntilExit()
        try? await http.shutdown()
    }

    func send(_ method: String, _ path: String, _ body: Any? = nil) async throws -> Any? {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 32 * 1024 * 1024)
        let object = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]
        guard response.status.code < 300 else {
            throw WebDriverError.failed(method: method, path: path, message: "\((object?["value"] as? [String: Any])?["message"] ?? response.status)")
        }
        return object?["value"]
    }

    private static func locate(_ name: String) throws -> URL {
        for directory in ["/usr/bin", "/usr/local/bin", "/usr/lib/chromium"] {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw WebDriverError.notInstalled(name)
    }
}

public enum WebDriverError: Error, CustomStringConvertible {
    case notInstalled(String)
    case noSession
    case noElement(String)
    case failed(method: String, path: String, message: String)

    public var description: String {
        switch self {
        case .notInstalled(let name): "\(name) is not installed: run the README's test command, which installs chromium and chromium-driver."
        case .noSession: "chromedriver did not start a browser session."
        case .noElement(let css): "No element matches \(css)."
        case .failed(let method, let path, let message): "WebDriver \(method) \(path) failed: \(message)"
        }
    }
}
