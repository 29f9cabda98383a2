import Foundation
import GRDB

extension ModerationStore {
    /// Keeps a staff note on a report and its audit entry, in one transaction. A note whose form
    /// key was kept before (the same form sent again) is not kept twice: the first one is
    /// answered, `isNew` false, and nothing is audited.
    @discardableResult
    public func addReportNote(_ note: ReportNote, audit: AuditEntry) async throws -> (note: ReportNote, isNew: Bool) {
        var checked = note
        checked.text = try ReportNote.checked(note.text)
        return try await writer.write { [checked] db in
            var note = checked
            // The unique index decides, so two console processes cannot both keep it.
            try note.insert(db, onConflict: .ignore)
            guard db.changesCount == 1 else {
                let kept = try ReportNote.fetchOne(
                    db, sql: "SELECT * FROM reportNote WHERE reportId = ? AND formKey = ?", arguments: [note.reportId, note.formKey])
                return (kept ?? checked, false)
            }
            var entry = audit
            try self.append(&entry, db)
            return (note, true)
        }
    }

    /// A report's notes, oldest first.
    public func reportNotes(reportId: Int) async throws -> [ReportNote] {
        try await writer.read { db in
            try ReportNote.fetchAll(db, sql: "SELECT * FROM reportNote WHERE reportId = ? ORDER BY id", arguments: [reportId])
        }
    }
}
