import Foundation
import GRDB

/// Hand-offs, their digests and the notes around them. A digest is stored once per hand-off
/// with its message in one transaction; notes and dismissals are stored with their audit entries.
extension ModerationStore {
    // MARK: Digests

    /// Stores the hand-off of `handoff.shiftIndex` with the note written for it, unless one is
    /// stored already; only when this call's row landed is `message` (built from the final
    /// digest) stored too. `false` when another process stored the hand-off first.
    public func recordHandoff(_ handoff: ShiftHandoff, message: @escaping @Sendable (ShiftHandoff) -> OutboxMessage) async throws -> Bool {
        try await writer.write { db in
            var handoff = handoff
            // Read here, not by the caller: a note saved while the digest was being built still goes with it.
            handoff.digest.note = try Self.handoffNote(shiftIndex: handoff.shiftIndex, db).map {
                HandoffDigest.Note(author: $0.author.username, text: $0.text, writtenAt: $0.writtenAt)
            }
            try db.execute(
                sql: """
                    INSERT INTO shiftHandoff (shiftIndex, startsAt, endsAt, outgoingId, outgoingUsername, incomingId, incomingUsername, digest, builtAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(shiftIndex) DO NOTHING
                    """,
                arguments: [
                    handoff.shiftIndex, handoff.startsAt, handoff.endsAt, handoff.outgoing.id, handoff.outgoing.username, handoff.incoming.id,
                    handoff.incoming.username, try handoff.digest.json(), handoff.builtAt,
                ])
            guard db.changesCount == 1 else { return false }
            _ = try Self.insertOwnOutboxMessage(message(handoff), db)
            return true
        }
    }

    public func shiftHandoff(_ shiftIndex: Int) async throws -> ShiftHandoff? {
        try await writer.read { db in
            try ShiftHandoff.fetchOne(db, sql: "SELECT * FROM shiftHandoff WHERE shiftIndex = ?", arguments: [shiftIndex])
        }
    }

    /// Past hand-offs, newest first.
    public func shiftHandoffs(limit: Int) async throws -> [ShiftHandoff] {
        try await writer.read { db in
            try ShiftHandoff.fetchAll(db, sql: "SELECT * FROM shiftHandoff ORDER BY shiftIndex DESC LIMIT ?", arguments: [limit])
        }
    }

    /// The newest hand-off to `staffID` still on their dashboard.
    public func shownHandoff(incomingID staffID: Int) async throws -> ShiftHandoff? {
        try await writer.read { db in
            try ShiftHandoff.fetchOne(
                db, sql: "SELECT * FROM shiftHandoff WHERE incomingId = ? AND dismissedAt IS NULL ORDER BY shiftIndex DESC LIMIT 1",
                arguments: [staffID])
        }
    }

    /// Takes a hand-off off its incoming person's dashboard, with its audit entry. Only they
    /// may; a second dismissal (another tab, another process) is `alreadyDismissed`.
    public func dismissHandoff(shiftIndex: Int, by staff: StaffMember, audit: AuditEntry, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE shiftHandoff SET dismissedAt = ?, dismissedBy = ? WHERE shiftIndex = ? AND incomingId = ? AND dismissedAt IS NULL",
                arguments: [now, staff.username, shiftIndex, staff.id])
            guard db.changesCount == 1 else {
                guard let found = try ShiftHandoff.fetchOne(db, sql: "SELECT * FROM shiftHandoff WHERE shiftIndex = ?", arguments: [shiftIndex])
                else { throw HandoffError.noSuchHandoff }
                throw found.incoming.id == staff.id ? HandoffError.alreadyDismissed : HandoffError.notIncoming
            }
            var entry = audit
            try self.append(&entry, db)
        }
    }

    // MARK: Notes

    /// The note for the hand-off at the end of shift `shiftIndex`, if one was written.
    public func handoffNote(shiftIndex: Int) async throws -> HandoffNote? {
        try await writer.read { db in try Self.handoffNote(shiftIndex: shiftIndex, db) }
    }

    static func handoffNote(shiftIndex: Int, _ db: Database) throws -> HandoffNote? {
        try HandoffNote.fetchOne(
            db, sql: "SELECT * FROM handoffNote WHERE shiftIndex = ? AND kind = ?", arguments: [shiftIndex, HandoffNote.Kind.note.rawValue])
    }

    /// Follow-ups to the hand-off of shift `shiftIndex`, oldest first.
    public func handoffFollowUps(shiftIndex: Int) async throws -> [HandoffNote] {
        try await writer.read { db in
            try HandoffNote.fetchAll(
                db, sql: "SELECT * FROM handoffNote WHERE shiftIndex = ? AND kind = ? ORDER BY writtenAt, id",
                arguments: [shiftIndex, HandoffNote.Kind.followUp.rawValue])
        }
    }

    /// Writes or replaces the note for the coming hand-off of shift `shiftIndex`, with its audit
    /// entry; once that hand-off is stored, the note is part of its digest and `alreadyHandedOver`.
    public func saveHandoffNote(shiftIndex: Int, author: StaffMember, text: String, audit: AuditEntry, now: Date) async throws {
        let text = try HandoffNote.checked(text)
        try await writer.write { db in
            guard try !Self.hasHandoff(shiftIndex, db) else { throw HandoffError.alreadyHandedOver }
            try db.execute(
                sql: """
                    INSERT INTO handoffNote (shiftIndex, kind, authorId, authorUsername, text, writtenAt) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(shiftIndex) WHERE kind = 'note'
                    DO UPDATE SET authorId = excluded.authorId, authorUsername = excluded.authorUsername, text = excluded.text, writtenAt = excluded.writtenAt
                    """,
                arguments: [shiftIndex, HandoffNote.Kind.note.rawValue, author.id, author.username, text, now])
            var entry = audit
            try self.append(&entry, db)
        }
    }

    /// Adds a follow-up to a stored hand-off, with its audit entry: only its outgoing person may.
    public func addHandoffFollowUp(shiftIndex: Int, author: StaffMember, text: String, audit: AuditEntry, now: Date) async throws {
        let text = try HandoffNote.checked(text)
        try await writer.write { db in
            guard let outgoingID = try Int.fetchOne(db, sql: "SELECT outgoingId FROM shiftHandoff WHERE shiftIndex = ?", arguments: [shiftIndex])
            else { throw HandoffError.noSuchHandoff }
            guard outgoingID == author.id else { throw HandoffError.notOutgoing }
            try db.execute(
                sql: "INSERT INTO handoffNote (shiftIndex, kind, authorId, authorUsername, text, writtenAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [shiftIndex, HandoffNote.Kind.followUp.rawValue, author.id, author.username, text, now])
            var entry = audit
            try self.append(&entry, db)
        }
    }

    private static func hasHandoff(_ shiftIndex: Int, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM shiftHandoff WHERE shiftIndex = ?)", arguments: [shiftIndex]) ?? false
    }
}
