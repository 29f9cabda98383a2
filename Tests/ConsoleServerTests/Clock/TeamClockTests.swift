import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

@testable import ConsoleServer

/// One clock for the team: every absolute time on a page in the rotation's zone, the exact UTC
/// instant only on hover (a title), with or without script.
@Suite("The team's one clock", .timeLimit(.minutes(3)))
struct TeamClockTests {
    /// The page's text as a person reads it: tags and their attributes (titles) left out.
    private func visibleText(_ html: String) -> String {
        html.replacing(#/<script.*?</script>/#.dotMatchesNewlines(), with: "").replacing(#/<[^>]*>/#, with: " ")
    }

    @Test(
        "before any rotation times are on the server's clock; once staff set Rome time, a library's, a report's and an audit entry's pages say Rome time, UTC only on hover"
    )
    func pagesFollowTheRotation() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let library = try #require(try await store.pendingLibraries(afterID: 0, limit: 1).first)
            let report = try #require(try await store.mirroredReports(status: .open, limit: 1, offset: 0).first)
            let server = OnCallTimeText(zone: .current)
            let before = try await browser.get("/libraries/\(library.slug)")
            #expect(before.contains(server.stamp(library.createdAt)), "the server's clock before any rotation: \(before)")

            // act: staff choose Rome time for the rotation
            let rome = try await store.putTeam(on: "Europe/Rome")
            let entryID = try #require(try await store.auditEntries().last?.id)
            let pages = [
                ("library", try await browser.get("/libraries/\(library.slug)"), library.createdAt),
                ("report", try await browser.get("/reports/\(report.id)"), report.createdAt),
                ("audit entry", try await browser.get("/audit/\(entryID)"), nil),
            ]

            // check
            let clock = OnCallTimeText(zone: rome)
            for (name, page, shown) in pages {
                let text = visibleText(page.html)
                // One name for the zone: never UTC, nor an offset Linux would give for Rome ("UTC+2" in summer).
                let otherClock = text.firstMatch(of: /\sUTC/).map { String(text[$0.range.lowerBound...].prefix(40)) }
                #expect(otherClock == nil, "\(name): a time on another clock: \(otherClock ?? "")")
                if let shown {
                    #expect(text.contains(clock.stamp(shown)), "\(name): \(clock.stamp(shown)) in \(text)")
                    #expect(
                        page.contains(#"title="\#(TimeText.utc(shown))""#) || page.contains(TimeText.iso(shown)), "\(name): the UTC instant on hover: \(page)")
                }
            }
            let zone = clock.zoneLabel(Date())
            #expect(visibleText(pages[2].1.html).contains(" \(zone) "), "the entry's time names Rome's zone: \(zone)")
            #expect(pages[2].1.contains(#"title="exactly "#), "the instant the hash covers, to the millisecond, on hover")
        }
    }

    @Test(
        "before any rotation staff choose the team's zone and 12-hour on the on-call page: pages then read Tokyo time in 12-hour, the change is audited; a zone abbreviation is refused and changes nothing; once a rotation exists its zone wins and the form only offers the hours"
    )
    func staffChooseTheClock() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let library = try #require(try await store.pendingLibraries(afterID: 0, limit: 1).first)
            let onCall = try await browser.get("/on-call")
            #expect(onCall.contains(#"<input name="timeZone" value="\#(TimeZone.current.identifier)""#), "no rotation: the zone can be typed: \(onCall)")

            // act: an abbreviation, then Tokyo in 12-hour
            let refused = try await browser.post("/on-call/clock", form: [("csrf", onCall.csrfToken ?? ""), ("hours", "12"), ("timeZone", "CET")])
            try await browser.post("/on-call/clock", form: [("csrf", onCall.csrfToken ?? ""), ("hours", "12"), ("timeZone", "Asia/Tokyo")])
            let saved = try await browser.get("/on-call")
            let libraryPage = try await browser.get("/libraries/\(library.slug)")

            // check: refused in words, nothing changed; then Tokyo time in 12-hour on every page
            #expect(refused.status == .badRequest && refused.contains("is not a time zone: use an IANA name such as Europe/Rome. Nothing was changed."))
            #expect(refused.contains(#"value="CET""#), "the typed zone is kept")
            let tokyo = OnCallTimeText(zone: try #require(TimeZone(identifier: "Asia/Tokyo")), twelveHour: true)
            #expect(saved.contains("Team clock saved: 12-hour, Tokyo time."), "\(saved)")
            #expect(libraryPage.contains(tokyo.stamp(library.createdAt)), "\(tokyo.stamp(library.createdAt)) in \(libraryPage)")
            #expect(tokyo.stamp(library.createdAt).wholeMatch(of: /\d{4}-\d\d-\d\d \d{1,2}:\d\d [AP]M Tokyo time/) != nil, "\(tokyo.stamp(library.createdAt))")
            let entry = try #require(try await store.auditEntries().last { $0.action == "teamClock.update" })
            #expect(entry.statusAfter == "12-hour, Asia/Tokyo" && entry.actorUsername == "staff", "\(entry)")
            let audit = try await browser.get("/audit")
            #expect(audit.contains("Team clock changed"))

            // act: a rotation in Rome is set up; a zone posted to the clock form is not taken
            let rome = try #require(TimeZone(identifier: "Europe/Rome"))
            try await browser.post(
                "/on-call/rotation",
                form: [
                    ("csrf", onCall.csrfToken ?? ""), ("member", "staff"), ("shiftDays", "7"), ("handoff", "09:00"), ("timeZone", "Europe/Rome"),
                    ("startDate", LocalDate(Date(), in: rome).description), ("edit", "save"),
                ])
            let withRotation = try await browser.get("/on-call")
            try await browser.post("/on-call/clock", form: [("csrf", withRotation.csrfToken ?? ""), ("hours", "24"), ("timeZone", "Asia/Tokyo")])
            let romePage = try await browser.get("/libraries/\(library.slug)")

            // check
            #expect(
                !withRotation.contains(#"<input name="timeZone" value="Asia/Tokyo""#)
                    && withRotation.contains("the rotation’s: change it with the rotation below"))
            #expect(withRotation.contains("handing off at 9:00 AM Rome time"), "the rotation's hand-off on the 12-hour clock")
            #expect(romePage.contains(OnCallTimeText(zone: rome).stamp(library.createdAt)), "Rome time, 24-hour: \(romePage)")
        }
    }
}
