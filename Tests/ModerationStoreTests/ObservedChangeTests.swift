import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Testing

/// The mirror's store noticing changes made outside the console: which status changes
/// become observed audit entries, and which are the console's own decisions.
@Suite("ModerationStore: changes made outside the console")
struct ObservedChangeTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID().uuidString)")
    private var path: String { directory.appendingPathComponent("console.sqlite").path }
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func withStore(_ body: (ModerationStore) async throws -> Void) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ModerationStore(path: path))
    }

    private func library(_ id: Int, status: LibraryStatus = .pending, reason: String = "", confirmed: TimeInterval) -> MirrorLibrary {
        MirrorLibrary(
            id: id, slug: "library-\(id)", name: "Corner Books \(id)", description: "", address: "Via Roma \(id)", city: "Florence",
            country: "IT", postalCode: "50100", lat: 43.77, lng: 11.25, photoUrl: "", thumbnailUrl: "", status: status,
            rejectionReason: reason, submitterId: nil, submitterUsername: nil, createdAt: now.addingTimeInterval(-86_400),
            lastConfirmedAt: now.addingTimeInterval(confirmed))
    }

    private func report(_ id: Int, status: ReportStatus = .open, confirmed: TimeInterval) -> MirrorReport {
        MirrorReport(
            id: id, libraryId: 1, librarySlug: "library-1", libraryName: "Corner Books 1", libraryAddress: "", libraryCity: "Florence",
            libraryCountry: "IT", libraryStatus: .approved, reporterId: 3, reporterUsername: "alice", reason: .incorrectInfo,
            details: "wrong pin", photoUrl: "", status: status, createdAt: now.addingTimeInterval(-3_600),
            lastConfirmedAt: now.addingTimeInterval(confirmed))
    }

    private func observed(_ store: ModerationStore) async throws -> [AuditEntry] {
        try await store.auditEntries().filter { $0.actorUsername == "outside the console" }.reversed()
    }

    /// Records the console's approval of library `id`, claimed and sent: its PATCH's outcome unknown.
    private func sentApproval(_ store: ModerationStore, library id: Int, at time: Date) async throws -> Int64 {
        let action = try await store.record(
            ModerationAction(
                idempotencyKey: UUID().uuidString, actorId: 7, actorUsername: "staff", targetKind: .library, targetKey: "library-\(id)",
                statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test",
                now: time)
        ).action
        let actionID = try #require(action.id)
        _ = try await store.claim(actionID, owner: "runner", leaseUntil: time.addingTimeInterval(10), now: time)
        try await store.beginSend(actionID, owner: "runner", now: time)
        return actionID
    }

    @Test("a status change no decision explains: one observed entry with the window, both statuses, created_at and the reason; read again, nothing more")
    func outsideChangeObservedOnce() async throws {
        try await withStore { store in
            // setup: the first read (an empty mirror) records nothing
            try await store.upsertMirror(libraries: [library(1, confirmed: 0), library(2, confirmed: 0)], at: now)
            #expect(try await observed(store).isEmpty, "the first pass records nothing")
            // act: the next read shows one approved, one rejected with a reason; then the same again
            let next = [library(1, status: .approved, confirmed: 30), library(2, status: .rejected, reason: "Not a library", confirmed: 30)]
            try await store.upsertMirror(libraries: next, at: now.addingTimeInterval(31))
            try await ModerationStore(path: path).upsertMirror(libraries: next, at: now.addingTimeInterval(40))
            // check
            let entries = try await observed(store)
            #expect(entries.map(\.action) == ["observed.library.approved", "observed.library.rejected"])
            let approved = try #require(entries.first)
            #expect(approved.outcome.rawValue == "observed")
            #expect(approved.actorId == nil && approved.targetSlug == "library-1" && approved.targetName == "Corner Books 1")
            #expect(approved.statusBefore == "pending" && approved.statusAfter == "approved")
            #expect(approved.itemCreatedAt == now.addingTimeInterval(-86_400))
            #expect(approved.outcomeDetail == "changed outside the console between 2027-01-15T08:00:00.000Z and 2027-01-15T08:00:31.000Z")
            #expect(entries.last?.reason == "Not a library")
            #expect(try await store.verifyAuditChain() == .intact(entries: 2, head: store.auditEntries(limit: 1).first?.hash ?? ""))
        }
    }

    @Test("the console's own decisions are not observed: applied since the previous read, or sent with its answer lost and not finished")
    func consoleDecisionsNotObserved() async throws {
        try await withStore { store in
            // setup: three pending libraries mirrored
            try await store.upsertMirror(libraries: [library(1, confirmed: 0), library(2, confirmed: 0), library(3, confirmed: 0)], at: now)
            // library 1: applied by the console
            let applied = try await sentApproval(store, library: 1, at: now.addingTimeInterval(5))
            let audit = AuditEntry(
                recordedAt: now.addingTimeInterval(6), actorId: 7, actorUsername: "staff", action: "library.approve", targetKind: "library",
                targetId: "1", targetSlug: "library-1", targetName: "", statusBefore: "pending", statusAfter: "approved", reason: "",
                outcome: .applied, backendStatus: 200, requestId: "r", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
            try await store.finish(
                applied, owner: "runner", state: .applied, message: "Approved", backendStatus: 200, audit: audit, notifications: [],
                now: now.addingTimeInterval(6))
            // library 2: its PATCH's answer was lost; it waits for a re-check
            let lost = try await sentApproval(store, library: 2, at: now.addingTimeInterval(5))
            try await store.release(
                lost, owner: "runner", to: .waiting, nextAttemptAt: now.addingTimeInterval(60), message: "", backendStatus: nil, now: now.addingTimeInterval(6))
            // library 3: a decision recorded but never sent; someone else approved it meanwhile
            _ = try await store.record(
                ModerationAction(
                    idempotencyKey: UUID().uuidString, actorId: 7, actorUsername: "staff", targetKind: .library, targetKey: "library-3",
                    statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "", userAgent: "", now: now)
            ).action
            // act
            try await store.upsertMirror(
                libraries: [1, 2, 3].map { library($0, status: .approved, confirmed: 30) }, at: now.addingTimeInterval(31))
            // check
            #expect(try await observed(store).map(\.targetSlug) == ["library-3"], "only the one the console never sent")
        }
    }

    @Test("an older read landing after a newer one changes nothing and records nothing")
    func staleReadIgnored() async throws {
        try await withStore { store in
            // setup
            try await store.upsertMirror(libraries: [library(1, confirmed: 0)], at: now)
            try await store.upsertMirror(libraries: [library(1, status: .approved, confirmed: 30)], at: now.addingTimeInterval(31))
            // act: a list read that began before the last one answers late, still showing it pending
            try await store.upsertMirror(libraries: [library(1, confirmed: 20)], at: now.addingTimeInterval(32))
            // check
            #expect(try await store.mirroredLibrary(slug: "library-1")?.status == .approved)
            #expect(try await observed(store).map(\.action) == ["observed.library.approved"])
        }
    }

    @Test("items that disappear are noted once as deleted: a library after its 404, a report after a read that would have listed it")
    func deletionsNotedOnce() async throws {
        try await withStore { store in
            // setup
            try await store.upsertMirror(libraries: [library(1, status: .approved, confirmed: 0)], at: now)
            try await store.upsertMirror(reports: [report(1, confirmed: 0)], at: now)
            // act
            try await store.markLibraryGone(id: 1, checkedSince: now.addingTimeInterval(10), at: now.addingTimeInterval(12))
            try await store.markLibraryGone(id: 1, checkedSince: now.addingTimeInterval(20), at: now.addingTimeInterval(22))
            for pass in 1...3 {
                _ = try await store.completeReportPass(startedAt: now.addingTimeInterval(Double(pass * 10)), at: now.addingTimeInterval(Double(pass * 10 + 2)))
            }
            try await store.markReportGone(id: 1, checkedSince: now.addingTimeInterval(40), at: now.addingTimeInterval(42))
            try await store.markReportGone(id: 1, checkedSince: now.addingTimeInterval(50), at: now.addingTimeInterval(52))
            // check
            let entries = try await observed(store)
            #expect(entries.map(\.action) == ["observed.library.deleted", "observed.report.deleted"])
            #expect(entries.first?.statusBefore == "approved" && entries.first?.statusAfter == "deleted")
            #expect(entries.last?.statusBefore == "open")
            #expect(try await store.verifyAuditChain() == .intact(entries: 2, head: store.auditEntries(limit: 1).first?.hash ?? ""))
        }
    }

    @Test("the summary counts changes made outside the console under their own actor and outcome, timed at the middle of their window")
    func summaryIncludesObserved() async throws {
        try await withStore { store in
            // setup: approved outside between the two reads (0 s and 30 s after `now`), deleted later
            try await store.upsertMirror(libraries: [library(1, confirmed: 0), library(2, status: .approved, confirmed: 0)], at: now)
            try await store.upsertMirror(libraries: [library(1, status: .approved, confirmed: 29)], at: now.addingTimeInterval(30))
            try await store.markLibraryGone(id: 2, checkedSince: now.addingTimeInterval(40), at: now.addingTimeInterval(41))
            // act
            let records = try await store.decisionRecords(AuditFilter(outcome: .observed))
            let summary = AuditSummary(records)
            // check
            #expect(records.map(\.action) == ["observed.library.approved", "observed.library.deleted"])
            #expect(records.map(\.decided) == [true, false], "a deletion decided nothing")
            #expect(abs((records.first?.secondsWaited ?? 0) - 86_415) < 0.01, "from submission to the middle of the window")
            #expect(summary.byStaff == [AuditSummary.Count(key: "outside the console", decisions: 2)])
            #expect(summary.byOutcome == [AuditSummary.Count(key: "observed", decisions: 2)])
            let timing = try #require(summary.queues.first)
            #expect(summary.queues.count == 1 && timing.queue == "library" && timing.decisions == 1)
            #expect(abs(timing.medianSeconds - 86_415) < 0.01 && abs(timing.p90Seconds - 86_415) < 0.01)
        }
    }

    @Test("exports carry observed entries, marked with their outcome and window, and verify from the file alone")
    func exportsIncludeObserved() async throws {
        try await withStore { store in
            // setup
            try await store.upsertMirror(libraries: [library(1, confirmed: 0)], at: now)
            try await store.upsertMirror(libraries: [library(1, status: .rejected, reason: "Gone, \"closed\"", confirmed: 30)], at: now.addingTimeInterval(31))
            // act
            let csv = try await store.exportedText(.csv, filter: AuditFilter(outcome: .observed), batchSize: 10)
            let ndjson = try await store.exportedText(.ndjson, filter: AuditFilter(), batchSize: 10)
            // check
            let head = try #require(await store.auditEntries(limit: 1).first?.hash)
            for text in [csv, ndjson] {
                let entries = try AuditExportFile.entries(in: text)
                #expect(entries.map(\.action) == ["observed.library.rejected"])
                #expect(entries.first?.outcome == .observed && entries.first?.observedWindow == ObservedWindow(from: now, to: now.addingTimeInterval(31)))
                #expect(AuditExportFile.verify(entries) == .intact(entries: 1, head: head, gaps: 0))
            }
        }
    }
}
