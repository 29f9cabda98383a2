import Foundation
import ModerationStore
import NIOHTTP1
import Sandbox
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `console` binary, killed with SIGKILL in the middle of a bulk decision.
@Suite("Crash recovery", .serialized, .timeLimit(.minutes(3)))
struct CrashRecoveryTests {
    private static var binary: URL {
        RepositoryPaths.root.appendingPathComponent(".build/debug/console")
    }

    private func startConsole(port: Int, backend: URL, directory: TemporaryDirectory) throws -> SpawnedProcess {
        try SpawnedProcess.start(
            Self.binary.path,
            [
                "serve", "--no-metrics", "--port", String(port), "--database", directory.path("console.sqlite"), "--backend-url", backend.absoluteString,
                "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles, "--log-level", "error",
                // The mirror's budget, which the check before each decision spends, follows the sandbox's limits as `demo` does.
                "--mirror-backend-limit", "10000", "--mirror-backend-window", "2", "--backend-count-span", "0",
                // The sandbox acts at once: a decision in flight at the kill is re-checked 26 s after its send, not 111 s.
                "--backend-in-flight-limit", "5",
            ])
    }

    private func waitUntilUp(_ base: String) async throws {
        for _ in 0..<100 {
            if (try? await rawHTTP(.GET, base + "/healthz"))?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestServerError.didNotStart(nil)
    }

    @Test("SIGKILL during a bulk approval: after a restart every decision completes, none twice")
    func killDuringBulk() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "swift test builds the console binary")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limits = RateLimitPolicy(windowSeconds: 2, reads: 10_000, writes: 10, logins: 100, refreshes: 100)
        try await SandboxFixture.run(rateLimits: limits) { sandbox in
            let port = try FreePort.find()
            let base = "http://127.0.0.1:\(port)"
            var console = try startConsole(port: port, backend: sandbox.baseURL, directory: directory)
            defer { console.signal(SIGKILL); console.waitUntilExit() }
            try await waitUntilUp(base)

            let session = try #require(try await RawForms.signIn(base: base, login: "staff", password: SeedAccounts.demoStaffPassword))
            let page = try await rawHTTP(.GET, base + "/libraries?page_size=50", headers: [("Cookie", session)])
            let csrf = try #require(RawForms.field("csrf", in: page.text))
            let token = try await sandbox.accessToken()
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=30", token: token).jsonObject()
            let items = (list?["items"] as? [[String: Any]]) ?? []
            let slugs = items.compactMap { $0["slug"] as? String }
            #expect(slugs.count == 30)
            // Only a library someone submitted has someone to tell.
            let submitted = items.filter { $0["created_by"] is [String: Any] }.count
            let confirmed = try await rawHTTP(
                .POST, base + "/libraries/bulk/confirm", headers: [("Cookie", session), ("Content-Type", "application/x-www-form-urlencoded")],
                body: RawForms.body(
                    [("csrf", csrf), ("key", UUID().uuidString), ("decision", "approve"), ("reason", "")] + slugs.map { ("item", "\($0)|pending|x") }))
            #expect(confirmed.status == 303)

            // Let the first window's ten go out, then kill the process mid-work.
            try await Task.sleep(for: .milliseconds(700))
            console.signal(SIGKILL)
            console.waitUntilExit()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let beforeRestart = try await store.auditEntries(limit: 100).filter { $0.action == "library.approve" }.count
            #expect(beforeRestart < 30, "killed before the end")

            console = try startConsole(port: port, backend: sandbox.baseURL, directory: directory)
            try await waitUntilUp(base)
            // The decision whose PATCH was in flight at the kill stays claimed until its send's
            // deadline has passed (21 s), and the new process waits that out again before its
            // re-check: about 45 s before it completes.
            let deadline = Date().addingTimeInterval(90)
            while try await store.auditEntries(limit: 100).filter({ $0.action == "library.approve" }).count < 30, Date() < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            let approvals = try await store.auditEntries(limit: 200).filter { $0.action == "library.approve" }
            #expect(approvals.count == 30)
            #expect(Set(approvals.compactMap(\.actionId)).count == 30, "one audit entry per decision")
            #expect(Set(approvals.map(\.targetSlug)) == Set(slugs))
            let messages = try await store.outboxMessages(limit: 200)
            // One message per submitted library's approval, kill or not: the schema's unique key makes
            // "at most one" certain, so what is checked is that none is missing or extra.
            #expect(submitted > 0 && messages.count == submitted, "\(messages.count) messages for \(submitted) submitted libraries")
            #expect(Set(messages.compactMap(\.actionId)).isSubset(of: Set(approvals.compactMap(\.actionId))))
            // Decisions confirmed on re-check after the kill included: Book Corners pushed each approval itself.
            #expect(messages.allSatisfy { $0.sentByBookCorners && $0.status != .delivered }, "\(messages.map(\.status))")
            guard case .intact = try await store.verifyAuditChain() else { Issue.record("audit chain broken"); return }
            for slug in slugs.prefix(3) {
                #expect(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token).jsonObject()?["status"] as? String == "approved")
            }
        }
    }
}
