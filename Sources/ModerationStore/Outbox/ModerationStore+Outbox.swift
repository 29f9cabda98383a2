import Foundation
import GRDB

extension ModerationStore {
    /// Outbox messages, newest first, optionally of one status or event type.
    public func outboxMessages(status: OutboxMessage.State? = nil, eventType: OutboxMessage.EventType? = nil, limit: Int = 100) throws -> [OutboxMessage] {
        try writer.read { db in
            var request = OutboxMessage.all()
            if let status { request = request.filter(OutboxMessage.Columns.status == status.rawValue) }
            if let eventType { request = request.filter(OutboxMessage.Columns.eventType == eventType.rawValue) }
            return try request.order(OutboxMessage.Columns.createdAt.desc).limit(limit).fetchAll(db)
        }
    }

    public func outboxMessage(id: String) throws -> OutboxMessage? {
        try writer.read { db in try OutboxMessage.fetchOne(db, key: id) }
    }

    public func outboxCount() throws -> Int {
        try writer.read { db in try OutboxMessage.fetchCount(db) }
    }
}
