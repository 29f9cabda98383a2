import Foundation
import GRDB

/// What a claim attempt came to.
public enum ClaimOutcome: Sendable {
    /// The caller holds the claim now (a new one, or their own renewed).
    case claimed(ItemClaim)
    /// Someone else holds it: the caller is told who, and for how many more minutes.
    case heldByOther(ItemClaim, minutesLeft: Int)
}

/// Why the store refused to move a claim.
public enum ClaimStoreError: Error, Sendable {
    /// The claim the caller meant is no longer active, or is not theirs: `current` is the item's
    /// active claim now (nil when there is none), so the caller can say who has it.
    case notHeld(current: ItemClaim?)
}

extension ModerationStore {
    /// Claims `target` for `holderId` until `now + duration`. Stale claims expire first; the
    /// holder claiming again renews theirs. Two callers at once (two processes on one file
    /// included): exactly one wins, the other gets `.heldByOther`.
    public func claim(
        _ target: ItemClaim.Target, holderId: Int, holderUsername: String, now: Date, duration: TimeInterval
    ) async throws -> ClaimOutcome {
        try await writer.write { db in
            try Self.expireClaims(db, now: now)
            if let current = try Self.activeClaim(db, target) {
                guard current.holderId == holderId else { return .heldByOther(current, minutesLeft: current.minutesLeft(at: now)) }
                try db.execute(
                    sql: "UPDATE itemClaim SET expiresAt = ? WHERE id = ? AND state = 'active'",
                    arguments: [now.addingTimeInterval(duration), current.id])
                guard db.changesCount == 1 else { throw ClaimStoreError.notHeld(current: try Self.activeClaim(db, target)) }
                return .claimed(try Self.activeClaim(db, target) ?? current)
            }
            var claim = ItemClaim(target: target, holderId: holderId, holderUsername: holderUsername, claimedAt: now, duration: duration)
            do {
                try claim.insert(db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // Another process inserted between our read and our insert: it won.
                guard let winner = try Self.activeClaim(db, target) else { throw error }
                return .heldByOther(winner, minutesLeft: winner.minutesLeft(at: now))
            }
            return .claimed(claim)
        }
    }

    /// Ends the holder's active claim on `target`. Throws `notHeld` when they hold none (it
    /// expired, was taken over, or a decision ended it).
    public func releaseClaim(_ target: ItemClaim.Target, holderId: Int, holderUsername: String, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE itemClaim SET state = ?, endedAt = ?, endedBy = ?
                    WHERE targetKind = ? AND targetKey = ? AND holderId = ? AND expiresAt > ?
                      AND state IN (\(Self.sqlList(ItemClaim.State.sources(of: .released))))
                    """,
                arguments: [ItemClaim.State.released.rawValue, now, holderUsername, target.kind.rawValue, target.key, holderId, now])
            guard db.changesCount == 1 else { throw ClaimStoreError.notHeld(current: try Self.liveClaim(db, target, now: now)) }
        }
    }

    /// Takes over claim `claimID` (someone else's, still active) for `holderId`, and appends
    /// `audit`: the old claim's end, the new claim and the entry are one transaction.
    public func takeOverClaim(
        _ claimID: Int64, target: ItemClaim.Target, holderId: Int, holderUsername: String, now: Date, duration: TimeInterval, audit: AuditEntry
    ) async throws -> ItemClaim {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE itemClaim SET state = ?, endedAt = ?, endedBy = ?
                    WHERE id = ? AND targetKind = ? AND targetKey = ? AND holderId != ? AND expiresAt > ?
                      AND state IN (\(Self.sqlList(ItemClaim.State.sources(of: .takenOver))))
                    """,
                arguments: [ItemClaim.State.takenOver.rawValue, now, holderUsername, claimID, target.kind.rawValue, target.key, holderId, now])
            guard db.changesCount == 1 else { throw ClaimStoreError.notHeld(current: try Self.liveClaim(db, target, now: now)) }
            var claim = ItemClaim(target: target, holderId: holderId, holderUsername: holderUsername, claimedAt: now, duration: duration)
            try claim.insert(db)
            var entry = audit
            try self.append(&entry, db)
            return claim
        }
    }

    /// Ends any active claim on `target` because a decision on it was recorded by `decider`.
    /// None or one may match (claims warn, they do not block), so the count is not checked.
    static func endClaimsOnDecision(_ db: Database, target: ItemClaim.Target, decider: String, now: Date) throws {
        try db.execute(
            sql: """
                UPDATE itemClaim SET state = ?, endedAt = ?, endedBy = ?
                WHERE targetKind = ? AND targetKey = ? AND state IN (\(sqlList(ItemClaim.State.sources(of: .decided))))
                """,
            arguments: [ItemClaim.State.decided.rawValue, now, decider, target.kind.rawValue, target.key])
    }

    /// The live claim on `target` at `now` (active and not past its expiry), if any.
    public func activeClaim(_ target: ItemClaim.Target, now: Date) async throws -> ItemClaim? {
        try readNow { db in try Self.liveClaim(db, target, now: now) }
    }

    /// The live claims on items of `kind` among `keys`, by key, in one query (for list pages).
    public func activeClaims(kind: ModerationAction.TargetKind, keys: [String], now: Date) async throws -> [String: ItemClaim] {
        guard !keys.isEmpty else { return [:] }
        return try readNow { db in
            let placeholders = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            var arguments: StatementArguments = [kind.rawValue, now]
            arguments += StatementArguments(keys)
            let claims = try ItemClaim.fetchAll(
                Self.statement(
                    db, sql: "SELECT * FROM itemClaim WHERE state = 'active' AND targetKind = ? AND expiresAt > ? AND targetKey IN (\(placeholders))",
                    keys: keys.count),
                arguments: arguments)
            return Dictionary(claims.map { ($0.targetKey, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Every claim on `target`, newest first: the record, and how a claim its holder acts on ended.
    public func claims(on target: ItemClaim.Target) async throws -> [ItemClaim] {
        try readNow { db in
            try ItemClaim.fetchAll(
                db, sql: "SELECT * FROM itemClaim WHERE targetKind = ? AND targetKey = ? ORDER BY id DESC",
                arguments: [target.kind.rawValue, target.key])
        }
    }

    /// Marks every active claim past its expiry as expired; answers how many.
    @discardableResult
    public func expireClaims(now: Date) async throws -> Int {
        try await writer.write { db in try Self.expireClaims(db, now: now) }
    }

    @discardableResult
    private static func expireClaims(_ db: Database, now: Date) throws -> Int {
        // An expired claim ends when it expired, not when the sweep noticed.
        try db.execute(
            sql: """
                UPDATE itemClaim SET state = ?, endedAt = expiresAt
                WHERE expiresAt <= ? AND state IN (\(sqlList(ItemClaim.State.sources(of: .expired))))
                """,
            arguments: [ItemClaim.State.expired.rawValue, now])
        return db.changesCount
    }

    private static func activeClaim(_ db: Database, _ target: ItemClaim.Target) throws -> ItemClaim? {
        try ItemClaim.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM itemClaim WHERE state = 'active' AND targetKind = ? AND targetKey = ?"),
            arguments: [target.kind.rawValue, target.key])
    }

    static func liveClaim(_ db: Database, _ target: ItemClaim.Target, now: Date) throws -> ItemClaim? {
        try activeClaim(db, target).flatMap { $0.expiresAt > now ? $0 : nil }
    }

    private static func sqlList(_ states: [ItemClaim.State]) -> String {
        states.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
