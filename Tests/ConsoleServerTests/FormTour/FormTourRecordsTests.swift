import Foundation
import GRDB
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The form tour, part 4: the records' forms — a device refused with its typed token kept, then
/// added and removed; an outbox message retried and one discarded, each confirmed; the audit
/// log verified, filtered and exported (the downloaded file read); and a decision kept after the
/// session ended, discarded after signing in again — sent by Chromium.
@Suite("Form tour: devices, outbox, audit and unsent work", .timeLimit(.minutes(3)))
struct FormTourRecordsTests {
    /// The routes this part sends a form to; `FormTourCoverageTests` adds up every part's.
    static let routes: Set<SiteURL.Route> = [
        .devices, .deviceRemove, .outboxRetry, .outboxDiscard, .auditVerify, .signIn, .libraryDecide, .unsentWorkDiscard,
    ]

    @Test(
        "a device refused with its token kept, then added and removed; a failed push retried and one discarded; the audit log verified, filtered and exported; a decision kept after the session ended, discarded"
    )
    func recordsTour() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let tour = FormTour(browser: browser, console: console)
            let failed = try await OutboxFiller(path: directory.path("console.sqlite")).add(2, failedBecause: "APNs answered 500 InternalServerError.")
            try await browser.signInAsStaff(console: console)

            // a device: a typed token that is not one is refused with the text kept; then one is added and removed
            let hostileToken = "‏טוקן <b>nope</b> \"x\""
            try await tour.open("/devices", showing: "device-form")
            try await tour.type(hostileToken, into: ".device-form input[name=token]")
            let refusedDevice = try await tour.send(".device-form button[type=submit]", to: .devices, showing: "role=\"alert\"")
            #expect(FormTour.main(of: refusedDevice).contains("class=\"error\""))
            #expect(try await tour.value(of: ".device-form input[name=token]") == hostileToken, "the typed token is kept")
            _ = try await browser.execute("document.querySelector('.device-form input[name=token]').value = '';")
            let token = OutboxFiller.token(user: 3, slot: 7)
            try await tour.type(token, into: ".device-form input[name=token]")
            let added = try await tour.send(".device-form button[type=submit]", to: .devices, showing: "Added ")
            #expect(added.contains("<code>\(token)</code>") || added.contains(String(token.prefix(8))))
            try await tour.send("table.devices form[action$='/remove'] button", to: .deviceRemove, showing: "Removed ")

            // a failed push retried, another discarded: each asks first, then says what it did
            try await tour.open("/outbox/\(failed[0].id)", showing: "/retry")
            try await tour.send("form[action$='/retry'] button", to: .outboxRetry, showing: "data-key=\"cancel\"")
            let retried = try await tour.send("main form button[type=submit]", to: .outboxRetry, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: retried).hasPrefix("Queued again"))
            // The page shows the fresh run, not the given-up run's error beside a new state (it stays in the attempts).
            #expect(!retried.contains(#"<p class="notice">APNs answered 500 InternalServerError.</p>"#), "\(retried)")
            try await tour.open("/outbox/\(failed[1].id)", showing: "/discard")
            try await tour.send("form[action$='/discard'] button", to: .outboxDiscard, showing: "data-key=\"cancel\"")
            try await tour.send("main form button[type=submit]", to: .outboxDiscard, showing: "Discarded: it stays here for the record")

            // the audit log: verified; filtered by typed text; exported, the downloaded file read
            try await tour.open("/audit", showing: "Verify the chain")
            let verified = try await tour.send(".page-head form button", to: .auditVerify, showing: "class=\"verdict")
            #expect(verified.contains("Intact."))
            try await tour.type("outbox <b>", into: ".filters input[name=q]")
            try await browser.click(".filters button[type=submit]")
            let filtered = try await browser.currentURL { $0.contains("q=outbox") }
            #expect(filtered.contains("q=outbox+%3Cb%3E") || filtered.contains("q=outbox%20%3Cb%3E"), "the typed filter rides in the address: \(filtered)")
            try await tour.open("/audit?action=outbox.discard", showing: "export-bar")
            let downloads = directory.path("downloads")
            try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
            try await browser.allowDownloads(to: downloads)
            try await browser.click(".export-bar a:nth-of-type(2)")
            let file = try await Self.download(in: downloads)
            let lines = file.split(whereSeparator: \.isNewline)
            #expect(lines.first?.hasPrefix("id,recordedAt") == true, "the plain CSV's header: \(lines.first ?? "")")
            #expect(lines.count == 2 && file.contains("outbox.discard"), "one discard, as filtered: \(file)")

            // a decision sent after the session ended is kept; after signing in again it is discarded
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let slug = try #require(try await store.oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            try await tour.open("/libraries/\(slug)", showing: "approve-form")
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in
                try db.execute(sql: "UPDATE session SET lastSeenAt = ?", arguments: [Date().addingTimeInterval(-24 * 3_600)])
            }
            try await Task.sleep(for: .milliseconds(2_200))
            try await tour.send(".approve-form button[type=submit]", to: .libraryDecide, showing: "id=\"login\"")
            try await tour.type("staff", into: "#login")
            try await tour.type(SeedAccounts.demoStaffPassword, into: "#password")
            try await tour.send("form.stack button[type=submit]", to: .signIn, showing: "unsent-discard")
            let discarded = try await tour.send(".unsent-discard button[type=submit]", to: .unsentWorkDiscard, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: discarded) == "Not sent: your kept decision was discarded, and nothing was recorded.")
            let recorded = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action WHERE targetKey = ?", arguments: [slug]) ?? 0
            }
            #expect(recorded == 0, "the discarded decision was never recorded")
            #expect(Set(tour.routesSent) == Self.routes, "this part sent a form to each of its routes")
        }
    }

    /// The text of the one file the browser finished downloading into `directory`.
    private static func download(in directory: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            // Chromium makes an empty file of the final name first and writes to a .crdownload
            // beside it: done once that is gone and the file has its bytes (a loaded machine read it empty).
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            if !names.contains(where: { $0.hasSuffix(".crdownload") }), let name = names.first {
                let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                if !text.isEmpty { return text }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no download finished in \(directory)")
        return ""
    }
}
