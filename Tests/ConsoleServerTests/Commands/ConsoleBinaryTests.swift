import Foundation
import TestSupport
import Testing

/// The built `console` finds its templates and static files wherever it is started from.
@Suite("The console binary runs from any working directory", .serialized, .timeLimit(.minutes(3)))
struct ConsoleBinaryTests {
    @Test("`console demo` started outside the checkout serves its pages and static files")
    func demoOutsideTheCheckout() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try FreePort.find()
        let sandboxPort = try FreePort.find()
        let apnsPort = try FreePort.find()
        let log = directory.path("demo.log")

        // act
        let demo = try ConsoleBinary.start(
            ["demo", "--no-metrics", "--port", String(port), "--sandbox-port", String(sandboxPort), "--apns-port", String(apnsPort), "--log-level", "error"],
            in: directory.url, log: log)
        defer { ConsoleBinary.stop(demo) }
        try await ConsoleBinary.waitUntilUp(demo, port: port, log: log)

        // check
        let signIn = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/sign-in")
        #expect(signIn.status == 200)
        #expect(signIn.text.contains(#"name="csrf""#))
        let css = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/static/console.css")
        #expect(css.status == 200)
        #expect(css.header("content-type") == "text/css; charset=utf-8")
        #expect(FileManager.default.fileExists(atPath: directory.path("data/demo/console.sqlite")), "data stays in the working directory")
        #expect(FileManager.default.fileExists(atPath: directory.path("data/demo/apns/ca.pem")), "the APNs stand-in's certificate too")
        let outbox = try await rawHTTP(.GET, "http://127.0.0.1:\(sandboxPort)/apns/pushes")
        #expect(outbox.status == 200 && outbox.text.contains("Pushes received by the APNs stand-in"))
    }

    @Test("delivery settings that cannot work stop `console serve` at once, saying which and why")
    func badDeliverySettings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cases: [([String], String)] = [
            (["--outbox-transport", "pigeon"], "--outbox-transport (CONSOLE_OUTBOX_TRANSPORT) must be spool, webhook, apns or off, got 'pigeon'."),
            (["--outbox-policy", "photo.approved=recorded-only"], "Book Corners never sends photo.approved itself, so nobody would be told"),
            (["--outbox-policy", "library.approved=maybe"], "maybe: not a rule (deliver or recorded-only)"),
            (["--outbox-transport", "apns"], "--outbox-transport apns needs --apns-key-file, --apns-key-id and --apns-team-id"),
            (["--outbox-transport", "apns", "--apns-key-file", directory.path("missing.p8"), "--apns-key-id", "K", "--apns-team-id", "T"], "missing.p8"),
            (["--outbox-transport", "webhook"], "--outbox-transport webhook needs --outbox-webhook-url"),
        ]
        for (arguments, expected) in cases {
            let run = try ChildProcess.run(
                ConsoleBinary.path, ["serve", "--no-metrics", "--database", directory.path("console.sqlite"), "--port", "0"] + arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.errorOutput.contains(expected), "\(arguments): \(run.errorOutput)")
        }
    }

    @Test("a claim duration outside 1 to 1440 minutes stops `console serve` and `console demo` at once, saying so")
    func badClaimMinutes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (command, minutes) in [("serve", "0"), ("demo", "1441")] {
            // act
            let run = try ChildProcess.run(
                ConsoleBinary.path, [command, "--database", directory.path("console.sqlite"), "--port", "0", "--claim-minutes", minutes])
            // check
            #expect(run.status != 0, "\(command)")
            #expect(
                run.errorOutput.contains("--claim-minutes (CONSOLE_CLAIM_MINUTES) must be 1 to 1440 minutes, got \(minutes)."), "\(command): \(run.errorOutput)"
            )
        }
    }

    @Test("a copy of the binary uses the Templates and Public beside it; --templates and --public override them")
    func copiedBinary() async throws {
        // setup: the binary with edited copies of the directories next to it, started from elsewhere
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let install = directory.url.appendingPathComponent("install")
        let elsewhere = directory.url.appendingPathComponent("elsewhere")
        let manager = FileManager.default
        try manager.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try manager.createDirectory(at: install, withIntermediateDirectories: true)
        try manager.copyItem(atPath: ConsoleBinary.path, toPath: install.appendingPathComponent("console").path)
        try manager.copyItem(atPath: RepositoryPaths.templates, toPath: install.appendingPathComponent("Templates").path)
        try manager.copyItem(atPath: RepositoryPaths.publicFiles, toPath: install.appendingPathComponent("Public").path)
        try append("<!-- templates beside the binary -->\n", to: install.appendingPathComponent("Templates/layout.mustache"))
        try append("/* public files beside the binary */\n", to: install.appendingPathComponent("Public/console.css"))
        let port = try FreePort.find()
        let serve = ["serve", "--no-metrics", "--port", String(port), "--backend-url", "http://127.0.0.1:1/api/v1/", "--log-level", "error"]

        // act
        let beside = try await pages(
            install.appendingPathComponent("console").path, serve + ["--database", directory.path("a.sqlite")], in: elsewhere, port: port,
            log: directory.path("a.log"))
        let overridden = try await pages(
            install.appendingPathComponent("console").path,
            serve + ["--database", directory.path("b.sqlite"), "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles],
            in: elsewhere, port: port, log: directory.path("b.log"))

        // check
        #expect(beside.signIn.contains("<!-- templates beside the binary -->"))
        #expect(beside.css.contains("/* public files beside the binary */"))
        #expect(overridden.signIn.contains(#"name="csrf""#))
        #expect(!overridden.signIn.contains("<!-- templates beside the binary -->"))
        #expect(!overridden.css.contains("/* public files beside the binary */"))
    }

    /// Starts the console, reads the sign-in page and the stylesheet, stops it.
    private func pages(
        _ executable: String, _ arguments: [String], in workingDirectory: URL, port: Int, log: String
    ) async throws -> (signIn: String, css: String) {
        let console = try ConsoleBinary.start(arguments, executable: executable, in: workingDirectory, log: log)
        defer { ConsoleBinary.stop(console) }
        try await ConsoleBinary.waitUntilUp(console, port: port, log: log)
        let signIn = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/sign-in")
        let css = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/static/console.css")
        return (signIn.text, css.text)
    }

    private func append(_ text: String, to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}
