import Foundation
import GRDB

/// Staff, the rotation and its overrides. Every change to the rotation or an override is
/// written with its audit entry in one transaction.
extension ModerationStore {
    // MARK: Staff

    /// Notes a staff member the backend vouched for (at sign-in): their id and current username.
    /// A username that moved to another id (renamed accounts) follows the id that has it now.
    public func recordStaffMember(_ member: StaffMember, signedInAt: Date?, now: Date = Date()) async throws {
        // The header's schedule is read again after this write.
        defer { recentSchedule.forget() }
        try await writer.write { db in
            try db.execute(
                sql:
                    "DELETE FROM staffMember WHERE username = ? AND id <> ? AND id NOT IN (SELECT staffId FROM rotationMember) AND id NOT IN (SELECT staffId FROM rotationOverride)",
                arguments: [member.username, member.id])
            try db.execute(
                sql: "UPDATE staffMember SET username = username || '#' || id WHERE username = ? AND id <> ?", arguments: [member.username, member.id])
            try db.execute(
                sql: """
                    INSERT INTO staffMember (id, username, lastSignedInAt, createdAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET username = excluded.username, lastSignedInAt = COALESCE(excluded.lastSignedInAt, lastSignedInAt)
                    """,
                arguments: [member.id, member.username, signedInAt, now])
            // Signed in again: a feed stopped for their absence is no longer news.
            if signedInAt != nil { try db.execute(sql: "DELETE FROM calendarFeedStopped WHERE staffId = ?", arguments: [member.id]) }
        }
    }

    /// Every staff member the console knows, by username.
    public func staffMembers() async throws -> [StaffMember] {
        try readNow { db in try StaffMember.order(StaffMember.Columns.username).fetchAll(db) }
    }

    public func staffMember(username: String) async throws -> StaffMember? {
        try readNow { db in try StaffMember.filter(StaffMember.Columns.username == username).fetchOne(db) }
    }

    public func staffMember(id: Int) async throws -> StaffMember? {
        try readNow { db in try StaffMember.fetchOne(db, key: id) }
    }

    // MARK: The rotation

    /// The rotation, or `nil` when none has been set up.
    public func rotation() async throws -> Rotation? {
        try readNow { db in try Self.rotation(db) }
    }

    /// The team's zone: the rotation's, else the one staff chose, else the server's.
    public func teamTimeZone() async throws -> TimeZone {
        try await teamClock().zone
    }

    /// The team's clock as pages use it: the rotation's zone (else the one staff chose, else the
    /// server's) and the hours staff chose.
    public func teamClock() async throws -> TeamClockChoice {
        try readNow { db in
            let setting = try Self.teamClockSetting(db)
            if let rotationZone = try String.fetchOne(db, sql: "SELECT timeZone FROM rotation WHERE id = 1").flatMap(TimeZone.init(identifier:)) {
                return TeamClockChoice(zone: rotationZone, twelveHour: setting.twelveHour, zoneIsRotations: true)
            }
            return TeamClockChoice(zone: setting.chosenZone ?? .current, twelveHour: setting.twelveHour, zoneIsRotations: false)
        }
    }

    /// What staff chose, or `TeamClockSetting.standard` before they did.
    public func teamClockSetting() async throws -> TeamClockSetting {
        try readNow { db in try Self.teamClockSetting(db) }
    }

    static func teamClockSetting(_ db: Database) throws -> TeamClockSetting {
        guard let row = try Row.fetchOne(db, sql: "SELECT timeZone, twelveHour FROM teamClock WHERE id = 1") else { return .standard }
        let zone: String? = row["timeZone"]
        return TeamClockSetting(chosenZone: zone.flatMap(TimeZone.init(identifier:)), twelveHour: row["twelveHour"])
    }

    /// Stores the team's clock with its audit entry, in one transaction.
    public func saveTeamClockSetting(_ setting: TeamClockSetting, audit: AuditEntry, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO teamClock (id, timeZone, twelveHour, updatedAt, updatedBy) VALUES (1, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET timeZone = excluded.timeZone, twelveHour = excluded.twelveHour,
                        updatedAt = excluded.updatedAt, updatedBy = excluded.updatedBy
                    """,
                arguments: [setting.chosenZone?.identifier, setting.twelveHour, now, audit.actorUsername])
            var entry = audit
            try self.append(&entry, db)
        }
    }

    static func rotation(_ db: Database) throws -> Rotation? {
        let rotation = try db.cachedStatement(sql: "SELECT shiftDays, handoffMinute, timeZone, startDate FROM rotation WHERE id = 1")
        guard let row = try Row.fetchOne(rotation) else { return nil }
        let members = try StaffMember.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT staffMember.id, staffMember.username FROM rotationMember JOIN staffMember ON staffMember.id = rotationMember.staffId ORDER BY position"
            ))
        let zoneName: String = row["timeZone"]
        let dateText: String = row["startDate"]
        guard let zone = TimeZone(identifier: zoneName), let start = LocalDate(dateText) else { return nil }
        return try? Rotation(
            members: members, shiftDays: row["shiftDays"], handoff: LocalTime(minutesAfterMidnight: row["handoffMinute"]), timeZone: zone,
            startDate: start)
    }

    /// Replaces the rotation (members in order, shift length, hand-off, zone, start), with its audit entry.
    public func saveRotation(_ rotation: Rotation, audit: AuditEntry, now: Date) async throws {
        // The header's schedule is read again after this write.
        defer { recentSchedule.forget() }
        try await writer.write { db in
            try Self.writeRotation(rotation, updatedBy: audit.actorUsername, now: now, db)
            var entry = audit
            try self.append(&entry, db)
        }
    }

    private static func writeRotation(_ rotation: Rotation, updatedBy: String, now: Date, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO rotation (id, shiftDays, handoffMinute, timeZone, startDate, updatedAt, updatedBy) VALUES (1, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET shiftDays = excluded.shiftDays, handoffMinute = excluded.handoffMinute,
                    timeZone = excluded.timeZone, startDate = excluded.startDate, updatedAt = excluded.updatedAt, updatedBy = excluded.updatedBy
                """,
            arguments: [
                rotation.shiftDays, rotation.handoff.minutesAfterMidnight, rotation.timeZone.identifier, rotation.startDate.description, now,
                updatedBy,
            ])
        try db.execute(sql: "DELETE FROM rotationMember")
        for (position, member) in rotation.members.enumerated() {
            try db.execute(sql: "INSERT INTO rotationMember (position, staffId) VALUES (?, ?)", arguments: [position, member.id])
        }
    }

    /// Replaces the rotation as `saveRotation` does, only if it is still `before` (`changedMeanwhile`
    /// otherwise), and when the change moves who is on call now, stores the hand-off it makes in
    /// the same transaction (`recordHandoff`: the outgoing person's pending note goes with it).
    /// Answers the hand-off stored, if any.
    public func changeRotation(
        _ rotation: Rotation, replacing before: Rotation?, audit: AuditEntry, now: Date, handoff: ShiftHandoff.Planned?,
        message: @escaping @Sendable (ShiftHandoff) -> OutboxMessage
    ) async throws -> ShiftHandoff? {
        defer { recentSchedule.forget() }
        return try await writer.write { db in
            guard try Self.rotation(db) == before else { throw RotationError.changedMeanwhile }
            try Self.writeRotation(rotation, updatedBy: audit.actorUsername, now: now, db)
            var entry = audit
            try self.append(&entry, db)
            return try handoff.flatMap { try Self.insertHandoff($0, message: message, db) }
        }
    }

    // MARK: Overrides

    /// Overrides still in force or to come after `after`, oldest added first.
    public func overrides(endingAfter after: Date) async throws -> [RotationOverride] {
        try readNow { db in try Self.overrides(db, endingAfter: after) }
    }

    static func overrides(_ db: Database, endingAfter after: Date) throws -> [RotationOverride] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT rotationOverride.*, staffMember.username FROM rotationOverride JOIN staffMember ON staffMember.id = rotationOverride.staffId
                WHERE endsAt > ? ORDER BY createdAt, rotationOverride.id
                """)
        return try RotationOverride.fetchAll(statement, arguments: [after])
    }

    public func override(id: Int64) async throws -> RotationOverride? {
        try readNow { db in
            try RotationOverride.fetchOne(
                db,
                sql:
                    "SELECT rotationOverride.*, staffMember.username FROM rotationOverride JOIN staffMember ON staffMember.id = rotationOverride.staffId WHERE rotationOverride.id = ?",
                arguments: [id])
        }
    }

    /// Adds "`staff` covers from `startsAt` to `endsAt`", with its audit entry; returns its id, or
    /// nil when an override was already added with `formKey` (the same form sent twice: nothing more is kept).
    @discardableResult
    public func addOverride(
        staff: StaffMember, startsAt: Date, endsAt: Date, note: String, audit: AuditEntry, now: Date, formKey: String? = nil
    ) async throws -> Int64? {
        guard endsAt > startsAt else { throw RotationError.overrideEndsBeforeStart }
        guard endsAt.timeIntervalSince(startsAt) <= 60 * 86_400 else { throw RotationError.overrideTooLong }
        // The header's schedule is read again after this write.
        defer { recentSchedule.forget() }
        return try await writer.write { db in
            // The unique index decides, so two console processes cannot both add it.
            try db.execute(
                sql: "INSERT OR IGNORE INTO rotationOverride (staffId, startsAt, endsAt, note, createdBy, createdAt, formKey) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [staff.id, startsAt, endsAt, note, audit.actorUsername, now, formKey])
            guard db.changesCount == 1 else { return nil }
            let id = db.lastInsertedRowID
            var entry = audit
            entry.targetId = String(id)
            try self.append(&entry, db)
            return id
        }
    }

    /// Removes an override, with its audit entry; someone else removing it first is `noSuchOverride`.
    public func removeOverride(id: Int64, audit: AuditEntry) async throws {
        // The header's schedule is read again after this write.
        defer { recentSchedule.forget() }
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM rotationOverride WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw RotationError.noSuchOverride }
            var entry = audit
            try self.append(&entry, db)
        }
    }

    /// The schedule as it stands (overrides that ended before `since` left out), or `nil` without a rotation.
    public func onCallSchedule(since: Date, now: Date = Date()) async throws -> OnCallSchedule? {
        // Every signed-in page's header asks for it: from a copy a moment old, else one read.
        if let recent = recentSchedule.schedule(since: since, now: now) { return recent }
        let readSince = min(since, now)
        let generation = recentSchedule.generation()
        let (rotation, overrides) = try readNow { db in (try Self.rotation(db), try Self.overrides(db, endingAfter: readSince)) }
        recentSchedule.keep(rotation: rotation, overrides: overrides, coversFrom: readSince, readAt: now, readSinceGeneration: generation)
        return rotation.map { OnCallSchedule(rotation: $0, overrides: overrides.filter { $0.endsAt > since }) }
    }

    // MARK: Queue targets

    /// Each queue's target age: what staff set, else the default.
    public func queueTargets() async throws -> QueueTargets {
        try readOncePerChange(perChange.queueTargets) { db in
            var minutes: [ModerationQueue: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT queue, targetMinutes FROM queueTarget") {
                if let queue = ModerationQueue(rawValue: row["queue"]) { minutes[queue] = row["targetMinutes"] }
            }
            return QueueTargets(minutes: minutes)
        }
    }

    /// Sets one queue's target age, with its audit entry.
    public func setQueueTarget(_ queue: ModerationQueue, minutes: Int, audit: AuditEntry, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO queueTarget (queue, targetMinutes, updatedAt, updatedBy) VALUES (?, ?, ?, ?)
                    ON CONFLICT(queue) DO UPDATE SET targetMinutes = excluded.targetMinutes, updatedAt = excluded.updatedAt, updatedBy = excluded.updatedBy
                    """,
                arguments: [queue.rawValue, minutes, now, audit.actorUsername])
            var entry = audit
            try self.append(&entry, db)
        }
    }

    // MARK: Messages of the console's own

    /// Stores a message no decision caused (an alert, a hand-off) inside the caller's
    /// transaction; `false` when one with its `dedupeKey` is already stored.
    public static func insertOwnOutboxMessage(_ message: OutboxMessage, _ db: Database) throws -> Bool {
        precondition(message.dedupeKey != nil, "messages of the console's own are keyed")
        try db.execute(
            sql: """
                INSERT INTO outboxMessage (id, actionId, recipientUserId, eventType, payload, headers, status, attempts, createdAt,
                    nextAttemptAt, lastReason, sentByBookCorners, expiresAt, dedupeKey)
                VALUES (?, NULL, ?, ?, ?, ?, ?, 0, ?, ?, '', 0, ?, ?)
                ON CONFLICT DO NOTHING
                """,
            arguments: [
                message.id, message.recipientUserId, message.eventType.rawValue, message.payload, message.headers,
                OutboxMessage.State.pending.rawValue, message.createdAt, message.nextAttemptAt, message.expiresAt, message.dedupeKey,
            ])
        return db.changesCount == 1
    }
}
