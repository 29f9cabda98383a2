import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// The live queue is an enhancement: in Chromium with JavaScript switched off, every flow it
/// touches still works the way it did before it, each form posting and coming back to the row
/// it was sent from, never to the top of the list.
@Suite("Live queue: with JavaScript off", .timeLimit(.minutes(3)))
struct NoScriptBrowserTests {
    @Test(
        "without script: a row's Approve, Resolve and Use this photo come back to that row; bulk review's Cancel keeps the ticks; a report's Resolve opens the next report; a waiting decision is cancelled"
    )
    func everyFlowWithoutScript() async throws {
        try await ConsoleFixture.withBrowser(javaScript: false) { browser, console, _, directory in
            let tour = FormTour(browser: browser, console: console)
            /// Whether the element `id` is on the page, within the window, the page scrolled away from its top.
            func box(_ id: String) async throws -> [Double] {
                try await browser.execute(
                    "var e = document.getElementById(arguments[0]); if (!e) return []; var r = e.getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight, window.scrollY];",
                    arguments: [id]) as? [Double] ?? []
            }
            func rowInSight(_ id: String) async throws -> Bool {
                let box = try await box(id)
                return box.count == 4 && box[0] >= -2 && box[0] < box[2] && box[3] > 0
            }
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await browser.signInAsStaff(console: console)

            // setup: a long list; the script would have put a select-all box in the header
            let list = "/libraries?status=pending&page_size=50"
            try await tour.open(list, showing: "bulk-bar")
            let scriptRan = try await browser.execute("return document.querySelector('th[data-select-all] input') !== null;") as? Bool
            try #require(scriptRan == false, "the page's script did not run")
            // A row far down the list with a one-click Approve (a possible duplicate has Compare… instead).
            let approvable =
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('tr[data-item] button[name=quick]')).map(function (b) { return b.closest('tr').id; });")
                as? [String] ?? []
            try #require(approvable.count > 12, "\(approvable.count) rows with a one-click Approve")
            let row = approvable[12]

            // act 1: the row's Approve
            _ = try await browser.execute(
                "document.getElementById(arguments[0]).scrollIntoView({block: 'center'}); return true;", arguments: [row])
            let approved = try await tour.send("#\(row) button[name=quick]", to: .libraryDecide, showing: "class=\"flash\"")
            // check 1: back at the row, which is in sight and says what became of it
            let landed = try await browser.currentURL()
            #expect(landed.hasSuffix(list + "#\(row)"), "returned to the row: \(landed)")
            #expect(try await rowInSight(row), "the row is in sight, not the top of the list")
            #expect(FormTour.flash(of: approved).contains("pprov"), "\(FormTour.flash(of: approved))")

            // act 1b: a claim from far down the list comes back to its row too
            let claimable =
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('tr[data-item] button.claim-button')).map(function (b) { return b.closest('tr').id; });")
                as? [String] ?? []
            let claimRow = try #require(claimable.dropFirst(12).first, "\(claimable.count) rows to claim")
            _ = try await browser.execute("document.getElementById(arguments[0]).scrollIntoView({block: 'center'}); return true;", arguments: [claimRow])
            try await tour.send("#\(claimRow) button.claim-button", to: .libraryClaim, showing: "You are reviewing")
            #expect(try await browser.currentURL().hasSuffix("#\(claimRow)"), "back at the claimed row")
            let claimedBox = try await box(claimRow)
            #expect(try await rowInSight(claimRow), "the claimed row is in sight: \(claimedBox)")

            // act 2: bulk review of two rows with a reason, then Cancel
            let boxes =
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('tr[data-item] input[name=item]')).slice(0, 2).map(function (b) { return b.value; });")
                as? [String] ?? []
            try #require(boxes.count == 2)
            for value in boxes {
                let box = "table.queue input[name=item][value='\(value.replacingOccurrences(of: "'", with: "\\'"))']"
                _ = try await browser.execute("document.querySelector(arguments[0]).scrollIntoView({block: 'center'}); return true;", arguments: [box])
                try await browser.click(box)
            }
            try await browser.click(".bulk-bar select[name=decision] option[value=reject]")
            try await tour.type(FormTour.typed, into: ".bulk-bar textarea[name=reason]")
            try await tour.send(".bulk-bar button[type=submit]", to: .librariesBulk, showing: "confirm-list")
            try await browser.click("a[data-key=cancel]")
            _ = try await browser.source(containing: "bulk-bar")
            // check 2: the same rows ticked, the decision and the reason as typed
            let ticked =
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('tr[data-item] input[name=item]')).filter(function (b) { return b.checked; }).map(function (b) { return b.value; });"
                ) as? [String] ?? []
            let afterCancel = try await browser.currentURL()
            #expect(ticked == boxes, "the ticks kept: \(ticked) at \(afterCancel)")
            #expect(try await tour.value(of: ".bulk-bar select[name=decision]") == "reject")
            #expect(try await tour.value(of: ".bulk-bar textarea[name=reason]") == FormTour.typed.replacingOccurrences(of: "\r\n", with: "\n"))

            // act 3: a report resolved from its list, then one from its page
            let reports = try await store.oldestMirroredReports(status: .open, count: 3).map(\.id)
            try #require(reports.count == 3)
            try await tour.open("/reports", showing: "report-\(reports[0])")
            let resolved = try await tour.send(
                "#report-\(reports[0]) button[name=decision][value=resolve]", to: .reportDecide, showing: "class=\"flash\"")
            #expect(try await browser.currentURL().hasSuffix("/reports#report-\(reports[0])"), "back at the report's row")
            #expect(try await rowInSight("report-\(reports[0])"), "the decided report stays in the list, in sight")
            #expect(FormTour.flash(of: resolved).contains("resolved"), "\(FormTour.flash(of: resolved))")
            try await tour.open("/reports/\(reports[1])?status=open", showing: "report-choice")
            try await tour.send("form.report-choice:has(input[name=decision][value=dismiss]) button", to: .reportDecide, showing: "class=\"flash\"")
            let afterPage = try await browser.currentURL()
            #expect(afterPage.hasSuffix("/reports/\(reports[2])?status=open"), "on to the next open report: \(afterPage)")

            // act 4: a photo used from its card
            let photo = try #require(try await store.oldestMirroredPhotos(status: .pending, count: 1).first).id
            try await tour.open("/photos", showing: "photo-\(photo)")
            try await tour.send(
                "form.row-actions[action='/photos/\(photo)/decide'] button[value=approve]", to: .photoDecide, showing: "class=\"flash\"")
            #expect(try await browser.currentURL().hasSuffix("/photos#photo-\(photo)"), "back at the photo's card")
            let photoBox = try await box("photo-\(photo)")
            #expect(try await rowInSight("photo-\(photo)"), "the decided photo stays in the list, in sight: \(photoBox)")

            // act 5: a decision waiting for Book Corners' limits, cancelled from the panel
            let staff = try #require(try await store.staffMember(username: "staff"))
            let pending = try await store.oldestMirroredLibraries(status: .pending, count: 1)
            var waiting = ModerationAction(
                idempotencyKey: "no-script-cancel", actorId: staff.id, actorUsername: staff.username, targetKind: .library,
                targetKey: try #require(pending.first).slug, statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r",
                clientAddress: "127.0.0.1", userAgent: "", now: Date())
            waiting.state = .waiting
            waiting.nextAttemptAt = Date().addingTimeInterval(3_600)
            _ = try await store.record(waiting)
            try await tour.open(list, showing: "pending-cancel")
            try await browser.click("details.pending-actions summary")
            let cancelled = try await tour.send("form.pending-cancel button", to: .decisionCancel, showing: "Cancelled: ")
            #expect(FormTour.flash(of: cancelled).hasSuffix("was not sent, and nothing changed at Book Corners."))
            let state = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try String.fetchOne(db, sql: "SELECT state FROM action WHERE idempotencyKey = 'no-script-cancel'")
            }
            #expect(state == "cancelled")
        }
    }
}
