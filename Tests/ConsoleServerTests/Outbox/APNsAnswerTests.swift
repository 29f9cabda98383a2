import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

@Suite("APNs answers turned into outcomes, as Apple documents them")
struct APNsAnswerTests {
    @Test("statuses and reasons map to delivered, device disabled, retry or failed")
    func outcomes() {
        // setup
        let cases: [(Int, String, OutboxAttempt.Outcome)] = [
            (200, "", .delivered),
            (400, "BadDeviceToken", .deviceDisabled),
            (410, "Unregistered", .deviceDisabled),
            (410, "ExpiredToken", .deviceDisabled),
            (400, "BadTopic", .failed),
            (403, "InvalidProviderToken", .failed),
            (403, "ExpiredProviderToken", .retry),
            (403, "TooManyProviderTokenUpdates", .retry),
            (413, "PayloadTooLarge", .failed),
            (429, "TooManyRequests", .retry),
            (500, "InternalServerError", .retry),
            (503, "ServiceUnavailable", .retry),
        ]

        for (status, reason, expected) in cases {
            // act
            let result = APNsAnswer(status: status, reason: reason).result(for: "token")

            // check
            #expect(result.outcome == expected, "\(status) \(reason)")
            #expect(result.httpStatus == status)
            #expect(status == 200 ? result.reason.isEmpty : result.reason.contains(reason), "\(status) \(reason)")
        }
    }

    @Test("the reason comes from APNs' JSON body and Retry-After is kept; a body that is not JSON still says the status")
    func parsing() {
        // act
        let throttled = APNsAnswer(
            status: 429, body: Data(#"{"reason":"TooManyRequests"}"#.utf8), retryAfterHeader: "30"
        ).result(for: "token")
        let broken = APNsAnswer(status: 502, body: Data("<html>Bad gateway</html>".utf8), retryAfterHeader: nil).result(for: "token")

        // check
        #expect(throttled.reason.hasPrefix("APNs answered TooManyRequests (HTTP 429)"))
        #expect(throttled.retryAfter == 30)
        #expect(broken.outcome == .retry)
        #expect(broken.reason.hasPrefix("APNs answered HTTP 502"))
        #expect(!broken.reason.contains("<html>"))
        #expect(broken.retryAfter == nil)
    }
}
