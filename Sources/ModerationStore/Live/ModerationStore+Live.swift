import Foundation
import GRDB
import ModerationVocabulary

extension ModerationStore {
    /// Changes recorded after `id`, oldest first.
    public func liveChanges(after id: Int64, limit: Int = 500) async throws -> [LiveChange] {
        try await writer.read { db in
            try LiveChange.fetchAll(db, sql: "SELECT * FROM liveChange WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, limit])
        }
    }

    /// The newest change's id ever given (0 before the first), kept however many were pruned:
    /// where a new stream starts.
    public func lastLiveChangeID() async throws -> Int64 {
        try readOncePerChange(perChange.lastLiveChangeID) { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'liveChange'") ?? 0
        }
    }

    /// The oldest change still kept (nil when none): a reconnection from before it has missed some.
    public func oldestLiveChangeID() async throws -> Int64? {
        try await writer.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM liveChange") }
    }

    /// Forgets changes recorded before `date`; answers how many.
    @discardableResult
    public func pruneLiveChanges(before date: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM liveChange WHERE recordedAt < ?", arguments: [date])
            return db.changesCount
        }
    }

    /// How each of `targets` stands now, in one read.
    public func liveItems(_ targets: [ItemClaim.Target], now: Date) async throws -> [LiveItem] {
        try await writer.read { db in
            try targets.map { target in
                let mirrored = try Row.fetchOne(
                    db,
                    sql: target.kind == .library
                        ? "SELECT status, goneAt FROM mirrorLibrary WHERE slug = ? ORDER BY id DESC LIMIT 1"
                        : "SELECT status, goneAt FROM \(target.kind == .report ? "mirrorReport" : "mirrorPhoto") WHERE id = ?",
                    arguments: [target.kind == .library ? target.key : (Int(target.key) ?? -1) as any DatabaseValueConvertible])
                let decision = try ModerationAction.fetchOne(
                    db, sql: "SELECT * FROM action WHERE targetKind = ? AND targetKey = ? ORDER BY id DESC LIMIT 1",
                    arguments: [target.kind.rawValue, target.key])
                return LiveItem(
                    target: target, status: (mirrored?["status"] as String?).flatMap(ItemStatus.init(rawValue:)),
                    isGone: (mirrored?["goneAt"] as Date?) != nil, latestDecision: decision, claim: try Self.liveClaim(db, target, now: now))
            }
        }
    }
}
