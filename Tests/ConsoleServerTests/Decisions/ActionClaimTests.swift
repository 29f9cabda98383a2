import BookCornersAPI
import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Two console processes on one database (a rolling deploy): each decision is claimed by one.
@Suite("Actions claimed by one runner at a time", .timeLimit(.minutes(3)))
struct ActionClaimTests {
    @Test("two runners on one database file: every action PATCHed once, audited once, notified at most once, none a conflict")
    func twoRunnersOneDatabase() async throws {
        try await SandboxFixture.run { sandbox in
            try await FaultingProxy.run(to: "http://127.0.0.1:\(sandbox.port)", plan: { _, _, _ in .pass }) { proxy, origin in
                // setup: two dependency sets (two pools, two runners) on the same file, one signed-in staff member
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                let configuration = ConsoleFixture.configuration(backendURL: try #require(URL(string: origin + "/api/v1/")), directory: directory)
                let first = try await makeDependencies(configuration: configuration, logger: ConsoleFixture.quietLogger)
                let second = try await makeDependencies(configuration: configuration, logger: ConsoleFixture.quietLogger)
                do {
                    let tokens = try await first.client.signIn(username: "staff", password: SeedAccounts.demoStaffPassword)
                    let account = try await first.client.me(StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh))
                    _ = try await first.sessions.start(account: account, tokens: tokens, clientAddress: "127.0.0.1", userAgent: "test")
                    let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=50", token: try await sandbox.accessToken())
                        .jsonObject()
                    let items = ((list?["items"] as? [[String: Any]]) ?? []).prefix(16)
                    let slugs = items.compactMap { $0["slug"] as? String }
                    // Only a library someone submitted has someone to tell.
                    let submitted = items.filter { $0["created_by"] is [String: Any] }.count
                    #expect(slugs.count == 16)
                    var ids: [Int64] = []
                    for slug in slugs {
                        ids.append(
                            try #require(
                                try await first.store.record(
                                    ModerationAction(
                                        idempotencyKey: UUID().uuidString, actorId: account.id, actorUsername: account.username, targetKind: .library,
                                        targetKey: slug, statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "test",
                                        clientAddress: "127.0.0.1", userAgent: "test", now: Date())
                                ).action.id))
                    }

                    // act: both work through the same due actions at the same time, a few passes each
                    async let one: Void = passes(first.runner, 3)
                    async let two: Void = passes(second.runner, 3)
                    _ = try await (one, two)

                    // check
                    for slug in slugs {
                        #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)") == 1, "\(slug) PATCHed once")
                    }
                    var states: [ModerationAction.State?] = []
                    for id in ids { states.append(try await first.store.action(id: id)?.state) }
                    #expect(states.allSatisfy { $0 == .applied }, "\(states)")
                    let audit = try await first.store.auditEntries(limit: 200).filter { $0.action == "library.approve" }
                    #expect(audit.count == ids.count)
                    #expect(Set(audit.compactMap(\.actionId)) == Set(ids))
                    #expect(audit.allSatisfy { $0.outcome == .applied })
                    let messages = try await first.store.outboxMessages(limit: 200)
                    // One message per submitted library's approval: the schema's unique key makes "at
                    // most one" certain, so what is checked is that none is missing or extra.
                    #expect(submitted > 0 && messages.count == submitted, "\(messages.count) messages for \(submitted) submitted libraries")
                    #expect(Set(messages.compactMap(\.actionId)).isSubset(of: Set(ids)))
                    #expect(messages.allSatisfy { $0.sentByBookCorners }, "approvals from pending, whichever runner confirmed them: recorded only")
                } catch {
                    try await first.client.shutdown()
                    try await second.client.shutdown()
                    throw error
                }
                try await first.client.shutdown()
                try await second.client.shutdown()
            }
        }
    }

    private func passes(_ runner: ActionRunner, _ count: Int) async throws {
        for _ in 0..<count { try await runner.workThroughDueActions() }
    }
}
