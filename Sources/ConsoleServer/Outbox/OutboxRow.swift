import Foundation
import ModerationStore
import Mustache

/// One message as the Outbox list and its page show it.
struct OutboxRow: MustacheParent {
    let id: String
    let eventType: String
    let recipient: Int
    /// "maria", or "user #14" when the console has never seen that user's name.
    let recipientName: String
    let title: String
    let body: String
    let status: String
    let statusLabel: String
    let attempts: Int
    /// "1 attempt", "3 attempts".
    let attemptsText: String
    /// "in 12 s" while pending, else empty.
    let nextAttempt: String
    let nextAttemptUTC: String
    let hasNextAttempt: Bool
    let lastReason: String
    let hasLastReason: Bool
    let age: String
    let createdAt: String
    let createdUTC: String
    let messageURL: String

    /// `names` are the usernames the console knows (`ModerationStore.knownUsernames`).
    init(_ message: OutboxMessage, attempts: Int, now: Date, names: [Int: String] = [:]) {
        id = message.id
        messageURL = SiteURL.outboxMessage(message.id).path
        eventType = message.eventType.label
        recipient = message.recipientUserId
        recipientName = names[message.recipientUserId] ?? "a Book Corners user (id \(message.recipientUserId))"
        let alert = (try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
            .flatMap { ($0["aps"] as? [String: Any])?["alert"] as? [String: Any] }
        title = alert?["title"] as? String ?? ""
        body = alert?["body"] as? String ?? ""
        status = message.status.rawValue
        statusLabel = message.status.label
        self.attempts = attempts
        attemptsText = CountText.of(attempts, "attempt", "attempts")
        hasNextAttempt = message.status == .pending
        nextAttempt = hasNextAttempt ? Self.until(message.nextAttemptAt, now: now) : ""
        nextAttemptUTC = hasNextAttempt ? TimeText.utc(message.nextAttemptAt) : ""
        lastReason = DeliveryReasonText.shown(message.lastReason)
        hasLastReason = !message.lastReason.isEmpty
        age = TimeText.age(of: message.createdAt, now: now)
        createdAt = TimeText.iso(message.createdAt)
        createdUTC = TimeText.utc(message.createdAt)
    }

    /// "now", "in 12 s", "in 5 min", "in 2 h".
    static func until(_ date: Date, now: Date) -> String {
        let seconds = Int(date.timeIntervalSince(now).rounded(.up))
        switch seconds {
        case ...0: return "now"
        case ..<60: return "in \(seconds) s"
        case ..<3_600: return "in \(seconds / 60) min"
        default: return "in \(seconds / 3_600) h"
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "eventType": eventType
        case "recipient": recipient
        case "recipientName": recipientName
        case "title": title
        case "body": body
        case "status": status
        case "statusLabel": statusLabel
        case "attempts": attempts
        case "attemptsText": attemptsText
        case "nextAttempt": nextAttempt
        case "nextAttemptUTC": nextAttemptUTC
        case "hasNextAttempt": hasNextAttempt
        case "lastReason": lastReason
        case "hasLastReason": hasLastReason
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "messageURL": messageURL
        default: nil
        }
    }
}
