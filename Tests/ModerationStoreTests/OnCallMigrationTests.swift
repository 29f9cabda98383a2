import Foundation
import GRDB
import Testing

@testable import ModerationStore

@Suite("Outbox messages without a decision")
struct OnCallMigrationTests {
    @Test("the outbox rebuilt for messages of the console's own keeps every message, attempt and rule")
    func rebuildKeepsMessages() async throws {
        // setup: a database as the outbox-delivery release left it, with a delivered message and its attempt
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("oncall-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v11-outbox-delivery")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO action (idempotencyKey, actorId, actorUsername, targetKind, targetKey, statusSeen, statusWanted, reason, requestId,
                        clientAddress, userAgent, state, nextAttemptAt, createdAt, updatedAt, attempts)
                    VALUES ('k', 3, 'staff', 'report', '12', 'open', 'resolved', '', 'r', '127.0.0.1', 'test', 'applied',
                        '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', 1);
                    INSERT INTO outboxMessage (id, actionId, recipientUserId, eventType, payload, headers, status, attempts, createdAt,
                        nextAttemptAt, lastReason, finishedAt, expiresAt)
                    VALUES ('done', 1, 7, 'report.resolved', '{"aps":{}}', '{}', 'delivered', 1, '2026-01-01 00:00:00.000',
                        '2026-01-01 00:00:00.000', '', '2026-01-01 00:00:01.000', '2026-01-08 00:00:00.000');
                    INSERT INTO outboxAttempt (messageId, deviceToken, transport, httpStatus, outcome, reason, attemptedAt)
                    VALUES ('done', '', 'spool', NULL, 'delivered', '', '2026-01-01 00:00:01.000');
                    """)
        }
        // act
        let store = try ModerationStore(path: path)
        // check: the message, its attempt and its decision survive; one decision still gives one message per person and type
        let message = try #require(try await store.outboxMessage(id: "done"))
        #expect(message.actionId == 1 && message.status == .delivered && message.dedupeKey == nil)
        #expect(message.finishedAt != nil && message.expiresAt != nil)
        #expect(try await store.outboxAttempts(messageID: "done").count == 1)
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
        #expect(throws: DatabaseError.self) {
            try reopened.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO outboxMessage (id, actionId, recipientUserId, eventType, payload, headers, status, createdAt)
                        VALUES ('again', 1, 7, 'report.resolved', '{}', '{}', 'pending', '2026-01-01 00:00:00.000')
                        """)
            }
        }
    }

    @Test("a message of the console's own is stored once per key, with no decision")
    func ownMessagesOncePerKey() async throws {
        // setup
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("oncall-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try ModerationStore(path: path)
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        @Sendable func message(_ id: String) -> OutboxMessage {
            OutboxMessage(
                id: id, actionId: nil, recipientUserId: 3, eventType: .queueOverdue, payload: "{}", headers: "{}", createdAt: now,
                dedupeKey: "alert-1-notice-1")
        }
        // act
        let first = try await store.writer.write { db in try ModerationStore.insertOwnOutboxMessage(message("one"), db) }
        let second = try await store.writer.write { db in try ModerationStore.insertOwnOutboxMessage(message("two"), db) }
        // check
        #expect(first && !second)
        let stored = try #require(try await store.outboxMessage(id: "one"))
        #expect(stored.actionId == nil && stored.eventType == .queueOverdue && stored.status == .pending)
        #expect(try await store.outboxMessage(id: "two") == nil)
    }
}
