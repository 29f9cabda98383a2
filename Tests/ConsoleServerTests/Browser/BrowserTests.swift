import Foundation
import GRDB
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// A real browser (headless Chromium) clicks through the console like a staff member.
@Suite("In a real browser", .serialized, .timeLimit(.minutes(3)))
struct BrowserTests {
    @Test("staff sign in, see the counts, open each queue and a library with a near duplicate; non-staff are refused")
    func clickThrough() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            try await browser.go(console + "/libraries")
            #expect(try await browser.currentURL { $0.contains("/sign-in?next=") }.contains("/sign-in?next="))
            try await browser.type("staff", into: "#login")
            try await browser.type(SeedAccounts.demoStaffPassword, into: "#password")
            try await browser.click("button[type=submit]")
            #expect(try await browser.currentURL { $0 == console + "/libraries" } == console + "/libraries", "back where they were going")
            #expect(try await browser.source(containing: "data-keyboard-list").contains("<table class=\"queue\" data-keyboard-list"))

            try await browser.click("nav a[href=\"/\"]")
            let dashboard = try await browser.source(containing: "library submissions waiting")
            #expect(dashboard.contains("library submissions waiting"))
            #expect(dashboard.contains("Data from Book Corners, as of"))

            try await browser.click("nav a[href=\"/reports\"]")
            #expect(try await browser.source(containing: "Reported by").contains("Reported by"))
            try await browser.click("nav a[href=\"/photos\"]")
            let photos = try await browser.source(containing: "Proposed")
            #expect(photos.contains("Proposed") && photos.contains("Current"))

            try await browser.go(console + "/libraries?q=new&page_size=50")
            try await browser.click("table.queue a[href^=\"/libraries/\"]")
            let detail = try await browser.source(containing: "Possible duplicates")
            #expect(detail.contains("Possible duplicates"))
            #expect(detail.contains("Open in OpenStreetMap"))

            try await browser.click(".user button[type=submit]")
            #expect(try await browser.currentURL { $0 == console + "/sign-in?signed_out=1" } == console + "/sign-in?signed_out=1")
            try await browser.type(SeedAccounts.demoUserUsername, into: "#login")
            try await browser.type(SeedAccounts.userPassword, into: "#password")
            try await browser.click("button[type=submit]")
            let refused = try await browser.source(containing: "not a staff account")
            #expect(refused.contains("not a staff account"), "\(refused.suffix(1500))")
            #expect(try await browser.currentURL().hasSuffix("/sign-in"))
        }
    }

    @Test("the list's forms as Chromium sends them decode: a row's one-click approval with rows ticked, and a bulk approval of two")
    func listForms() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: signed in, on the pending list, two rows ticked
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            try await browser.click("table.queue tbody tr:nth-child(1) input[name=item]")
            try await browser.click("table.queue tbody tr:nth-child(2) input[name=item]")

            // act: a later row's Approve (the first from the third on: a possible duplicate offers
            // Compare… instead) sends the whole list form, ticked items included
            // Centred first: at the window's bottom edge the sticky bulk bar would cover it.
            _ = try await browser.execute("document.querySelector('table.queue tbody tr:nth-child(n+3) button[name=quick]').scrollIntoView({block: 'center'});")
            try await browser.click("table.queue tbody tr:nth-child(n+3) button[name=quick]")
            let afterQuick = try await browser.source(containing: #"<div class="flash" role="status">"#)
            // act: the two rows are still ticked (the approval was sent in place): reviewed, confirmed
            let ticked = try await browser.execute("return document.querySelectorAll('table.queue input[name=item]:checked').length;") as? Int
            #expect(ticked == 2, "a decision in place keeps the ticked boxes")
            try await browser.click(".bulk-bar button[type=submit]")
            let review = try await browser.source(containing: "Approve 2 libraries")
            try await browser.click("form[action=\"/libraries/bulk/confirm\"] button[type=submit]")
            let afterBulk = try await browser.source(containing: "2 decisions recorded")

            // check
            #expect(!afterQuick.contains("That did not work"), "\(afterQuick.suffix(1500))")
            #expect(review.contains("Approve 2 libraries?"))
            #expect(afterBulk.contains("2 decisions recorded"))
            let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            let recorded = try await database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action WHERE statusWanted = 'approved'") ?? 0
            }
            #expect(recorded == 3, "one row's approval and two from the bulk form")
        }
    }

    @Test(
        "keyboard only: the pending queue opens oldest first; approve three, reject one with a preset reason, each time on to the next, never back to the list")
    func keyboardTriage() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let oldest = try await store.oldestMirroredLibraries(status: .pending, count: 5).map(\.slug)
            try #require(oldest.count == 5)
            // setup: signed in (typing into the sign-in form), on the pending list
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries")
            let list = try await browser.source(containing: "data-keyboard-list")
            #expect(list.contains(#"<strong aria-current="true">Oldest first</strong>"#))

            // act: from here on, keys only
            try await browser.press("j", "o")
            let first = try await browser.currentURL { $0.contains("/libraries/" + oldest[0]) }
            try await browser.press("a")
            let second = try await browser.currentURL { $0.contains("/libraries/" + oldest[1]) }
            let afterFirst = try await browser.source(containing: #"<div class="flash" role="status">"#)
            try await browser.press("a")
            let third = try await browser.currentURL { $0.contains("/libraries/" + oldest[2]) }
            try await browser.press("a")
            let fourth = try await browser.currentURL { $0.contains("/libraries/" + oldest[3]) }
            try await browser.press("r", WebDriver.Key.arrowDown, WebDriver.Key.tab, WebDriver.Key.tab, WebDriver.Key.enter)
            let confirm = try await browser.source(containing: "Confirm rejection")
            try await browser.press(WebDriver.Key.enter)
            let fifth = try await browser.currentURL { $0.contains("/libraries/" + oldest[4]) }
            let afterReject = try await browser.source(containing: #"<div class="flash" role="status">"#)

            // check: each decision led to the next library of the list, and was made as asked
            #expect(first.contains("/libraries/" + oldest[0]), "o opened the oldest pending library")
            #expect(second.contains("/libraries/" + oldest[1]), "\(second)")
            #expect(third.contains("/libraries/" + oldest[2]), "\(third)")
            #expect(fourth.contains("/libraries/" + oldest[3]), "\(fourth)")
            #expect(fifth.contains("/libraries/" + oldest[4]), "after the rejection, the next one: \(fifth)")
            #expect(afterFirst.contains(#"<div class="flash" role="status">"#) && afterFirst.contains("Back to the list"))
            #expect(confirm.contains(DecisionController.presetReasons[0]), "the preset reason picked with the arrow key")
            #expect(afterReject.contains(#"<div class="flash" role="status">"#))
            let staff = try await staffID(store)
            var actions: [ModerationAction] = []
            for _ in 0..<50 {
                actions = try await store.recentDecisions(actorId: staff, kind: .library, since: .distantPast)
                if actions.count == 4 && actions.allSatisfy({ $0.state.isFinal }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let wanted = Dictionary(actions.map { ($0.targetKey, $0.statusWanted) }, uniquingKeysWith: { first, _ in first })
            #expect(wanted == [oldest[0]: .approved, oldest[1]: .approved, oldest[2]: .approved, oldest[3]: .rejected])
            #expect(actions.allSatisfy { $0.state == .applied }, "\(actions.map { ($0.targetKey, $0.state, $0.outcomeMessage ?? "") })")
            #expect(actions.first { $0.targetKey == oldest[3] }?.reason == DecisionController.presetReasons[0])
        }
    }

    /// The staff account's backend id, as its session recorded it.
    private func staffID(_ store: ModerationStore) async throws -> Int {
        try #require(try await store.staffMembers().first { $0.username == "staff" }?.id)
    }

    @Test("on call: the person on call sees the banner and acknowledges an alert, claims an item, and a second person's browser sees the claim")
    func onCall() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            // setup: staff and maria take week-long turns in Rome, staff's since yesterday; the watcher looks every half second
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staff = try SeedAccounts.staffAccounts(databasePath: directory.path("sandbox.sqlite")).map { StaffMember(id: $0.id, username: $0.username) }
            let members = try ["staff", "maria"].map { name in try #require(staff.first { $0.username == name }) }
            for member in members { try await store.recordStaffMember(member, signedInAt: nil) }
            let zone: TimeZone? = TimeZone(identifier: "Europe/Rome")
            let rome = try #require(zone)
            let rotation = try Rotation(
                members: members, shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: rome,
                startDate: LocalDate(Date(), in: rome).adding(days: -1))
            try await store.saveRotation(
                rotation,
                audit: AuditEntry(
                    recordedAt: Date(), actorId: nil, actorUsername: "test", action: "rotation.update", targetKind: "oncall", targetId: "1",
                    targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil,
                    requestId: "", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil), now: Date())
            var configuration = ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory)
            configuration.onCallWatcher = OnCallWatcherConfiguration(interval: 0.5)
            let app = try await buildConsoleApplication(configuration: configuration, logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                try await ConsoleFixture.fillMirror(client: client, directory: directory, backendURL: sandbox.baseURL)
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let onCall = try WebDriver()
                let colleague = try WebDriver()
                do {
                    try await onCall.start()
                    try await colleague.start()
                    for (browser, login) in [(onCall, "staff"), (colleague, "maria")] {
                        try await browser.go(console + "/sign-in")
                        try await browser.type(login, into: "#login")
                        try await browser.type(SeedAccounts.demoStaffPassword, into: "#password")
                        try await browser.click("button[type=submit]")
                        _ = try await browser.currentURL { $0 == console + "/" }
                    }
                    // act 1: the banner, and an alert to acknowledge once the watcher has looked
                    var dashboard = try await onCall.source()
                    for _ in 0..<40 where !dashboard.contains("Acknowledge — it is yours") {
                        try await Task.sleep(for: .milliseconds(250))
                        try await onCall.go(console + "/")
                        dashboard = try await onCall.source()
                    }
                    #expect(dashboard.contains(#"<div class="oncall-line oncall-you" role="status"><strong>You are on call until"#))
                    #expect(dashboard.contains("Acknowledge — it is yours"), "\(dashboard.suffix(2000))")
                    try await onCall.click("form.acknowledge button[type=submit]")
                    let acknowledged = try await onCall.source(containing: "Acknowledged: ")
                    #expect(acknowledged.contains("It will not escalate"))
                    #expect(try await store.recentQueueAlerts(limit: 10).contains { $0.state == .acknowledged && $0.acknowledgedByUsername == "staff" })
                    #expect(try await store.auditEntries(limit: 20).contains { $0.action == "alert.acknowledge" && $0.actorUsername == "staff" })
                    let colleaguePage = try await colleague.source()
                    #expect(colleaguePage.contains("On call: staff until") && !colleaguePage.contains("oncall-you"))
                    // act 2: staff claims the first waiting library
                    try await onCall.go(console + "/libraries?status=pending")
                    try await onCall.click("table.queue button.claim-button")
                    let claimed = try await onCall.source(containing: "You are reviewing")
                    #expect(claimed.contains(#"You are reviewing</strong> · <span class="claim-left">15 min left</span>"#))
                    // check: maria's browser shows who has it
                    try await colleague.go(console + "/libraries?status=pending")
                    let seen = try await colleague.source(containing: "is reviewing")
                    #expect(seen.contains(#"<strong class="claim-holder">staff</strong> is reviewing · "#))
                    #expect(seen.contains("Take over…"))
                } catch {
                    await onCall.quit()
                    await colleague.quit()
                    throw error
                }
                await onCall.quit()
                await colleague.quit()
            }
        }
    }
}
