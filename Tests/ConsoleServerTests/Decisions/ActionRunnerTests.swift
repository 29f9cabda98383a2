import BookCornersAPI
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import ModerationStore
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("ActionRunner outcomes", .timeLimit(.minutes(3)))
struct ActionRunnerTests {
    /// The console's dependencies against a sandbox, with a signed-in staff session.
    private func withRunner(
        rateLimits: RateLimitPolicy? = nil, _ body: @escaping @Sendable (ConsoleDependencies, SandboxFixture, Account) async throws -> Void
    ) async throws {
        try await SandboxFixture.run(rateLimits: rateLimits) { sandbox in
            try await withDependencies(backendURL: sandbox.baseURL) { dependencies, account in try await body(dependencies, sandbox, account) }
        }
    }

    /// The same, with a proxy between the console and the sandbox that breaks calls as `plan` says.
    private func withRunner(
        behindProxy plan: @escaping FaultingProxy.Plan, mirror: MirrorConfiguration? = nil, crowdedQueues: Int = 0,
        sandboxDatabase: String? = nil,
        _ body: @escaping @Sendable (ConsoleDependencies, SandboxFixture, Account, FaultingProxy) async throws -> Void
    ) async throws {
        try await SandboxFixture.run(databasePath: sandboxDatabase, crowdedQueues: crowdedQueues) { sandbox in
            try await FaultingProxy.run(to: "http://127.0.0.1:\(sandbox.port)", plan: plan) { proxy, origin in
                let url = try #require(URL(string: origin + "/api/v1/"))
                try await withDependencies(backendURL: url, mirror: mirror) { dependencies, account in try await body(dependencies, sandbox, account, proxy) }
            }
        }
    }

    /// `signedIn: false` leaves the staff account without a session (its account still comes from the backend);
    /// `mirror` builds the mirror sync (not running), whose budget the checks before decisions spend.
    private func withDependencies(
        backendURL: URL, signedIn: Bool = true, mirror: MirrorConfiguration? = nil,
        _ body: @escaping @Sendable (ConsoleDependencies, Account) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = ConsoleFixture.configuration(backendURL: backendURL, directory: directory)
        configuration.mirror = mirror
        let dependencies = try await makeDependencies(configuration: configuration, logger: ConsoleFixture.quietLogger)
        do {
            let tokens = try await dependencies.client.signIn(username: "staff", password: SeedAccounts.demoStaffPassword)
            let account = try await dependencies.client.me(StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh))
            if signedIn {
                _ = try await dependencies.sessions.start(account: account, tokens: tokens, clientAddress: "127.0.0.1", userAgent: "test")
            }
            try await body(dependencies, account)
        } catch {
            try await dependencies.client.shutdown()
            try await dependencies.mirror?.client.shutdown()
            throw error
        }
        try await dependencies.client.shutdown()
        try await dependencies.mirror?.client.shutdown()
    }

    private func action(_ account: Account, slug: String, seen: ItemStatus = .pending, wanted: ItemStatus = .approved, actorId: Int? = nil) -> ModerationAction
    {
        ModerationAction(
            idempotencyKey: UUID().uuidString, actorId: actorId ?? account.id, actorUsername: account.username, targetKind: .library,
            targetKey: slug, statusSeen: seen, statusWanted: wanted, reason: "", requestId: "test", clientAddress: "127.0.0.1",
            userAgent: "test", now: Date())
    }

    private func pendingSlugs(_ sandbox: SandboxFixture, _ count: Int) async throws -> [String] {
        try await pendingLibraries(sandbox, count).map(\.slug)
    }

    /// Pending libraries someone submitted, with the submitter's user id (whom their news is pushed to).
    private func pendingLibraries(_ sandbox: SandboxFixture, _ count: Int) async throws -> [(slug: String, submitter: Int)] {
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=50", token: try await sandbox.accessToken()).jsonObject()
        return ((list?["items"] as? [[String: Any]]) ?? []).compactMap { item in
            guard let slug = item["slug"] as? String, let submitter = (item["created_by"] as? [String: Any])?["id"] as? Int else { return nil }
            return (slug, submitter)
        }.prefix(count).map { $0 }
    }

    /// Runs the outbox once through a transport that takes everything: answers the messages
    /// as they stand after it, and the deliveries the transport was handed.
    private func dispatchOutbox(_ store: ModerationStore) async throws -> (messages: [OutboxMessage], transport: ScriptedTransport) {
        let transport = ScriptedTransport()
        let dispatcher = OutboxDispatcher(store: store, transport: transport, policy: .standard, logger: ConsoleFixture.quietLogger)
        while try await dispatcher.deliverDueBatch() > 0 {}
        return await (try store.outboxMessages(), transport)
    }

    @Test(
        "a decision whose author Book Corners no longer calls staff fails in words, and their access ends at once: sessions gone, their other decisions held for colleagues to see"
    )
    func authorRemovedAtBookCorners() async throws {
        try await withRunner { dependencies, sandbox, account in
            // setup: two decisions of staff's, then staff made non-staff at Book Corners
            let slugs = try await pendingSlugs(sandbox, 2)
            let first = try #require(try await dependencies.store.record(action(account, slug: slugs[0])).action.id)
            var later = action(account, slug: slugs[1])
            later.nextAttemptAt = Date().addingTimeInterval(3_600)
            let second = try #require(try await dependencies.store.record(later).action.id)
            let admin = try await rawHTTP(.POST, "http://127.0.0.1:\(sandbox.port)/sandbox/admin/users/staff/staff?is_staff=false")
            try #require(admin.status == 200)

            // act
            try await dependencies.runner.workThroughDueActions()

            // check
            let failed = try #require(try await dependencies.store.action(id: first))
            #expect(failed.state == .failed && failed.outcomeMessage == "Not applied: Book Corners says staff is no longer staff.")
            let held = try #require(try await dependencies.store.action(id: second))
            #expect(held.isHeldForRemovedAuthor, "\(held.state) \(held.outcomeMessage ?? "")")
            #expect(try await dependencies.store.recentSessions(now: Date(), activeSince: .distantPast, limit: 10).isEmpty, "every session ended")
        }
    }

    @Test("a crash after the PATCH: on resume the re-check finds it applied; no second PATCH, one audit entry, one message")
    func resumeAfterCrash() async throws {
        try await withRunner { dependencies, sandbox, account in
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            var recorded = try await dependencies.store.record(action(account, slug: slug)).action
            let id = try #require(recorded.id)
            // The previous process claimed it under a 1-second lease and started its PATCH, which landed;
            // then it died, and its lease ran out.
            let claimedAt = Date()
            _ = try #require(try await dependencies.store.claim(id, owner: "dead-process", leaseUntil: claimedAt.addingTimeInterval(1), now: claimedAt))
            // As the runner starts a send: in flight until its deadline and the bound have passed.
            try await dependencies.store.beginSend(
                id, owner: "dead-process", inFlightUntil: claimedAt.addingTimeInterval(dependencies.runner.sendDeadline + 5), now: claimedAt)
            _ = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: try await sandbox.accessToken(), json: #"{"status": "approved"}"#)
            try await Task.sleep(until: .now + .seconds(max(0, 1.1 + claimedAt.timeIntervalSinceNow)))
            // Taken over, it first waits out the dead process's send deadline (its PATCH may still arrive).
            try await dependencies.runner.workThroughDueActions()
            let waiting = try #require(try await dependencies.store.action(id: id))
            #expect(waiting.state == .waiting, "\(waiting.state)")
            #expect(waiting.outcomeMessage?.contains("can no longer arrive") == true, "\(waiting.outcomeMessage ?? "")")
            #expect(waiting.nextAttemptAt > Date().addingTimeInterval(15), "the send's deadline: 2 × 10 s timeout + 1 s")
            try await dependencies.runner.workThroughDueActions(now: waiting.nextAttemptAt)
            recorded = try #require(try await dependencies.store.action(id: id))
            #expect(recorded.state == .applied)
            #expect(recorded.attempts == 1, "no second PATCH was tried")
            #expect(recorded.outcomeMessage?.contains("confirmed on re-check") == true)
            try await dependencies.runner.workThroughDueActions()
            let entries = try await dependencies.store.auditEntries().filter { $0.actionId == id }
            #expect(entries.count == 1)
            #expect(entries.first?.statusBefore == "pending", "the status seen before our change, not the re-read one")
            // Book Corners pushed "Your library is live" when our PATCH approved it: ours is recorded only.
            let (messages, transport) = try await dispatchOutbox(dependencies.store)
            #expect(messages.map(\.status) == [.recordedOnly])
            #expect(transport.calls == 0, "nothing pushed by the console")
        }
    }

    @Test("no session for the author: the decision is parked, and runs after they sign in")
    func parked() async throws {
        try await SandboxFixture.run { sandbox in
            try await withDependencies(backendURL: sandbox.baseURL, signedIn: false) { dependencies, account in
                // setup: the author's decision, queued while they have no session
                let slug = try #require(try await pendingSlugs(sandbox, 1).first)
                let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
                try await dependencies.runner.workThroughDueActions()
                let parked = try #require(try await dependencies.store.action(id: id))
                #expect(parked.state == .parked)
                #expect(parked.outcomeMessage?.contains("sign in again") == true)
                #expect(try await dependencies.store.dueActions(now: Date().addingTimeInterval(3_600)).isEmpty, "parked actions are not retried on their own")

                // act: the author signs in through the console's own form, then the runner makes its pass
                let app = Application(router: buildRouter(dependencies: dependencies), logger: ConsoleFixture.quietLogger)
                try await app.test(.router) { client in
                    let signedIn = try await Browser(client: client).signIn()
                    #expect(signedIn.status == .seeOther && signedIn.location == "/", "\(signedIn)")
                }
                try await dependencies.runner.workThroughDueActions()

                // check
                let finished = try #require(try await dependencies.store.action(id: id))
                #expect(finished.state == .applied, "\(finished.outcomeMessage ?? "")")
                #expect(try await backendStatus(sandbox, slug) == "approved")
            }
        }
    }

    @Test("an item that no longer exists: failed, audited, nobody notified")
    func missingItem() async throws {
        try await withRunner { dependencies, _, account in
            let id = try #require(try await dependencies.store.record(action(account, slug: "no-such-library")).action.id)
            try await dependencies.runner.workThroughDueActions()
            let failed = try #require(try await dependencies.store.action(id: id))
            #expect(failed.state == .failed)
            #expect(failed.outcomeMessage?.contains("no longer exists") == true)
            #expect(try await dependencies.store.auditEntries().first?.outcome == .failed)
            #expect(try await dependencies.store.outboxMessages().isEmpty)
        }
    }

    @Test("the backend refusing the decision (422) is final: failed, with its reason in words")
    func refused() async throws {
        try await withRunner { dependencies, sandbox, account in
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            var refused = action(account, slug: slug, wanted: .rejected)
            refused.reason = String(repeating: "x", count: 2_001)
            let id = try #require(try await dependencies.store.record(refused).action.id)
            try await dependencies.runner.workThroughDueActions()
            let failed = try #require(try await dependencies.store.action(id: id))
            #expect(failed.state == .failed && failed.backendStatus == 422)
            #expect(failed.outcomeMessage?.contains("rejection_reason") == true)
            #expect(try await dependencies.store.outboxMessages().isEmpty)
        }
    }

    @Test("429: the rest wait until the window says, then go")
    func rateLimited() async throws {
        try await withRunner(rateLimits: RateLimitPolicy(windowSeconds: 4, reads: 1_000, writes: 1, logins: 100, refreshes: 100)) {
            dependencies, sandbox, account in
            let slugs = try await pendingSlugs(sandbox, 2)
            try await waitPastBoundary(window: 4)
            var ids: [Int64] = []
            for slug in slugs { ids.append(try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)) }
            try await dependencies.runner.workThroughDueActions()
            var states: [ModerationAction.State?] = []
            for id in ids { states.append(try await dependencies.store.action(id: id)?.state) }
            #expect(states == [.applied, .waiting])
            let waiting = try #require(try await dependencies.store.action(id: ids[1]))
            #expect(waiting.backendStatus == 429 && waiting.nextAttemptAt > Date())
            try await Task.sleep(until: .now + .seconds(waiting.nextAttemptAt.timeIntervalSinceNow + 0.2))
            try await dependencies.runner.workThroughDueActions()
            #expect(try await dependencies.store.action(id: ids[1])?.state == .applied)
        }
    }

    @Test("with the reads kept for checks before decisions spent, a decision waits for the next window as for a 429, then goes out checked")
    func waitsForDecisionCheckBudget() async throws {
        // 6-s windows of 10 reads: the mirror may spend 5 per scope, checks before decisions included.
        try await withRunner(behindProxy: { _, _, _ in .pass }, mirror: MirrorFixture.mirror(window: 6, reads: 10)) { dependencies, sandbox, account, proxy in
            // setup: the library detail scope's budget spent for this window
            let sync = try #require(dependencies.mirror?.sync)
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            try await waitPastBoundary(window: 6)
            var granted = 0
            while await sync.reserveDecisionCheck(.libraryDetail).isGranted { granted += 1 }
            let windowEnd = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 6).rounded(.up) * 6)
            let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
            // act
            try await dependencies.runner.workThroughDueActions()
            let waiting = try #require(try await dependencies.store.action(id: id))
            let readsWhileWaiting = await proxy.forwarded(.get, "/api/v1/libraries/moderation/\(slug)")
            let patchesWhileWaiting = await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)")
            try await Task.sleep(until: .now + .seconds(waiting.nextAttemptAt.timeIntervalSinceNow + 0.2))
            try await dependencies.runner.workThroughDueActions()
            // check
            #expect(granted == 5, "the mirror's whole budget for the scope")
            #expect(waiting.state == .waiting && waiting.outcomeMessage?.contains("next try") == true, "\(waiting.outcomeMessage ?? "")")
            #expect(abs(waiting.nextAttemptAt.timeIntervalSince(windowEnd)) < 0.01, "next try at the window's end")
            #expect(readsWhileWaiting == 0 && patchesWhileWaiting == 0, "nothing read or sent over budget, nothing sent unchecked")
            #expect(try await dependencies.store.action(id: id)?.state == .applied)
            let calls = await proxy.forwardedLog().filter { $0.path == "/api/v1/libraries/moderation/\(slug)" }.map(\.method)
            #expect(calls == [.get, .patch], "checked, then sent")
        }
    }

    @Test("a PATCH answered 503 after it took effect: the next try finds it applied and does not send it again")
    func serverErrorAfterApplying() async throws {
        try await withRunner(behindProxy: firstLibraryPatch(.answerAfterForwarding(.serviceUnavailable))) { dependencies, sandbox, account, proxy in
            let (slug, id, waiting) = try await approveOnce(dependencies, sandbox, account)
            #expect(waiting.nextAttemptAt > Date(), "backs off instead of trying again at once")
            try await dependencies.runner.workThroughDueActions(now: waiting.nextAttemptAt.addingTimeInterval(1))
            let applied = try #require(try await dependencies.store.action(id: id))
            #expect(applied.state == .applied)
            #expect(applied.outcomeMessage?.contains("confirmed on re-check") == true)
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)") == 1, "sent once")
            let entries = try await dependencies.store.auditEntries().filter { $0.actionId == id }
            #expect(entries.count == 1)
            #expect(entries.first?.statusBefore == "pending")
            let (messages, transport) = try await dispatchOutbox(dependencies.store)
            #expect(messages.map(\.status) == [.recordedOnly], "Book Corners pushed the approval itself")
            #expect(transport.calls == 0)
        }
    }

    @Test(
        "a PATCH whose answer is lost (forwarded, then the connection dropped): confirmed on re-check with the status seen before, its push recorded only, nothing at APNs"
    )
    func lostAnswerConfirmedWithoutSecondPush() async throws {
        try await APNsStandInFixture.run { apns in
            try await withRunner(behindProxy: firstLibraryPatch(.dropAnswerAfterForwarding)) { dependencies, sandbox, account, proxy in
                // setup: the submitter has a phone
                let (slug, submitter) = try #require(try await pendingLibraries(sandbox, 1).first)
                try await dependencies.store.addDevice(
                    userID: submitter, token: SandboxDeviceTokens.token(userID: submitter), environment: .sandbox, now: Date())
                let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
                // act: the PATCH lands but its answer never comes; the next pass re-checks
                try await dependencies.runner.workThroughDueActions()
                let waiting = try #require(try await dependencies.store.action(id: id))
                try await dependencies.runner.workThroughDueActions(now: waiting.nextAttemptAt.addingTimeInterval(1))
                try await apns.deliverDueMessages(of: dependencies.store)
                // check
                #expect(waiting.state == .waiting, "\(waiting.state): \(waiting.outcomeMessage ?? "")")
                let applied = try #require(try await dependencies.store.action(id: id))
                #expect(applied.state == .applied && applied.outcomeMessage?.contains("confirmed on re-check") == true, "\(applied.outcomeMessage ?? "")")
                #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)") == 1, "one PATCH at the backend")
                #expect(try await backendStatus(sandbox, slug) == "approved")
                let entries = try await dependencies.store.auditEntries().filter { $0.actionId == id }
                #expect(entries.count == 1)
                let entry = try #require(entries.first)
                #expect(entry.outcome == .applied && entry.outcomeDetail.contains("confirmed on re-check"), "\(entry.outcome) \(entry.outcomeDetail)")
                #expect(entry.statusBefore == "pending" && entry.statusAfter == "approved")
                let message = try #require(try await dependencies.store.outboxMessages().first)
                #expect(try await dependencies.store.outboxMessages().count == 1)
                #expect(message.eventType == .libraryApproved && message.sentByBookCorners)
                #expect(message.status == .recordedOnly, "Book Corners sent 'Your library is live' itself")
                #expect(await apns.standIn.log.total == 0, "the APNs stand-in receives nothing")
            }
        }
    }

    @Test("a PATCH answered 502 that never arrived: the next try sends it again and it applies")
    func serverErrorBeforeApplying() async throws {
        try await withRunner(behindProxy: firstLibraryPatch(.answerWithoutForwarding(.badGateway))) { dependencies, sandbox, account, proxy in
            let (slug, id, waiting) = try await approveOnce(dependencies, sandbox, account)
            #expect(waiting.outcomeMessage?.contains("Next try") == true)
            #expect(try await backendStatus(sandbox, slug) == "pending")
            try await dependencies.runner.workThroughDueActions(now: waiting.nextAttemptAt.addingTimeInterval(1))
            #expect(try await dependencies.store.action(id: id)?.state == .applied)
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)") == 1)
            #expect(try await backendStatus(sandbox, slug) == "approved")
            #expect(try await dependencies.store.auditEntries().filter { $0.actionId == id }.count == 1)
        }
    }

    @Test("a PATCH answered 502 by a proxy never arrived: if someone else then sets the same status, it is their decision, not ours")
    func knownNotAppliedIsNotConfirmed() async throws {
        try await withRunner(behindProxy: firstLibraryPatch(.answerWithoutForwarding(.badGateway))) { dependencies, sandbox, account, proxy in
            // setup: our PATCH is refused by the proxy; meanwhile another moderator approves the same library
            let (slug, id, waiting) = try await approveOnce(dependencies, sandbox, account)
            let other = try await sandbox.accessToken(username: "maria")
            _ = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: other, json: #"{"status": "approved"}"#)
            // act
            try await dependencies.runner.workThroughDueActions(now: waiting.nextAttemptAt.addingTimeInterval(1))
            // check
            let finished = try #require(try await dependencies.store.action(id: id))
            #expect(finished.state == .conflict, "\(finished.state): \(finished.outcomeMessage ?? "")")
            #expect(finished.outcomeMessage?.contains("confirmed on re-check") != true)
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)") == 0, "ours never reached the backend")
            #expect(try await dependencies.store.outboxMessages().isEmpty, "nobody is told we approved it")
        }
    }

    @Test("a token this process cannot decrypt (another token key): the action is parked with a reason, not retried at once")
    func undecryptableTokenParks() async throws {
        try await SandboxFixture.run { sandbox in
            try await withDependencies(backendURL: sandbox.baseURL) { dependencies, account in
                // setup: a second process on the same database with a different token key
                var configuration = dependencies.configuration
                configuration.tokenKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                let other = try await makeDependencies(configuration: configuration, logger: ConsoleFixture.quietLogger)
                let id: Int64
                do {
                    let slug = try #require(try await pendingSlugs(sandbox, 1).first)
                    id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
                    // act
                    try await other.runner.workThroughDueActions()
                } catch {
                    // A client dropped without its shutdown ends the whole test process.
                    try await other.client.shutdown()
                    throw error
                }
                try await other.client.shutdown()
                // check
                let parked = try #require(try await dependencies.store.action(id: id))
                #expect(parked.state == .parked, "\(parked.state)")
                #expect(parked.outcomeMessage?.contains("sign in again") == true, "\(parked.outcomeMessage ?? "")")
                #expect(try await !dependencies.store.dueActions(now: Date().addingTimeInterval(1)).contains { $0.id == id }, "not due again at once")
            }
        }
    }

    @Test("a local failure (storing the outcome fails) backs off instead of retrying at once; once it clears, the re-check confirms it, sent once")
    func localFailureBacksOff() async throws {
        try await withRunner(behindProxy: { _, _, _ in .pass }) { dependencies, sandbox, account, proxy in
            // setup: the audit table refuses inserts, as a database in trouble would
            let database = try DatabaseQueue.waiting(path: dependencies.configuration.databasePath)
            try await database.write { db in
                try db.execute(sql: "CREATE TRIGGER brokenDisk BEFORE INSERT ON auditEntry BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
            }
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
            // act
            try await dependencies.runner.workThroughDueActions()
            // check: not due again at once, and says why
            let backedOff = try #require(try await dependencies.store.action(id: id))
            #expect(!backedOff.state.isFinal)
            #expect(backedOff.nextAttemptAt > Date().addingTimeInterval(1), "\(backedOff.state) \(backedOff.nextAttemptAt)")
            #expect(try await !dependencies.store.dueActions(now: Date()).contains { $0.id == id })
            // act: the database recovers
            try await database.write { db in try db.execute(sql: "DROP TRIGGER brokenDisk") }
            try database.close()
            try await dependencies.runner.workThroughDueActions(now: backedOff.nextAttemptAt.addingTimeInterval(20))
            // check
            let applied = try #require(try await dependencies.store.action(id: id))
            #expect(applied.state == .applied, "\(applied.state): \(applied.outcomeMessage ?? "")")
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/\(slug)") == 1, "sent once")
            #expect(try await dependencies.store.auditEntries().filter { $0.actionId == id }.count == 1)
        }
    }

    @Test("a report behind 1 100 newer open ones is found with the status and reason the moderator saw, in one read")
    func reportFoundWithNarrowFilter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sandboxDatabase = directory.path("sandbox.sqlite")
        try await SandboxFixture.run(databasePath: sandboxDatabase) { sandbox in
            // setup: the oldest open report not about damage, behind 1 100 newer open reports about damage
            let token = try await sandbox.accessToken()
            let open = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=open&page_size=50", token: token).jsonObject()
            let oldest = try #require(((open?["items"] as? [[String: Any]]) ?? []).last { $0["reason"] as? String != "damaged" })
            let reportID = try #require(oldest["id"] as? Int)
            let reportReason = try #require(oldest["reason"] as? String)
            let database = try DatabaseQueue.waiting(path: sandboxDatabase)
            try await database.write { db in
                let libraryID = try Int.fetchOne(db, sql: "SELECT MIN(id) FROM library") ?? 1
                for index in 0..<1_100 {
                    try db.execute(
                        sql:
                            "INSERT INTO report (libraryId, createdById, reason, details, photoUrl, status, createdAt) VALUES (?, NULL, 'damaged', ?, '', 'open', ?)",
                        arguments: [libraryID, "filler \(index)", Date()])
                }
            }
            try database.close()
            try await FaultingProxy.run(to: "http://127.0.0.1:\(sandbox.port)", plan: { _, _, _ in .pass }) { proxy, origin in
                try await withDependencies(backendURL: try #require(URL(string: origin + "/api/v1/"))) { dependencies, account in
                    var decision = ModerationAction(
                        idempotencyKey: UUID().uuidString, actorId: account.id, actorUsername: account.username, targetKind: .report,
                        targetKey: String(reportID), statusSeen: .open, statusWanted: .resolved, reason: "", requestId: "test",
                        clientAddress: "127.0.0.1", userAgent: "test", now: Date())
                    decision.reportReason = ReportReason(rawValue: reportReason)
                    let id = try #require(try await dependencies.store.record(decision).action.id)
                    // act
                    try await dependencies.runner.workThroughDueActions()
                    // check
                    let finished = try #require(try await dependencies.store.action(id: id))
                    #expect(finished.state == .applied, "\(finished.state): \(finished.outcomeMessage ?? "")")
                    #expect(await proxy.forwarded(.get, "/api/v1/libraries/moderation/reports") == 1, "one read")
                }
            }
        }
    }

    @Test("a report whose status changed since the moderator saw it: a conflict naming the new status, in a few reads")
    func reportChangedIsConflict() async throws {
        try await SandboxFixture.run { sandbox in
            try await FaultingProxy.run(to: "http://127.0.0.1:\(sandbox.port)", plan: { _, _, _ in .pass }) { proxy, origin in
                try await withDependencies(backendURL: try #require(URL(string: origin + "/api/v1/"))) { dependencies, account in
                    // setup: an open report that someone else dismisses after the moderator saw it
                    let token = try await sandbox.accessToken()
                    let open = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=open&page_size=50", token: token).jsonObject()
                    let reportID = try #require(((open?["items"] as? [[String: Any]]) ?? []).first?["id"] as? Int)
                    _ = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/reports/\(reportID)", token: token, json: #"{"status": "dismissed"}"#)
                    let id = try #require(
                        try await dependencies.store.record(
                            ModerationAction(
                                idempotencyKey: UUID().uuidString, actorId: account.id, actorUsername: account.username, targetKind: .report,
                                targetKey: String(reportID), statusSeen: .open, statusWanted: .resolved, reason: "", requestId: "test",
                                clientAddress: "127.0.0.1", userAgent: "test", now: Date())
                        ).action.id)
                    // act
                    try await dependencies.runner.workThroughDueActions()
                    // check
                    let finished = try #require(try await dependencies.store.action(id: id))
                    #expect(finished.state == .conflict)
                    #expect(finished.outcomeMessage?.contains("dismissed") == true, "\(finished.outcomeMessage ?? "")")
                    #expect(await proxy.forwarded(.get, "/api/v1/libraries/moderation/reports") <= 3)
                    #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/reports/\(reportID)") == 0)
                }
            }
        }
    }

    /// A mirror whose budget never limits the test, so the mirror can be filled and checks reserved at will.
    private static let roomyMirror = MirrorFixture.mirror(window: 300, reads: 100_000)

    /// Fills the console's mirror once, straight from the sandbox (the proxy counts only the runner's reads).
    private func fillMirror(_ dependencies: ConsoleDependencies, _ sandbox: SandboxFixture) async throws {
        let filler = try MirrorFiller(databasePath: dependencies.configuration.databasePath, backendURL: sandbox.baseURL)
        await filler.fill()
        try await filler.shutdown()
        #expect(try await dependencies.store.mirrorScopeState(.photoList).lastPassCompletedAt != nil, "the mirror holds every photo")
        #expect(try await dependencies.store.mirrorScopeState(.reportList).lastPassCompletedAt != nil, "the mirror holds every report")
    }

    private func decision(
        _ account: Account, _ kind: ModerationAction.TargetKind, _ id: Int, seen: ItemStatus, wanted: ItemStatus, reportReason: String? = nil
    ) -> ModerationAction {
        var action = ModerationAction(
            idempotencyKey: UUID().uuidString, actorId: account.id, actorUsername: account.username, targetKind: kind,
            targetKey: String(id), statusSeen: seen, statusWanted: wanted, reason: "", requestId: "test", clientAddress: "127.0.0.1",
            userAgent: "test", now: Date())
        action.reportReason = reportReason.flatMap(ReportReason.init(rawValue:))
        return action
    }

    /// The last item of a sandbox list (its oldest), and the page it is on.
    private func oldest(_ sandbox: SandboxFixture, _ list: String) async throws -> (item: [String: Any], page: Int) {
        let answer = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(list)&page=1000&page_size=50", token: try await sandbox.accessToken())
            .jsonObject()
        let item = try #require((answer?["items"] as? [[String: Any]])?.last)
        return (item, ((answer?["pagination"] as? [String: Any])?["page"] as? Int) ?? 0)
    }

    @Test(
        "the oldest pending photo and the oldest open report, behind 550 newer ones each: found where the mirror places them, in at most two reads each, and applied"
    )
    func oldestInCrowdedQueues() async throws {
        try await withRunner(behindProxy: { _, _, _ in .pass }, mirror: Self.roomyMirror, crowdedQueues: 550) { dependencies, sandbox, account, proxy in
            // setup
            try await fillMirror(dependencies, sandbox)
            let photo = try await oldest(sandbox, "photos?status=pending")
            let photoID = try #require(photo.item["id"] as? Int)
            let reason = try #require(try await oldest(sandbox, "reports?status=open").item["reason"] as? String)
            let report = try await oldest(sandbox, "reports?status=open&reason=\(reason)")
            let reportID = try #require(report.item["id"] as? Int)
            #expect(photo.page > 10 && report.page > 10, "beyond the 500 newest of their lists")
            let photoAction = try #require(try await dependencies.store.record(decision(account, .photo, photoID, seen: .pending, wanted: .approved)).action.id)
            let reportAction = try #require(
                try await dependencies.store.record(
                    decision(account, .report, reportID, seen: .open, wanted: .resolved, reportReason: reason)
                ).action.id)
            // act
            try await dependencies.runner.workThroughDueActions()
            // check
            for id in [photoAction, reportAction] {
                let finished = try #require(try await dependencies.store.action(id: id))
                #expect(finished.state == .applied, "\(finished.state): \(finished.outcomeMessage ?? "")")
            }
            #expect(await proxy.forwarded(.get, "/api/v1/libraries/moderation/photos") <= 2)
            #expect(await proxy.forwarded(.get, "/api/v1/libraries/moderation/reports") <= 2)
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/photos/\(photoID)") == 1)
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/reports/\(reportID)") == 1)
            let token = try await sandbox.accessToken()
            let approved = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/photos?status=approved&page_size=50", token: token).jsonObject()
            #expect(((approved?["items"] as? [[String: Any]]) ?? []).contains { $0["id"] as? Int == photoID }, "approved at Book Corners")
            let resolved = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=resolved&page_size=50", token: token).jsonObject()
            #expect(((resolved?["items"] as? [[String: Any]]) ?? []).contains { $0["id"] as? Int == reportID }, "resolved at Book Corners")
        }
    }

    @Test(
        "with the mirror on, the check before a library decision is one HTTP request, as for reports and photos: a 503 on it is not retried, it waits, and the budget counts one read"
    )
    func libraryCheckReadsOnce() async throws {
        try await withRunner(
            behindProxy: { method, path, call in
                method == .get && path.hasPrefix("/api/v1/libraries/moderation/") && !path.hasSuffix("/pending") && call == 1
                    ? .answerWithoutForwarding(.serviceUnavailable) : .pass
            }, mirror: Self.roomyMirror
        ) { dependencies, sandbox, account, proxy in
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
            try await dependencies.runner.workThroughDueActions()
            let waiting = try #require(try await dependencies.store.action(id: id))
            #expect(waiting.state == .waiting, "\(waiting.state): \(waiting.outcomeMessage ?? "")")
            #expect(await proxy.arrived(.get, "/api/v1/libraries/moderation/\(slug)") == 1, "one request, no retries")
            #expect(await proxy.arrived(.patch, "/api/v1/libraries/moderation/\(slug)") == 0, "never sent unchecked")
        }
    }

    @Test("a mirrored photo Book Corners no longer lists waits and says why, never a conflict; past the limit it fails, in words")
    func mirroredItemNotFound() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sandboxDatabase = directory.path("sandbox.sqlite")
        try await withRunner(behindProxy: { _, _, _ in .pass }, mirror: Self.roomyMirror, sandboxDatabase: sandboxDatabase) {
            dependencies, sandbox, account, proxy in
            // setup: a pending photo the mirror holds, then deleted at Book Corners
            try await fillMirror(dependencies, sandbox)
            let photoID = try #require(try await oldest(sandbox, "photos?status=pending").item["id"] as? Int)
            let database = try DatabaseQueue.waiting(path: sandboxDatabase)
            try await database.write { db in try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [photoID]) }
            try database.close()
            let id = try #require(try await dependencies.store.record(decision(account, .photo, photoID, seen: .pending, wanted: .approved)).action.id)
            // act
            try await dependencies.runner.workThroughDueActions()
            // check: waiting, with words
            let waiting = try #require(try await dependencies.store.action(id: id))
            #expect(waiting.state == .waiting, "\(waiting.state): \(waiting.outcomeMessage ?? "")")
            let said = waiting.outcomeMessage ?? ""
            #expect(said.contains("did not list this photo") && said.contains("stops trying at"), "\(said)")
            #expect(!said.contains("someone else"), "nobody is blamed: \(said)")
            #expect(waiting.notFoundSince != nil)
            #expect(await proxy.forwarded(.get, "/api/v1/libraries/moderation/photos") <= 2)
            // act: the next try, past the time it is looked for
            let impatient = ActionRunner(
                store: dependencies.store, client: dependencies.client, sessions: dependencies.sessions, logger: ConsoleFixture.quietLogger,
                bundleID: "test", forwardClientAddress: false, notFoundLimit: 0)
            try await impatient.workThroughDueActions(now: waiting.nextAttemptAt)
            // check: failed, with words; never sent, nobody notified
            let failed = try #require(try await dependencies.store.action(id: id))
            #expect(failed.state == .failed, "\(failed.state): \(failed.outcomeMessage ?? "")")
            #expect(failed.outcomeMessage?.contains("may have been deleted") == true, "\(failed.outcomeMessage ?? "")")
            #expect(try await dependencies.store.auditEntries().first { $0.actionId == id }?.outcome == .failed)
            #expect(await proxy.forwarded(.patch, "/api/v1/libraries/moderation/photos/\(photoID)") == 0)
            #expect(try await dependencies.store.outboxMessages().isEmpty)
        }
    }

    @Test("a decision a restore brought back, which the console had sent before it: not sent again, and the outcome says a restore happened")
    func restoredDecisionAlreadyApplied() async throws {
        try await withRunner { dependencies, sandbox, account in
            // setup: approved at Book Corners by the console as it was before the restore
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            _ = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: try await sandbox.accessToken(), json: #"{"status": "approved"}"#)
            var restored = action(account, slug: slug)
            restored.restoredAt = Date()
            let id = try #require(try await dependencies.store.record(restored).action.id)
            // act
            try await dependencies.runner.workThroughDueActions()
            // check
            let finished = try #require(try await dependencies.store.action(id: id))
            #expect(finished.state == .conflict)
            #expect(finished.attempts == 0, "not sent again")
            #expect(finished.outcomeMessage?.contains("restored from a backup") == true, "\(finished.outcomeMessage ?? "")")
            #expect(finished.outcomeMessage?.contains("someone else") == false)
            #expect(try await dependencies.store.outboxMessages().isEmpty, "nobody is told twice")
        }
    }

    @Test(
        "a PATCH held past the lease while the first runner cannot renew it (another process holds the database): a second runner on the same database never sends it again"
    )
    func leaseOutlastsSlowPatch() async throws {
        let slowPatch: FaultingProxy.Plan = { method, _, _ in method == .patch ? .passAfter(.seconds(8)) : .pass }
        try await withRunner(behindProxy: slowPatch) { dependencies, sandbox, account, proxy in
            // setup: two runners with 1-second leases on one database
            let slug = try #require(try await pendingSlugs(sandbox, 1).first)
            let path = "/api/v1/libraries/moderation/\(slug)"
            let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
            let runners = (0..<2).map { _ in
                ActionRunner(
                    store: dependencies.store, client: dependencies.client, sessions: dependencies.sessions, logger: ConsoleFixture.quietLogger,
                    bundleID: "test", forwardClientAddress: false, leaseSeconds: 1)
            }
            // act: the first sends; once its PATCH is held, another process takes the write lock
            // for 6 s, past the 5-second busy timeout, so the first runner's renewals fail meanwhile
            let first = Task { try await runners[0].workThroughDueActions() }
            let arrival = ContinuousClock.now + .seconds(20)
            while await proxy.arrived(.patch, path) == 0, ContinuousClock.now < arrival { try await Task.sleep(for: .milliseconds(20)) }
            #expect(await proxy.arrived(.patch, path) == 1, "the first runner sent its PATCH")
            let held = try await HeldWriteLock.take(dependencies.configuration.databasePath, for: 6)
            // The second runner tries all along, as another console process would.
            let end = ContinuousClock.now + .seconds(14)
            while ContinuousClock.now < end {
                try? await runners[1].workThroughDueActions()
                try await Task.sleep(for: .milliseconds(200))
            }
            try await held.release()
            try await first.value
            // check
            #expect(await proxy.forwarded(.patch, path) == 1, "one PATCH at Book Corners")
            let finished = try #require(try await dependencies.store.action(id: id))
            #expect(finished.state == .applied, "\(finished.state): \(finished.outcomeMessage ?? "")")
            #expect(finished.attempts == 1)
            #expect(try await backendStatus(sandbox, slug) == "approved")
        }
    }

    /// Breaks the first PATCH of a library with `fault`; everything else passes.
    private func firstLibraryPatch(_ fault: FaultingProxy.Fault) -> FaultingProxy.Plan {
        { method, path, call in method == .patch && path.hasPrefix("/api/v1/libraries/moderation/") && call == 1 ? fault : .pass }
    }

    /// Queues an approval of a pending library and makes one pass, which must leave it waiting.
    private func approveOnce(
        _ dependencies: ConsoleDependencies, _ sandbox: SandboxFixture, _ account: Account
    ) async throws -> (slug: String, id: Int64, waiting: ModerationAction) {
        let slug = try #require(try await pendingSlugs(sandbox, 1).first)
        let id = try #require(try await dependencies.store.record(action(account, slug: slug)).action.id)
        try await dependencies.runner.workThroughDueActions()
        let waiting = try #require(try await dependencies.store.action(id: id))
        #expect(waiting.state == .waiting)
        return (slug, id, waiting)
    }

    private func backendStatus(_ sandbox: SandboxFixture, _ slug: String) async throws -> String? {
        try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: try await sandbox.accessToken()).jsonObject()?["status"] as? String
    }

    private func waitPastBoundary(window: Double) async throws {
        let left = window - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: window)
        if left < 2.5 { try await Task.sleep(for: .milliseconds(Int(left * 1000) + 50)) }
    }
}
