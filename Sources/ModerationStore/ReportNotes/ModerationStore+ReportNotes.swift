import Foundation
import GRDB

extension ModerationStore {
    /// Keeps a staff note on a report and its audit entry, in one transaction.
    @discardableResult
    public func addReportNote(_ note: ReportNote, audit: AuditEntry) async throws -> ReportNote {
        var checked = note
        checked.text = try ReportNote.checked(note.text)
        return try await writer.write { [checked] db in
            var note = checked
            try note.insert(db)
            var entry = audit
            try self.append(&entry, db)
            return note
        }
    }

    /// A report's notes, oldest first.
    public func reportNotes(reportId: Int) async throws -> [ReportNote] {
        try await writer.read { db in
            try ReportNote.fetchAll(db, sql: "SELECT * FROM reportNote WHERE reportId = ? ORDER BY id", arguments: [reportId])
        }
    }
}
