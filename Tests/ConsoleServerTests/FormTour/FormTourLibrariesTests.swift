import Foundation
import GRDB
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The form tour, part 1: sign-in and sign-out, and every form of the library queue — claims,
/// a take-over, a bulk rejection and a rejection with typed reasons — sent by Chromium.
@Suite("Form tour: sign-in and libraries", .timeLimit(.minutes(3)))
struct FormTourLibrariesTests {
    /// The routes this part sends a form to; `FormTourCoverageTests` adds up every part's.
    static let routes: Set<SiteURL.Route> = [
        .signIn, .signOut, .libraryClaim, .libraryRelease, .libraryTakeOver, .librariesBulk, .librariesBulkConfirm, .libraryDecide,
        .decisionCancel, .concernSettings,
    ]

    @Test(
        "sign-in refused then accepted; a claim, its release and a take-over; a waiting decision cancelled; a bulk rejection and a rejection with typed reasons; the reasons' settings; sign-out"
    )
    func librariesTour() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let tour = FormTour(browser: browser, console: console)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let pending = try await store.oldestMirroredLibraries(status: .pending, count: 8)
            try #require(pending.count == 8)
            _ = try #require(try await RawForms.signIn(base: console, login: "maria", password: SeedAccounts.demoStaffPassword))
            let maria = try #require(try await store.staffMember(username: "maria"))

            // sign-in: a wrong password is refused on the same form, the login kept; then signed in
            try await tour.signIn("staff", password: SeedAccounts.demoStaffPassword)

            // a claim from the list, then its release
            try await tour.open("/libraries?status=pending&page_size=50", showing: "claim-button")
            // (sent in place: the row's badge changes and the words are read out, the list stays as it was)
            let claimed = try await tour.sendInPlace(
                "table.queue tbody tr:nth-child(1) button.claim-button", to: .libraryClaim, showing: "You are reviewing \(pending[0].name)")
            #expect(FormTour.main(of: claimed).contains("<strong>You are reviewing</strong>"))
            let released = try await tour.sendInPlace(
                "table.queue tbody tr:nth-child(1) button[formaction$='/release']", to: .libraryRelease,
                showing: "You are no longer reviewing \(pending[0].name)")
            #expect(!FormTour.main(of: released).contains("<strong>You are reviewing</strong>"))

            // a take-over of maria's claim, confirmed
            _ = try await store.claim(
                ItemClaim.Target(kind: .library, key: pending[1].slug), holderId: maria.id, holderUsername: maria.username, now: Date(), duration: 900)
            try await tour.open("/libraries/\(pending[1].slug)", showing: "maria")
            try await tour.send(
                ".claim button[formaction$='/take-over'], .claim form[action$='/take-over'] button", to: .libraryTakeOver, showing: "Take it over")
            let takenOver = try await tour.send("main form button.primary", to: .libraryTakeOver, showing: "You are reviewing")
            #expect(FormTour.flash(of: takenOver).contains("from maria (15 min)"))
            #expect(!Page.text(of: FormTour.main(of: takenOver)).contains("maria is reviewing"))

            // a decision waiting for Book Corners' limits, cancelled from the Pending actions panel
            let staff = try #require(try await store.staffMember(username: "staff"))
            var waiting = ModerationAction(
                idempotencyKey: "tour-cancel", actorId: staff.id, actorUsername: staff.username, targetKind: .library, targetKey: pending[4].slug,
                statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
            waiting.state = .waiting
            waiting.nextAttemptAt = Date().addingTimeInterval(3_600)
            _ = try await store.record(waiting)
            try await tour.open("/libraries?status=pending&page_size=50", showing: "pending-cancel")
            try await browser.click("details.pending-actions summary")
            let cancelled = try await tour.send("form.pending-cancel button", to: .decisionCancel, showing: "Cancelled: ")
            #expect(FormTour.flash(of: cancelled).hasSuffix("was not sent, and nothing changed at Book Corners."), "\(FormTour.flash(of: cancelled))")
            #expect(!cancelled.contains("pending-cancel"), "nothing left to cancel")

            // a bulk rejection of two with a typed reason: reviewed, then confirmed
            try await tour.open("/libraries?status=pending&page_size=50", showing: "bulk-bar")
            let third = pending[2].slug, fourth = pending[3].slug
            // Centred first: at the window's bottom edge the sticky bulk bar would cover them.
            for slug in [third, fourth] {
                _ = try await browser.execute(
                    "document.querySelector(arguments[0]).scrollIntoView({block: 'center'}); return true;",
                    arguments: ["table.queue input[name=item][value^='\(slug)|']"])
                try await browser.click("table.queue input[name=item][value^='\(slug)|']")
            }
            try await browser.click(".bulk-bar select[name=decision] option[value=reject]")
            try await tour.type(FormTour.typed, into: ".bulk-bar textarea[name=reason]")
            let review = try await tour.send(".bulk-bar button[type=submit]", to: .librariesBulk, showing: "confirm-list")
            #expect(
                review.contains("<strong dir=\"auto\" class=\"reason-preview\">\(FormTour.inElement(FormTour.typed))</strong>"),
                "the reason is shown as typed, as text")
            let bulkDone = try await tour.send("form[action$='/bulk/confirm'] button[type=submit]", to: .librariesBulkConfirm, showing: "2 decisions recorded")
            #expect(bulkDone.contains("2 decisions recorded"))

            // a rejection from the library's page with a typed reason
            try await tour.open("/libraries/\(pending[4].slug)", showing: "reject-form")
            try await browser.click("#reason_preset option:last-child")
            try await tour.type(FormTour.typed, into: "#reason")
            let confirm = try await tour.send(".reject-form button.decide-button", to: .libraryDecide, showing: "will be told, with this reason")
            #expect(confirm.contains(FormTour.inElement(FormTour.typed)), "the confirmation quotes the reason as typed")
            let rejected = try await tour.send("main form button.danger, main form button.primary", to: .libraryDecide, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: rejected).hasPrefix("Rejected: \(pending[4].name)"))
            let reason = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try String.fetchOne(db, sql: "SELECT reason FROM action WHERE targetKey = ? ORDER BY id DESC", arguments: [pending[4].slug])
            }
            #expect(reason == FormTour.typed, "the reason stored as typed, its line breaks as LF")

            // the reasons' settings: a threshold retyped, suspect words typed on three lines (sent as CR LF)
            try await tour.open("/reasons", showing: "settings-form")
            _ = try await browser.execute("document.querySelector(arguments[0]).value = ''; return true;", arguments: ["input[name=strongDuplicateMetres]"])
            try await tour.type("20", into: "input[name=strongDuplicateMetres]")
            try await tour.type(FormTour.typed, into: "textarea[name=suspectWords]")
            let saved = try await tour.send(".settings-form button[type=submit]", to: .concernSettings, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: saved).hasPrefix("Saved: Duplicate, strong within: 25 m → 20 m; Suspect words added: "))
            let settings = try await store.concernSettings()
            #expect(settings.strongDuplicateMetres == 20)
            #expect(settings.suspectWords == FormTour.typed.split(separator: "\n").map(String.init), "one word a line, no CR left")
            #expect(try await tour.value(of: "textarea[name=suspectWords]") == FormTour.typed, "the page shows the list as typed")

            // sign-out
            let signedOut = try await tour.send(".user button[type=submit]", to: .signOut, showing: "id=\"login\"")
            #expect(Page.text(of: FormTour.main(of: signedOut)).localizedCaseInsensitiveContains("signed out"))
            #expect(Set(tour.routesSent) == Self.routes, "this part sent a form to each of its routes")
        }
    }
}
