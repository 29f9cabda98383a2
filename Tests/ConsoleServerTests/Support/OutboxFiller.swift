import Foundation
import GRDB
import ModerationStore
import TestSupport

/// Puts messages in a console database's outbox as decisions would, without a backend: one
/// recorded action per message, the message as `ActionRunner` stores it.
struct OutboxFiller {
    let path: String

    /// Stores `count` messages of `type` for recipients `firstRecipient`…, oldest first; with
    /// `failure`, as messages that failed for that reason.
    @discardableResult
    func add(
        _ count: Int, type: OutboxMessage.EventType = .photoApproved, firstRecipient: Int = 100, sentByBookCorners: Bool = false,
        createdAt: Date = Date(), expiresAt: Date? = nil, failedBecause failure: String? = nil
    ) async throws -> [OutboxMessage] {
        let store = try ModerationStore(path: path)
        var messages: [OutboxMessage] = []
        for index in 0..<count {
            let action = try await store.record(
                ModerationAction(
                    idempotencyKey: UUID().uuidString, actorId: 3, actorUsername: "staff", targetKind: .photo, targetKey: "\(index + 1)",
                    statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test",
                    now: createdAt)
            ).action
            let id = UUID().uuidString
            messages.append(
                OutboxMessage(
                    id: id, actionId: action.id ?? 0, recipientUserId: firstRecipient + index, eventType: type,
                    payload: #"{"aps":{"alert":{"title":"Your photo is live","body":"Nº \#(index)"},"sound":"default"},"data":{"type":"\#(type.rawValue)"}}"#,
                    headers: #"{"apns-expiration":"0","apns-id":"\#(id)","apns-priority":"10","apns-push-type":"alert","apns-topic":"org.bookcorners.app"}"#,
                    createdAt: createdAt.addingTimeInterval(Double(index) / 1000), sentByBookCorners: sentByBookCorners, expiresAt: expiresAt))
        }
        if let failure {
            // Stored as failed from the start: the console's dispatcher never sees them pending.
            for index in messages.indices {
                messages[index].status = .failed
                messages[index].lastReason = failure
            }
        }
        let stored = messages
        try await DatabaseQueue.waiting(path: path).write { db in
            for message in stored { try message.insert(db) }
        }
        return messages
    }

    /// Gives each of `users` an active device token (64 hex digits, distinct per user and `slot`).
    @discardableResult
    func addDevices(for users: some Sequence<Int>, slot: Int = 0, environment: Device.Environment = .sandbox) async throws -> [Device] {
        let store = try ModerationStore(path: path)
        var devices: [Device] = []
        for user in users {
            devices.append(try await store.addDevice(userID: user, token: Self.token(user: user, slot: slot), environment: environment, now: Date()))
        }
        return devices
    }

    /// The audit entry a staff member's move of a message (Retry now, Send, Discard) carries.
    static func staffAudit(_ action: String, messageID: String, statusBefore: String = "failed", statusAfter: String = "pending") -> AuditEntry {
        AuditEntry(
            recordedAt: Date(), actorId: 3, actorUsername: "staff", action: action, targetKind: "outbox", targetId: messageID, targetSlug: "",
            targetName: "", statusBefore: statusBefore, statusAfter: statusAfter, reason: "", outcome: .succeeded, backendStatus: nil,
            requestId: "test", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil)
    }

    static func token(user: Int, slot: Int = 0) -> String {
        String(format: "%032x%032x", user, slot)
    }
}
