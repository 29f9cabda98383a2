import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// What a restore does to the outbox: messages that were waiting when the backup was taken may
/// have gone out since, so they are held for a person to send or discard, never re-sent silently.
@Suite("Outbox after a restore", .timeLimit(.minutes(3)))
struct OutboxRestoreTests {
    /// A database restored from a backup taken while `waiting` messages were pending, all of
    /// which were delivered after the backup (the database replaced says so); `before` was
    /// delivered before the backup.
    private struct Restored {
        let path: String
        let before: OutboxMessage
        let waiting: [OutboxMessage]
        /// What the dispatcher of the database replaced delivered, before and after the backup.
        let deliveredBeforeRestore: [String]
    }

    private func restoredDatabase(in directory: TemporaryDirectory) async throws -> Restored {
        let path = directory.path("console.sqlite")
        let backup = directory.path("backup.sqlite")
        let filler = OutboxFiller(path: path)
        let transport = ScriptedTransport()
        let before = try await filler.add(1, firstRecipient: 90)[0]
        try await filler.addDevices(for: [90])
        let waiting: [OutboxMessage]
        do {
            let store = try ModerationStore(path: path)
            let dispatcher = OutboxDispatcher(store: store, transport: transport, policy: .standard, logger: ConsoleFixture.quietLogger)
            try await dispatcher.deliverDueBatch()
            waiting = try await filler.add(2, firstRecipient: 91)
            try await filler.addDevices(for: 91..<93)
            _ = try store.backup(to: backup)
            // After the backup: both go out.
            try await dispatcher.deliverDueBatch()
        }
        _ = try ModerationStore.restore(from: backup, to: path, auditKey: nil)
        return Restored(path: path, before: before, waiting: waiting, deliveredBeforeRestore: transport.delivered.map(\.messageID))
    }

    @Test("messages pending in the backup are held after a restore, with what the replaced database knew: nothing is pushed again on its own")
    func restoreHolds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let restored = try await restoredDatabase(in: directory)
        let store = try ModerationStore(path: restored.path)
        let transport = ScriptedTransport()
        let dispatcher = OutboxDispatcher(store: store, transport: transport, policy: .standard, logger: ConsoleFixture.quietLogger)
        // act: a console starts on the restored database and its dispatcher runs
        let handled = try await dispatcher.deliverDueBatch()
        // check
        #expect(Set(restored.deliveredBeforeRestore) == Set(([restored.before] + restored.waiting).map(\.id)))
        #expect(handled == 0 && transport.calls == 0, "nothing re-sent silently")
        await #expect(try store.outboxMessage(id: restored.before.id)?.status == .delivered)
        for message in restored.waiting {
            let held = try await #require(try store.outboxMessage(id: message.id))
            #expect(held.status.rawValue == "held", "\(held.status)")
            #expect(held.lastReason.contains("may have gone out after the backup"), "\(held.lastReason)")
            #expect(held.lastReason.contains("The database the restore replaced says it was delivered"), "\(held.lastReason)")
        }
        await #expect(try store.outboxMessages().filter { $0.status.rawValue == "held" }.count == 2)
    }

    @Test("the Outbox page lists held messages; Send (confirmed, audited) delivers one, Discard (confirmed, audited) keeps the other; both need the CSRF token")
    func sendOrDiscardHeld() async throws {
        let prepared = try TemporaryDirectory()
        defer { prepared.remove() }
        let restored = try await restoredDatabase(in: prepared)
        let (sent, discarded) = (restored.waiting[0], restored.waiting[1])
        let transport = ScriptedTransport()
        try await ConsoleFixture.withConsole(
            mirror: .empty,
            configure: { settings in
                settings.databasePath = restored.path
                settings.outbox = OutboxDeliveryConfiguration(
                    transport: .custom(transport, description: "A scripted transport"), dispatcher: .init(idlePoll: 0.1))
            }
        ) { browser, _, _ in
            try await browser.signIn()
            // the list shows them apart, each with its two buttons
            let list = try await browser.get("/outbox")
            #expect(list.contains(#"<h2 id="held-heading">Held after a restore</h2>"#), "\(list.html)")
            for message in restored.waiting {
                #expect(list.contains(#"<form method="post" action="/outbox/\#(message.id)/retry""#))
                #expect(list.contains(#"<form method="post" action="/outbox/\#(message.id)/discard""#))
            }
            // without the CSRF token: refused
            #expect(try await browser.post("/outbox/\(sent.id)/retry", form: [("confirmed", "1")]).status == .forbidden)
            // Send asks first
            let confirm = try await browser.post("/outbox/\(sent.id)/retry", form: [("csrf", list.csrfToken ?? "")])
            #expect(confirm.contains("Send this held message?"))
            #expect(transport.calls == 0)
            try await browser.post("/outbox/\(sent.id)/retry", form: [("csrf", list.csrfToken ?? ""), ("confirmed", "1")])
            try await browser.post("/outbox/\(discarded.id)/discard", form: [("csrf", list.csrfToken ?? ""), ("confirmed", "1")])
            // check
            let store = try ModerationStore(path: restored.path)
            for _ in 0..<100 where try await store.outboxMessage(id: sent.id)?.status != .delivered {
                try await Task.sleep(for: .milliseconds(50))
            }
            await #expect(try store.outboxMessage(id: sent.id)?.status == .delivered)
            await #expect(try store.outboxMessage(id: discarded.id)?.status == .discarded)
            #expect(transport.delivered.map(\.messageID) == [sent.id], "only the one a person chose to send")
            let entries = try await store.auditEntries(limit: 10)
            let send = try #require(entries.first { $0.action == "outbox.send" })
            #expect(send.targetId == sent.id && send.statusBefore == "held" && send.statusAfter == "pending")
            let discard = try #require(entries.first { $0.action == "outbox.discard" })
            #expect(discard.targetId == discarded.id && discard.statusBefore == "held" && discard.statusAfter == "discarded")
            #expect(!(try await browser.get("/outbox")).contains(#"id="held-heading""#), "none held any more")
        }
    }
}
