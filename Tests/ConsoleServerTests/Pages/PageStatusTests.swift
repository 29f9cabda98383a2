import BookCornersAPI
import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

/// `PageStatus` is how every page tells how fresh its mirrored data is and whether Book Corners answers.
@Suite("Page status: freshness and the backend's silence")
struct PageStatusTests {
    @Test("a backend silent for less than the grace period says nothing; past it, the banner names its last answer")
    func backendSilence() {
        // setup
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let lastAnswer = now.addingTimeInterval(-300)
        var brief = PageStatus()
        var long = PageStatus()
        var never = PageStatus()
        var answering = PageStatus()
        // act
        brief.mirrorHealth(MirrorHealth(lastAnsweredAt: lastAnswer, unansweredSince: now.addingTimeInterval(-5)), now: now)
        long.mirrorHealth(MirrorHealth(lastAnsweredAt: lastAnswer, unansweredSince: now.addingTimeInterval(-200)), now: now)
        never.mirrorHealth(MirrorHealth(lastAnsweredAt: nil, unansweredSince: now.addingTimeInterval(-60)), now: now)
        answering.mirrorHealth(MirrorHealth(lastAnsweredAt: now, unansweredSince: nil), now: now)
        // check
        #expect(brief.banner == nil, "one failed read among good ones is no news")
        #expect(long.banner?.hasPrefix("Book Corners has not answered since 2027-01-15 07:55 UTC.") == true, "\(long.banner ?? "nil")")
        #expect(never.banner?.hasPrefix("Book Corners has not answered since 2027-01-15 07:59 UTC.") == true, "\(never.banner ?? "nil")")
        #expect(answering.banner == nil)
    }

    @Test(
        "a queue's rows confirmed within the mirror's schedule (two minutes) say nothing while the mirror answers; rows older than that, or a mirror that has stopped answering, are said"
    )
    func freshnessFollowsTheSchedule() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func status(confirmed age: TimeInterval, lastAnswer: TimeInterval?) -> PageStatus {
            var status = PageStatus()
            status.freshnessGoal = MirrorPageData.queueFreshnessGoal
            status.mirrored(confirmedAt: now.addingTimeInterval(-age))
            status.mirrorHealth(MirrorHealth(lastAnsweredAt: lastAnswer.map { now.addingTimeInterval(-$0) }, unansweredSince: nil), now: now)
            return status
        }
        #expect(status(confirmed: 20, lastAnswer: 5).notice(now: now) == nil)
        #expect(status(confirmed: 95, lastAnswer: 5).notice(now: now) == nil, "a first view, the oldest row read 95 s ago on schedule")
        let late = status(confirmed: 200, lastAnswer: 5).notice(now: now)
        #expect(late?.hasPrefix("This page's data is older than 30 s (confirmed 3 min ago)") == true, "\(late ?? "nil")")
        let quiet = status(confirmed: 95, lastAnswer: 60).notice(now: now)
        #expect(quiet?.hasPrefix("This page's data is older than 30 s") == true, "the mirror has read nothing for a minute: \(quiet ?? "nil")")
    }

}
