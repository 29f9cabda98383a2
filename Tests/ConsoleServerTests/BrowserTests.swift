@testable import ConsoleServer
import Foundation
import GRDB
import HummingbirdTesting
import Sandbox
import Testing
import TestSupport

/// A real browser (headless Chromium) clicks through the console like a staff member.
@Suite("In a real browser", .serialized, .timeLimit(.minutes(3)))
struct BrowserTests {
    @Test("staff sign in, see the counts, open each queue and a library with a near duplicate; non-staff are refused")
    func clickThrough() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let app = try await buildConsoleApplication(
                configuration: ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory), logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                // Pages read the mirror: fill it once, as a staff member signed in elsewhere would have.
                try await ConsoleFixture.fillMirror(client: client, directory: directory, backendURL: sandbox.baseURL)
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let browser = try WebDriver()
                do {
                    try await browser.start()
                    try await browser.go(console + "/libraries")
                    #expect(try await browser.currentURL { $0.contains("/sign-in?next=") }.contains("/sign-in?next="))
                    try await browser.type("staff", into: "#login")
                    try await browser.type(SeedAccounts.demoStaffPassword, into: "#password")
                    try await browser.click("button[type=submit]")
                    #expect(try await browser.currentURL { $0 == console + "/libraries" } == console + "/libraries", "back where they were going")
                    #expect(try await browser.source(containing: "<table class=\"queue\">").contains("<table class=\"queue\">"))

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
                    #expect(try await browser.currentURL { $0 == console + "/sign-in" } == console + "/sign-in")
                    try await browser.type(SeedAccounts.demoUserUsername, into: "#login")
                    try await browser.type(SeedAccounts.userPassword, into: "#password")
                    try await browser.click("button[type=submit]")
                    let refused = try await browser.source(containing: "not a staff account")
                    #expect(refused.contains("not a staff account"), "\(refused.suffix(1500))")
                    #expect(try await browser.currentURL().hasSuffix("/sign-in"))
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }

    @Test("the list's forms as Chromium sends them decode: a row's one-click approval with rows ticked, and a bulk approval of two")
    func listForms() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let app = try await buildConsoleApplication(
                configuration: ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory), logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                // Pages read the mirror: fill it once, as a staff member signed in elsewhere would have.
                try await ConsoleFixture.fillMirror(client: client, directory: directory, backendURL: sandbox.baseURL)
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let browser = try WebDriver()
                do {
                    // setup: signed in, on the pending list, two rows ticked
                    try await browser.start()
                    try await browser.go(console + "/sign-in")
                    try await browser.type("staff", into: "#login")
                    try await browser.type(SeedAccounts.demoStaffPassword, into: "#password")
                    try await browser.click("button[type=submit]")
                    _ = try await browser.currentURL { $0 == console + "/" }
                    try await browser.go(console + "/libraries?status=pending&page_size=50")
                    try await browser.click("table.queue tbody tr:nth-child(1) input[name=item]")
                    try await browser.click("table.queue tbody tr:nth-child(2) input[name=item]")

                    // act: the third row's Approve sends the whole list form, ticked items included
                    try await browser.click("table.queue tbody tr:nth-child(3) button[name=quick]")
                    let afterQuick = try await browser.source(containing: #"<div class="flash" role="status">"#)
                    // act: two rows ticked, reviewed, confirmed
                    try await browser.click("table.queue tbody tr:nth-child(1) input[name=item]")
                    try await browser.click("table.queue tbody tr:nth-child(2) input[name=item]")
                    try await browser.click(".bulk-bar button[type=submit]")
                    let review = try await browser.source(containing: "Approve 2 libraries")
                    try await browser.click("form[action=\"/libraries/bulk/confirm\"] button[type=submit]")
                    let afterBulk = try await browser.source(containing: "2 decisions recorded")

                    // check
                    #expect(!afterQuick.contains("That did not work"), "\(afterQuick.suffix(1500))")
                    #expect(review.contains("Approve 2 libraries?"))
                    #expect(afterBulk.contains("2 decisions recorded"))
                    let database = try DatabaseQueue(path: directory.path("console.sqlite"))
                    let recorded = try await database.read { db in
                        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action WHERE statusWanted = 'approved'") ?? 0
                    }
                    #expect(recorded == 3, "one row's approval and two from the bulk form")
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
