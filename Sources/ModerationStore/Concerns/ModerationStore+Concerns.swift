import Foundation
import GRDB
import ModerationVocabulary

extension ModerationStore {
    /// The evidence for each of `libraries`, by id, in one read, neighbours looked for within
    /// `metres`: each question is one cached statement on an index (position, submitter).
    public func libraryEvidence(
        for libraries: [MirrorLibrary], within metres: Double = LibraryEvidence.neighbourhoodMetres
    ) async throws -> [Int: LibraryEvidence] {
        guard !libraries.isEmpty else { return [:] }
        return try readNow { db in
            // Statuses are checked in Swift, not SQL: with `status IN (…)` SQLite picked the status
            // index over the position index.
            let nearby = try db.cachedStatement(
                sql: """
                    SELECT id, slug, name, normalizedName, lat, lng, status FROM mirrorLibrary
                    WHERE goneAt IS NULL AND lat >= ? AND lat <= ? AND (lng BETWEEN ? AND ? OR lng BETWEEN ? AND ?) AND id != ?
                    """)
            let record = try db.cachedStatement(
                sql: """
                    SELECT count(*), coalesce(sum(status = 'approved'), 0), coalesce(sum(status = 'rejected'), 0)
                    FROM mirrorLibrary WHERE submitterId = ? AND goneAt IS NULL
                    """)
            let lastRejection = try db.cachedStatement(
                sql: """
                    SELECT rejectionReason FROM mirrorLibrary
                    WHERE submitterId = ? AND goneAt IS NULL AND status = 'rejected' AND rejectionReason != ''
                    ORDER BY createdAt DESC LIMIT 1
                    """)
            let sameHour = try db.cachedStatement(
                sql: "SELECT count(*) FROM mirrorLibrary WHERE submitterId = ? AND goneAt IS NULL AND createdAt >= ? AND createdAt <= ? AND id != ?")
            let samePlace = try db.cachedStatement(
                sql: "SELECT 1 FROM mirrorLibrary WHERE submitterId = ? AND goneAt IS NULL AND lat = ? AND lng = ? AND id != ? LIMIT 1")
            var records: [Int: LibraryEvidence.SubmitterRecord] = [:]
            var evidence: [Int: LibraryEvidence] = [:]
            for library in libraries {
                var found = LibraryEvidence()
                let box = BoundingBox(lat: library.lat, lng: library.lng, metres: metres)
                let rows = try Row.fetchCursor(
                    nearby, arguments: StatementArguments([box.minLat, box.maxLat] + box.longitudeBounds) + [library.id])
                while let row = try rows.next() {
                    guard let status = LibraryStatus(rawValue: row["status"]), Self.duplicateStatuses.contains(status) else { continue }
                    let away = GreatCircle.metres(library.lat, library.lng, row["lat"], row["lng"])
                    guard away <= metres else { continue }
                    let neighbour = LibraryEvidence.Neighbour(id: row["id"], slug: row["slug"], name: row["name"], status: status, metres: away)
                    if away < found.nearest?.metres ?? .infinity { found.nearest = neighbour }
                    let namesake: String = row["normalizedName"]
                    if !library.normalizedName.isEmpty, namesake == library.normalizedName, away < found.namesakeNearby?.metres ?? .infinity {
                        found.namesakeNearby = neighbour
                    }
                }
                if let submitter = library.submitterId {
                    if records[submitter] == nil, let counts = try Row.fetchOne(record, arguments: [submitter]) {
                        let reason = try String.fetchOne(lastRejection, arguments: [submitter]) ?? ""
                        records[submitter] = .init(submitted: counts[0], approved: counts[1], rejected: counts[2], lastRejectionReason: reason)
                    }
                    found.submitter = records[submitter]
                    found.sameHourSubmissions =
                        try Int.fetchOne(
                            sameHour,
                            arguments: [submitter, library.createdAt.addingTimeInterval(-1800), library.createdAt.addingTimeInterval(1800), library.id]
                        ) ?? 0
                    found.repeatsOwnCoordinates = try Int.fetchOne(samePlace, arguments: [submitter, library.lat, library.lng, library.id]) != nil
                }
                evidence[library.id] = found
            }
            return evidence
        }
    }

    /// Replaces the stored reasons of the libraries in `assessments` (an empty list clears one's),
    /// each with the fingerprint of the library and settings they were worked out for. Only those
    /// that differ from what is stored are written, and nothing when none does: a commit renders
    /// every open page's copy anew and wakes every live stream, so a pass that found nothing new
    /// must not commit. Answers how many libraries' reasons were written, and how many were held
    /// back as stale (below).
    ///
    /// `evidenceTick`: the `concernEvidenceTick()` read before the libraries and their evidence
    /// were; a library a mirror change made stale since is left out (the next pass works it out
    /// again), so a pass never stores reasons older than what the mirror already holds.
    @discardableResult
    public func replaceLibraryConcerns(
        _ assessments: [Int: LibraryAssessment], evidenceTick: Int64? = nil, now: Date = Date()
    ) async throws -> (written: Int, heldBack: Int) {
        guard !assessments.isEmpty else { return (0, 0) }
        let stored = try await storedAssessments(ids: Array(assessments.keys))
        let changed = assessments.filter { stored[$0.key] != $0.value }
        guard !changed.isEmpty else { return (0, 0) }
        return try await writer.write { db in
            let stale = try evidenceTick.map { try Self.madeStale(Array(changed.keys), since: $0, db) } ?? []
            for (libraryId, assessment) in changed where !stale.contains(libraryId) {
                try db.execute(sql: "DELETE FROM libraryConcern WHERE libraryId = ?", arguments: [libraryId])
                for (position, concern) in assessment.concerns.enumerated() {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO libraryConcern (libraryId, kind, strength, badge, sentence, position) VALUES (?, ?, ?, ?, ?, ?)",
                        arguments: [libraryId, concern.kind, concern.strength, concern.badge, concern.sentence, position])
                }
                try db.execute(
                    sql: "INSERT OR REPLACE INTO libraryAssessment (libraryId, fingerprint, assessedAt) VALUES (?, ?, ?)",
                    arguments: [libraryId, assessment.fingerprint, now])
            }
            return (changed.count - stale.count, stale.count)
        }
    }

    /// Farthest a change can alter a library's reasons from: the largest distance staff may set
    /// (500 m, as the stale-assessment triggers use), and some.
    private static let evidenceReach = 600.0

    /// Those of `ids` (waiting libraries) that a mirror change logged after `tick` may have made
    /// stale: one of their submitter's, or one within `evidenceReach` of them (before or after
    /// it moved; great-circle, so across the 180th meridian too).
    private static func madeStale(_ ids: [Int], since tick: Int64, _ db: Database) throws -> Set<Int> {
        let changes = try Row.fetchAll(db, sql: "SELECT lat, lng, submitterId FROM concernEvidenceChange WHERE tick > ?", arguments: [tick])
        guard !changes.isEmpty else { return [] }
        // A flood of changes (a first fill) holds back the whole batch rather than comparing each pair.
        guard changes.count <= 1_000 else { return Set(ids) }
        let libraries = try Row.fetchAll(
            db, sql: "SELECT id, lat, lng, submitterId FROM mirrorLibrary WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
            arguments: StatementArguments(ids))
        return Set(
            libraries.filter { library in
                let submitter: Int? = library["submitterId"]
                return changes.contains { change in
                    (submitter != nil && change["submitterId"] == submitter)
                        || GreatCircle.metres(library["lat"], library["lng"], change["lat"], change["lng"]) <= evidenceReach
                }
            }.map { $0["id"] as Int })
    }

    /// Where the count of mirror changes that can alter a library's reasons stands: read it
    /// before reading what reasons are worked out from, and give it to `replaceLibraryConcerns`.
    public func concernEvidenceTick() async throws -> Int64 {
        try await writer.read { db in try Int64.fetchOne(db, sql: "SELECT tick FROM concernEvidenceClock") ?? 0 }
    }

    /// The stored assessment of each of `ids` that has one.
    private func storedAssessments(ids: [Int]) async throws -> [Int: LibraryAssessment] {
        try readNow { db in
            let marks = databaseQuestionMarks(count: ids.count)
            var stored: [Int: LibraryAssessment] = [:]
            // Read through cursors, by column position: a list reads these for each of its rows.
            let assessments = try Row.fetchCursor(
                Self.statement(db, sql: "SELECT libraryId, fingerprint FROM libraryAssessment WHERE libraryId IN (\(marks))", keys: ids.count),
                arguments: StatementArguments(ids))
            while let row = try assessments.next() {
                stored[try row.decode(atIndex: 0)] = LibraryAssessment(fingerprint: try row.decode(atIndex: 1), concerns: [])
            }
            let concerns = try Row.fetchCursor(
                Self.statement(
                    db,
                    sql: "SELECT libraryId, kind, strength, badge, sentence FROM libraryConcern WHERE libraryId IN (\(marks)) ORDER BY libraryId, position",
                    keys: ids.count),
                arguments: StatementArguments(ids))
            while let row = try concerns.next() {
                let id: Int = try row.decode(atIndex: 0)
                guard stored[id] != nil else { continue }
                stored[id]?.concerns.append(
                    StoredLibraryConcern(
                        kind: try row.decode(atIndex: 1), strength: try row.decode(atIndex: 2), badge: try row.decode(atIndex: 3),
                        sentence: try row.decode(atIndex: 4)))
            }
            return stored
        }
    }

    /// The stored reasons of those of `fingerprints`' libraries whose stored assessment has the
    /// same fingerprint, in their order; a library left out must be worked out afresh.
    public func storedLibraryConcerns(fingerprints: [Int: String]) async throws -> [Int: [StoredLibraryConcern]] {
        guard !fingerprints.isEmpty else { return [:] }
        return try await storedAssessments(ids: Array(fingerprints.keys))
            .filter { fingerprints[$0.key] == $0.value.fingerprint }
            .mapValues(\.concerns)
    }

    /// How long the log of mirror changes is kept: far longer than a pass takes from reading the
    /// counter to storing a batch (about a second).
    static let evidenceChangesKept: TimeInterval = 600

    /// Sets aside the reasons of libraries that no longer wait (decided, or gone), recording
    /// them as they stood with the library's outcome, and drops the log of mirror changes no
    /// pass can still need; answers how many libraries' reasons were set aside.
    /// A library back in the queue later gets fresh reasons, and a new record when decided again;
    /// its record goes while it waits. A decision reversed (approved, then rejected) changes the
    /// recorded outcome to the one that stands.
    @discardableResult
    public func pruneLibraryConcerns(now: Date = Date()) async throws -> Int {
        let leaving = "SELECT id FROM mirrorLibrary WHERE status = 'pending' AND goneAt IS NULL"
        // A record whose library waits again, or stands decided otherwise than recorded.
        let outdated = """
            SELECT d.libraryId FROM decidedLibraryConcern d JOIN mirrorLibrary m ON m.id = d.libraryId
            WHERE m.goneAt IS NULL AND m.status != d.outcome AND d.outcome != 'gone'
            """
        // Looked for first: a pass with nothing to set aside must not commit (see `replaceLibraryConcerns`).
        let anyLeaving = try await writer.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM libraryAssessment WHERE libraryId NOT IN (\(leaving)))
                        OR EXISTS (SELECT 1 FROM libraryConcern WHERE libraryId NOT IN (\(leaving)))
                        OR EXISTS (SELECT 1 FROM concernEvidenceChange WHERE changedAt < ?)
                        OR EXISTS (\(outdated))
                    """, arguments: [now.addingTimeInterval(-Self.evidenceChangesKept)]) ?? false
        }
        guard anyLeaving else { return 0 }
        return try await writer.write { db in
            try db.execute(sql: "DELETE FROM decidedLibraryConcern WHERE libraryId IN (\(leaving))")
            try db.execute(
                sql: """
                    UPDATE decidedLibraryConcern SET outcome = (SELECT status FROM mirrorLibrary WHERE id = decidedLibraryConcern.libraryId)
                    WHERE libraryId IN (\(outdated))
                    """)
            try db.execute(
                sql: """
                    DELETE FROM decidedLibraryConcern WHERE libraryId IN
                        (SELECT libraryId FROM libraryConcern WHERE libraryId NOT IN (\(leaving)))
                    """)
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO decidedLibraryConcern (libraryId, kind, strength, outcome, recordedAt)
                    SELECT c.libraryId, c.kind, c.strength,
                           coalesce(CASE WHEN m.goneAt IS NOT NULL THEN 'gone' ELSE m.status END, 'gone'), ?
                    FROM libraryConcern c LEFT JOIN mirrorLibrary m ON m.id = c.libraryId
                    WHERE c.libraryId NOT IN (\(leaving))
                    ORDER BY c.libraryId, c.position
                    """, arguments: [now])
            try db.execute(sql: "DELETE FROM libraryConcern WHERE libraryId NOT IN (\(leaving))")
            let setAside = db.changesCount
            try db.execute(sql: "DELETE FROM libraryAssessment WHERE libraryId NOT IN (\(leaving))")
            // A pass reads where the log stands a batch (seconds) before it stores.
            try db.execute(sql: "DELETE FROM concernEvidenceChange WHERE changedAt < ?", arguments: [now.addingTimeInterval(-Self.evidenceChangesKept)])
            return setAside
        }
    }

    /// Waiting libraries by id, `limit` after `id`: the whole queue, a batch at a time.
    public func pendingLibraries(afterID id: Int, limit: Int) async throws -> [MirrorLibrary] {
        try await writer.read { db in
            try MirrorLibrary
                .filter(MirrorLibrary.Columns.status == LibraryStatus.pending.rawValue && MirrorLibrary.Columns.goneAt == nil)
                .filter(MirrorLibrary.Columns.id > id)
                .order(MirrorLibrary.Columns.id)
                .limit(limit)
                .fetchAll(db)
        }
    }
}

/// One reason a waiting library needs a look, as stored for the queue's filter and rows.
public struct StoredLibraryConcern: Sendable, Equatable {
    public var kind: String
    /// "strong" or "worth-a-look".
    public var strength: String
    public var badge: String
    public var sentence: String

    public init(kind: String, strength: String, badge: String = "", sentence: String = "") {
        self.kind = kind
        self.strength = strength
        self.badge = badge
        self.sentence = sentence
    }
}

/// A waiting library's reasons as worked out, and the fingerprint of what they were worked out
/// from (the library's own fields and the settings): a changed library or setting is not shown
/// stale reasons.
public struct LibraryAssessment: Sendable, Equatable {
    public var fingerprint: String
    public var concerns: [StoredLibraryConcern]

    public init(fingerprint: String, concerns: [StoredLibraryConcern]) {
        self.fingerprint = fingerprint
        self.concerns = concerns
    }
}
