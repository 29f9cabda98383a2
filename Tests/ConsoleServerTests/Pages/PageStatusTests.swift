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
}
