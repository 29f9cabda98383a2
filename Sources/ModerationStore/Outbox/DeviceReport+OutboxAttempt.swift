import Foundation
import GRDB

extension DeviceReport {
    /// What an attempt says of its token in the token's own environment (400 is `BadDeviceToken`,
    /// any other refusal of the token `Unregistered` as of the attempt); nil for one that says nothing.
    init?(attempt: OutboxAttempt) {
        guard !attempt.deviceToken.isEmpty else { return nil }
        switch attempt.outcome {
        case .delivered:
            self.init(token: attempt.deviceToken, environment: nil, finding: .delivered, reason: "", at: attempt.attemptedAt)
        case .deviceDisabled:
            self.init(
                token: attempt.deviceToken, environment: nil,
                finding: attempt.httpStatus == 400 ? .badDeviceToken : .unregistered(since: attempt.attemptedAt), reason: attempt.reason,
                at: attempt.attemptedAt)
        case .retry, .failed:
            return nil
        }
    }
}
