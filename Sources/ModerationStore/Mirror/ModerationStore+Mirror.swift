import Foundation
import GRDB
import ModerationVocabulary

/// The mirror: the console's local copy of Book Corners, filled by the sync service.
/// Rows are upserted by the backend's id, so reading a page twice never duplicates a row.
extension ModerationStore {
    // MARK: Writing what the backend answered

    /// Stores libraries a read returned: new ones inserted, known ones replaced (a row once
    /// marked gone is back if the backend lists it again). A status changed outside the
    /// console is audited as observed in the same transaction (`ObservedChange`), so a
    /// restart can neither lose nor repeat the entry; `now` ends the window it happened in.
    public func upsertMirror(libraries: [MirrorLibrary], at now: Date = Date()) async throws {
        try await upsertObserving(libraries, at: now)
    }

    public func upsertMirror(reports: [MirrorReport], at now: Date = Date()) async throws {
        try await upsertObserving(reports, at: now)
    }

    public func upsertMirror(photos: [MirrorPhoto], at now: Date = Date()) async throws {
        try await upsertObserving(photos, at: now)
    }

    private func upsertObserving<Item: MirroredItem & Sendable>(_ items: [Item], at now: Date) async throws {
        try await writer.write { db in
            for item in items {
                let previous = try Item.fetchOne(db, key: item.id)
                switch try ObservedChange.compare(item, with: previous, db) {
                case .stale:
                    continue
                case .outside(let from, let to):
                    // Keyed on the status the comparison saw: only the write that moves the row off it audits the move.
                    try db.execute(
                        sql: "UPDATE \(Item.databaseTableName) SET status = ? WHERE id = ? AND status = ? AND goneAt IS NULL",
                        arguments: [to.rawValue, item.id, from.rawValue])
                    if db.changesCount == 1, let previous {
                        var entry = AuditEntry.observed(
                            item, before: from.rawValue, after: to.rawValue, window: ObservedWindow(from: previous.lastConfirmedAt, to: now))
                        try self.append(&entry, db)
                    }
                case .firstSeen, .unchanged, .console:
                    break
                }
                try item.upsert(db)
            }
        }
    }

    /// Audits, inside the transaction that marked it gone, that an item disappeared.
    func auditGone<Item: MirroredItem>(_ type: Item.Type, id: Int, at now: Date, _ db: Database) throws {
        guard let item = try Item.fetchOne(db, key: id) else { return }
        var entry = AuditEntry.observed(
            item, before: item.itemStatus.rawValue, after: AuditEntry.deletedStatus, window: ObservedWindow(from: item.lastConfirmedAt, to: now))
        try append(&entry, db)
    }

    public func saveMirror(summary: MirrorSummary) async throws {
        try await writer.write { db in try summary.upsert(db) }
    }

    public func saveMirror(statistics: MirrorStatistics) async throws {
        try await writer.write { db in try statistics.upsert(db) }
    }

    // MARK: Items missing from a pass

    /// Libraries a pass over every status did not list (not confirmed since it began): each
    /// needs a detail read before it may be called gone. Oldest confirmation first.
    public func librariesMissing(fromPassStartedAt start: Date, limit: Int) async throws -> [MirrorLibrary] {
        try await writer.read { db in
            try MirrorLibrary
                .filter(MirrorLibrary.Columns.goneAt == nil && MirrorLibrary.Columns.lastConfirmedAt < start)
                .order(MirrorLibrary.Columns.lastConfirmedAt, MirrorLibrary.Columns.id)
                .limit(limit)
                .fetchAll(db)
        }
    }

    /// Libraries the mirror has in `status` created within `oldest...newest` (an end left open
    /// when `nil`): what a page of that status covering that range should have listed.
    public func mirroredLibraries(status: LibraryStatus, createdFrom oldest: Date?, through newest: Date?) async throws -> [MirrorLibrary] {
        try readNow { db in
            var request = Self.libraries(status: status)
            if let oldest { request = request.filter(MirrorLibrary.Columns.createdAt >= oldest) }
            if let newest { request = request.filter(MirrorLibrary.Columns.createdAt <= newest) }
            return try request.order(MirrorLibrary.Columns.createdAt.desc, MirrorLibrary.Columns.id.desc).fetchAll(db)
        }
    }

    /// Marks a library gone once a detail read answered 404 for it. Only a row not confirmed
    /// since `checkedSince` (the read's start) changes, so a row a later read saw stays.
    /// Answers whether it changed.
    @discardableResult
    public func markLibraryGone(id: Int, checkedSince: Date, at now: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE mirrorLibrary SET goneAt = ? WHERE id = ? AND goneAt IS NULL AND lastConfirmedAt < ?",
                arguments: [now, id, checkedSince])
            guard db.changesCount == 1 else { return false }
            try self.auditGone(MirrorLibrary.self, id: id, at: now, db)
            return true
        }
    }

    /// Ends a complete pass over every report status that began at `start`: a report it did
    /// not list has missed one more pass. Nothing is marked gone here: a pass pages by offset
    /// for a long time, and a deletion while it runs shifts later items back a place, so an
    /// item can be missed by pass after pass while it exists. Answers the ids it missed, each
    /// to be confirmed by a read that would show it (`reportsMissing`, `markReportGone`).
    @discardableResult
    public func completeReportPass(startedAt start: Date, at now: Date) async throws -> [Int] {
        try await completePass(MirrorReport.self, startedAt: start)
    }

    /// As `completeReportPass`, for community photos.
    @discardableResult
    public func completePhotoPass(startedAt start: Date, at now: Date) async throws -> [Int] {
        try await completePass(MirrorPhoto.self, startedAt: start)
    }

    private func completePass<Item: MirroredItem>(_ type: Item.Type, startedAt start: Date) async throws -> [Int] {
        let table = Item.databaseTableName
        return try await writer.write { db in
            try db.execute(
                sql: "UPDATE \(table) SET missedPasses = missedPasses + 1 WHERE goneAt IS NULL AND lastConfirmedAt < ?",
                arguments: [start])
            try db.execute(
                sql: "UPDATE \(table) SET missedPasses = 0 WHERE goneAt IS NULL AND lastConfirmedAt >= ?", arguments: [start])
            return try Int.fetchAll(db, sql: "SELECT id FROM \(table) WHERE goneAt IS NULL AND lastConfirmedAt < ? ORDER BY id", arguments: [start])
        }
    }

    /// Reports the pass that began at `start` did not list (not confirmed since): each needs a
    /// read that would show it before it may be called gone. Oldest confirmation first.
    public func reportsMissing(fromPassStartedAt start: Date, limit: Int) async throws -> [MirrorReport] {
        try await writer.read { db in
            try MirrorReport
                .filter(MirrorReport.Columns.goneAt == nil && MirrorReport.Columns.lastConfirmedAt < start)
                .order(MirrorReport.Columns.lastConfirmedAt, MirrorReport.Columns.id).limit(limit).fetchAll(db)
        }
    }

    /// As `reportsMissing`, for community photos.
    public func photosMissing(fromPassStartedAt start: Date, limit: Int) async throws -> [MirrorPhoto] {
        try await writer.read { db in
            try MirrorPhoto
                .filter(MirrorPhoto.Columns.goneAt == nil && MirrorPhoto.Columns.lastConfirmedAt < start)
                .order(MirrorPhoto.Columns.lastConfirmedAt, MirrorPhoto.Columns.id).limit(limit).fetchAll(db)
        }
    }

    /// How many mirrored reports with `report`'s reason (any status) the backend lists before
    /// it (newest first, then highest id): where a read of that reason should find it.
    public func reportsListedBefore(_ report: MirrorReport) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM mirrorReport WHERE goneAt IS NULL AND reason = ?
                      AND (createdAt > ? OR (createdAt = ? AND id > ?))
                    """, arguments: [report.reason.rawValue, report.createdAt, report.createdAt, report.id]) ?? 0
        }
    }

    /// How many mirrored photos (any status) the backend lists before `photo`.
    public func photosListedBefore(_ photo: MirrorPhoto) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM mirrorPhoto WHERE goneAt IS NULL AND (createdAt > ? OR (createdAt = ? AND id > ?))
                    """, arguments: [photo.createdAt, photo.createdAt, photo.id]) ?? 0
        }
    }

    /// Marks a report gone once a read that would have listed it did not. Only a row not
    /// confirmed since `checkedSince` (the read's start) changes. Answers whether it changed.
    @discardableResult
    public func markReportGone(id: Int, checkedSince: Date, at now: Date) async throws -> Bool {
        try await markGone(MirrorReport.self, id: id, checkedSince: checkedSince, at: now)
    }

    /// As `markReportGone`, for a community photo.
    @discardableResult
    public func markPhotoGone(id: Int, checkedSince: Date, at now: Date) async throws -> Bool {
        try await markGone(MirrorPhoto.self, id: id, checkedSince: checkedSince, at: now)
    }

    private func markGone<Item: MirroredItem>(_ type: Item.Type, id: Int, checkedSince: Date, at now: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE \(Item.databaseTableName) SET goneAt = ? WHERE id = ? AND goneAt IS NULL AND lastConfirmedAt < ?",
                arguments: [now, id, checkedSince])
            guard db.changesCount == 1 else { return false }
            try self.auditGone(Item.self, id: id, at: now, db)
            return true
        }
    }

    // MARK: Reading for pages

    public func mirroredLibrary(slug: String) async throws -> MirrorLibrary? {
        try readNow { db in
            try MirrorLibrary.fetchOne(db.cachedStatement(sql: "SELECT * FROM mirrorLibrary WHERE slug = ? AND goneAt IS NULL"), arguments: [slug])
        }
    }

    /// One page of libraries in `status` (every status when `nil`), newest first, as the backend orders them.
    public func mirroredLibraries(status: LibraryStatus?, limit: Int, offset: Int) async throws -> [MirrorLibrary] {
        try readNow { db in
            try Self.libraries(status: status)
                .order(MirrorLibrary.Columns.createdAt.desc, MirrorLibrary.Columns.id.desc)
                .limit(limit, offset: offset)
                .fetchAll(db)
        }
    }

    private static func libraries(status: LibraryStatus?) -> QueryInterfaceRequest<MirrorLibrary> {
        let present = MirrorLibrary.filter(MirrorLibrary.Columns.goneAt == nil)
        guard let status else { return present }
        return present.filter(MirrorLibrary.Columns.status == status.rawValue)
    }

    /// One page of reports in `status` (all when `nil`), newest first.
    public func mirroredReports(status: ReportStatus?, limit: Int, offset: Int) async throws -> [MirrorReport] {
        try readNow { db in
            var request = MirrorReport.filter(MirrorReport.Columns.goneAt == nil)
            if let status { request = request.filter(MirrorReport.Columns.status == status.rawValue) }
            return try request.order(MirrorReport.Columns.createdAt.desc, MirrorReport.Columns.id.desc)
                .limit(limit, offset: offset).fetchAll(db)
        }
    }

    /// One page of community photos in `status` (all when `nil`), newest first.
    public func mirroredPhotos(status: PhotoStatus?, limit: Int, offset: Int) async throws -> [MirrorPhoto] {
        try readNow { db in
            var request = MirrorPhoto.filter(MirrorPhoto.Columns.goneAt == nil)
            if let status { request = request.filter(MirrorPhoto.Columns.status == status.rawValue) }
            return try request.order(MirrorPhoto.Columns.createdAt.desc, MirrorPhoto.Columns.id.desc)
                .limit(limit, offset: offset).fetchAll(db)
        }
    }

    public func mirrorSummary() async throws -> MirrorSummary? {
        try readOncePerChange(perChange.mirrorSummary) { db in try MirrorSummary.fetchOne(db, key: 1) }
    }

    public func mirrorStatistics() async throws -> MirrorStatistics? {
        try await writer.read { db in try MirrorStatistics.fetchOne(db, key: 1) }
    }

    // MARK: Duplicates

    /// Libraries in `statuses` within `metres` of a point (great-circle distance), nearest
    /// first, each without its whole record: a bounding box on the position index, then the exact distance.
    public func mirroredLibraries(
        near lat: Double, _ lng: Double, withinMetres metres: Double, statuses: [LibraryStatus]
    ) async throws -> [MirrorLibrary] {
        let box = BoundingBox(lat: lat, lng: lng, metres: metres)
        let candidates = try readNow { db in
            // Statuses are checked here, not in SQL: with `status IN (…)` SQLite picked the status
            // index and read every approved and pending row (19 000 at 20 400 mirrored).
            try Self.listedLibraries(
                db, "WHERE goneAt IS NULL AND lat >= ? AND lat <= ? AND (lng BETWEEN ? AND ? OR lng BETWEEN ? AND ?)",
                StatementArguments([box.minLat, box.maxLat] + box.longitudeBounds)
            ).filter { statuses.contains($0.status) }
        }
        return
            candidates
            .map { (library: $0, metres: GreatCircle.metres(lat, lng, $0.lat, $0.lng)) }
            .filter { $0.metres <= metres }
            .sorted { ($0.metres, $0.library.id) < ($1.metres, $1.library.id) }
            .map(\.library)
    }

    /// Libraries in `statuses` in `city` whose name normalises to the same key as `name`, each
    /// without its whole record.
    public func mirroredLibraries(
        city: String, sameNameAs name: String, statuses: [LibraryStatus], limit: Int? = nil
    ) async throws -> [MirrorLibrary] {
        let key = LibraryNameKey.normalize(name)
        guard !key.isEmpty else { return [] }
        return try readNow { db in
            // LIMIT -1: none.
            try Self.listedLibraries(
                db,
                """
                WHERE city = ? AND normalizedName = ? AND goneAt IS NULL AND status IN (\(databaseQuestionMarks(count: statuses.count)))
                ORDER BY id LIMIT ?
                """, [city, key] + StatementArguments(statuses.map(\.rawValue)) + [limit ?? -1])
        }
    }

    // MARK: Sync state

    /// The stored state of `scope`; a fresh one when the sync never ran it.
    public func mirrorScopeState(_ scope: MirrorScope) async throws -> MirrorScopeState {
        // Every scope in one read, once per change: a page asks whether the first pass is done.
        let states = try readOncePerChange(perChange.mirrorScopeStates) { db in
            Dictionary(try MirrorScopeState.fetchAll(db).map { ($0.scope, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return states[scope] ?? MirrorScopeState(scope: scope)
    }

    public func saveMirrorScopeState(_ state: MirrorScopeState) async throws {
        try await writer.write { db in try state.upsert(db) }
    }
}
