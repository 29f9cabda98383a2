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
            let rome = try #require(TimeZone(identifier: "Europe/Rome"))
            try await store.saveRotation(
                try Rotation(
                    members: try await store.staffMembers(), shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: rome,
                    startDate: LocalDate(Date(), in: rome)),
                audit: AuditEntry(
                    recordedAt: Date(), actorId: 7, actorUsername: "maria", action: "rotation.update", targetKind: "oncall", targetId: "1", targetSlug: "",
                    targetName: "rotation", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil, requestId: "r",
                    clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil),
                now: Date())
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
                // Linux names some zones by offset ("UTC+2" for summer in Rome): those are Rome's.
                let otherClock = text.firstMatch(of: /\sUTC(?![+\-])/).map { String(text[$0.range.lowerBound...].prefix(40)) }
                #expect(otherClock == nil, "\(name): a time on another clock: \(otherClock ?? "")")
                if let shown {
                    #expect(text.contains(clock.stamp(shown)), "\(name): \(clock.stamp(shown)) in \(text)")
                    #expect(
                        page.contains(#"title="\#(TimeText.utc(shown))""#) || page.contains(TimeText.iso(shown)), "\(name): the UTC instant on hover: \(page)")
                }
            }
            let zone = clock.zoneLabel(Date())
            #expect(visibleText(pages[2].1.html).contains(" \(zone) ("), "the entry's time names Rome's zone: \(zone)")
        }
    }
}
