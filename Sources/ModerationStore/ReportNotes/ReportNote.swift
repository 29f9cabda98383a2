import Foundation
import GRDB
import ModerationVocabulary

/// A staff note on a problem report, kept by the console: Book Corners has no field for it.
/// Notes are added, never edited, and each one is audited (`report.note`).
public struct ReportNote: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "reportNote"
    /// Longer notes are refused with a message, not cut.
    public static let maxLength = 2000

    public var id: Int64?
    public var reportId: Int
    public var authorId: Int
    public var authorUsername: String
    public var text: String
    public var writtenAt: Date
    /// The key of the page's note form: the same form sent twice (a double click, a resend) keeps one note.
    public var formKey: String?

    public init(reportId: Int, authorId: Int, authorUsername: String, text: String, writtenAt: Date, formKey: String? = nil) {
        self.reportId = reportId
        self.authorId = authorId
        self.authorUsername = authorUsername
        self.text = text
        self.writtenAt = writtenAt
        self.formKey = formKey
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Why a note cannot be saved.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong

        public var description: String {
            switch self {
            case .empty: "The note is empty: write something to keep with the report."
            case .tooLong: "The note is longer than \(ReportNote.maxLength) characters: shorten it."
            }
        }
    }

    /// The text as it is kept (trimmed, line breaks as LF), or why it cannot be.
    public static func checked(_ text: String) throws(Problem) -> String {
        let trimmed = TypedText.withLineFeeds(text).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        guard trimmed.count <= maxLength else { throw .tooLong }
        return trimmed
    }
}

enum ReportNoteMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v18-report-notes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reportNote (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        reportId INTEGER NOT NULL,            -- the backend's report id
                        authorId INTEGER NOT NULL,
                        authorUsername TEXT NOT NULL,
                        text TEXT NOT NULL,
                        writtenAt DATETIME NOT NULL
                    );
                    CREATE INDEX reportNote_reportId ON reportNote(reportId, id);
                    """)
        }
    }

    /// One note per note form: the key the form was rendered with, unique per report.
    static func registerFormKey(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v45-report-note-form-key") { db in
            try db.execute(
                sql: """
                    ALTER TABLE reportNote ADD COLUMN formKey TEXT;
                    CREATE UNIQUE INDEX reportNote_formKey ON reportNote(reportId, formKey) WHERE formKey IS NOT NULL;
                    """)
        }
    }
}
