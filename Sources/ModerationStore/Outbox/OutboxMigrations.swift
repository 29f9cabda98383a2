import GRDB

/// The outbox's delivery tables, appended to the store's migrator. Never edit a landed migration.
enum OutboxMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11-outbox-delivery") { db in
            // Messages from before delivery existed stay pending and go out like new ones, but
            // keep the expiry their headers always carried (a stale one fails instead of being
            // pushed months late), and library news counts as sent by Book Corners (it pushes
            // approvals from pending and reasoned rejections itself), so the standard policy
            // records it rather than sending it twice. `sent` was never written by anything.
            try db.execute(
                sql: """
                    ALTER TABLE outboxMessage ADD COLUMN nextAttemptAt DATETIME;
                    UPDATE outboxMessage SET nextAttemptAt = createdAt;
                    UPDATE outboxMessage SET status = 'delivered' WHERE status = 'sent';
                    ALTER TABLE outboxMessage ADD COLUMN lastReason TEXT NOT NULL DEFAULT '';
                    ALTER TABLE outboxMessage ADD COLUMN claimedBy TEXT;
                    ALTER TABLE outboxMessage ADD COLUMN leaseExpiresAt DATETIME;
                    ALTER TABLE outboxMessage ADD COLUMN finishedAt DATETIME;
                    ALTER TABLE outboxMessage ADD COLUMN sentByBookCorners BOOLEAN NOT NULL DEFAULT 0;
                    ALTER TABLE outboxMessage ADD COLUMN expiresAt DATETIME;
                    UPDATE outboxMessage SET expiresAt = datetime(CAST(json_extract(headers, '$."apns-expiration"') AS INTEGER), 'unixepoch')
                        WHERE json_valid(headers) AND CAST(json_extract(headers, '$."apns-expiration"') AS INTEGER) > 0;
                    UPDATE outboxMessage SET sentByBookCorners = 1 WHERE eventType IN ('library.approved', 'library.rejected');
                    CREATE INDEX outboxMessage_due ON outboxMessage(nextAttemptAt) WHERE status = 'pending';
                    CREATE INDEX outboxMessage_pendingOrder ON outboxMessage(createdAt, id) WHERE status = 'pending';
                    CREATE INDEX outboxMessage_lease ON outboxMessage(leaseExpiresAt) WHERE status = 'sending';
                    CREATE INDEX outboxMessage_finished ON outboxMessage(finishedAt) WHERE finishedAt IS NOT NULL;
                    CREATE TABLE outboxAttempt (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        messageId TEXT NOT NULL REFERENCES outboxMessage(id),
                        deviceToken TEXT NOT NULL,            -- '' when the transport takes the whole message
                        transport TEXT NOT NULL,              -- spool | webhook | apns
                        httpStatus INTEGER,
                        outcome TEXT NOT NULL,                -- delivered | retry | failed | device-disabled
                        reason TEXT NOT NULL,
                        attemptedAt DATETIME NOT NULL
                    );
                    CREATE INDEX outboxAttempt_message ON outboxAttempt(messageId, id);
                    CREATE INDEX outboxAttempt_attemptedAt ON outboxAttempt(attemptedAt);
                    CREATE TABLE device (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        userId INTEGER NOT NULL,
                        token TEXT NOT NULL UNIQUE,           -- 64 hexadecimal digits, lower case
                        environment TEXT NOT NULL,            -- sandbox | production
                        active BOOLEAN NOT NULL,
                        lastSuccessAt DATETIME,
                        disabledReason TEXT NOT NULL,
                        disabledAt DATETIME,
                        source TEXT NOT NULL,                 -- import | staff
                        createdAt DATETIME NOT NULL
                    );
                    CREATE INDEX device_user ON device(userId, active);
                    """)
        }
    }
}
