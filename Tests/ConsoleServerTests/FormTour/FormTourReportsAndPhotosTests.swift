import Foundation
import GRDB
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The form tour, part 2: every form of a report's page and of the photo queue — a staff note
/// refused then kept, claims, take-overs, a decision and its Undo, a photo rejected with a typed
/// reason and one used — sent by Chromium.
@Suite("Form tour: reports and photos", .timeLimit(.minutes(3)))
struct FormTourReportsAndPhotosTests {
    /// The routes this part sends a form to; `FormTourCoverageTests` adds up every part's.
    static let routes: Set<SiteURL.Route> = [
        .reportNote, .reportClaim, .reportRelease, .reportTakeOver, .reportDecide, .photoClaim, .photoRelease, .photoTakeOver, .photoDecide,
    ]

    @Test(
        "a report's note refused then saved as typed, its claim, release and take-over, Resolve and its Undo; a photo's claim, release and take-over, a rejection with a typed reason, and Use this photo"
    )
    func reportsAndPhotosTour() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let tour = FormTour(browser: browser, console: console)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let report = try #require(try await store.oldestMirroredReports(status: .open, count: 1).first).id
            let photos = try await store.oldestMirroredPhotos(status: .pending, count: 3).map(\.id)
            try #require(photos.count == 3)
            _ = try #require(try await RawForms.signIn(base: console, login: "maria", password: SeedAccounts.demoStaffPassword))
            let maria = try #require(try await store.staffMember(username: "maria"))
            try await browser.signInAsStaff(console: console)

            // a staff note: blank is refused next to the field; typed text is kept and shown as text
            try await tour.open("/reports/\(report)", showing: "note-form")
            try await tour.type("  \n  ", into: "#note")
            let blank = try await tour.send(".note-form button[type=submit]", to: .reportNote, showing: "form-problem")
            #expect(FormTour.main(of: blank).contains("aria-invalid=\"true\""))
            _ = try await browser.execute("document.querySelector('#note').value = '';")
            try await tour.type(FormTour.typed, into: "#note")
            let noted = try await tour.send(".note-form button[type=submit]", to: .reportNote, showing: "Note kept with the report")
            #expect(noted.contains("<p class=\"note-text\" dir=\"auto\">\(FormTour.inElement(FormTour.typed))</p>"))

            // the report's claim, its release, and a take-over of maria's claim
            try await tour.send(".claim form[action$='/claim'] button", to: .reportClaim, showing: "You are reviewing")
            let released = try await tour.send(".claim form[action$='/release'] button", to: .reportRelease, showing: "claim-button")
            #expect(!FormTour.main(of: released).contains("You are reviewing"))
            let target = ItemClaim.Target(kind: .report, key: String(report))
            _ = try await store.claim(target, holderId: maria.id, holderUsername: maria.username, now: Date(), duration: 900)
            try await tour.open("/reports/\(report)", showing: "maria")
            try await tour.send(".claim form[action$='/take-over'] button", to: .reportTakeOver, showing: "Take it over")
            try await tour.send("main form button.primary", to: .reportTakeOver, showing: "You are reviewing")

            // Resolve, then Undo from the message that follows
            try await tour.open("/reports/\(report)", showing: "report-choice")
            let resolved = try await tour.send("form.report-choice:has(input[name=decision][value=resolve]) button", to: .reportDecide, showing: "flash-undo")
            #expect(FormTour.flash(of: resolved).contains("resolved. Undo"))
            let undone = try await tour.send(".flash-undo button", to: .reportDecide, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: undone).contains("reopened."))

            // a photo's claim and release, and a take-over of maria's claim on another
            try await tour.open("/photos", showing: "photo-grid")
            _ = try await tour.sendInPlace("form[action='/photos/\(photos[0])/claim'] button", to: .photoClaim, showing: "You are reviewing")
            _ = try await tour.sendInPlace("form[action='/photos/\(photos[0])/release'] button", to: .photoRelease, showing: "/photos/\(photos[0])/claim")
            _ = try await store.claim(
                ItemClaim.Target(kind: .photo, key: String(photos[1])), holderId: maria.id, holderUsername: maria.username, now: Date(), duration: 900)
            try await tour.open("/photos", showing: "/photos/\(photos[1])/take-over")
            try await tour.send("form[action='/photos/\(photos[1])/take-over'] button", to: .photoTakeOver, showing: "Take it over")
            try await tour.send("main form button.primary", to: .photoTakeOver, showing: "You are reviewing")

            // a photo rejected with a typed reason, another used
            try await tour.open("/photos", showing: "photo-\(photos[0])-reason")
            try await browser.click("li:has(form[action='/photos/\(photos[0])/decide']) details.photo-reject summary")
            try await browser.click("#photo-\(photos[0])-preset option:last-child")
            try await tour.type(FormTour.typed, into: "#photo-\(photos[0])-reason")
            // (sent in place: the queue stays, the next card takes the focus)
            let rejected = try await tour.sendInPlace(
                "form.reject-form[action='/photos/\(photos[0])/decide'] button.danger", to: .photoDecide, showing: "rejected.</div>")
            #expect(FormTour.flash(of: rejected).hasPrefix("Photo of") && FormTour.flash(of: rejected).hasSuffix("rejected."))
            let used = try await tour.sendInPlace(
                "form.row-actions[action='/photos/\(photos[1])/decide'] button[value=approve]", to: .photoDecide,
                showing: "approved: it is the library's photo now.")
            #expect(FormTour.flash(of: used).hasSuffix("approved: it is the library's photo now."))
            // the third compared large on its own page (side by side, then swipe), and used from there
            try await tour.open("/photos", showing: "photo-\(photos[2])")
            try await browser.click("#photo-\(photos[2]) a.button-link")
            let viewer = try await browser.source(containing: "View:")
            #expect(try await browser.currentURL().hasSuffix("/photos/\(photos[2])"), "Compare large opens the console's own page")
            #expect(viewer.contains("viewer-2up") && viewer.contains("Replaces the current photo for good"), "side by side; approving says it is for good")
            if viewer.contains(">Swipe</a>") {
                try await browser.click("nav.order-switch a[href$='view=swipe']")
                _ = try await browser.source(containing: "data-swipe-range")
                let before = try await browser.execute("return document.querySelector('[data-swipe]').style.getPropertyValue('--reveal')") as? String
                // Focused, not clicked: a click would move the thumb to wherever it landed.
                _ = try await browser.execute("document.querySelector('[data-swipe-range]').focus()")
                try await browser.press("\u{E012}", "\u{E012}", "\u{E012}")  // ArrowLeft: less of the proposed photo
                let after = try await browser.execute("return document.querySelector('[data-swipe]').style.getPropertyValue('--reveal')") as? String
                #expect(before == "50%" && after == "47%", "the slider moves the edge between the photos: \(before ?? "none") → \(after ?? "none")")
            }
            let fromViewer = try await tour.send(
                "form.row-actions[action='/photos/\(photos[2])/decide'] button[value=approve]", to: .photoDecide, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: fromViewer).hasSuffix("approved: it is the library's photo now."))
            #expect(try await browser.currentURL().hasSuffix("/photos#photo-\(photos[2])"), "back at the card, which shows the outcome in place")
            #expect(!FormTour.main(of: fromViewer).contains("Undo:"), "no Undo that could not be kept")
            let reason = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try String.fetchOne(
                    db, sql: "SELECT reason FROM action WHERE targetKind = 'photo' AND targetKey = ? ORDER BY id DESC", arguments: [String(photos[0])])
            }
            #expect(reason == FormTour.typed, "the reason stored as typed, its line breaks as LF")
            #expect(Set(tour.routesSent) == Self.routes, "this part sent a form to each of its routes")
        }
    }
}
