import Foundation
import GRDB
import ModerationVocabulary

extension ModerationStore {
    /// The mirror's row of a report or photo, gone or not; nil when the mirror never held it
    /// (and for libraries, which the backend reads by slug).
    public func mirrorPlace(kind: ModerationAction.TargetKind, id: Int) async throws -> MirrorPlace? {
        try readNow { db in
            switch kind {
            case .library:
                return nil
            case .report:
                return try MirrorReport.fetchOne(db, key: id).map {
                    MirrorPlace(
                        kind: .report, key: MirrorPlace.Key(createdAt: $0.createdAt, id: $0.id), status: ItemStatus($0.status),
                        reason: $0.reason, isGone: $0.goneAt != nil)
                }
            case .photo:
                return try MirrorPhoto.fetchOne(db, key: id).map {
                    MirrorPlace(
                        kind: .photo, key: MirrorPlace.Key(createdAt: $0.createdAt, id: $0.id), status: ItemStatus($0.status),
                        reason: nil, isGone: $0.goneAt != nil)
                }
            }
        }
    }

    /// Whether the mirror has ever held the item a decision names (a library by slug, a report
    /// or photo by id), gone ones included.
    public func mirrorEverHeld(kind: ModerationAction.TargetKind, key: String) async throws -> Bool {
        try await writer.read { db in
            let table =
                switch kind {
                case .library: "mirrorLibrary"
                case .report: "mirrorReport"
                case .photo: "mirrorPhoto"
                }
            let column = kind == .library ? "slug" : "id"
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(column) = ?)", arguments: [key]) ?? false
        }
    }

    /// Whether the mirror holds any report or photo of `kind` at all: before its first read an
    /// id it does not know says nothing.
    public func mirrorHoldsAny(_ kind: ModerationAction.TargetKind) async throws -> Bool {
        try readNow { db in
            let table =
                switch kind {
                case .library: "mirrorLibrary"
                case .report: "mirrorReport"
                case .photo: "mirrorPhoto"
                }
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table))") ?? false
        }
    }

    /// How many present reports or photos of `kind` (in `status` and with `reason`; any when
    /// nil) the backend lists after `newer` and before `older` (an end left open when nil):
    /// with `newer` nil, the place `older` has in that list, counted from 0.
    public func mirroredCount(
        kind: ModerationAction.TargetKind, status: ItemStatus?, reason: ReportReason?, after newer: MirrorPlace.Key?,
        before older: MirrorPlace.Key?
    ) async throws -> Int {
        let table: String
        switch kind {
        case .library: return 0
        case .report: table = "mirrorReport"
        case .photo: table = "mirrorPhoto"
        }
        var conditions = ["goneAt IS NULL"]
        var arguments: StatementArguments = []
        if let status {
            conditions.append("status = ?")
            arguments += [status.rawValue]
        }
        if let reason, kind == .report {
            conditions.append("reason = ?")
            arguments += [reason.rawValue]
        }
        if let newer {
            conditions.append("(createdAt < ? OR (createdAt = ? AND id < ?))")
            arguments += [newer.createdAt, newer.createdAt, newer.id]
        }
        if let older {
            conditions.append("(createdAt > ? OR (createdAt = ? AND id > ?))")
            arguments += [older.createdAt, older.createdAt, older.id]
        }
        let sql = "SELECT COUNT(*) FROM \(table) WHERE \(conditions.joined(separator: " AND "))"
        let boundArguments = arguments
        return try readNow { db in
            try Int.fetchOne(db, sql: sql, arguments: boundArguments) ?? 0
        }
    }
}
