import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 30's form tour: Chromium fills and sends the console's forms as a person does (typed
/// with real key events, sent by clicking the button), so the server receives what a browser
/// sends: CR LF line breaks, right-to-left text, markup and quotes. Each stop checks that its
/// button's form posts to the route it names and records it; `FormTourCoverageTests` compares
/// the routes the stops name with every POST route of the router.
struct FormTour {
    let browser: WebDriver
    let console: String
    private let sent = Recorder<SiteURL.Route>()

    /// What a person might type: two line breaks, right-to-left text, markup, quotes and an emoji.
    static let typed = "First line <b>bold</b> & \"quoted\" 'single'\nשלום עולם مكتبة الحي\nlast line 📚"

    /// `text` as the browser's page source shows it inside an element (the DOM serialised:
    /// `&`, `<` and `>` escaped, line breaks as LF): markup typed stays text.
    static func inElement(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    init(browser: WebDriver, console: String) {
        self.browser = browser
        self.console = console
    }

    /// The routes this tour's stops sent forms to, in order.
    var routesSent: [SiteURL.Route] { sent.values }

    /// Opens `path` and answers its source once it shows `text`.
    @discardableResult
    func open(_ path: String, showing text: String) async throws -> String {
        try await browser.go(console + path)
        return try await page(showing: text, after: "opening \(path)")
    }

    /// Types `text` into the field `css` with real key events (a line break is the Enter key).
    func type(_ text: String, into css: String) async throws {
        try await browser.type(text, into: css)
    }

    /// What the field `css` holds now, as the page's script reads it.
    func value(of css: String) async throws -> String? {
        try await browser.execute("const field = document.querySelector(arguments[0]); return field ? field.value : null;", arguments: [css]) as? String
    }

    /// Clicks `button` after checking that its form posts to `route`, and answers the page that
    /// follows once it shows `text` (a failure names the stop and shows what the page said).
    @discardableResult
    func send(_ button: String, to route: SiteURL.Route, showing text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await send(button, to: route, showing: text, inPlace: false, sourceLocation: sourceLocation)
    }

    /// A row's one-click decision, which the script sends without leaving the list: the same
    /// checks, then the list itself once it shows `text` (the row's words, the message).
    func sendInPlace(
        _ button: String, to route: SiteURL.Route, showing text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> String
    {
        try await send(button, to: route, showing: text, inPlace: true, sourceLocation: sourceLocation)
    }

    private func send(
        _ button: String, to route: SiteURL.Route, showing text: String, inPlace: Bool, sourceLocation: SourceLocation
    ) async throws -> String {
        let target =
            try await browser.execute(
                """
                const button = document.querySelector(arguments[0]);
                if (!button || !button.form) return null;
                window.formTourPending = true;
                return [button.getAttribute('formaction') || button.form.getAttribute('action') || '',
                        (button.getAttribute('formmethod') || button.form.getAttribute('method') || 'get').toLowerCase()];
                """, arguments: [button]) as? [String]
        let (action, method) = (try #require(target?.first, "no button \(button) in a form", sourceLocation: sourceLocation), target?.last ?? "")
        let path = String(action.prefix { $0 != "?" })
        #expect(method == "post", "\(button) sends \(method), not post", sourceLocation: sourceLocation)
        #expect(Self.matches(path, route), "\(button) posts to \(path), not \(route.rawValue)", sourceLocation: sourceLocation)
        sent.record(route)
        try await browser.click(button)
        if inPlace { _ = try await browser.execute("window.formTourPending = false; return true;") }
        let source = try await page(showing: text, after: "sending \(button) to \(path)", sourceLocation: sourceLocation)
        if inPlace {
            let reloaded = try await browser.execute("return window.formTourPending === undefined;") as? Bool
            #expect(reloaded == false, "\(button) was sent in place, the list not reloaded", sourceLocation: sourceLocation)
        }
        return source
    }

    /// The source of the page that replaced the one a stop was on (or, for a page just
    /// opened, of that page) once it shows `text`.
    private func page(showing text: String, after step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(15)
        var source = ""
        while ContinuousClock.now < deadline {
            let replaced = (try? await browser.execute("return window.formTourPending !== true && document.readyState === 'complete';")) as? Bool
            if replaced == true {
                source = try await browser.source()
                if source.contains(text) { return source }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record(
            "after \(step), the page never showed \(text.debugDescription); it showed: \(Page.text(of: Self.main(of: source)).suffix(2_000))",
            sourceLocation: sourceLocation)
        return source
    }

    /// The words of the page's message (the flash that says what a form did), or "" without one.
    static func flash(of source: String) -> String {
        guard let start = source.range(of: "<div class=\"flash\""), let end = source.range(of: "</div>", range: start.upperBound..<source.endIndex)
        else { return "" }
        return Page.text(of: String(source[start.lowerBound..<end.upperBound]))
    }

    /// The `<main>` of a page's source, or all of it.
    static func main(of source: String) -> String {
        guard let start = source.range(of: "<main"), let end = source.range(of: "</main>", range: start.upperBound..<source.endIndex) else { return source }
        return String(source[start.lowerBound..<end.upperBound])
    }

    /// Whether `path` is one the route's pattern matches (a `:name` segment matches any one segment).
    static func matches(_ path: String, _ route: SiteURL.Route) -> Bool {
        let want = route.rawValue.split(separator: "/", omittingEmptySubsequences: false)
        let have = path.split(separator: "/", omittingEmptySubsequences: false)
        return want.count == have.count && zip(want, have).allSatisfy { pattern, segment in pattern.hasPrefix(":") ? !segment.isEmpty : pattern == segment }
    }

    /// Signs `login` in by typing into the sign-in form, after a wrong password that is refused
    /// on the same form with the login kept.
    func signIn(_ login: String, password: String) async throws {
        try await open("/sign-in", showing: "id=\"login\"")
        try await type(login, into: "#login")
        try await type(password + "-wrong", into: "#password")
        let refused = try await send("form.stack button[type=submit]", to: .signIn, showing: "role=\"alert\"")
        #expect(Page.text(of: Self.main(of: refused)).contains("do not match a Book Corners account"), "the refusal says the login and password do not match")
        #expect(try await value(of: "#login") == login, "the login is kept")
        _ = try await browser.execute("document.querySelector('#login').value = '';")
        try await type(login, into: "#login")
        try await type(password, into: "#password")
        try await send("form.stack button[type=submit]", to: .signIn, showing: "class=\"user\"")
    }
}
