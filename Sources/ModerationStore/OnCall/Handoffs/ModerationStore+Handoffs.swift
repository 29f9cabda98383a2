import Foundation
import GRDB

/// Hand-offs, their digests and the notes around them. A digest is stored once per hand-off
/// with its message in one transaction; notes and dismissals are stored with their audit entries.
extension ModerationStore {
    // MARK: Digests

    /// Stores `planned` with its outgoing person's pending note, unless a hand-off at that
    /// instant is stored already; only when this call's row landed is `message` (built from the
    /// final digest) stored too. `nil` when another process stored the hand-off first.
    public func recordHandoff(
        _ planned: ShiftHandoff.Planned, message: @escaping @Sendable (ShiftHandoff) -> OutboxMessage
    ) async throws -> ShiftHandoff? {
        try await writer.write { db in try Self.insertHandoff(planned, message: message, db) }
    }

    static func insertHandoff(
        _ planned: ShiftHandoff.Planned, message: @Sendable (ShiftHandoff) -> OutboxMessage, _ db: Database
    ) throws -> ShiftHandoff? {
        var planned = planned
        // Read here, not by the caller: a note saved while the digest was being built still goes with it.
        let note = try Self.pendingHandoffNote(authorID: planned.outgoing.id, db)
        planned.digest.note = note.map { HandoffDigest.Note(author: $0.author.username, text: $0.text, writtenAt: $0.writtenAt) }
        try db.execute(
            sql: """
                INSERT INTO shiftHandoff (startsAt, endsAt, outgoingId, outgoingUsername, incomingId, incomingUsername, digest, builtAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(endsAt) DO NOTHING
                """,
            arguments: [
                planned.startsAt, planned.endsAt, planned.outgoing.id, planned.outgoing.username, planned.incoming.id,
                planned.incoming.username, try planned.digest.json(), planned.builtAt,
            ])
        guard db.changesCount == 1 else { return nil }
        let handoff = planned.stored(id: db.lastInsertedRowID)
        if let note {
            try db.execute(sql: "UPDATE handoffNote SET handoffId = ? WHERE id = ? AND handoffId IS NULL", arguments: [handoff.id, note.id])
        }
        _ = try Self.insertOwnOutboxMessage(message(handoff), db)
        return handoff
    }

    public func shiftHandoff(id: Int64) async throws -> ShiftHandoff? {
        try await writer.read { db in try ShiftHandoff.fetchOne(db, sql: "SELECT * FROM shiftHandoff WHERE id = ?", arguments: [id]) }
    }

    /// The hand-off at `instant`, if one is stored.
    public func shiftHandoff(at instant: Date) async throws -> ShiftHandoff? {
        try await writer.read { db in
            try ShiftHandoff.fetchOne(db, sql: "SELECT * FROM shiftHandoff WHERE endsAt = ?", arguments: [instant])
        }
    }

    /// The newest hand-off stored: one made by a rotation change may be later than the schedule's
    /// own latest, which then is history.
    public func latestShiftHandoff() async throws -> ShiftHandoff? {
        try await writer.read { db in try ShiftHandoff.fetchOne(db, sql: "SELECT * FROM shiftHandoff ORDER BY endsAt DESC, id DESC LIMIT 1") }
    }

    /// Past hand-offs, newest first.
    public func shiftHandoffs(limit: Int) async throws -> [ShiftHandoff] {
        try await writer.read { db in
            try ShiftHandoff.fetchAll(db, sql: "SELECT * FROM shiftHandoff ORDER BY endsAt DESC, id DESC LIMIT ?", arguments: [limit])
        }
    }

    /// The newest hand-off to `staffID` still on their dashboard.
    public func shownHandoff(incomingID staffID: Int) async throws -> ShiftHandoff? {
        try await writer.read { db in
            try ShiftHandoff.fetchOne(
                db, sql: "SELECT * FROM shiftHandoff WHERE incomingId = ? AND dismissedAt IS NULL ORDER BY endsAt DESC LIMIT 1",
                arguments: [staffID])
        }
    }

    /// The newest hand-off `staffID` handed over at or after `since`: where a note sent too late belongs.
    public func latestHandoff(outgoingID staffID: Int, since: Date) async throws -> ShiftHandoff? {
        try await writer.read { db in
            try ShiftHandoff.fetchOne(
                db, sql: "SELECT * FROM shiftHandoff WHERE outgoingId = ? AND endsAt >= ? ORDER BY endsAt DESC LIMIT 1",
                arguments: [staffID, since])
        }
    }

    /// Takes a hand-off off its incoming person's dashboard, with its audit entry. Only they
    /// may; a second dismissal (another tab, another process) is `alreadyDismissed`.
    public func dismissHandoff(id: Int64, by staff: StaffMember, audit: AuditEntry, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE shiftHandoff SET dismissedAt = ?, dismissedBy = ? WHERE id = ? AND incomingId = ? AND dismissedAt IS NULL",
                arguments: [now, staff.username, id, staff.id])
            guard db.changesCount == 1 else {
                guard let found = try ShiftHandoff.fetchOne(db, sql: "SELECT * FROM shiftHandoff WHERE id = ?", arguments: [id]) else {
                    throw HandoffError.noSuchHandoff
                }
                throw found.incoming.id == staff.id ? HandoffError.alreadyDismissed : HandoffError.notIncoming
            }
            var entry = audit
            try self.append(&entry, db)
        }
    }

    // MARK: Notes

    /// `authorID`'s note not handed over yet: it goes with their next hand-off.
    public func pendingHandoffNote(authorID: Int) async throws -> HandoffNote? {
        try await writer.read { db in try Self.pendingHandoffNote(authorID: authorID, db) }
    }

    static func pendingHandoffNote(authorID: Int, _ db: Database) throws -> HandoffNote? {
        try HandoffNote.fetchOne(
            db, sql: "SELECT * FROM handoffNote WHERE authorId = ? AND handoffId IS NULL AND kind = ?",
            arguments: [authorID, HandoffNote.Kind.note.rawValue])
    }

    /// The note that went with hand-off `handoffID`, if one was written.
    public func handoffNote(handoffID: Int64) async throws -> HandoffNote? {
        try await writer.read { db in
            try HandoffNote.fetchOne(
                db, sql: "SELECT * FROM handoffNote WHERE handoffId = ? AND kind = ?", arguments: [handoffID, HandoffNote.Kind.note.rawValue])
        }
    }

    /// Follow-ups to hand-off `handoffID`, oldest first.
    public func handoffFollowUps(handoffID: Int64) async throws -> [HandoffNote] {
        try await writer.read { db in
            try HandoffNote.fetchAll(
                db, sql: "SELECT * FROM handoffNote WHERE handoffId = ? AND kind = ? ORDER BY writtenAt, id",
                arguments: [handoffID, HandoffNote.Kind.followUp.rawValue])
        }
    }

    /// Writes or replaces `author`'s pending note, with its audit entry: it goes with the next
    /// hand-off they make, whenever the rotation puts it. With `handoffNotBuiltAt` (the author's
    /// hand-off whose digest is not built yet), `handedOverMeanwhile` if that digest landed first.
    public func savePendingHandoffNote(author: StaffMember, text: String, audit: AuditEntry, now: Date, handoffNotBuiltAt: Date? = nil) async throws {
        let text = try HandoffNote.checked(text)
        try await writer.write { db in
            if let handoffNotBuiltAt,
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM shiftHandoff WHERE endsAt = ? AND outgoingId = ?)", arguments: [handoffNotBuiltAt, author.id])
                    ?? false
            {
                throw HandoffError.handedOverMeanwhile
            }
            try db.execute(
                sql: """
                    INSERT INTO handoffNote (handoffId, kind, authorId, authorUsername, text, writtenAt) VALUES (NULL, ?, ?, ?, ?, ?)
                    ON CONFLICT(authorId) WHERE handoffId IS NULL
                    DO UPDATE SET authorUsername = excluded.authorUsername, text = excluded.text, writtenAt = excluded.writtenAt
                    """,
                arguments: [HandoffNote.Kind.note.rawValue, author.id, author.username, text, now])
            var entry = audit
            try self.append(&entry, db)
        }
    }

    /// Adds a follow-up to a stored hand-off, with its audit entry: only its outgoing person may.
    public func addHandoffFollowUp(handoffID: Int64, author: StaffMember, text: String, audit: AuditEntry, now: Date) async throws {
        let text = try HandoffNote.checked(text)
        try await writer.write { db in
            guard let outgoingID = try Int.fetchOne(db, sql: "SELECT outgoingId FROM shiftHandoff WHERE id = ?", arguments: [handoffID])
            else { throw HandoffError.noSuchHandoff }
            guard outgoingID == author.id else { throw HandoffError.notOutgoing }
            try db.execute(
                sql: "INSERT INTO handoffNote (handoffId, kind, authorId, authorUsername, text, writtenAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [handoffID, HandoffNote.Kind.followUp.rawValue, author.id, author.username, text, now])
            var entry = audit
            try self.append(&entry, db)
        }
    }
}
