import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Cancel on the Pending actions panel: a decision not yet sent is taken back (audited), the
/// item is left to decide again; once a runner is sending it, Cancel is refused in words.
@Suite("Decisions: Cancel before it is sent", .timeLimit(.minutes(3)))
struct DecisionCancelTests {
    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    /// A decision of `actorId` waiting an hour for Book Corners' limits.
    private func waiting(_ store: ModerationStore, slug: String, actorId: Int) async throws -> ModerationAction {
        var action = ModerationAction(
            idempotencyKey: "waiting-\(slug)", actorId: actorId, actorUsername: SeedAccounts.demoStaffUsername, targetKind: .library, targetKey: slug,
            statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
        action.state = .waiting
        action.nextAttemptAt = Date().addingTimeInterval(3_600)
        return try await store.record(action).action
    }

    @Test("the panel offers Cancel on a waiting decision; it is cancelled and audited, the row offers Approve again; a second Cancel says it already was")
    func cancelWaiting() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try store(directory)
            let library = try #require(try await store.oldestMirroredLibraries(status: .pending, count: 1).first)
            let staffID = try await #require(try store.latestSessionStaffID())
            let action = try await waiting(store, slug: library.slug, actorId: staffID)
            let id = try #require(action.id)
            let list = try await browser.get("/libraries")
            #expect(list.contains(#"<form method="post" action="/decisions/\#(id)/cancel" class="pending-cancel">"#), "Cancel on the panel")
            #expect(!list.item(containing: "data-item=\"library:\(library.slug)\"").contains("button[name=quick]"))
            // act
            let answer = try await browser.post("/decisions/\(id)/cancel", form: [("csrf", list.csrfToken ?? "")])
            // check
            #expect(answer.status == .seeOther)
            let after = try await browser.get(try #require(answer.location))
            #expect(after.contains("Cancelled: Approve"), "\(after.html.prefix(3000))")
            #expect(after.contains("was not sent, and nothing changed at Book Corners."))
            #expect(try await store.action(id: id)?.state == .cancelled)
            let entry = try #require(try await store.auditEntries(limit: 5).first { $0.action == "decision.cancel" })
            #expect(entry.targetId == library.slug && entry.actorUsername == SeedAccounts.demoStaffUsername && entry.actionId == id)
            let row = try await browser.get("/libraries").item(containing: "data-item=\"library:\(library.slug)\"")
            #expect(!row.contains("queued by") && !row.contains("Cancelled"), "the row waits as before: \(row)")
            #expect(!(try await store.dueActions(now: Date().addingTimeInterval(7_200)).contains { $0.id == id }), "never sent")
            // act: again
            let again = try await browser.post("/decisions/\(id)/cancel", form: [("csrf", list.csrfToken ?? "")])
            #expect(try await browser.get(try #require(again.location)).contains("was already cancelled."))
        }
    }

    @Test(
        "a decision a runner is sending, or one an earlier try may have delivered, has no Cancel, and a Cancel sent anyway is refused in words; someone else's cannot be cancelled"
    )
    func tooLate() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let store = try store(directory)
            let libraries = try await store.oldestMirroredLibraries(status: .pending, count: 2)
            try #require(libraries.count == 2)
            let staffID = try await #require(try store.latestSessionStaffID())
            let action = try await waiting(store, slug: libraries[0].slug, actorId: staffID)
            let id = try #require(action.id)
            // a runner claims it: sending
            let now = Date().addingTimeInterval(3_601)
            _ = try await store.claim(id, owner: "runner", leaseUntil: now.addingTimeInterval(600), now: now)
            let page = try await browser.get("/libraries")
            #expect(!page.contains("/decisions/\(id)/cancel"), "no Cancel while it is being sent")
            let answer = try await browser.post("/decisions/\(id)/cancel", form: [("csrf", page.csrfToken ?? "")])
            #expect(try await browser.get(try #require(answer.location)).contains("Too late to cancel: Approve"))
            #expect(try await store.action(id: id)?.state == .sending)
            // one whose earlier try got no answer: it may have reached Book Corners already
            var unsure = try await waiting(store, slug: libraries[1].slug, actorId: staffID)
            unsure.unknownOutcomes = 1
            let stored = unsure
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in try stored.update(db) }
            let unsureID = try #require(unsure.id)
            let panel = try await browser.get("/libraries")
            #expect(!panel.contains("/decisions/\(unsureID)/cancel"), "no Cancel for a decision that may have gone out")
            let unsureAnswer = try await browser.post("/decisions/\(unsureID)/cancel", form: [("csrf", panel.csrfToken ?? "")])
            #expect(try await browser.get(try #require(unsureAnswer.location)).contains("may already have reached Book Corners"))
            #expect(try await store.action(id: unsureID)?.state == .waiting)
            // someone else's
            let theirs = try await waiting(store, slug: libraries[0].slug + "-x", actorId: staffID + 1_000)
            let refused = try await browser.post("/decisions/\(try #require(theirs.id))/cancel", form: [("csrf", page.csrfToken ?? "")])
            #expect(refused.status == .notFound)
            #expect(try await store.action(id: try #require(theirs.id))?.state == .waiting)
        }
    }
}
