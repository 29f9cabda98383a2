import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// A report's own page: the report, its library, the other reports on it, staff notes, and
/// Resolve / Dismiss with their consequence and an Undo, all from the mirror.
@Suite("Report page: a report in context, decided and undone", .timeLimit(.minutes(3)))
struct ReportPageTests {
    static let hostile = PageModels.hostile
    static let escapedHostile = PageModels.escapedHostile
    static let libraryID = 920_001
    static let reportID = 930_001
    static let otherReportID = 930_002

    /// Plants a library in Stockholm with two open reports: one by a user with hostile details, one anonymous.
    private func plant(_ directory: TemporaryDirectory) async throws {
        let now = Date()
        try await SandboxLibraryRows.insert(
            [
                [
                    "id": Self.libraryID, "slug": "report-target", "name": "Community Bookcase", "city": "Stockholm", "status": "approved",
                    "createdAt": now.addingTimeInterval(-86_400 * 30),
                ]
            ], intoSandboxAt: directory.path("sandbox.sqlite"))
        let database = try DatabaseQueue.waiting(path: directory.path("sandbox.sqlite"))
        try await database.write { db in
            let reporter = try Int.fetchOne(db, sql: "SELECT id FROM user WHERE isStaff = 0 ORDER BY id LIMIT 1")
            try db.execute(
                sql:
                    "INSERT INTO report (id, libraryId, createdById, reason, details, photoUrl, status, createdAt) VALUES (?, ?, ?, 'damaged', ?, '/media/evidence.jpg', 'open', ?)",
                arguments: [Self.reportID, Self.libraryID, reporter, Self.hostile, now.addingTimeInterval(-3_600)])
            try db.execute(
                sql:
                    "INSERT INTO report (id, libraryId, createdById, reason, details, photoUrl, status, createdAt) VALUES (?, ?, NULL, 'missing', 'Gone since Monday.', '', 'open', ?)",
                arguments: [Self.otherReportID, Self.libraryID, now.addingTimeInterval(-7_200)])
        }
        try database.close()
    }

    @Test("/reports/<id> shows the report, its library with photo and status, who reported when, the other reports, and no backend read")
    func pageInContext() async throws {
        try await ConsoleFixture.withCountedConsole { browser, _, proxy, directory in
            // setup
            try await plant(directory)
            try await browser.signIn()
            let before = await proxy.forwardedInAll()
            // act
            let page = try await browser.get("/reports/\(Self.reportID)")
            let unknown = try await browser.get("/reports/999999999")
            let notAnID = try await browser.get("/reports/abc")
            // check
            #expect(page.status == .ok, "\(page)")
            #expect(page.contains("Report on Community Bookcase"))
            #expect(page.contains("Damaged"))
            #expect(page.contains(Self.escapedHostile), "the details, escaped")
            #expect(!page.contains("<script>alert"))
            #expect(page.contains(#"<a href="/libraries/report-target""#), "the library's page")
            #expect(page.contains("status-approved"), "the library's status")
            #expect(page.contains("Stockholm"))
            #expect(page.contains(#"href="/reports/\#(Self.otherReportID)""#), "the other report on the library")
            #expect(page.contains("1 other report on this library"))
            #expect(page.contains("evidence.jpg") && page.contains("full size"), "the evidence photo opens at full size")
            #expect(page.contains("Reported by"))
            #expect(page.contains("The library is not changed."), "the consequence of each choice is spelled out")
            #expect(page.contains("is told at once that it was resolved"), "resolving tells the reporter at once")
            #expect(page.contains("Undo reopens the report, but cannot unsend the push that told"), "and Undo cannot take that back")
            #expect(unknown.status == .notFound)
            #expect(notAnID.status == .notFound)
            #expect(await proxy.forwardedInAll() == before, "no backend read per page view")
        }
    }

    @Test("the reports list and the dashboard link each report to its page, not to the library")
    func linksOpenTheReport() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await plant(directory)
            try await browser.signIn()
            // act
            let list = try await browser.get("/reports?status=all&page_size=50")
            let row = list.item(containing: "/reports/\(Self.reportID)/decide")
            let dashboard = try await browser.get("/")
            // check
            // The report's page, opened in the list it was opened from (for previous and next).
            #expect(row.contains(#"data-open="/reports/\#(Self.reportID)?status=all&amp;page_size=50""#), "\(row.prefix(400))")
            #expect(row.contains(#"<h2><a href="/reports/\#(Self.reportID)?status=all&amp;page_size=50">"#))
            let reportLinks = dashboard.html.matches(of: #/href="/reports/(\d+)"/#).count
            #expect(reportLinks > 0, "the dashboard's waiting reports open their pages")
        }
    }

    @Test("Dismiss says the report was dismissed, not the library, and its Undo reopens the report through the action queue, audited")
    func dismissAndUndo() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup
            try await plant(directory)
            try await browser.signIn()
            let page = try await browser.get("/reports/\(Self.reportID)")
            let marker = #"<input type="hidden" name="decision" value="dismiss">"#
            let dismiss = page.html.components(separatedBy: "<form").first { $0.contains(marker) } ?? ""
            let key = try #require(dismiss.firstMatch(of: #/name="key" value="([^"]+)"/#).map { String($0.1) })
            // act: dismiss, then undo from the message that follows
            let decided = try await browser.post(
                "/reports/\(Self.reportID)/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "open"), ("decision", "dismiss"), ("back", "/reports/\(Self.reportID)"),
                    ("report_reason", "damaged"),
                ])
            let after = try await browser.get(try #require(decided.location))
            let undoFields = after.hiddenFields(ofFormPostingTo: "/reports/\(Self.reportID)/decide")
            let undone = try await browser.post("/reports/\(Self.reportID)/decide", form: undoFields)
            let afterUndo = try await browser.get(try #require(undone.location))
            // check
            #expect(decided.location == "/reports/\(Self.reportID)", "back to the report's page")
            #expect(after.contains("Report on Community Bookcase (Stockholm) dismissed."), "\(after)")
            #expect(!after.contains("Dismissed: Community Bookcase"))
            #expect(after.contains("Undo: reopen the report"))
            #expect(undoFields.contains { $0 == ("decision", "reopen") } && undoFields.contains { $0 == ("seen", "dismissed") }, "\(undoFields)")
            // Under the whole suite's load the reopening may still be on its way when the page answers.
            #expect(
                afterUndo.contains("Report on Community Bookcase (Stockholm) reopened.") || afterUndo.contains("recorded and waiting to be sent"),
                "\(afterUndo.html.firstMatch(of: #/<div class="flash"[^>]*>[^<]*/#).map { String($0.0) } ?? "no message")")
            #expect(!afterUndo.contains("Undo: reopen"), "a reopening offers no undo of its own")
            let token = try await sandbox.accessToken()
            try await MirrorFixture.eventually("open again at Book Corners", timeout: .seconds(30)) {
                let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=open&page_size=50", token: token).jsonObject()
                return ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int }.contains(Self.reportID)
            }
            let store = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            var audited: [String] = []
            // The runner audits its outcome just after Book Corners answered.
            for _ in 0..<50 where audited != ["report.dismiss", "report.reopen"] {
                audited = try await store.read { db in
                    try String.fetchAll(
                        db, sql: "SELECT action FROM auditEntry WHERE targetKind = 'report' AND targetId = ? ORDER BY id", arguments: [String(Self.reportID)])
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(audited == ["report.dismiss", "report.reopen"])
        }
    }

    /// The username of the reporter `plant` gives the first report.
    private func reporterName(_ directory: TemporaryDirectory) async throws -> String {
        let database = try DatabaseQueue.waiting(path: directory.path("sandbox.sqlite"))
        defer { try? database.close() }
        return try await database.read { db in
            try String.fetchOne(db, sql: "SELECT username FROM user WHERE isStaff = 0 ORDER BY id LIMIT 1") ?? ""
        }
    }

    /// The console's outbox messages of type report.resolved, as (id, status).
    private func resolvedMessages(_ directory: TemporaryDirectory) async throws -> [(id: String, status: String)] {
        let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
        defer { try? database.close() }
        return try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, status FROM outboxMessage WHERE eventType = 'report.resolved' ORDER BY createdAt")
                .map { (id: $0[0] as String, status: $0[1] as String) }
        }
    }

    /// Resolves the first report from its page, runs `beforeUndo`, then presses the Undo of the
    /// message that follows; answers the page after the resolution and the one after the undo.
    private func resolveAndUndo(
        _ browser: Browser, beforeUndo: () async throws -> Void
    ) async throws -> (afterResolve: Page, afterUndo: Page) {
        let page = try await browser.get("/reports/\(Self.reportID)")
        let marker = #"<input type="hidden" name="decision" value="resolve">"#
        let resolve = page.html.components(separatedBy: "<form").first { $0.contains(marker) } ?? ""
        let key = try #require(resolve.firstMatch(of: #/name="key" value="([^"]+)"/#).map { String($0.1) })
        let decided = try await browser.post(
            "/reports/\(Self.reportID)/decide",
            form: [
                ("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "open"), ("decision", "resolve"), ("back", "/reports/\(Self.reportID)"),
                ("report_reason", "damaged"),
            ])
        let after = try await browser.get(try #require(decided.location))
        try await beforeUndo()
        let undoFields = after.hiddenFields(ofFormPostingTo: "/reports/\(Self.reportID)/decide")
        let undone = try await browser.post("/reports/\(Self.reportID)/decide", form: undoFields)
        return (after, try await browser.get(try #require(undone.location)))
    }

    @Test("undoing a resolution before its push went out discards the push through the outbox, audited, and says the reporter was not told")
    func undoWithdrawsTheUnsentPush() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: delivery is off in tests, so the push waits in the outbox
            try await plant(directory)
            let reporter = try await reporterName(directory)
            try await browser.signIn()
            // act
            var waiting: [(id: String, status: String)] = []
            let (afterResolve, afterUndo) = try await resolveAndUndo(browser) { waiting = try await resolvedMessages(directory) }
            let after = try await resolvedMessages(directory)
            let outbox = try await browser.get("/outbox?type=report.resolved")
            // check
            #expect(afterResolve.contains("Report on Community Bookcase (Stockholm) resolved."), "\(afterResolve)")
            #expect(afterResolve.contains("Undo: reopen the report"))
            #expect(waiting.map(\.status) == ["pending"], "the push to the reporter waits: \(waiting)")
            #expect(
                afterUndo.contains(
                    "Report on Community Bookcase (Stockholm) reopened. The push telling \(reporter) it was resolved had not gone out yet: it is discarded."),
                "\(afterUndo)")
            #expect(after.map(\.status) == ["discarded"], "\(after)")
            #expect(outbox.contains(#"<span class="status status-discarded">Discarded</span>"#), "\(outbox)")
            let store = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            let audited = try await store.read { db in
                try Row.fetchAll(db, sql: "SELECT action, targetId, statusBefore, statusAfter FROM auditEntry WHERE targetKind = 'outbox' ORDER BY id")
                    .map { [$0[0] as String, $0[1] as String, $0[2] as String, $0[3] as String] }
            }
            try store.close()
            #expect(audited == [["outbox.discard", waiting.first?.id ?? "-", "pending", "discarded"]], "\(audited)")
        }
    }

    @Test("undoing a resolution whose push was already delivered leaves it delivered and says plainly that the reporter was already told")
    func undoAfterThePushWentOut() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await plant(directory)
            let reporter = try await reporterName(directory)
            try await browser.signIn()
            // act: the dispatcher delivers the push (as it would within seconds) before Undo is pressed
            let (_, afterUndo) = try await resolveAndUndo(browser) {
                let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
                try await database.write { db in
                    try db.execute(
                        sql: "UPDATE outboxMessage SET status = 'delivered', finishedAt = ? WHERE eventType = 'report.resolved' AND status = 'pending'",
                        arguments: [Date()])
                }
                try database.close()
            }
            let after = try await resolvedMessages(directory)
            // check
            #expect(afterUndo.contains("Report on Community Bookcase (Stockholm) reopened. \(reporter) was already told it was resolved."), "\(afterUndo)")
            #expect(after.map(\.status) == ["delivered"], "a delivered push stays delivered: \(after)")
        }
    }

    @Test("an undo withdraws only what has not gone out: pending, failed and no-device messages may be discarded, staff discard only failed ones")
    func withdrawalMoves() {
        #expect(Set(OutboxMessage.State.sources(of: .discarded)) == [.pending, .failed, .noDevice, .held])
        #expect(OutboxMessage.State.staffSources(of: .discarded) == [.failed, .held])
        #expect(OutboxMessage.State.staffSources(of: .pending) == [.failed, .noDevice, .held])
        #expect(OutboxMessage.State.heldByRestore == [.pending, .sending])
        #expect(OutboxMessage.State.allCases.filter(\.hasGoneOut) == [.sending, .delivered, .recordedOnly, .held])
        for target in OutboxMessage.State.allCases {
            #expect(Set(OutboxMessage.State.staffSources(of: target)).isSubset(of: OutboxMessage.State.sources(of: target)), "\(target)")
        }
    }

    @Test("a staff note is kept with the report and audited, once when its form is sent twice; an empty one is refused on the same page, marked required")
    func notes() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await plant(directory)
            try await browser.signIn()
            let page = try await browser.get("/reports/\(Self.reportID)")
            // act
            let empty = try await browser.post("/reports/\(Self.reportID)/note", form: [("csrf", page.csrfToken ?? ""), ("note", "   ")])
            // The page's own form, as a browser sends it, twice (a double click).
            let form = page.hiddenFields(ofFormPostingTo: "/reports/\(Self.reportID)/note") + [("note", Self.hostile)]
            let saved = try await browser.post("/reports/\(Self.reportID)/note", form: form)
            let again = try await browser.post("/reports/\(Self.reportID)/note", form: form)
            let afterAgain = try await browser.get("/reports/\(Self.reportID)")
            let after = try await browser.get("/reports/\(Self.reportID)")
            let other = try await browser.get("/reports/\(Self.otherReportID)")
            // check
            #expect(page.contains(#"name="note""#) && page.contains("required"))
            #expect(empty.status == .unprocessableContent && empty.contains("The note is empty"), "\(empty)")
            #expect(saved.status == .seeOther && again.status == .seeOther)
            #expect(form.contains { $0.0 == "key" }, "the note form carries its key")
            #expect(afterAgain.contains("This note was already kept (the form was sent twice); it is listed once."), "\(afterAgain)")
            #expect(after.html.components(separatedBy: #"<p class="note-text""#).count == 2, "one note")
            #expect(
                after.item(containing: "note-text").contains(Self.escapedHostile)
                    || after.contains(#"<p class="note-text" dir="auto">\#(Self.escapedHostile)</p>"#))
            #expect(!after.contains("<script>alert"))
            #expect(!other.contains(#"<p class="note-text""#), "a note belongs to its report only")
            let store = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            let reasons = try await store.read { db in
                try String.fetchAll(db, sql: "SELECT reason FROM auditEntry WHERE action = 'report.note'")
            }
            let authors = try await store.read { db in
                try String.fetchAll(db, sql: "SELECT actorUsername FROM auditEntry WHERE action = 'report.note'")
            }
            #expect(reasons == [Self.hostile])
            #expect(authors == [SeedAccounts.demoStaffUsername])
        }
    }

    @Test("an applied decision's message names what was decided: the library, or the report or photo on it")
    func outcomeWording() {
        #expect(DecisionOutcomeText.applied(.approved, kind: .library, name: "Corner Books", city: "Florence") == "Approved: Corner Books in Florence")
        #expect(
            DecisionOutcomeText.applied(.dismissed, kind: .report, name: "Community Bookcase", city: "Stockholm")
                == "Report on Community Bookcase (Stockholm) dismissed")
        #expect(DecisionOutcomeText.applied(.resolved, kind: .report, name: "", city: "") == "Report on Unnamed library resolved")
        #expect(DecisionOutcomeText.applied(.rejected, kind: .photo, name: "Corner Books", city: "Florence") == "Photo of Corner Books (Florence) rejected")
    }

    @Test("only the message of the viewer's applied decision on a report or a library offers an Undo; a photo's use has none")
    func undoOnlyForItsOwnMessage() {
        // setup
        let now = Date()
        func action(_ kind: ModerationAction.TargetKind, _ key: String, wanted: ItemStatus, state: ModerationAction.State, message: String) -> ModerationAction
        {
            var action = ModerationAction(
                idempotencyKey: UUID().uuidString, actorId: 3, actorUsername: "staff", targetKind: kind, targetKey: key, statusSeen: .open,
                statusWanted: wanted, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: now)
            action.state = state
            action.outcomeMessage = message
            return action
        }
        let dismissed = action(.report, "42", wanted: .dismissed, state: .applied, message: "Report on X (Y) dismissed.")
        // act
        let offer = UndoOffer(for: dismissed, flash: "Report on X (Y) dismissed.", back: "/reports/42", now: now)
        // check
        #expect(offer?.url == "/reports/42/decide" && offer?.seen == "dismissed" && offer?.back == "/reports/42")
        #expect(UndoOffer(for: dismissed, flash: "Note kept with the report (only staff see it).", back: "/", now: now) == nil, "another message")
        #expect(UndoOffer(for: dismissed, flash: "Report on X (Y) dismissed.", back: "/", now: now.addingTimeInterval(3_600)) == nil, "too late")
        let waiting = action(.report, "42", wanted: .dismissed, state: .waiting, message: "Report on X (Y) dismissed.")
        #expect(UndoOffer(for: waiting, flash: "Report on X (Y) dismissed.", back: "/", now: now) == nil, "not applied yet")
        let reopened = action(.report, "42", wanted: .open, state: .applied, message: "Report on X (Y) reopened.")
        #expect(UndoOffer(for: reopened, flash: "Report on X (Y) reopened.", back: "/", now: now) == nil, "a reopening is the undo")
        let library = action(.library, "corner", wanted: .approved, state: .applied, message: "Approved: X in Y.")
        let libraryUndo = UndoOffer(for: library, flash: "Approved: X in Y.", back: "/libraries", now: now)
        #expect(libraryUndo?.url == "/libraries/corner/decide" && libraryUndo?.decision == "pending" && libraryUndo?.seen == "approved")
        let photo = action(.photo, "7", wanted: .approved, state: .applied, message: "Photo of X (Y) used.")
        #expect(UndoOffer(for: photo, flash: "Photo of X (Y) used.", back: "/", now: now) == nil, "Book Corners cannot put the old photo back")
    }
}
