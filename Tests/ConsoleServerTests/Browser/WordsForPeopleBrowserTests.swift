import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// Pages speak as people do: no page a moderator opens shows the console's own codes
/// (`library.approve`, `recordedAt`, "user #2", "Shift 0", APNs' `BadDeviceToken`), and every
/// time on it is on the team's one clock, written one way.
@Suite("Words for people, in a real browser", .serialized, .timeLimit(.minutes(6)))
struct WordsForPeopleBrowserTests {
    /// What reads as the console's codes in a page's visible text.
    static let codePatterns: [(name: String, pattern: String)] = [
        (
            "an action's machine name",
            #"\b(library|photo|report|session|rotation|override|queueTarget|alert|handoff|calendar|device|outbox|concernSettings|audit|claim|decision|teamClock|queue|shift)\.[a-z][A-Za-z]+\b"#
        ),
        ("a field's machine name", #"\b[a-z]{2,}[A-Z][a-z]+[A-Za-z]*\b"#),
        ("a user by number", #"\buser #\d"#),
        ("a shift by number", #"\bShift \d"#),
        ("APNs' words", #"\b(apns-id|BadDeviceToken|Unregistered|DeviceTokenNotForTopic)\b"#),
    ]

    @Test(
        "no page at 1280 or 390 px shows an action's or a field's machine name, a user or shift by number, or APNs' codes; every date-time on it reads like 2026-11-27 06:51 with a zone"
    )
    func noCodesOnAnyPage() async throws {
        let problems = Recorder<String>()
        try await PageTour.walk(sizes: PageTour.Size.allCases) { stop, size, browser in
            // act
            let text = try await browser.execute("return document.body.innerText") as? String ?? ""
            // check
            if text.isEmpty { problems.record("\(stop) (\(size.rawValue)): no text read") }
            for (name, pattern) in Self.codePatterns {
                let regex = try Regex(pattern)
                let found = text.matches(of: regex).map { String(text[$0.range]) }
                if !found.isEmpty { problems.record("\(stop) (\(size.rawValue)): \(name): \(Set(found).sorted().prefix(5))") }
            }
            // A date with a time is written one way: "2026-11-27 06:51 Rome time" (the zone named), never ISO's "T" or a month name with a year.
            let iso = text.matches(of: /\d{4}-\d\d-\d\dT\d\d:\d\d/).map { String(text[$0.range]) }
            if !iso.isEmpty { problems.record("\(stop) (\(size.rawValue)): ISO times shown: \(iso.prefix(3))") }
            let american = text.matches(of: /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}, \d{4}/).map { String(text[$0.range]) }
            if !american.isEmpty { problems.record("\(stop) (\(size.rawValue)): dates in another format: \(american.prefix(3))") }
        }
        let found = problems.values
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
