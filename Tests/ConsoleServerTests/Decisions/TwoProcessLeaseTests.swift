import Foundation
import ModerationStore
import NIOHTTP1
import Sandbox
import TestSupport
import Testing

/// Issue 29, item 8, with two real `console serve` processes on one database: a PATCH in flight
/// is never sent again by the other process, even when the sender cannot renew its lease.
@Suite("Two console processes and a PATCH in flight", .serialized, .timeLimit(.minutes(3)))
struct TwoProcessLeaseTests {
    @Test(
        "a PATCH held 8 s while another connection holds the database 6 s (no lease renewal meanwhile): the second process never sends it; one PATCH, applied, audited once"
    )
    func slowPatchSentOnce() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: ConsoleBinary.path), "swift build makes the console binary")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let origin = sandbox.baseURL.absoluteString.replacingOccurrences(of: "/api/v1/", with: "")
            try await FaultingProxy.run(to: origin, plan: { method, _, _ in method == .patch ? .passAfter(.seconds(8)) : .pass }) { proxy, proxyOrigin in
                // setup: two consoles on one database (the second once the first made the token key), a pending library
                let serves = try await ConsoleBinary.startServes(2, backend: proxyOrigin, directory: directory)
                defer { serves.processes.forEach { $0.stop() } }
                let base = serves.bases[0]
                let session = try #require(try await RawForms.signIn(base: base, login: "staff", password: SeedAccounts.demoStaffPassword))
                let token = try await sandbox.accessToken()
                let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=1", token: token).jsonObject()
                let slug = try #require(((list?["items"] as? [[String: Any]]) ?? []).first?["slug"] as? String)
                let path = "/api/v1/libraries/moderation/\(slug)"

                // act: the approval goes to the first console; once its PATCH is held at the backend,
                // a third connection takes the write lock for 6 s (past the 5-s busy timeout), so the
                // sender's lease renewals fail; the second console's runner keeps looking all along
                let decided = try await RawForms.approve(slug: slug, base: base, session: session)
                #expect(decided.status == 303)
                let arrival = ContinuousClock.now + .seconds(30)
                while await proxy.arrived(.patch, path) == 0, ContinuousClock.now < arrival { try await Task.sleep(for: .milliseconds(20)) }
                #expect(await proxy.arrived(.patch, path) == 1, "the PATCH is on its way")
                try await HeldWriteLock.take(directory.path("console.sqlite"), for: 6).release()
                let store = try ModerationStore(path: directory.path("console.sqlite"))
                var finished: ModerationAction?
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    finished = try await store.action(id: 1)
                    if let state = finished?.state, [.applied, .conflict, .failed].contains(state) { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                // Both consoles look again for a while: a second PATCH would show here.
                try await Task.sleep(for: .seconds(3))

                // check: one PATCH at Book Corners, the decision applied and audited once, the library approved
                #expect(await proxy.arrived(.patch, path) == 1, "one PATCH reached Book Corners")
                let action = try #require(finished)
                #expect(action.state == .applied, "\(action.state): \(action.outcomeMessage ?? "")")
                let audited = try await store.auditEntries(limit: 50).filter { $0.action == "library.approve" }
                #expect(audited.count == 1 && audited.first?.outcome == .applied)
                let status = try await sandbox.raw(.GET, path, token: token).jsonObject()?["status"] as? String
                #expect(status == "approved")
            }
        }
    }
}
