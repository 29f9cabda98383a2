import Foundation
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Every page a staff member meets, in a real browser, at each size: sign-in; signed in, every
/// page with data behind it (a decision applied, so the audit log and the outbox have
/// entries; a rotation, so on call has a calendar), the two confirmations reached by their
/// forms and two error pages; then Sign out, and a wrong password. The phone-layout and
/// accessibility tests check each stop.
enum PageTour {
    /// One page: its name in failure messages, and how the browser gets there.
    struct Stop: Sendable {
        let name: String
        let go: @Sendable (WebDriver) async throws -> Void
    }

    /// The laptop and the phone the review used.
    enum Size: String, CaseIterable, Sendable {
        case laptop, phone

        var width: Int { self == .laptop ? 1280 : 390 }
        var height: Int { self == .laptop ? 900 : 844 }
    }

    /// Starts the sandbox and the console, signs a browser in and walks every stop at each of
    /// `sizes`, calling `check` on each (the browser sits on the stop's page, at that size), the
    /// pages seeing the device's theme as `colorScheme` ("light" or "dark").
    static func walk(
        sizes: [Size], colorScheme: String = "light", _ check: @escaping @Sendable (_ stop: String, _ size: Size, _ browser: WebDriver) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await giveRotation(store: store, sandboxDatabase: directory.path("sandbox.sqlite"))
            let app = try await buildConsoleApplication(
                configuration: ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory), logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                try await ConsoleFixture.fillMirror(client: client, directory: directory, backendURL: sandbox.baseURL)
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let browser = try WebDriver()
                do {
                    try await browser.start()
                    try await browser.emulateColorScheme(colorScheme)
                    var stops: [Stop]?
                    for size in sizes {
                        try await browser.emulateViewport(width: size.width, height: size.height)
                        try await browser.go(console + "/sign-in")
                        try await check("sign-in", size, browser)
                        try await browser.signInAsStaff(console: console)
                        let signedIn: [Stop]
                        if let stops { signedIn = stops } else { signedIn = try await signedInStops(console, browser: browser, store: store) }
                        stops = signedIn
                        for stop in signedIn {
                            try await stop.go(browser)
                            try await check(stop.name, size, browser)
                        }
                        // On a phone Sign out is behind the menu: open it as a person would.
                        let folded =
                            try await browser.execute(
                                "var b = document.querySelector('.site-menu-button'); return !!(b && getComputedStyle(b).display !== 'none');") as? Bool
                        if folded == true { try await browser.click(".site-menu-button") }
                        try await browser.click(".user button[type=submit]")
                        try await arrive(browser, at: "signed out", containing: "You have signed out.")
                        try await check("signed out", size, browser)
                        try await browser.type("staff", into: "#login")
                        try await browser.type("not-the-password", into: "#password")
                        try await browser.click("button[type=submit]")
                        try await arrive(browser, at: "wrong password", containing: "form-error")
                        try await check("sign-in after a wrong password", size, browser)
                    }
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }

    /// Waits for the page a stop leads to, and fails the walk when it never comes (checking
    /// whatever page the browser stayed on would pass for the wrong page).
    static func arrive(_ browser: WebDriver, at stop: String, containing marker: String) async throws {
        let page = try await browser.source(containing: marker)
        try #require(page.contains(marker), "\(stop): the page never showed \(marker.debugDescription)")
    }

    /// The signed-in pages. Makes one decision first (approving the oldest pending library)
    /// and waits for its outbox message, so the audit and outbox pages have entries to show.
    private static func signedInStops(_ console: String, browser: WebDriver, store: ModerationStore) async throws -> [Stop] {
        let pending = try await store.oldestMirroredLibraries(status: .pending, count: 3).map(\.slug)
        try #require(pending.count == 3)
        let rejected = try await #require(try store.oldestMirroredLibraries(status: .rejected, count: 1).first?.slug)
        let report = try await #require(try store.oldestMirroredReports(status: .open, count: 1).first?.id)
        let photo = try await #require(try store.oldestMirroredPhotos(status: .pending, count: 1).first?.id)
        try await browser.go(console + "/libraries/" + pending[0])
        try await browser.click("section.decide button[data-key=approve]")
        var message: OutboxMessage?
        for _ in 0..<100 where message == nil {
            message = try await store.outboxMessages(status: nil, eventType: nil, limit: 1).first
            if message == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let outboxID = try #require(message?.id, "the approval's notification")
        let auditID = try await #require(try store.auditEntries(limit: 1).first?.id)
        func page(_ name: String, _ path: String) -> Stop {
            Stop(name: name) { try await $0.go(console + path) }
        }
        return [
            page("dashboard", "/"),
            page("libraries", "/libraries"),
            page("libraries searched for the hostile name", "/libraries?q=script"),
            page("reports", "/reports"),
            page("photos", "/photos"),
            page("a photo, large", "/photos/\(photo)"),
            page("libraries, needs a look first", "/libraries?order=needs-a-look"),
            page("reasons to look and their settings", "/reasons"),
            page("a library", "/libraries/" + pending[1]),
            Stop(name: "a library with a possible duplicate") { browser in
                try await browser.go(console + "/libraries?status=pending&page_size=50")
                _ = try await browser.source(containing: "data-keyboard-list")
                let open = try #require(
                    try await browser.execute(
                        "var row = Array.from(document.querySelectorAll('[data-row]')).find(r => /duplicate/.test(Array.from(r.querySelectorAll('.concern')).map(c => c.textContent).join(' '))); return row ? row.dataset.open : null;"
                    ) as? String, "a waiting library marked as a duplicate")
                try await browser.go(console + open)
                try await arrive(browser, at: "a library with a possible duplicate", containing: "candidate-name\"><a")
            },
            Stop(name: "reject confirmation") { browser in
                try await browser.go(console + "/libraries/" + pending[1])
                _ = try await browser.execute(
                    """
                    var form = document.querySelector("form.reject-form");
                    form.querySelector("select[name=reason_preset]").value = "own";
                    form.querySelector("textarea[name=reason]").value = "Not a public book exchange.";
                    form.querySelector("button[type=submit]").click();
                    """)
                try await arrive(browser, at: "Confirm rejection", containing: "<h1>Reject ")
            },
            Stop(name: "reverse confirmation") { browser in
                try await browser.go(console + "/libraries/" + rejected)
                try await browser.click("section.decide button[data-key=approve]")
                try await arrive(browser, at: "reverse confirmation", containing: "Nothing has been recorded yet.")
            },
            page("a report", "/reports/\(report)"),
            Stop(name: "bulk confirmation") { browser in
                try await browser.go(console + "/libraries?status=pending")
                _ = try await browser.execute(
                    """
                    var boxes = document.querySelectorAll("table.queue input[name=item]");
                    boxes[0].checked = true; boxes[1].checked = true;
                    var form = boxes[0].form;
                    form.querySelector("select[name=decision]").value = "reject";
                    form.querySelector(".bulk-bar select[name=reason_preset]").selectedIndex = 1;
                    form.querySelector(".bulk-bar button[type=submit]").click();
                    """)
                try await arrive(browser, at: "bulk confirmation", containing: "Reject 2 libraries?")
            },
            page("audit", "/audit"),
            Stop(name: "audit verified") { browser in
                try await browser.go(console + "/audit")
                try await browser.click(".page-head form button[type=submit]")
                try await arrive(browser, at: "audit verified", containing: "verdict")
            },
            page("an audit entry", "/audit/\(auditID)"),
            page("audit summary", "/audit/summary"),
            page("outbox", "/outbox"),
            page("an outbox message", "/outbox/\(outboxID)"),
            page("statistics", "/statistics"),
            page("on call", "/on-call"),
            page("on call: alerts", "/on-call/alerts"),
            page("on call: hand-offs", "/on-call/handoffs"),
            page("devices", "/devices"),
            page("not found", "/libraries/no-such-library"),
            page("no such page", "/no-such-page"),
        ]
    }

    /// staff and maria take week-long turns in Rome, staff's since yesterday; maria covers a day of
    /// it in three days (the calendar's "(covering)" line).
    private static func giveRotation(store: ModerationStore, sandboxDatabase: String) async throws {
        let staff = try SeedAccounts.staffAccounts(databasePath: sandboxDatabase).map { StaffMember(id: $0.id, username: $0.username) }
        let members = try ["staff", "maria"].map { name in try #require(staff.first { $0.username == name }) }
        for member in members { try await store.recordStaffMember(member, signedInAt: nil) }
        let rome = try #require(TimeZone(identifier: "Europe/Rome"))
        let rotation = try Rotation(
            members: members, shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: rome,
            startDate: LocalDate(Date(), in: rome).adding(days: -1))
        let audit = AuditEntry(
            recordedAt: Date(), actorId: nil, actorUsername: "test", action: "rotation.update", targetKind: "oncall", targetId: "1",
            targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil,
            requestId: "", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
        try await store.saveRotation(rotation, audit: audit, now: Date())
        let covered = Date().addingTimeInterval(3 * 86_400)
        try await store.addOverride(
            staff: members[1], startsAt: covered, endsAt: covered.addingTimeInterval(86_400), note: "holiday", audit: audit, now: Date())
    }
}
