import Foundation
import GRDB

/// What an import of device tokens did.
public struct DeviceImportResult: Sendable, Equatable {
    public var added = 0
    /// Already known with the same user and environment: left as they were.
    public var unchanged = 0
    /// Known, with another user or environment, or stopped and now brought back (a wrong-environment
    /// token listed again, an unregistered one registered again after APNs' time): updated and active.
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
    public func devices(userID: Int? = nil) async throws -> [Device] {
        try await writer.read { db in
            var request = Device.all()
            if let userID { request = request.filter(Column("userId") == userID) }
            return try request.order(Column("id").desc).fetchAll(db)
        }
    }

    /// The devices each user's pushes go to, by user id: the active ones, and those APNs called a
    /// token of the other environment, offered in that other environment (a success there brings
    /// them back; `Device.environment` of these is the one to try, their state says why).
    public func deliverableDevices(userIDs: some Collection<Int> & Sendable) async throws -> [Int: [Device]] {
        guard !userIDs.isEmpty else { return [:] }
        return try await writer.read { db in
            let states = [Device.State.active, .wrongEnvironment].map(\.rawValue)
            let devices = try Device.filter(userIDs.contains(Column("userId")) && states.contains(Column("state"))).order(Column("id")).fetchAll(db)
            return Dictionary(
                grouping: devices.map { device in
                    var offered = device
                    if device.state == .wrongEnvironment { offered.environment = device.environment.other }
                    return offered
                }, by: \.userId)
        }
    }

    /// A user's active devices, which their pushes go to.
    public func activeDevices(userID: Int) async throws -> [Device] {
        try await writer.read { db in
            try Device.filter(Column("userId") == userID && Column("active") == true).order(Column("id")).fetchAll(db)
        }
    }

    /// The active devices of several users at once, by user id.
    public func activeDevices(userIDs: some Collection<Int> & Sendable) async throws -> [Int: [Device]] {
        guard !userIDs.isEmpty else { return [:] }
        return try await writer.read { db in
            let devices = try Device.filter(userIDs.contains(Column("userId")) && Column("active") == true).order(Column("id")).fetchAll(db)
            return Dictionary(grouping: devices, by: \.userId)
        }
    }

    /// Imports Book Corners' own device tokens; idempotent: running it twice changes nothing more.
    @discardableResult
    public func importDevices(_ entries: [DeviceTokenExport.Entry], now: Date) async throws -> DeviceImportResult {
        try await writer.write { db in
            var result = DeviceImportResult()
            for entry in entries {
                guard entry.isActive else {
                    result.skippedInactive += 1
                    continue
                }
                if let known = try Device.filter(Column("token") == entry.token).fetchOne(db), let id = known.id {
                    let bringsBack: Bool
                    switch known.state {
                    case .active:
                        bringsBack = known.userId != entry.userID || known.environment != entry.environment
                    // Most often APNs was asked in the wrong environment (or at the wrong host):
                    // Book Corners still listing it is reason enough to try again.
                    case .wrongEnvironment, .refused:
                        bringsBack = true
                    // Book Corners keeps a token APNs called gone listed: only a registration it saw
                    // after the time APNs gave brings it back (Apple's rule).
                    case .unregistered:
                        let since = known.invalidSince ?? known.disabledAt ?? .distantFuture
                        bringsBack = (entry.registeredAt ?? .distantPast) > since
                    }
                    guard bringsBack else {
                        // A newer registration of a token still active is kept: an APNs 410 older
                        // than it, for a push already on its way, must not stop the token.
                        if known.state == .active, let registeredAt = entry.registeredAt {
                            try db.execute(
                                sql: "UPDATE device SET registeredAt = ? WHERE id = ? AND (registeredAt IS NULL OR registeredAt < ?)",
                                arguments: [registeredAt, id, registeredAt])
                        }
                        result.unchanged += 1
                        continue
                    }
                    try Self.moveDevice(
                        db, id: id, from: known.state, to: .active,
                        set: """
                            userId = ?, environment = ?, disabledReason = '', disabledAt = NULL, invalidSince = NULL,
                            registeredAt = CASE WHEN registeredAt IS NULL OR ? > registeredAt THEN ? ELSE registeredAt END
                            """,
                        arguments: [entry.userID, entry.environment.rawValue, entry.registeredAt, entry.registeredAt])
                    result.updated += 1
                } else {
                    var device = Device(userId: entry.userID, token: entry.token, environment: entry.environment, source: "import", createdAt: now)
                    device.registeredAt = entry.registeredAt
                    try device.insert(db)
                    result.added += 1
                }
            }
            return result
        }
    }

    /// A staff member adds a token of their own (or makes a disabled one of theirs active again).
    @discardableResult
    public func addDevice(userID: Int, token text: String, environment: Device.Environment, now: Date) async throws -> Device {
        guard let token = Device.normalizedToken(text) else { throw DeviceStoreError.invalidToken }
        return try await writer.write { db in
            if var known = try Device.filter(Column("token") == token).fetchOne(db) {
                guard known.userId == userID else { throw DeviceStoreError.takenByAnotherUser }
                // Its owner adding it again is their word that it works: from any state, active.
                try db.execute(
                    sql: """
                        UPDATE device SET state = 'active', active = 1, environment = ?, disabledReason = '', disabledAt = NULL, invalidSince = NULL
                        WHERE id = ? AND userId = ?
                        """, arguments: [environment.rawValue, known.id, userID])
                guard db.changesCount == 1 else { throw DeviceStoreError.notFound }
                known.environment = environment
                known.active = true
                known.state = .active
                known.disabledReason = ""
                known.disabledAt = nil
                known.invalidSince = nil
                return known
            }
            var device = Device(userId: userID, token: token, environment: environment, source: "staff", createdAt: now)
            try device.insert(db)
            return device
        }
    }

    /// Removes a device: by id, and only when it belongs to `userID` if one is given.
    public func removeDevice(id: Int64, userID: Int? = nil) async throws {
        try await writer.write { db in
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
    public func removeDevice(token text: String) async throws {
        guard let token = Device.normalizedToken(text) else { throw DeviceStoreError.invalidToken }
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM device WHERE token = ?", arguments: [token])
            guard db.changesCount == 1 else { throw DeviceStoreError.notFound }
        }
    }

    /// APNs said the token is gone (410 `Unregistered`) as of `now`: pushes stop going to it.
    /// Answers whether it was deliverable.
    @discardableResult
    public func disableDevice(token: String, reason: String, now: Date) async throws -> Bool {
        try await writer.write { db in
            try Self.apply(DeviceReport(token: token, environment: nil, finding: .unregistered(since: now), reason: reason, at: now), db)
        }
    }

    /// Applies what one push told about a device, inside a caller's transaction, as guarded
    /// moves of `Device.State`; answers whether the device's state changed.
    @discardableResult
    static func apply(_ report: DeviceReport, _ db: Database) throws -> Bool {
        switch report.finding {
        case .delivered:
            try db.cachedStatement(sql: "UPDATE device SET lastSuccessAt = ? WHERE token = ?").execute(arguments: [report.at, report.token])
            // Delivered in the other environment than the one that said BadDeviceToken: that is its environment.
            guard let environment = report.environment else { return false }
            try db.cachedStatement(
                sql: """
                    UPDATE device SET state = 'active', active = 1, environment = ?, disabledReason = '', disabledAt = NULL, invalidSince = NULL
                    WHERE token = ? AND state = 'wrong-environment' AND environment != ?
                    """
            ).execute(arguments: [environment.rawValue, report.token, environment.rawValue])
            return db.changesCount == 1
        case .unregistered(let since):
            // A registration Book Corners saw after APNs' time (a re-import while the push was in
            // flight) makes the token valid again by Apple's rule: this answer no longer stops it.
            try db.cachedStatement(
                sql: """
                    UPDATE device SET state = 'unregistered', active = 0, disabledReason = ?, disabledAt = ?, invalidSince = ?
                    WHERE token = ? AND state IN (\(Device.State.sql(Device.State.sources(of: .unregistered))))
                      AND (registeredAt IS NULL OR registeredAt <= ?)
                    """
            ).execute(arguments: [report.reason, report.at, since, report.token, since])
            return db.changesCount == 1
        case .badDeviceToken:
            // In its own environment: most often a token of the other one, tried next. In the other
            // one as well (a try after that): refused in both.
            try db.cachedStatement(
                sql: """
                    UPDATE device SET state = 'wrong-environment', active = 0, disabledReason = ?, disabledAt = ?
                    WHERE token = ? AND state = 'active' AND (? IS NULL OR environment = ?)
                    """
            ).execute(arguments: [report.reason, report.at, report.token, report.environment?.rawValue, report.environment?.rawValue])
            if db.changesCount == 1 { return true }
            try db.cachedStatement(
                sql: """
                    UPDATE device SET state = 'refused', disabledReason = ?, disabledAt = ?
                    WHERE token = ? AND state = 'wrong-environment' AND ? IS NOT NULL AND environment != ?
                    """
            ).execute(arguments: [report.reason, report.at, report.token, report.environment?.rawValue, report.environment?.rawValue])
            return db.changesCount == 1
        }
    }

    /// The one guarded move of a device's state by id, with more columns set as given.
    private static func moveDevice(_ db: Database, id: Int64, from: Device.State, to: Device.State, set: String, arguments: StatementArguments) throws {
        precondition(from.allowedNext.contains(to) || from == to, "not a move of a device's state")
        var all: StatementArguments = [to.rawValue, to == .active]
        all += arguments
        all += [id, from.rawValue]
        try db.execute(sql: "UPDATE device SET state = ?, active = ?, \(set) WHERE id = ? AND state = ?", arguments: all)
        // Within the import's own transaction nothing else moves it; a change count of 0 means a bug.
        guard db.changesCount == 1 else { throw DeviceStoreError.notFound }
    }
}

/// What one push told about a device token, applied in the transaction that settles the message.
public struct DeviceReport: Sendable, Equatable {
    public var token: String
    /// The environment it was pushed in; nil when not known (the token's own).
    public var environment: Device.Environment?
    public var finding: Finding
    /// APNs' answer in words.
    public var reason: String
    public var at: Date

    /// What APNs' answer means for the token.
    public enum Finding: Sendable, Equatable {
        /// 200: it took the push.
        case delivered
        /// 410 `Unregistered`: not valid since APNs' `timestamp`.
        case unregistered(since: Date)
        /// 400 `BadDeviceToken`: not a token of this environment.
        case badDeviceToken
    }

    public init(token: String, environment: Device.Environment?, finding: Finding, reason: String, at: Date) {
        self.token = token
        self.environment = environment
        self.finding = finding
        self.reason = reason
        self.at = at
    }
}

extension Device {
    /// The device's state in words, the one place it is said: the devices page and `devices list` say the same.
    public var stateText: String {
        let device = self
        let when = device.disabledAt.map { $0.formatted(.iso8601) } ?? "an unknown time"
        switch device.state {
        case .active:
            return "active"
        case .unregistered:
            let since = (device.invalidSince ?? device.disabledAt).map { $0.formatted(.iso8601) } ?? "an unknown time"
            return
                "unregistered: APNs says the app is gone from this device since \(since); nothing is pushed to it until Book Corners reports it registered again after that (the next import), or its owner adds it again"
        case .wrongEnvironment:
            return
                "wrong environment? APNs answered BadDeviceToken in \(device.environment.rawValue) at \(when), most often a token of the other environment: the next push tries \(device.environment.other.rawValue), and an import brings it back"
        case .refused:
            return "refused: APNs answered BadDeviceToken in both environments (last at \(when)); an import or its owner adding it again brings it back"
        }
    }
}
