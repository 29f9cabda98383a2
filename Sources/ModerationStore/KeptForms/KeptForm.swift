import Foundation
import GRDB

/// A decision form that arrived after its session had ended, kept so the person who typed it
/// can send it again once signed in. It is only ever shown back as a form to submit with a
/// new session and its CSRF token: keeping it never replays a state change. Its key is random
/// and tied to nothing secret; it holds no password (only decision fields are kept) and lives
/// at most `lifetime`.
public struct KeptForm: Codable, FetchableRecord, PersistableRecord, Sendable, Equatable {
    public static let databaseTableName = "keptForm"

    /// One field as the form posted it (a name may repeat: a bulk form's `item`).
    public struct Field: Codable, Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How long a kept form waits for its owner to sign in again.
    public static let lifetime: TimeInterval = 2 * 3_600
    /// The most characters of field names and values one kept form may hold.
    public static let maxCharacters = 16 * 1_024
    /// The most kept forms the store holds; the oldest go first.
    public static let maxStored = 500

    /// The digest of the random key in the address (the address is not stored).
    public var id: String
    /// Where the form posted: a decision route's path.
    public var path: String
    /// The staff member whose session ended with this form on its way: only they get it back.
    public var ownerStaffId: Int
    /// The fields, as JSON.
    public var fieldsJSON: String
    public var createdAt: Date
    public var expiresAt: Date

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let expiresAt = Column(CodingKeys.expiresAt)
        static let createdAt = Column(CodingKeys.createdAt)
        static let ownerStaffId = Column(CodingKeys.ownerStaffId)
    }

    public init(id: String, path: String, ownerStaffId: Int, fields: [Field], now: Date) throws {
        self.id = id
        self.path = path
        self.ownerStaffId = ownerStaffId
        let data = try JSONEncoder().encode(fields)
        fieldsJSON = String(decoding: data, as: UTF8.self)
        createdAt = now
        expiresAt = now.addingTimeInterval(Self.lifetime)
    }

    /// The fields as posted; none when the stored text cannot be read.
    public var fields: [Field] {
        (try? JSONDecoder().decode([Field].self, from: Data(fieldsJSON.utf8))) ?? []
    }
}

/// The kept-forms table, appended to the store's migrator. Never edit a landed migration.
enum KeptFormMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v19-kept-forms") { db in
            try db.execute(
                sql: """
                    CREATE TABLE keptForm (
                        id TEXT PRIMARY KEY NOT NULL,       -- digest of the random key in the address
                        path TEXT NOT NULL,                 -- the decision route the form posted to
                        ownerStaffId INTEGER NOT NULL,      -- whose expired session sent it: only they get it back
                        fieldsJSON TEXT NOT NULL,           -- [{"name", "value"}], no CSRF token, no password
                        createdAt DATETIME NOT NULL,
                        expiresAt DATETIME NOT NULL
                    );
                    CREATE INDEX keptForm_expiresAt ON keptForm(expiresAt);
                    """)
        }
        migrator.registerMigration("v20-item-decision-indexes") { db in
            // List rows and item pages show each item's decision waiting to be sent, and who
            // decided it last: both are read per item on every queue page.
            try db.execute(
                sql: """
                    CREATE INDEX action_unfinished_target ON action(targetKind, targetKey) WHERE state NOT IN ('applied', 'conflict', 'failed');
                    CREATE INDEX auditEntry_target ON auditEntry(targetKind, targetId, id);
                    """)
        }
    }
}

extension ModerationStore {
    /// Keeps `form`; expired ones go first, and past `KeptForm.maxStored` the oldest.
    public func keep(_ form: KeptForm, now: Date) async throws {
        try await writer.write { db in
            try KeptForm.filter(KeptForm.Columns.expiresAt <= now).deleteAll(db)
            try form.insert(db)
            try db.execute(
                sql: "DELETE FROM keptForm WHERE id NOT IN (SELECT id FROM keptForm ORDER BY createdAt DESC, id LIMIT ?)",
                arguments: [KeptForm.maxStored])
        }
    }

    /// The kept form with this id, if it has not expired and belongs to `ownerStaffId`, left in
    /// place: looking at it (a view, a link prefetch, a HEAD) spends nothing. Someone else's key finds nothing.
    public func keptForm(id: String, ownerStaffId: Int, now: Date) async throws -> KeptForm? {
        try await writer.read { db in
            try KeptForm.filter(
                KeptForm.Columns.id == id && KeptForm.Columns.ownerStaffId == ownerStaffId && KeptForm.Columns.expiresAt > now
            ).fetchOne(db)
        }
    }

    /// Removes the kept form with this id if it belongs to `ownerStaffId` (one use: only the POST
    /// that sends it or discards it calls this); answers whether there was one.
    @discardableResult
    public func spendKeptForm(id: String, ownerStaffId: Int) async throws -> Bool {
        try await writer.write { db in
            try KeptForm.filter(KeptForm.Columns.id == id && KeptForm.Columns.ownerStaffId == ownerStaffId).deleteAll(db) > 0
        }
    }

    /// The kept form with this id, if it has not expired, left in place (the sign-in page names it).
    public func keptForm(id: String, now: Date) async throws -> KeptForm? {
        try await writer.read { db in
            try KeptForm.filter(KeptForm.Columns.id == id && KeptForm.Columns.expiresAt > now).fetchOne(db)
        }
    }
}
