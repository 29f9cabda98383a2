import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Changes made outside the console, as the mirror sync notices them against the sandbox
/// over real HTTP: each becomes one observed audit entry; the console's own decisions never do.
// One at a time, like the sync suite: four syncs side by side on two cores starved each
// other past their waits when the machine was busy.
@Suite("Mirror: changes made outside the console", .serialized, .timeLimit(.minutes(3)))
struct ObservedChangeSyncTests {
    /// 10-s windows of 100 reads and no limits at the sandbox: passes follow each other quickly.
    private let mirror = MirrorFixture.mirror(window: 10, reads: 100, firstPageInterval: 1)

    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    private func observed(_ directory: TemporaryDirectory) async throws -> [AuditEntry] {
        try await store(directory).auditEntries(limit: 1_000).filter { $0.outcome == .observed }.reversed()
    }

    /// Waits for a complete pass over every library status that began after `date`.
    private func passCompleted(after date: Date, _ directory: TemporaryDirectory) async throws {
        try await MirrorFixture.eventually("a complete pass after \(date)") {
            try await store(directory).mirrorScopeState(.libraryList).lastCompletePassStartedAt.map { $0 > date } ?? false
        }
    }

    private func signIn(_ browser: Browser) async throws {
        let page = try await browser.signIn(next: "/audit")
        #expect(page.status == .seeOther, "signed in: \(page)")
    }

    @Test(
        "another staff account approves one library and rejects another through the sandbox's API: exactly one observed entry each, the chain intact; the first pass recorded none"
    )
    func outsideDecisionsObservedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory) { sandbox, _, url in
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { browser in
                // setup: the first pass over an empty mirror
                try await signIn(browser)
                try await passCompleted(after: .distantPast, directory)
                let afterFirstPass = try await observed(directory)
                let pending = try await store(directory).mirroredLibraries(status: .pending, limit: 2, offset: 3)
                let (approved, rejected) = (try #require(pending.first), try #require(pending.last))
                let maria = try await sandbox.accessToken(username: "maria")
                // act
                let before = Date()
                let approval = try await sandbox.raw(
                    .PATCH, "/api/v1/libraries/moderation/\(approved.slug)", token: maria, json: #"{"status": "approved"}"#)
                let rejection = try await sandbox.raw(
                    .PATCH, "/api/v1/libraries/moderation/\(rejected.slug)", token: maria,
                    json: #"{"status": "rejected", "rejection_reason": "Not a library"}"#)
                let after = Date()
                try await MirrorFixture.eventually("both observed") { try await observed(directory).count >= 2 }
                try await passCompleted(after: after, directory)
                // check
                #expect(approval.status == 200 && rejection.status == 200)
                #expect(afterFirstPass.isEmpty, "the first pass records nothing: \(afterFirstPass.map(\.action))")
                let entries = try await observed(directory)
                #expect(entries.count == 2, "one entry per change, however many reads saw it: \(entries.map(\.action))")
                let seenApproved = try #require(entries.first { $0.targetSlug == approved.slug })
                #expect(seenApproved.action == "observed.library.approved")
                #expect(seenApproved.actorUsername == "outside the console" && seenApproved.actorId == nil)
                #expect(seenApproved.statusBefore == "pending" && seenApproved.statusAfter == "approved")
                // The audit log keeps whole milliseconds; the backend sends microseconds.
                #expect(abs((seenApproved.itemCreatedAt ?? .distantPast).timeIntervalSince(approved.createdAt)) < 0.001)
                let window = try #require(seenApproved.observedWindow)
                // The change happened between `before` and `after`; a pass may have read the library
                // still pending after `before` (under load it did), so the window starts by `after`.
                #expect(window.from <= after && window.to >= before, "the window holds the change: \(window)")
                let seenRejected = try #require(entries.first { $0.targetSlug == rejected.slug })
                #expect(seenRejected.action == "observed.library.rejected" && seenRejected.reason == "Not a library")
                let store = try store(directory)
                #expect(
                    try await store.verifyAuditChain() == .intact(entries: try store.auditEntryCount(), head: store.auditEntries(limit: 1).first?.hash ?? ""))
            }
        }
    }

    @Test("the console's own decision, sent from the library's page, is not observed")
    func ownDecisionNotObserved() async throws {
        try await decideThroughConsole(faults: { _, _, _ in .pass })
    }

    @Test("a decision whose PATCH answer was lost (503 after it took effect) is not observed, before or after its re-check")
    func lostAnswerNotObserved() async throws {
        try await decideThroughConsole(faults: { method, path, call in
            method == .patch && path.hasPrefix("/api/v1/libraries/moderation/") && call == 1 ? .answerAfterForwarding(.serviceUnavailable) : .pass
        })
    }

    /// Approves a pending library from its page in the console, through a proxy breaking
    /// calls as `faults` says, and checks no observed entry comes of it.
    private func decideThroughConsole(faults: @escaping FaultingProxy.Plan) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory, faults: faults) { _, _, url in
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { browser in
                // setup
                try await signIn(browser)
                try await passCompleted(after: .distantPast, directory)
                let slug = try #require(try await store(directory).mirroredLibraries(status: .pending, limit: 1, offset: 2).first?.slug)
                // act
                let page = try await browser.get("/libraries/\(slug)")
                let key = try #require(page.field("key", after: "/libraries/\(slug)/decide"))
                let sent = try await browser.post(
                    "/libraries/\(slug)/decide", form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
                try await MirrorFixture.eventually("the mirror shows it approved") {
                    try await store(directory).mirroredLibrary(slug: slug)?.status == .approved
                }
                try await MirrorFixture.eventually("the decision applied") {
                    try await store(directory).auditEntries().contains { $0.action == "library.approve" && $0.outcome == .applied }
                }
                try await passCompleted(after: Date(), directory)
                // check
                #expect(sent.status == .seeOther)
                let entries = try await observed(directory)
                #expect(entries.isEmpty, "\(entries.map(\.action))")
            }
        }
    }

    @Test("restarts while passes run never duplicate an observed entry")
    func restartsNeverDuplicate() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory) { sandbox, _, url in
            // setup: a first run fills the mirror
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { browser in
                try await signIn(browser)
                try await passCompleted(after: .distantPast, directory)
            }
            let target = try #require(try await store(directory).mirroredLibraries(status: .pending, limit: 1, offset: 1).first)
            let maria = try await sandbox.accessToken(username: "maria")
            let approval = try await sandbox.raw(
                .PATCH, "/api/v1/libraries/moderation/\(target.slug)", token: maria, json: #"{"status": "approved"}"#)
            // act: a run stopped as soon as it noticed (mid-pass), then one that completes passes
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { _ in
                try await MirrorFixture.eventually("noticed") { try await !observed(directory).isEmpty }
            }
            let stoppedMidPass = try await store(directory).mirrorScopeState(.libraryList).passStartedAt != nil
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { _ in
                try await passCompleted(after: Date(), directory)
            }
            // check
            #expect(approval.status == 200)
            print("stopped mid-pass: \(stoppedMidPass)")
            await #expect(try observed(directory).map(\.targetSlug) == [target.slug])
        }
    }
}
