import Foundation

/// A delivery's stored reason as a moderator reads it. The stored text names APNs' code first
/// ("APNs answered BadDeviceToken (HTTP 400): …") for operators searching logs and Apple's
/// documentation; pages say "Apple answered: …" and leave the code to `console outbox` and the
/// operator's details.
enum DeliveryReasonText {
    static func shown(_ stored: String) -> String {
        stored.replacing(#/APNs answered (?:[A-Za-z]+ \(HTTP \d+\)|HTTP \d+): /#, with: "Apple answered: ")
    }
}
