import Foundation
import GRDB

/// What an import of device tokens did.
public struct DeviceImportResult: Sendable, Equatable {
    public var added = 0
    /// Already known with the same user and environment: left as they were.
    public var unchanged = 0
    /// Known, with another user or environment: updated and active again.
    public var updated = 0
    /// Inactive in the export: not imported (an active copy of ours is left alone).
    public var skippedInactive = 0

    public init() {}
}

/// Why a device could not be added or removed.
public enum DeviceStoreError: Error, Equatable, Sendable {
    case invalidToken
    /// The token belongs to somebody else.
    case takenByAnotherUser
    case notFound
}

extension ModerationStore {
    /// Every device, newest first, optionally of one user.
    public func devices(userID: Int? = nil) throws -> [Device] {
        try writer.read { db in
            var request = Device.all()
            if let userID { request = request.filter(Column("userId") == userID) }
            return try request.order(Column("id").desc).fetchAll(db)
        }
    }

    /// A user's active devices, which their pushes go to.
    public func activeDevices(userID: Int) throws -> [Device] {
        try writer.read { db in
            try Device.filter(Column("userId") == userID && Column("active") == true).order(Column("id")).fetchAll(db)
        }
    }

    /// The active devices of several users at once, by user id.
    public func activeDevices(userIDs: some Collection<Int>) throws -> [Int: [Device]] {
        guard !userIDs.isEmpty else { return [:] }
        return try writer.read { db in
            let devices = try Device.filter(userIDs.contains(Column("userId")) && Column("active") == true).order(Column("id")).fetchAll(db)
            return Dictionary(grouping: devices, by: \.userId)
        }
    }

    /// Imports Book Corners' own device tokens; idempotent: running it twice changes nothing more.
    @discardableResult
    public func importDevices(_ entries: [DeviceTokenExport.Entry], now: Date) throws -> DeviceImportResult {
        try writer.write { db in
            var result = DeviceImportResult()
            for entry in entries {
                guard entry.isActive else {
                    result.skippedInactive += 1
                    continue
                }
                if var known = try Device.filter(Column("token") == entry.token).fetchOne(db) {
                    // Book Corners keeps a token APNs has called gone active; a nightly import must
                    // not switch it back on (only a staff member adding it again does).
                    if known.userId == entry.userID, known.environment == entry.environment, known.active || known.disabledAt != nil {
                        result.unchanged += 1
                        continue
                    }
                    guard known.disabledAt == nil else {
                        result.unchanged += 1
                        continue
                    }
                    known.userId = entry.userID
                    known.environment = entry.environment
                    known.active = true
                    known.disabledReason = ""
                    known.disabledAt = nil
                    try known.update(db)
                    result.updated += 1
                } else {
                    var device = Device(userId: entry.userID, token: entry.token, environment: entry.environment, source: "import", createdAt: now)
                    try device.insert(db)
                    result.added += 1
                }
            }
            return result
        }
    }

    /// A staff member adds a token of their own (or makes a disabled one of theirs active again).
    @discardableResult
    public func addDevice(userID: Int, token text: String, environment: Device.Environment, now: Date) throws -> Device {
        guard let token = Device.normalizedToken(text) else { throw DeviceStoreError.invalidToken }
        return try writer.write { db in
            if var known = try Device.filter(Column("token") == token).fetchOne(db) {
                guard known.userId == userID else { throw DeviceStoreError.takenByAnotherUser }
                known.environment = environment
                known.active = true
                known.disabledReason = ""
                known.disabledAt = nil
                try known.update(db)
                return known
            }
            var device = Device(userId: userID, token: token, environment: environment, source: "staff", createdAt: now)
            try device.insert(db)
            return device
        }
    }

    /// Removes a device: by id, and only when it belongs to `userID` if one is given.
    public func removeDevice(id: Int64, userID: Int? = nil) throws {
        try writer.write { db in
            var sql = "DELETE FROM device WHERE id = ?"
            var arguments: StatementArguments = [id]
            if let userID {
                sql += " AND userId = ?"
                arguments += [userID]
            }
            try db.execute(sql: sql, arguments: arguments)
            guard db.changesCount == 1 else { throw DeviceStoreError.notFound }
        }
    }

    /// Removes a device by its token.
    public func removeDevice(token text: String) throws {
        guard let token = Device.normalizedToken(text) else { throw DeviceStoreError.invalidToken }
        try writer.write { db in
            try db.execute(sql: "DELETE FROM device WHERE token = ?", arguments: [token])
            guard db.changesCount == 1 else { throw DeviceStoreError.notFound }
        }
    }

    /// APNs said the token is gone: pushes stop going to it. Answers whether it was active.
    @discardableResult
    public func disableDevice(token: String, reason: String, now: Date) throws -> Bool {
        try writer.write { db in try Self.disableDevice(db, token: token, reason: reason, at: now) }
    }

    /// The one UPDATE that switches a token off (only an active one), inside a caller's transaction.
    static func disableDevice(_ db: Database, token: String, reason: String, at date: Date) throws -> Bool {
        try db.cachedStatement(sql: "UPDATE device SET active = 0, disabledReason = ?, disabledAt = ? WHERE token = ? AND active = 1")
            .execute(arguments: [reason, date, token])
        return db.changesCount == 1
    }
}
