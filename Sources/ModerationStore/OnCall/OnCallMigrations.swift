import Foundation
import GRDB

/// The on-call tables, appended to the store's migrator. Never edit a landed migration.
enum OnCallMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12-on-call-rotation") { db in
            // Staff the console has seen (sign-in) or been told of (`console oncall`): rotations
            // and alerts name people by their Book Corners user id, and pages by their username.
            // One rotation (row id 1); its members in order; overrides that take precedence.
            try db.execute(
                sql: """
                    CREATE TABLE staffMember (
                        id INTEGER PRIMARY KEY NOT NULL,      -- the Book Corners user id
                        username TEXT NOT NULL,
                        lastSignedInAt DATETIME,
                        createdAt DATETIME NOT NULL
                    );
                    CREATE UNIQUE INDEX staffMember_username ON staffMember(username);
                    CREATE TABLE rotation (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        shiftDays INTEGER NOT NULL,
                        handoffMinute INTEGER NOT NULL,       -- minutes after local midnight
                        timeZone TEXT NOT NULL,               -- IANA identifier
                        startDate TEXT NOT NULL,              -- local date YYYY-MM-DD of the first shift
                        updatedAt DATETIME NOT NULL,
                        updatedBy TEXT NOT NULL
                    );
                    CREATE TABLE rotationMember (
                        position INTEGER PRIMARY KEY NOT NULL,
                        staffId INTEGER NOT NULL REFERENCES staffMember(id)
                    );
                    CREATE TABLE rotationOverride (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        staffId INTEGER NOT NULL REFERENCES staffMember(id),
                        startsAt DATETIME NOT NULL,
                        endsAt DATETIME NOT NULL,
                        note TEXT NOT NULL,
                        createdBy TEXT NOT NULL,
                        createdAt DATETIME NOT NULL,
                        CHECK (endsAt > startsAt)
                    );
                    CREATE INDEX rotationOverride_endsAt ON rotationOverride(endsAt);
                    CREATE TABLE queueTarget (
                        queue TEXT PRIMARY KEY NOT NULL,      -- libraries | reports | photos
                        targetMinutes INTEGER NOT NULL CHECK (targetMinutes > 0),
                        updatedAt DATETIME NOT NULL,
                        updatedBy TEXT NOT NULL
                    );
                    """)
            // Messages that no decision caused (alerts, hand-offs) have no action; a key of their
            // own makes each one exactly once. SQLite cannot relax NOT NULL in place: the table is
            // rebuilt as its documentation says (foreign keys are off during a migration).
            try db.execute(
                sql: """
                    CREATE TABLE outboxMessage_new (
                        id TEXT PRIMARY KEY NOT NULL,
                        actionId INTEGER REFERENCES action(id),
                        recipientUserId INTEGER NOT NULL,
                        eventType TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        headers TEXT NOT NULL,
                        status TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        createdAt DATETIME NOT NULL,
                        nextAttemptAt DATETIME,
                        lastReason TEXT NOT NULL DEFAULT '',
                        claimedBy TEXT,
                        leaseExpiresAt DATETIME,
                        finishedAt DATETIME,
                        sentByBookCorners BOOLEAN NOT NULL DEFAULT 0,
                        expiresAt DATETIME,
                        dedupeKey TEXT,
                        UNIQUE(actionId, recipientUserId, eventType)
                    );
                    INSERT INTO outboxMessage_new (id, actionId, recipientUserId, eventType, payload, headers, status, attempts, createdAt,
                        nextAttemptAt, lastReason, claimedBy, leaseExpiresAt, finishedAt, sentByBookCorners, expiresAt)
                        SELECT id, actionId, recipientUserId, eventType, payload, headers, status, attempts, createdAt,
                        nextAttemptAt, lastReason, claimedBy, leaseExpiresAt, finishedAt, sentByBookCorners, expiresAt FROM outboxMessage;
                    DROP TABLE outboxMessage;
                    ALTER TABLE outboxMessage_new RENAME TO outboxMessage;
                    CREATE INDEX outboxMessage_status ON outboxMessage(status, createdAt);
                    CREATE INDEX outboxMessage_due ON outboxMessage(nextAttemptAt) WHERE status = 'pending';
                    CREATE INDEX outboxMessage_pendingOrder ON outboxMessage(createdAt, id) WHERE status = 'pending';
                    CREATE INDEX outboxMessage_lease ON outboxMessage(leaseExpiresAt) WHERE status = 'sending';
                    CREATE INDEX outboxMessage_finished ON outboxMessage(finishedAt) WHERE finishedAt IS NOT NULL;
                    CREATE UNIQUE INDEX outboxMessage_dedupeKey ON outboxMessage(dedupeKey) WHERE dedupeKey IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v14-calendar-feeds") { db in
            // A staff member's private calendar feed: only the SHA-256 of its secret is kept, so a
            // copy of the database does not open anyone's feed.
            try db.execute(
                sql: """
                    CREATE TABLE calendarFeedToken (
                        staffId INTEGER PRIMARY KEY NOT NULL REFERENCES staffMember(id),
                        tokenHash TEXT NOT NULL UNIQUE,
                        createdAt DATETIME NOT NULL
                    );
                    """)
        }
        // On call: hand-offs. One row per hand-off (the end of rotation shift N), its digest as
        // JSON; the insert that lands decides who sends its message. Notes: one per shift
        // before the hand-off, follow-ups after.
        migrator.registerMigration("v16-handoffs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE shiftHandoff (
                        shiftIndex INTEGER PRIMARY KEY NOT NULL,  -- the rotation shift that ended
                        startsAt DATETIME NOT NULL,
                        endsAt DATETIME NOT NULL,                 -- the hand-off
                        outgoingId INTEGER NOT NULL,
                        outgoingUsername TEXT NOT NULL,
                        incomingId INTEGER NOT NULL,
                        incomingUsername TEXT NOT NULL,
                        digest TEXT NOT NULL,                     -- HandoffDigest as JSON
                        builtAt DATETIME NOT NULL,
                        dismissedAt DATETIME,
                        dismissedBy TEXT,
                        CHECK ((dismissedAt IS NULL) = (dismissedBy IS NULL))
                    );
                    CREATE INDEX shiftHandoff_shown ON shiftHandoff(incomingId, shiftIndex) WHERE dismissedAt IS NULL;
                    CREATE TABLE handoffNote (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        shiftIndex INTEGER NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('note', 'followUp')),
                        authorId INTEGER NOT NULL,
                        authorUsername TEXT NOT NULL,
                        text TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 4000),
                        writtenAt DATETIME NOT NULL
                    );
                    CREATE UNIQUE INDEX handoffNote_note ON handoffNote(shiftIndex) WHERE kind = 'note';
                    CREATE INDEX handoffNote_shift ON handoffNote(shiftIndex, writtenAt);
                    """)
        }
        migrator.registerMigration("v15-queue-alerts") { db in
            // Overdue episodes of the queues and every message each one sent. The partial unique
            // index is what keeps two console processes on one file from opening two episodes
            // of one queue at once.
            try db.execute(
                sql: """
                    CREATE TABLE queueAlert (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        queue TEXT NOT NULL,                  -- libraries | reports | photos
                        state TEXT NOT NULL,                  -- open | acknowledged | escalated | closed
                        openedAt DATETIME NOT NULL,
                        closedAt DATETIME,
                        overdueCount INTEGER NOT NULL,
                        oldestCreatedAt DATETIME NOT NULL,
                        targetMinutes INTEGER NOT NULL,
                        acknowledgedById INTEGER,
                        acknowledgedByUsername TEXT,
                        acknowledgedAt DATETIME,
                        escalationLevel INTEGER NOT NULL DEFAULT 0,
                        lastNotifiedAt DATETIME,
                        notifiedStaffId INTEGER,
                        heldSince DATETIME,
                        firstNotifiedStaffId INTEGER
                    );
                    CREATE UNIQUE INDEX queueAlert_oneActive ON queueAlert(queue) WHERE state <> 'closed';
                    CREATE INDEX queueAlert_openedAt ON queueAlert(openedAt);
                    CREATE TABLE queueAlertNotice (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        alertId INTEGER NOT NULL REFERENCES queueAlert(id),
                        kind TEXT NOT NULL,                   -- notice | repeat | escalation
                        staffId INTEGER,                      -- NULL: nobody was on call to tell
                        staffUsername TEXT,
                        sentAt DATETIME NOT NULL,
                        outboxMessageId TEXT
                    );
                    CREATE INDEX queueAlertNotice_alert ON queueAlertNotice(alertId, id);
                    """)
        }
    }

    /// The team's clock as staff choose it (v42): registered last.
    static func registerTeamClock(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v42-team-clock") { db in
            // One row: the hours staff chose, and a zone for the team before any rotation has one.
            try db.execute(
                sql: """
                    CREATE TABLE teamClock (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        timeZone TEXT,                        -- IANA identifier; NULL: the server's until a rotation
                        twelveHour BOOLEAN NOT NULL DEFAULT 0,
                        updatedAt DATETIME NOT NULL,
                        updatedBy TEXT NOT NULL
                    )
                    """)
        }
    }

    /// One override per override form (v46): the key the form was rendered with, unique.
    static func registerOverrideFormKey(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v46-override-form-key") { db in
            try db.execute(
                sql: """
                    ALTER TABLE rotationOverride ADD COLUMN formKey TEXT;
                    CREATE UNIQUE INDEX rotationOverride_formKey ON rotationOverride(formKey) WHERE formKey IS NOT NULL;
                    """)
        }
    }

    /// Registered after every other migration of its time: hand-offs keyed by their instant, not a shift number.
    static func registerHandoffIdentity(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v31-handoffs-by-instant") { db in
            // A rotation shift's number restarts when the rotation changes, so "shift 0" named an
            // old hand-off and the one under way at once, and the new one's note was refused. A
            // hand-off is now who and when: its instant (`endsAt`) is unique. Stored hand-offs keep
            // their old number as their id, so links and pushes already sent still open them.
            // Notes already handed over follow their hand-off by that id; a note not handed over
            // yet becomes its author's pending note, which goes with their next hand-off.
            try db.execute(
                sql: """
                    CREATE TABLE shiftHandoffByInstant (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        startsAt DATETIME NOT NULL,               -- the outgoing person's turn began
                        endsAt DATETIME NOT NULL UNIQUE,          -- the hand-off: its identity
                        outgoingId INTEGER NOT NULL,
                        outgoingUsername TEXT NOT NULL,
                        incomingId INTEGER NOT NULL,
                        incomingUsername TEXT NOT NULL,
                        digest TEXT NOT NULL,                     -- HandoffDigest as JSON
                        builtAt DATETIME NOT NULL,
                        dismissedAt DATETIME,
                        dismissedBy TEXT,
                        CHECK ((dismissedAt IS NULL) = (dismissedBy IS NULL))
                    );
                    INSERT OR IGNORE INTO shiftHandoffByInstant
                        (id, startsAt, endsAt, outgoingId, outgoingUsername, incomingId, incomingUsername, digest, builtAt, dismissedAt, dismissedBy)
                        SELECT shiftIndex, startsAt, endsAt, outgoingId, outgoingUsername, incomingId, incomingUsername, digest, builtAt, dismissedAt, dismissedBy
                        FROM shiftHandoff ORDER BY builtAt;
                    CREATE TABLE handoffNoteByInstant (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        handoffId INTEGER REFERENCES shiftHandoffByInstant(id), -- NULL: a note not handed over yet
                        kind TEXT NOT NULL CHECK (kind IN ('note', 'followUp')),
                        authorId INTEGER NOT NULL,
                        authorUsername TEXT NOT NULL,
                        text TEXT NOT NULL CHECK (length(text) >= 1),  -- the length limit is the console's: joined old notes may pass it
                        writtenAt DATETIME NOT NULL,
                        CHECK (handoffId IS NOT NULL OR kind = 'note')
                    );
                    INSERT INTO handoffNoteByInstant (id, handoffId, kind, authorId, authorUsername, text, writtenAt)
                        SELECT note.id, note.shiftIndex, note.kind, note.authorId, note.authorUsername, note.text, note.writtenAt
                        FROM handoffNote note JOIN shiftHandoffByInstant handoff ON handoff.id = note.shiftIndex;
                    """)
            // Notes for shifts never handed over: one pending note per author, their texts joined
            // oldest first, so a note written before a rotation change is not lost.
            let pending = try Row.fetchAll(
                db,
                sql: """
                    SELECT authorId, authorUsername, text, writtenAt FROM handoffNote
                    WHERE kind = 'note' AND shiftIndex NOT IN (SELECT id FROM shiftHandoffByInstant)
                    ORDER BY authorId, writtenAt, id
                    """)
            for (authorID, rows) in Dictionary(grouping: pending, by: { $0["authorId"] as Int64 }) {
                guard let newest = rows.last else { continue }
                let text = rows.map { $0["text"] as String }.joined(separator: "\n\n")
                try db.execute(
                    sql: "INSERT INTO handoffNoteByInstant (handoffId, kind, authorId, authorUsername, text, writtenAt) VALUES (NULL, 'note', ?, ?, ?, ?)",
                    arguments: [authorID, newest["authorUsername"] as String, text, newest["writtenAt"] as Date])
            }
            try db.execute(
                sql: """
                    DROP TABLE handoffNote;
                    DROP TABLE shiftHandoff;
                    ALTER TABLE shiftHandoffByInstant RENAME TO shiftHandoff;
                    ALTER TABLE handoffNoteByInstant RENAME TO handoffNote;
                    CREATE INDEX shiftHandoff_shown ON shiftHandoff(incomingId, endsAt) WHERE dismissedAt IS NULL;
                    CREATE UNIQUE INDEX handoffNote_pending ON handoffNote(authorId) WHERE handoffId IS NULL;
                    CREATE UNIQUE INDEX handoffNote_note ON handoffNote(handoffId) WHERE kind = 'note';
                    CREATE INDEX handoffNote_handoff ON handoffNote(handoffId, writtenAt);
                    """)
        }
    }
}
