import Foundation
import GRDB

extension ModerationStore {
    /// Of the items of `kind` named by `keys`, those with a decision recorded but not yet
    /// final (queued, sending, waiting, parked), by key: the latest such decision of each, by
    /// anyone. A page shows these items as decided-and-on-its-way rather than undecided. A
    /// decision held because its author is no longer staff is not on its way: colleagues decide.
    public func unfinishedDecisions(kind: ModerationAction.TargetKind, keys: [String]) async throws -> [String: ModerationAction] {
        var latest: [String: ModerationAction] = [:]
        for action in try await decisionsNotFinal(kind: kind, keys: keys) where latest[action.targetKey] == nil && !action.isHeldForRemovedAuthor {
            latest[action.targetKey] = action
        }
        return latest
    }

    /// The decisions on one item held because their authors are no longer staff, newest first.
    public func heldDecisions(kind: ModerationAction.TargetKind, key: String) async throws -> [ModerationAction] {
        try await decisionsNotFinal(kind: kind, keys: [key]).filter(\.isHeldForRemovedAuthor)
    }

    private func decisionsNotFinal(kind: ModerationAction.TargetKind, keys: [String]) async throws -> [ModerationAction] {
        guard !keys.isEmpty else { return [] }
        return try readNow { db in
            try ModerationAction.fetchAll(
                Self.statement(
                    db,
                    sql: """
                        SELECT * FROM action WHERE targetKind = ? AND targetKey IN (\(databaseQuestionMarks(count: keys.count)))
                        AND state NOT IN ('applied', 'conflict', 'failed') AND state != 'cancelled' ORDER BY id DESC
                        """, keys: keys.count),
                arguments: StatementArguments([kind.rawValue] + keys))
        }
    }

    /// The latest audit entry that changed each of these items (a decision Book Corners
    /// applied, or a change seen outside the console), by target id (a library's, report's or
    /// photo's backend id as text): who decided what it is now, when, and why.
    public func latestDecisions(kind: ModerationAction.TargetKind, targetIds: [String]) async throws -> [String: AuditEntry] {
        guard !targetIds.isEmpty else { return [:] }
        return try readNow { db in
            let entries = try AuditEntry.fetchAll(
                Self.statement(
                    db,
                    sql: """
                        SELECT * FROM auditEntry WHERE targetKind = ? AND targetId IN (\(databaseQuestionMarks(count: targetIds.count)))
                        AND outcome IN ('applied', 'observed') AND statusAfter != '' ORDER BY id DESC
                        """, keys: targetIds.count),
                arguments: StatementArguments([kind.rawValue] + targetIds))
            var latest: [String: AuditEntry] = [:]
            for entry in entries where latest[entry.targetId] == nil { latest[entry.targetId] = entry }
            return latest
        }
    }
}

extension ModerationStore {
    /// The latest decision made through the console that Book Corners applied to this item
    /// after `since`, other than `actionID`'s own: someone decided it after that decision was
    /// made, so it must not be sent (even when the item is back as it was) nor taken for its own.
    public func decisionAppliedSince(
        kind: ModerationAction.TargetKind, targetId: String, since: Date, excludingAction actionID: Int64
    ) async throws -> AuditEntry? {
        try readNow { db in
            try AuditEntry.fetchOne(
                db,
                sql: """
                    SELECT * FROM auditEntry WHERE targetKind = ? AND targetId = ? AND outcome = 'applied' AND statusAfter != ''
                      AND actionId IS NOT NULL AND actionId != ? AND recordedAt > ?
                    ORDER BY id DESC LIMIT 1
                    """,
                arguments: [kind.rawValue, targetId, actionID, since])
        }
    }
}

extension ModerationStore {
    /// The latest decision on `action`'s item recorded after it that has gone out to Book
    /// Corners (applied, or sent with its outcome unknown). Its author decided after seeing the
    /// item later than `action`'s did, so `action` must never be sent over it.
    public func laterDecisionSent(after action: ModerationAction) async throws -> ModerationAction? {
        guard let id = action.id else { return nil }
        return try readNow { db in
            try ModerationAction.fetchOne(
                db,
                sql: """
                    SELECT * FROM action WHERE targetKind = ? AND targetKey = ? AND id > ?
                      AND (state = 'applied' OR unknownOutcomes > 0)
                    ORDER BY id DESC LIMIT 1
                    """,
                arguments: [action.targetKind.rawValue, action.targetKey, id])
        }
    }
}

/// The library a decision is about, as the mirror names it: what the Pending actions panel
/// shows instead of a slug or an id.
public struct DecisionTargetName: Sendable, Equatable {
    public let name: String
    public let city: String
    public let librarySlug: String

    public init(name: String, city: String, librarySlug: String) {
        self.name = name
        self.city = city
        self.librarySlug = librarySlug
    }

    /// The key `targetNames(of:)` answers for an action: `library:<slug>`, `report:<id>`, `photo:<id>`.
    public static func key(_ kind: ModerationAction.TargetKind, _ targetKey: String) -> String {
        "\(kind.rawValue):\(targetKey)"
    }
}

extension ModerationStore {
    /// The mirror's names for the items of `actions`, by `DecisionTargetName.key`; items the
    /// mirror does not know are left out. One read, only when there is something to name.
    public func targetNames(of actions: [ModerationAction]) async throws -> [String: DecisionTargetName] {
        try await targetNames(of: actions.map { ($0.targetKind, $0.targetKey) })
    }

    /// The mirror's names for these items (kind and key: a slug, or a report's or photo's id).
    public func targetNames(of items: [(kind: ModerationAction.TargetKind, key: String)]) async throws -> [String: DecisionTargetName] {
        guard !items.isEmpty else { return [:] }
        func keys(_ kind: ModerationAction.TargetKind) -> [String] { Array(Set(items.filter { $0.kind == kind }.map(\.key))) }
        let libraries = keys(.library)
        let reports = keys(.report).compactMap(Int.init)
        let photos = keys(.photo).compactMap(Int.init)
        return try readNow { db in
            var names: [String: DecisionTargetName] = [:]
            if !libraries.isEmpty {
                for row in try Row.fetchAll(
                    db, sql: "SELECT slug, name, city FROM mirrorLibrary WHERE slug IN (\(databaseQuestionMarks(count: libraries.count)))",
                    arguments: StatementArguments(libraries))
                {
                    let slug: String = row["slug"]
                    names[DecisionTargetName.key(.library, slug)] = DecisionTargetName(name: row["name"], city: row["city"], librarySlug: slug)
                }
            }
            for (kind, table, ids) in [(ModerationAction.TargetKind.report, "mirrorReport", reports), (.photo, "mirrorPhoto", photos)] where !ids.isEmpty {
                for row in try Row.fetchAll(
                    db, sql: "SELECT id, libraryName, libraryCity, librarySlug FROM \(table) WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
                    arguments: StatementArguments(ids))
                {
                    let id: Int = row["id"]
                    names[DecisionTargetName.key(kind, String(id))] = DecisionTargetName(
                        name: row["libraryName"], city: row["libraryCity"], librarySlug: row["librarySlug"])
                }
            }
            return names
        }
    }
}
