import Foundation
import GRDB

/// The backend budget in the database, so every console process on it spends one budget:
/// each attempt is claimed with one guarded `UPDATE … WHERE spent < limit` whose change count
/// says whether it was granted; SQLite's single writer makes the check and the count one step.
extension ModerationStore {
    /// Claims one attempt; answers whether it was granted (and counted). Refused while the
    /// scope is paused after a 429.
    public func claimBackendBudget(_ claim: BudgetClaim, now: Date) async throws -> Bool {
        try await claimBackendBudget([claim], now: now)
    }

    /// Claims one attempt in every window of `claims` (the same share, one claim per window the
    /// call may be counted in), all or none, in one transaction: answers whether all were granted.
    public func claimBackendBudget(_ claims: [BudgetClaim], now: Date) async throws -> Bool {
        guard !claims.isEmpty else { return true }
        do {
            return try await writer.write { db in
                for claim in claims {
                    // One refused: the whole transaction rolls back, so no window is charged.
                    guard try Self.claimBackendBudget(claim, now: now, db) else { throw BudgetRefused() }
                }
                return true
            }
        } catch is BudgetRefused {
            return false
        }
    }

    private struct BudgetRefused: Error {}

    private static func claimBackendBudget(_ claim: BudgetClaim, now: Date, _ db: Database) throws -> Bool {
        try db.execute(
            sql: "INSERT OR IGNORE INTO backendBudget (scope, pool, windowIndex, spent, reserveSpent) VALUES (?, ?, ?, 0, 0)",
            arguments: [claim.scope, claim.pool, claim.windowIndex])
        // A claim from the reserve is bound by the limit alone; any other also leaves the
        // reserve's unspent part and the headroom free.
        try db.execute(
            sql: """
                UPDATE backendBudget SET spent = spent + 1, reserveSpent = reserveSpent + :fromReserve
                WHERE scope = :scope AND pool = :pool AND windowIndex = :window
                  AND spent + (CASE WHEN :fromReserve = 1 THEN 0 ELSE MAX(0, :reserve - reserveSpent) + :headroom END) < :limit
                  AND NOT EXISTS (SELECT 1 FROM backendPause WHERE scope = :scope AND pausedUntil > :now)
                """,
            arguments: [
                "fromReserve": claim.fromReserve ? 1 : 0, "scope": claim.scope, "pool": claim.pool, "window": claim.windowIndex,
                "reserve": claim.reserve, "headroom": claim.headroom, "limit": claim.limit, "now": now.timeIntervalSince1970,
            ])
        let granted = db.changesCount == 1
        // Windows two back are of no use to anyone: dropped as new ones start.
        if granted,
            try Int.fetchOne(
                db, sql: "SELECT spent FROM backendBudget WHERE scope = ? AND pool = ? AND windowIndex = ?",
                arguments: [claim.scope, claim.pool, claim.windowIndex]) == 1
        {
            try db.execute(
                sql: "DELETE FROM backendBudget WHERE scope = ? AND pool = ? AND windowIndex < ?",
                arguments: [claim.scope, claim.pool, claim.windowIndex - 1])
        }
        return granted
    }

    /// What `pool` of `scope` has spent in the window.
    public func backendBudgetSpending(scope: String, pool: String, windowIndex: Int) async throws -> BudgetSpending {
        try await writer.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT spent, reserveSpent FROM backendBudget WHERE scope = ? AND pool = ? AND windowIndex = ?",
                arguments: [scope, pool, windowIndex])
            return row.map { BudgetSpending(spent: $0["spent"], reserveSpent: $0["reserveSpent"]) } ?? BudgetSpending()
        }
    }

    /// Nothing more in `scope` before `until`, for every process (a later pause is kept).
    public func pauseBackendScope(_ scope: String, until: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO backendPause (scope, pausedUntil) VALUES (?, ?)
                    ON CONFLICT(scope) DO UPDATE SET pausedUntil = MAX(pausedUntil, excluded.pausedUntil)
                    """,
                arguments: [scope, until.timeIntervalSince1970])
        }
    }

    /// Until when `scope` is paused after a 429; `nil` when it is not (any more) at `now`.
    public func backendScopePausedUntil(_ scope: String, now: Date) async throws -> Date? {
        try await writer.read { db in
            try Double.fetchOne(
                db, sql: "SELECT pausedUntil FROM backendPause WHERE scope = ? AND pausedUntil > ?", arguments: [scope, now.timeIntervalSince1970]
            )
            .map { Date(timeIntervalSince1970: $0) }
        }
    }

    // MARK: Leases on work one process does at a time

    /// Takes or renews the lease `name` for `owner` until `until`; answers whether `owner` holds it.
    /// Another owner's lease is taken over only once it has run out.
    public func holdWorkLease(_ name: String, owner: String, until: Date, now: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO workLease (name, owner, leaseUntil) VALUES (:name, :owner, :until)
                    ON CONFLICT(name) DO UPDATE SET owner = :owner, leaseUntil = :until
                    WHERE workLease.owner = :owner OR workLease.leaseUntil <= :now
                    """,
                arguments: ["name": name, "owner": owner, "until": until.timeIntervalSince1970, "now": now.timeIntervalSince1970])
            return db.changesCount == 1
        }
    }

    /// Gives the lease up at once, so another process need not wait for it to run out.
    public func releaseWorkLease(_ name: String, owner: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM workLease WHERE name = ? AND owner = ?", arguments: [name, owner])
        }
    }
}
