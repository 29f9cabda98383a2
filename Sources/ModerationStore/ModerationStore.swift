import Foundation
import GRDB

/// The console's own durable records in one SQLite file (WAL): sessions and sign-in
/// attempts now; actions, audit entries and the outbox as they land.
public struct ModerationStore: Sendable {
    let writer: any DatabaseWriter
    /// Keys the audit chain's new entries when given; see `AuditKey`.
    let auditKey: AuditKey?
    /// Shared by every copy of this store: the header's on-call schedule.
    let recentSchedule = RecentSchedule()
    /// Shared by every copy of this store: what every page reads, read once per change.
    let perChange = PerChangeReads()
    /// The WAL index this store's pool keeps open, for `changeStamp()`.
    private let changeStamps: ChangeStampReader?
    /// A second, read-only pool on the same file, for `readNow` alone (nil for an in-memory copy).
    private let pageReader: (any DatabaseReader)?

    /// Opens the database at `path` (one `DatabasePool` per file) and migrates it. With
    /// `auditKey`, new audit entries are keyed (the first one appended switches the chain).
    public init(path: String, auditKey: AuditKey? = nil) throws {
        self.auditKey = auditKey
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        DatabaseFileMode.createIfMissing(path)
        let pool = try DatabasePool(path: path, configuration: configuration)
        DatabaseFileMode.narrow(path)
        try ModerationStoreMigrations.migrator.migrate(pool)
        self.writer = pool
        // The pool's open connections keep the `-shm` file in place for the store's lifetime.
        self.changeStamps = ChangeStampReader(databasePath: pool.path)
        var pageReads = Configuration()
        pageReads.readonly = true
        pageReads.busyMode = .timeout(5)
        self.pageReader = try DatabasePool(path: path, configuration: pageReads)
    }

    /// A copy of `template`'s database held in memory, for the decision simulation: thousands of
    /// schedules each start from one migrated file without touching the disk. Every store made
    /// with `sharing` on the copy stands for one console process on that database.
    public static func inMemoryCopy(of template: ModerationStore) throws -> ModerationStore {
        let queue = try DatabaseQueue()
        try template.writer.backup(to: queue)
        return ModerationStore(writer: queue)
    }

    private init(writer: any DatabaseWriter) {
        self.writer = writer
        self.auditKey = nil
        self.changeStamps = nil
        self.pageReader = nil
    }

    /// Where the database stands now, as far as any connection of any process has committed;
    /// `nil` when that cannot be told at this moment (then nothing may be taken as unchanged).
    public func changeStamp() -> ChangeStamp? {
        changeStamps?.stamp()
    }
}

/// The console's schema. Append new migrations; never edit one that has landed.
enum ModerationStoreMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-session") { db in
            try db.execute(
                sql: """
                    CREATE TABLE session (
                        id TEXT PRIMARY KEY NOT NULL,          -- SHA-256 of the cookie value, never the value
                        staffId INTEGER NOT NULL,
                        username TEXT NOT NULL,
                        email TEXT NOT NULL,
                        csrfToken TEXT NOT NULL,
                        sealedAccessToken BLOB NOT NULL,       -- AES-GCM
                        sealedRefreshToken BLOB NOT NULL,
                        clientAddress TEXT NOT NULL,
                        userAgent TEXT NOT NULL,
                        createdAt DATETIME NOT NULL,
                        lastSeenAt DATETIME NOT NULL,
                        expiresAt DATETIME NOT NULL,
                        flash TEXT
                    );
                    CREATE INDEX session_staffId ON session(staffId);
                    CREATE TABLE signInAttempt (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        login TEXT NOT NULL,                  -- lower-cased username or e-mail
                        clientAddress TEXT NOT NULL,
                        attemptedAt DATETIME NOT NULL,
                        succeeded BOOLEAN NOT NULL
                    );
                    CREATE INDEX signInAttempt_login ON signInAttempt(login, clientAddress, attemptedAt);
                    """)
        }
        migrator.registerMigration("v2-decisions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE action (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        idempotencyKey TEXT NOT NULL UNIQUE,
                        actorId INTEGER NOT NULL,
                        actorUsername TEXT NOT NULL,
                        targetKind TEXT NOT NULL,             -- library | report | photo
                        targetKey TEXT NOT NULL,              -- slug for libraries, id for reports and photos
                        statusSeen TEXT NOT NULL,
                        statusWanted TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        requestId TEXT NOT NULL,
                        clientAddress TEXT NOT NULL,
                        userAgent TEXT NOT NULL,
                        state TEXT NOT NULL,                  -- queued | sending | waiting | parked | applied | conflict | failed
                        attempts INTEGER NOT NULL DEFAULT 0,
                        nextAttemptAt DATETIME NOT NULL,
                        outcomeMessage TEXT,
                        backendStatus INTEGER,
                        createdAt DATETIME NOT NULL,
                        updatedAt DATETIME NOT NULL
                    );
                    CREATE INDEX action_due ON action(state, nextAttemptAt);
                    CREATE INDEX action_actor ON action(actorId, state);
                    CREATE TABLE auditEntry (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        recordedAt DATETIME NOT NULL,
                        actorId INTEGER,
                        actorUsername TEXT NOT NULL,
                        action TEXT NOT NULL,
                        targetKind TEXT NOT NULL,
                        targetId TEXT NOT NULL,
                        targetSlug TEXT NOT NULL,
                        targetName TEXT NOT NULL,
                        statusBefore TEXT NOT NULL,
                        statusAfter TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        backendStatus INTEGER,
                        requestId TEXT NOT NULL,
                        clientAddress TEXT NOT NULL,
                        userAgent TEXT NOT NULL,
                        itemCreatedAt DATETIME,
                        actionId INTEGER UNIQUE REFERENCES action(id),
                        previousHash TEXT NOT NULL,
                        hash TEXT NOT NULL
                    );
                    -- The audit log is append-only: the database itself refuses edits.
                    CREATE TRIGGER auditEntry_noUpdate BEFORE UPDATE ON auditEntry
                        BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;
                    CREATE TABLE outboxMessage (
                        id TEXT PRIMARY KEY NOT NULL,         -- UUID, also the apns-id
                        actionId INTEGER NOT NULL REFERENCES action(id),
                        recipientUserId INTEGER NOT NULL,
                        eventType TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        headers TEXT NOT NULL,
                        status TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        createdAt DATETIME NOT NULL,
                        UNIQUE(actionId, recipientUserId, eventType)
                    );
                    CREATE INDEX outboxMessage_status ON outboxMessage(status, createdAt);
                    """)
        }
        migrator.registerMigration("v3-audit-browsing") { db in
            try db.execute(
                sql: """
                    CREATE INDEX auditEntry_recordedAt ON auditEntry(recordedAt);
                    CREATE INDEX auditEntry_actor ON auditEntry(actorUsername, id);
                    """)
        }
        migrator.registerMigration("v4-action-claims") { db in
            // Claims with a lease, so two processes on one file never work one action at once;
            // which attempts may have reached the backend; local failures in a row; a report's reason.
            try db.execute(
                sql: """
                    ALTER TABLE action ADD COLUMN claimedBy TEXT;
                    ALTER TABLE action ADD COLUMN leaseExpiresAt DATETIME;
                    ALTER TABLE action ADD COLUMN unknownOutcomes INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE action ADD COLUMN localFailures INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE action ADD COLUMN reportReason TEXT;
                    -- Before this, every attempt counted as possibly sent: keep that for unfinished ones.
                    UPDATE action SET unknownOutcomes = attempts WHERE state NOT IN ('applied', 'conflict', 'failed');
                    """)
        }
        migrator.registerMigration("v5-sign-in-lockout") { db in
            // Attempts are recorded before the backend is asked (`pending`), so parallel
            // guesses count; aliases key a username and an e-mail to the same account.
            try db.execute(
                sql: """
                    ALTER TABLE signInAttempt ADD COLUMN state TEXT NOT NULL DEFAULT 'settled'; -- pending | settled
                    CREATE INDEX signInAttempt_attemptedAt ON signInAttempt(attemptedAt);
                    CREATE TABLE signInAlias (
                        login TEXT PRIMARY KEY NOT NULL,      -- lower-cased username or e-mail
                        accountKey TEXT NOT NULL              -- "account:<id>", what attempts are keyed by
                    );
                    CREATE INDEX session_expiresAt ON session(expiresAt);
                    """)
        }
        migrator.registerMigration("v6-audit-outcome-detail") { db in
            // Outcomes become a closed set; why ("wrong credentials", "expired") gets its own
            // field. Older rows keep their text as written: their hashes cover it.
            try db.execute(sql: "ALTER TABLE auditEntry ADD COLUMN outcomeDetail TEXT NOT NULL DEFAULT ''")
        }
        MirrorMigrations.register(in: &migrator)
        OutboxMigrations.register(in: &migrator)
        OnCallMigrations.register(in: &migrator)
        ItemClaimMigrations.register(in: &migrator)
        migrator.registerMigration("v17-action-actor-index") { db in
            // Every queue page reads its viewer's recent decisions of its kind, to show them in place.
            try db.execute(sql: "CREATE INDEX action_actor_kind_createdAt ON action(actorId, targetKind, createdAt)")
        }
        ReportNoteMigrations.register(in: &migrator)
        KeptFormMigrations.register(in: &migrator)
        migrator.registerMigration("v21-audit-keyed") { db in
            // How each entry was hashed: plain SHA-256 (0) or HMAC-SHA256 under the audit key (1).
            try db.execute(sql: "ALTER TABLE auditEntry ADD COLUMN keyed BOOLEAN NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v30-seams-decisions-action-not-found-restored") { db in
            // Since when the check before sending has not found the item, and when a restore
            // brought the decision back unfinished.
            try db.execute(sql: "ALTER TABLE action ADD COLUMN notFoundSince DATETIME")
            try db.execute(sql: "ALTER TABLE action ADD COLUMN restoredAt DATETIME")
        }
        DeviceMigrations.register(in: &migrator)
        BackendBudgetMigrations.register(in: &migrator)
        OnCallMigrations.registerHandoffIdentity(in: &migrator)
        LiveMigrations.register(in: &migrator)
        ConcernMigrations.register(in: &migrator)
        ConcernMigrations.registerStoredConcerns(in: &migrator)
        ConcernMigrations.registerDecidedConcerns(in: &migrator)
        SearchMigrations.register(in: &migrator)
        ConcernMigrations.registerContributorIndexes(in: &migrator)
        ConcernMigrations.registerSettingsAndStoredRows(in: &migrator)
        ConcernMigrations.registerStaleAssessmentTriggers(in: &migrator)
        OnCallMigrations.registerTeamClock(in: &migrator)
        SearchMigrations.registerStatusInIndex(in: &migrator)
        SearchMigrations.registerFoldedTextInListIndexes(in: &migrator)
        ReportNoteMigrations.registerFormKey(in: &migrator)
        OnCallMigrations.registerOverrideFormKey(in: &migrator)
        ConcernMigrations.registerAntimeridianTriggers(in: &migrator)
        ConcernMigrations.registerEvidenceChanges(in: &migrator)
        SearchMigrations.registerCollapsedSpaces(in: &migrator)
        migrator.registerMigration("v50-decision-in-flight") { db in
            // Until when a PATCH whose outcome is unknown may still act at Book Corners (the
            // decision protocol's I2), and the index the item guard (I1) reads.
            try db.execute(sql: "ALTER TABLE action ADD COLUMN inFlightUntil DATETIME")
            try db.execute(sql: "CREATE INDEX action_item ON action(targetKind, targetKey, state)")
            // A decision left unfinished with a PATCH whose outcome is unknown (or brought back by a
            // restore) may still be acted on: in flight for the default bound from now (21 s + 90 s).
            try db.execute(
                sql: """
                    UPDATE action SET inFlightUntil = strftime('%Y-%m-%d %H:%M:%f', 'now', '+111 seconds')
                    WHERE state IN ('queued', 'waiting', 'sending', 'parked') AND (unknownOutcomes > 0 OR restoredAt IS NOT NULL)
                    """)
        }
        DeviceMigrations.registerRegistrationTime(in: &migrator)
        migrator.registerMigration("v52-remembered-browser") { db in
            // A browser that signed in here before (or opened a sign-in link an operator issued):
            // its sign-ins for that account come from a share of Book Corners' sign-in limit that
            // strangers cannot spend. Only the cookie's SHA-256 is kept.
            try db.execute(
                sql: """
                    CREATE TABLE rememberedBrowser (
                        tokenHash TEXT PRIMARY KEY NOT NULL,
                        accountKey TEXT NOT NULL,             -- "account:<id>", or a sign-in link's lowered username
                        username TEXT NOT NULL,
                        createdAt DATETIME NOT NULL,
                        expiresAt DATETIME NOT NULL,
                        failures INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX rememberedBrowser_account ON rememberedBrowser(accountKey);
                    """)
        }
        migrator.registerMigration("v53-ended-session") { db in
            // Why a session was ended by the console rather than by time (its owner no longer
            // staff), kept for a day so their next page says so instead of "your session has ended".
            try db.execute(
                sql: """
                    CREATE TABLE endedSession (
                        id TEXT PRIMARY KEY NOT NULL,         -- the session's id (its cookie's hash)
                        staffId INTEGER NOT NULL,
                        reason TEXT NOT NULL,
                        endedAt DATETIME NOT NULL
                    );
                    CREATE INDEX endedSession_endedAt ON endedSession(endedAt);
                    """)
        }
        migrator.registerMigration("v54-calendar-feed-stopped") { db in
            // Feeds the console stopped because their owner had not signed in for a while, so
            // that the on-call page can tell colleagues; gone once the owner signs in again.
            try db.execute(
                sql: """
                    CREATE TABLE calendarFeedStopped (
                        staffId INTEGER PRIMARY KEY NOT NULL,
                        username TEXT NOT NULL,
                        lastSignedInAt DATETIME,
                        stoppedAt DATETIME NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v55-live-stream") { db in
            // Each open live stream, whichever process serves it, so that one person's streams are
            // limited across processes; a process that died leaves rows that age out unrenewed.
            try db.execute(
                sql: """
                    CREATE TABLE liveStream (
                        ticket TEXT PRIMARY KEY NOT NULL,
                        staffId INTEGER NOT NULL,
                        seenAt DATETIME NOT NULL
                    );
                    CREATE INDEX liveStream_staffId ON liveStream(staffId, seenAt);
                    """)
        }
        return migrator
    }
}

extension ModerationStore {
    /// A short read run on the caller's own thread: what a page view reads. In WAL mode a read
    /// never waits for the writer, so it costs its SQL; GRDB's async read hands the work to a
    /// dispatch queue and back, two thread switches each way, which was most of a rendered page's
    /// fixed cost (docs/benchmarks.md, issue 48). Long reads (exports, statistics, the sync's
    /// passes over the whole mirror) stay on GRDB's queues, off the request threads.
    ///
    /// They use a pool of their own: an async read holds its connection until its task resumes on
    /// the cooperative pool, so a blocking read waiting for a connection of the same pool could
    /// hold every cooperative thread while every connection waited for one (seen under 16
    /// connections: the console stopped answering). In a pool only blocking reads use, a reader
    /// waits only for reads that are running. An in-memory copy (a `DatabaseQueue`) frees its
    /// queue when a closure returns, so it reads in place.
    func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        try (pageReader ?? writer).read(body)
    }

    /// `readNow(body)`, given the stamp its snapshot stands at: the stamps read on either side of
    /// the snapshot's start, when they are equal (nil when a commit landed in between, or when
    /// `needed` is false: a read that keeps nothing need not pay for the stamps). What a read
    /// keeps per change (`KeptPerChange`) is then read in, and used for, that state alone.
    func readNowAtStamp<T>(when needed: Bool, _ body: (Database, ChangeStamp?) throws -> T) throws -> T {
        guard needed else { return try readNow { db in try body(db, nil) } }
        let before = changeStamp()
        return try readNow { db in
            // A read transaction takes its snapshot at its first read. GRDB's pool reads the
            // schema version first today; this read makes the start explicit instead of relying on it.
            _ = try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM sqlite_master LIMIT 1"))
            let stamp = before.flatMap { $0 == changeStamp() ? $0 : nil }
            return try body(db, stamp)
        }
    }

    /// A statement for `sql` whose IN list holds `keys` values: kept prepared (GRDB's statement
    /// cache, one per list length) for a page's few dozen keys, since preparing it again, GRDB's
    /// authorizer called for every column, cost more than running it; made afresh for longer lists,
    /// which are rare and would fill the cache.
    static func statement(_ db: Database, sql: String, keys: Int) throws -> Statement {
        keys <= 100 ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
    }

    /// `readNow(body)`, read once per change of the database and kept in `copy` between changes.
    func readOncePerChange<T>(_ copy: ReadOncePerChange<T>, _ body: (Database) throws -> T) throws -> T {
        try copy.value(stamp: changeStamp(), stampNow: changeStamp) { try readNow(body) }
    }
}
