import Foundation
import ModerationStore
import Mustache

/// One outbox message: its payload, state, and every delivery attempt.
struct OutboxMessagePage: MustacheParent {
    /// One try at one device, newest first.
    struct Attempt: MustacheParent {
        let time: String
        let timeUTC: String
        let timeText: String
        let device: String
        let transport: String
        let httpStatus: String
        let outcome: String
        let reason: String

        init(_ attempt: OutboxAttempt) {
            time = TimeText.iso(attempt.attemptedAt)
            timeUTC = TimeText.utc(attempt.attemptedAt)
            timeText = TeamClock.stamp(attempt.attemptedAt)
            device = attempt.deviceToken.isEmpty ? "all (\(attempt.transport))" : DeviceText.short(attempt.deviceToken)
            transport = attempt.transport
            httpStatus = attempt.httpStatus.map(String.init) ?? "—"
            outcome =
                switch attempt.outcome {
                case .delivered: "delivered"
                case .retry: "to be tried again"
                case .failed: "refused"
                case .deviceDisabled: "device no longer takes pushes"
                }
            reason = attempt.reason.isEmpty ? "—" : DeliveryReasonText.shown(attempt.reason)
        }

        func child(named key: String) -> Any? {
            switch key {
            case "time": time
            case "timeUTC": timeUTC
            case "timeText": timeText
            case "device": device
            case "transport": transport
            case "httpStatus": httpStatus
            case "outcome": outcome
            case "reason": reason
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let row: OutboxRow
    let payload: String
    let headers: String
    let payloadBytes: Int
    let attempts: [Attempt]
    let hasAttempts: Bool
    let canRetry: Bool
    /// Held by a restore: its Retry now is a Send.
    let isHeld: Bool
    let canDiscard: Bool
    let retryURL: String
    let discardURL: String
    let listURL = SiteURL.outbox.path

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "row": row
        case "payload": payload
        case "headers": headers
        case "payloadBytes": payloadBytes
        case "attempts": attempts
        case "hasAttempts": hasAttempts
        case "canRetry": canRetry
        case "isHeld": isHeld
        case "canDiscard": canDiscard
        case "retryURL": retryURL
        case "discardURL": discardURL
        case "listURL": listURL
        default: nil
        }
    }
}
