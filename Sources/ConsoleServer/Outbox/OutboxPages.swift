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
        eventType = message.eventType.rawValue
        recipient = message.recipientUserId
        recipientName = names[message.recipientUserId] ?? "user #\(message.recipientUserId)"
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
        lastReason = message.lastReason
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

struct OutboxPage: MustacheParent {
    /// How many messages are in one state, for the summary line.
    struct Count: MustacheParent {
        let state: String
        let label: String
        let count: Int

        init(state: OutboxMessage.State, count: Int) {
            self.state = state.rawValue
            label = state.label
            self.count = count
        }

        func child(named key: String) -> Any? {
            switch key {
            case "state": state
            case "label": label
            case "count": count
            default: nil
            }
        }
    }

    /// What the delivery policy does with one event type.
    struct PolicyRow: MustacheParent {
        let type: String
        let rule: String
        let explanation: String

        init(type: OutboxMessage.EventType, rule: DeliveryPolicy.Rule) {
            self.type = type.rawValue
            self.rule = rule == .deliver ? "delivered" : "recorded only"
            explanation =
                switch rule {
                case .deliver: "The console delivers it."
                case .recordedOnly:
                    "Book Corners pushes this itself (approved from pending, or rejected with a reason): ours is kept for the record, marked sent by Book Corners. When Book Corners does not push it, the console delivers it."
                }
        }

        func child(named key: String) -> Any? {
            switch key {
            case "type": type
            case "rule": rule
            case "explanation": explanation
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let typeOptions: [FilterOption]
    let rows: [OutboxRow]
    let isEmpty: Bool
    let counts: [Count]
    let transport: String
    let deliveryOff: Bool
    /// The demo's page of pushes the APNs stand-in received; empty elsewhere.
    let watchURL: String
    let hasWatchURL: Bool
    let policy: [PolicyRow]
    let filterURL = SiteURL.outbox.path
    /// Messages a restore held: each waits for a staff member to send or discard it.
    let held: [HeldRow]
    let hasHeld: Bool

    /// A held message with the two forms that move it (each asks for confirmation first).
    struct HeldRow: MustacheParent {
        let row: OutboxRow
        let sendURL: String
        let discardURL: String

        func child(named key: String) -> Any? {
            switch key {
            case "row": row
            case "sendURL": sendURL
            case "discardURL": discardURL
            default: nil
            }
        }
    }

    init(
        layout: LayoutModel, statusOptions: [FilterOption], typeOptions: [FilterOption], rows: [OutboxRow], isEmpty: Bool, counts: [Count],
        transport: String, deliveryOff: Bool, watchURL: String, policy: [PolicyRow], held: [OutboxRow] = []
    ) {
        self.held = held.map { HeldRow(row: $0, sendURL: SiteURL.outboxRetry($0.id).path, discardURL: SiteURL.outboxDiscard($0.id).path) }
        hasHeld = !held.isEmpty
        self.layout = layout
        self.statusOptions = statusOptions
        self.typeOptions = typeOptions
        self.rows = rows
        self.isEmpty = isEmpty
        self.counts = counts
        self.transport = transport
        self.deliveryOff = deliveryOff
        self.watchURL = watchURL
        hasWatchURL = !watchURL.isEmpty
        self.policy = policy
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "statusOptions": statusOptions
        case "typeOptions": typeOptions
        case "rows": rows
        case "isEmpty": isEmpty
        case "counts": counts
        case "transport": transport
        case "deliveryOff": deliveryOff
        case "watchURL": watchURL
        case "hasWatchURL": hasWatchURL
        case "policy": policy
        case "filterURL": filterURL
        case "held": held
        case "hasHeld": hasHeld
        default: nil
        }
    }
}

struct OutboxMessagePage: MustacheParent {
    /// One try at one device, newest first.
    struct Attempt: MustacheParent {
        let time: String
        let timeUTC: String
        let device: String
        let transport: String
        let httpStatus: String
        let outcome: String
        let reason: String

        init(_ attempt: OutboxAttempt) {
            time = TimeText.iso(attempt.attemptedAt)
            timeUTC = TimeText.utc(attempt.attemptedAt)
            device = attempt.deviceToken.isEmpty ? "all (\(attempt.transport))" : DeviceText.short(attempt.deviceToken)
            transport = attempt.transport
            httpStatus = attempt.httpStatus.map(String.init) ?? "—"
            outcome = attempt.outcome.rawValue
            reason = attempt.reason.isEmpty ? "—" : attempt.reason
        }

        func child(named key: String) -> Any? {
            switch key {
            case "time": time
            case "timeUTC": timeUTC
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

/// "Retry now?" / "Discard?" before the move is made.
struct OutboxConfirmPage: MustacheParent {
    let heading: String
    let explanation: String
    let button: String
    let isDanger: Bool
    let actionURL: String
    let layout: LayoutModel
    let row: OutboxRow
    let cancelURL: String

    init(layout: LayoutModel, move: OutboxController.Move, held: Bool = false, row: OutboxRow, cancelURL: String) {
        self.layout = layout
        self.row = row
        self.cancelURL = cancelURL
        switch move {
        case .retry where held:
            heading = "Send this held message?"
            explanation =
                "It was waiting to be sent when the backup now restored was taken, so it may have reached its recipient after the backup. Send it only if you know they have not had it: it goes out with the same apns-id, to the devices the restored attempts show it has not reached. This is written to the audit log."
            button = "Send"
            isDanger = false
            actionURL = SiteURL.outboxRetry(row.id).path
        case .retry:
            heading = "Retry this message now?"
            explanation = "It goes back to the dispatcher with the same apns-id and is tried at once, to every active device of the recipient."
            button = "Retry now"
            isDanger = false
            actionURL = SiteURL.outboxRetry(row.id).path
        case .discard:
            heading = "Discard this message?"
            explanation = "It stays in the outbox for the record, marked discarded, and is never delivered. This is written to the audit log."
            button = "Discard"
            isDanger = true
            actionURL = SiteURL.outboxDiscard(row.id).path
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "heading": heading
        case "explanation": explanation
        case "button": button
        case "isDanger": isDanger
        case "actionURL": actionURL
        case "layout": layout
        case "row": row
        case "cancelURL": cancelURL
        default: nil
        }
    }
}

/// How device tokens are shown: enough to tell them apart, not the whole secret-ish string.
enum DeviceText {
    static func short(_ token: String) -> String {
        token.count > 12 ? "\(token.prefix(8))…\(token.suffix(4))" : token
    }
}
