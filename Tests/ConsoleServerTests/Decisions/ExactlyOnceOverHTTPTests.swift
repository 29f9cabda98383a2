import Foundation
import ModerationStore
import NIOHTTP1
import Sandbox
import TestSupport
import Testing

/// Issue 45's two faults, end to end: two real `console serve` processes on one database, the
/// sandbox behind the fault-injecting proxy, decisions posted as the pages' forms post them.
/// `DecisionSimulationTests` searches the same promise over thousands of schedules.
@Suite("Exactly once over real HTTP: a slow Book Corners, two processes deciding one item", .serialized, .timeLimit(.minutes(4)))
struct ExactlyOnceOverHTTPTests {
    /// A short in-flight bound, so the re-check comes 26 s after the send (21-s send deadline + 5 s).
    /// Set through the environment, which a console built before the option ignores
    /// (`CONSOLE_BINARY` runs such a build, to see these tests fail on it).
    private static let inFlightLimit = ["CONSOLE_BACKEND_IN_FLIGHT_LIMIT": "5"]

    @Test(
        "a PATCH held 13 s before it reaches Book Corners (the console's client gives up at 10 s) is sent once, for a library, a report and a photo: applied, confirmed on the re-check after the bound, and the page says why it waits"
    )
    func slowAnswerSentOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let origin = sandbox.baseURL.absoluteString.replacingOccurrences(of: "/api/v1/", with: "")
            try await FaultingProxy.run(to: origin, plan: { method, _, _ in method == .patch ? .passAfter(.seconds(13)) : .pass }) { proxy, proxyOrigin in
                // setup: two consoles on one database; one pending library, open report and pending photo
                let serves = try await ConsoleBinary.startServes(2, backend: proxyOrigin, directory: directory, environment: Self.inFlightLimit)
                defer { serves.processes.forEach { $0.stop() } }
                let session = try #require(try await RawForms.signIn(base: serves.bases[0], login: "staff", password: SeedAccounts.demoStaffPassword))
                let token = try await sandbox.accessToken()
                let slug = try #require(try await Self.firstItem(sandbox, "/api/v1/libraries/moderation/pending?page_size=1", token: token)["slug"] as? String)
                let report = try #require(try await Self.firstItem(sandbox, "/api/v1/libraries/moderation/reports?status=open", token: token)["id"] as? Int)
                let photo = try #require(try await Self.firstItem(sandbox, "/api/v1/libraries/moderation/photos?status=pending", token: token)["id"] as? Int)
                let store = try ModerationStore(path: directory.path("console.sqlite"))

                // act: the three decisions, through the first console
                for (path, decision, seen) in [
                    ("/libraries/\(slug)", "approve", "pending"), ("/reports/\(report)", "resolve", "open"), ("/photos/\(photo)", "approve", "pending"),
                ] {
                    let posted = try await RawForms.decide(path, decision: decision, seen: seen, base: serves.bases[0], session: session)
                    #expect(posted.status == 303, "\(path): \(posted.status)")
                }
                // While the runners wait out the bound, the page says why.
                var saidWhy = false
                let deadline = ContinuousClock.now + .seconds(90)
                var actions: [ModerationAction] = []
                while ContinuousClock.now < deadline {
                    actions = try await store.allActions()
                    if actions.count == 3, actions.allSatisfy({ $0.state.isFinal }) { break }
                    if !saidWhy {
                        let page = try await rawHTTP(.GET, serves.bases[1] + "/", headers: [("Cookie", session)])
                        saidWhy = page.text.contains("so that it is not sent twice")
                    }
                    try await Task.sleep(for: .milliseconds(500))
                }
                // Both consoles look again for a while: a second PATCH would show here.
                try await Task.sleep(for: .seconds(3))

                // check: one PATCH each reached Book Corners, and each decision was applied once
                for (path, kind) in [
                    ("/api/v1/libraries/moderation/\(slug)", ModerationAction.TargetKind.library),
                    ("/api/v1/libraries/moderation/reports/\(report)", .report), ("/api/v1/libraries/moderation/photos/\(photo)", .photo),
                ] {
                    let patches = await proxy.forwarded(.patch, path)
                    #expect(patches == 1, "\(kind): \(patches) PATCHes reached Book Corners")
                    let action = try #require(actions.first { $0.targetKind == kind })
                    #expect(action.state == .applied, "\(kind): \(action.state) \(action.outcomeMessage ?? "")")
                    #expect(action.outcomeMessage?.contains("(confirmed on re-check)") == true, "\(action.outcomeMessage ?? "")")
                }
                let audited = try await store.auditEntries(limit: 100).filter { $0.actionId != nil }
                #expect(audited.count == 3 && audited.allSatisfy { $0.outcome == .applied })
                #expect(saidWhy, "a page said why the decision waits")
                #expect(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token).jsonObject()?["status"] as? String == "approved")
            }
        }
    }

    @Test(
        "approve in one console and reject in the other, posted at once, five pairs: one PATCH each, the other decision not sent and naming who decided, and the submitter told at most once"
    )
    func twoProcessesDecideOneItemOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let origin = sandbox.baseURL.absoluteString.replacingOccurrences(of: "/api/v1/", with: "")
            // Each check read is held 300 ms, so both runners are checking at the same moment.
            try await FaultingProxy.run(to: origin, plan: { method, _, _ in method == .get ? .passAfter(.milliseconds(300)) : .pass }) { proxy, proxyOrigin in
                let serves = try await ConsoleBinary.startServes(2, backend: proxyOrigin, directory: directory, environment: Self.inFlightLimit)
                defer { serves.processes.forEach { $0.stop() } }
                let maria = try #require(try await RawForms.signIn(base: serves.bases[0], login: "maria", password: SeedAccounts.demoStaffPassword))
                let staff = try #require(try await RawForms.signIn(base: serves.bases[1], login: "staff", password: SeedAccounts.demoStaffPassword))
                let token = try await sandbox.accessToken()
                let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=5", token: token).jsonObject()
                let slugs = ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
                try #require(slugs.count == 5)
                let store = try ModerationStore(path: directory.path("console.sqlite"))

                // act: each pair posted at the same instant, maria approving and staff rejecting
                for slug in slugs {
                    async let approved = RawForms.decide("/libraries/\(slug)", decision: "approve", seen: "pending", base: serves.bases[0], session: maria)
                    async let rejected = RawForms.decide(
                        "/libraries/\(slug)", decision: "reject", seen: "pending", reason: "Not a book exchange", base: serves.bases[1], session: staff)
                    let answers = try await [approved.status, rejected.status]
                    #expect(answers == [303, 303], "\(slug): \(answers)")
                }
                var actions: [ModerationAction] = []
                let deadline = ContinuousClock.now + .seconds(90)
                while ContinuousClock.now < deadline {
                    actions = try await store.allActions()
                    if actions.count == 10, actions.allSatisfy({ $0.state.isFinal }) { break }
                    try await Task.sleep(for: .milliseconds(300))
                }
                try await Task.sleep(for: .seconds(3))

                // check: per library, one PATCH, one applied decision, the other not sent in words
                let outbox = try await store.outboxMessages(limit: 100)
                for slug in slugs {
                    let path = "/api/v1/libraries/moderation/\(slug)"
                    let patches = await proxy.forwarded(.patch, path)
                    #expect(patches == 1, "\(slug): \(patches) PATCHes")
                    let pair = actions.filter { $0.targetKey == slug }
                    let applied = pair.filter { $0.state == .applied }
                    let refused = pair.filter { $0.state == .conflict }
                    #expect(applied.count == 1 && refused.count == 1, "\(slug): \(pair.map { "\($0.actorUsername) \($0.state)" })")
                    if let winner = applied.first, let loser = refused.first {
                        #expect(
                            loser.outcomeMessage?.hasPrefix("Not sent: \(winner.actorUsername)'s decision reached Book Corners first") == true,
                            "\(loser.outcomeMessage ?? "")")
                        let status = try await sandbox.raw(.GET, path, token: token).jsonObject()?["status"] as? String
                        #expect(status == winner.statusWanted.rawValue, "Book Corners keeps the decision that was applied")
                        // Book Corners tells the submitter itself; the console keeps its copy for the record only.
                        let messages = outbox.filter { $0.actionId == winner.id }
                        #expect(messages.count == 1 && messages.allSatisfy(\.sentByBookCorners), "\(slug): \(messages.map(\.eventType))")
                        #expect(outbox.allSatisfy { $0.actionId != loser.id })
                    }
                }
            }
        }
    }

    private static func firstItem(_ sandbox: SandboxFixture, _ path: String, token: String) async throws -> [String: Any] {
        let list = try await sandbox.raw(.GET, path, token: token).jsonObject()
        return ((list?["items"] as? [[String: Any]]) ?? []).first ?? [:]
    }
}
