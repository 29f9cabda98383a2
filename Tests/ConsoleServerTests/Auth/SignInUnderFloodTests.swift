import Foundation
import Sandbox
import TestSupport
import Testing

/// Issue 46's first goal, over real HTTP from real source addresses: Book Corners counts the
/// whole console as one client for sign-ins, so strangers' guesses must not spend the sign-ins
/// of staff whose browsers signed in here before.
@Suite("Sign-in under a flood of strangers' guesses", .serialized, .timeLimit(.minutes(3)))
struct SignInUnderFloodTests {
    /// Short windows, so three of them pass in a test; the limit is Book Corners' own (10).
    private static let window = 12

    @Test(
        "strangers at five addresses send 20 wrong sign-ins at the start of each of three windows, with made-up and real staff usernames: staff whose browser signed in before, and jonas through a sign-in link an operator issued, get in at the first try every window; a browser new here is refused in words naming the cause"
    )
    func rememberedBrowserSignsInThroughTheFlood() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limits = RateLimitPolicy(windowSeconds: Self.window, reads: 10_000, writes: 100, logins: 10, refreshes: 100)
        try await SandboxFixture.run(rateLimits: limits) { sandbox in
            let port = try FreePort.find()
            let console = try ConsoleBinary.startServe(
                port: port, backend: "http://127.0.0.1:\(sandbox.port)", directory: directory,
                environment: ["CONSOLE_MIRROR_BACKEND_WINDOW": String(Self.window)])
            defer { console.stop() }
            try await ConsoleBinary.waitUntilUp(console, port: port, log: directory.path("console-\(port).log"))
            // setup: staff signs in once from their browser, in a window of its own
            try await Self.waitForWindowStart()
            let first = try await Self.signIn(port: port, from: "127.0.0.1", login: "staff", password: SeedAccounts.demoStaffPassword)
            var known = try #require(Self.cookie("bc_known", in: first), "a browser that signed in is remembered")
            // jonas has never signed in here: the operator issues him a sign-in link, which he opens
            let issuing = try ConsoleBinary.start(
                ["staff", "sign-in-link", "jonas", "--database", directory.path("console.sqlite"), "--public-url", "http://127.0.0.1:\(port)"],
                in: directory.url, log: directory.path("link.log"))
            #expect(issuing.exitCode(within: 30) == 0)
            let printed = try String(contentsOfFile: directory.path("link.log"), encoding: .utf8)
            let linkPath = try #require(printed.split(separator: "\n").first { $0.hasPrefix("http://") }).replacingOccurrences(
                of: "http://127.0.0.1:\(port)", with: "")
            let opened = try await SourceBoundHTTP.exchange("GET", port: port, path: linkPath, from: "127.0.0.95")
            #expect(opened.status == 200 && opened.text.contains("This browser is now known to the console for jonas"))
            var jonasKnown = try #require(Self.cookie("bc_known", in: opened))
            let reopened = try await SourceBoundHTTP.exchange("GET", port: port, path: linkPath, from: "127.0.0.96")
            #expect(reopened.status == 404, "a link works once")

            for round in 1...3 {
                try await Self.waitForWindowStart()
                // act: the flood, four guesses from each of five addresses
                let names = ["staff", "maria", "admin", "jonas", "x\(round)"]
                // All at once, as a flood comes: it is over well within the window, however busy the machine.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for guess in 0..<20 {
                        let source = "127.0.0.\(80 + guess % 5)"
                        group.addTask { _ = try await Self.signIn(port: port, from: source, login: names[guess % names.count], password: "wrong-\(guess)") }
                    }
                    try await group.waitForAll()
                }
                let stranger = try await Self.signIn(port: port, from: "127.0.0.90", login: "staff", password: SeedAccounts.demoStaffPassword)
                let staff = try await Self.signIn(
                    port: port, from: "127.0.0.1", login: "staff", password: SeedAccounts.demoStaffPassword, cookies: ["bc_known=\(known)"])

                let jonas = try await Self.signIn(
                    port: port, from: "127.0.0.95", login: "jonas", password: SeedAccounts.demoStaffPassword, cookies: ["bc_known=\(jonasKnown)"])

                // check: staff and jonas (by his link) are in at the first try; a browser new here hears why it is not
                #expect(Self.cookie("bc_session", in: jonas) != nil, "round \(round): jonas \(jonas.status) \(Self.alert(jonas))")
                jonasKnown = try #require(Self.cookie("bc_known", in: jonas))
                #expect(Self.cookie("bc_session", in: staff) != nil, "round \(round): \(staff.status) \(Self.alert(staff))")
                known = try #require(Self.cookie("bc_known", in: staff), "round \(round): a new remembered cookie each sign-in")
                #expect(Self.cookie("bc_session", in: stranger) == nil, "round \(round): the strangers spent the share a new browser draws on")
                #expect(
                    Self.alert(stranger).contains("failed attempts from elsewhere are using up Book Corners&#39; sign-in limit"),
                    "round \(round): \(Self.alert(stranger))")
            }
        }
    }

    /// Sleeps until a new rate-limit window has just begun (plus a moment past its edge).
    private static func waitForWindowStart() async throws {
        let now = Date().timeIntervalSince1970
        let next = (now / Double(window)).rounded(.down) * Double(window) + Double(window)
        try await Task.sleep(for: .milliseconds(Int((next - now + 0.2) * 1000)))
    }

    /// The sign-in form fetched and posted from `source`, as a browser holding `cookies` would.
    private static func signIn(
        port: Int, from source: String, login: String, password: String, cookies: [String] = []
    ) async throws -> RawAnswer {
        let form = try await SourceBoundHTTP.exchange(
            "GET", port: port, path: "/sign-in", from: source, headers: cookies.isEmpty ? [] : [("Cookie", cookies.joined(separator: "; "))])
        let jar = cookies + RawForms.cookies(form)
        return try await SourceBoundHTTP.exchange(
            "POST", port: port, path: "/sign-in", from: source,
            headers: [("Cookie", jar.joined(separator: "; ")), ("Content-Type", "application/x-www-form-urlencoded")],
            body: RawForms.body([("csrf", RawForms.field("csrf", in: form.text) ?? ""), ("login", login), ("password", password)]))
    }

    private static func cookie(_ name: String, in answer: RawAnswer) -> String? {
        RawForms.cookies(answer).first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func alert(_ answer: RawAnswer) -> String {
        answer.text.range(of: "role=\"alert\"").map { String(answer.text[$0.upperBound...].prefix(400)) } ?? "(no alert)"
    }
}
