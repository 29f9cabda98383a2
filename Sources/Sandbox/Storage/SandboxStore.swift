import BookCornersAPI
import Foundation
import GRDB
import ModerationVocabulary

/// The sandbox backend's state: one SQLite file, read and written through domain methods.
struct SandboxStore: Sendable {
    private let writer: any DatabaseWriter

    /// Opens (and migrates) the database; seeds it with `libraryCount` libraries when it holds
    /// no data yet (all in one transaction, so 50 000 take seconds).
    init(
        path: String, seed: UInt64, libraryCount: Int = SeedGenerator.defaultLibraryCount, extraStaff: Int = 0, crowdedQueues: Int = 0,
        now: Date = Date()
    ) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // A sandbox started on a file another one just let go of (a restart) waits for it, not fails.
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try SandboxMigrations.migrator.migrate(pool)
        self.writer = pool
        try pool.write { db in
            if try UserRecord.fetchCount(db) == 0 {
                var generator = SeedGenerator(
                    seed: seed, anchor: now, libraryCount: libraryCount, extraStaff: extraStaff, crowdedQueues: crowdedQueues)
                try generator.insert(into: db)
            }
        }
    }

    // MARK: Accounts

    /// The account whose username or e-mail is `login`, either compared case-insensitively.
    func user(usernameOrEmail login: String) throws -> UserRecord? {
        try writer.read { db in
            try UserRecord
                .filter(sql: "lower(username) = lower(?) OR lower(email) = lower(?)", arguments: [login, login])
                .fetchOne(db)
        }
    }

    func user(id: Int) throws -> UserRecord? {
        try writer.read { db in try UserRecord.fetchOne(db, key: id) }
    }

    /// Makes the account `username` staff or not, as Book Corners' Django admin does; false
    /// when there is no such account. Its tokens stay valid: the next staff-only call answers 403.
    func setStaff(username: String, isStaff: Bool) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "UPDATE user SET isStaff = ? WHERE lower(username) = lower(?)", arguments: [isStaff, username])
            return db.changesCount == 1
        }
    }

    // MARK: Moderation

    func summary() throws -> ModerationSummary {
        try writer.read { db in
            let pendingLibraries = try LibraryRecord.filter(LibraryRecord.Columns.status == LibraryStatus.pending.rawValue).fetchCount(db)
            let openReports = try ReportRecord.filter(ReportRecord.Columns.status == ReportStatus.open.rawValue).fetchCount(db)
            let pendingPhotos = try PhotoRecord.filter(PhotoRecord.Columns.status == PhotoStatus.pending.rawValue).fetchCount(db)
            return ModerationSummary(
                pendingLibrariesCount: pendingLibraries,
                openReportsCount: openReports,
                pendingPhotosCount: pendingPhotos,
                totalPending: pendingLibraries + openReports + pendingPhotos,
                totalLibraries: try LibraryRecord.filter(LibraryRecord.Columns.status == LibraryStatus.approved.rawValue).fetchCount(db),
                totalUsers: try UserRecord.fetchCount(db))
        }
    }

    func moderationLibraries(_ query: ModerationLibraryQuery) throws -> Components.Schemas.LibraryModerationListOut {
        try writer.read { db in
            var request = LibraryRecord.all()
            if let status = query.status { request = request.filter(LibraryRecord.Columns.status == status.rawValue) }
            if let text = query.text {
                let pattern = "%\(text)%"
                request = request.filter(
                    LibraryRecord.Columns.name.like(pattern) || LibraryRecord.Columns.address.like(pattern)
                        || LibraryRecord.Columns.city.like(pattern))
            }
            if let country = query.country { request = request.filter(LibraryRecord.Columns.country == country.uppercased()) }
            if let source = query.source { request = request.filter(LibraryRecord.Columns.source.like("%\(source)%")) }
            let window = PageWindow(total: try request.fetchCount(db), page: query.page, size: query.pageSize)
            let rows =
                try request
                .order(LibraryRecord.Columns.createdAt.desc, LibraryRecord.Columns.id.desc)
                .limit(window.size, offset: window.offset)
                .fetchAll(db)
            let users = try Self.usernames(db)
            return .init(items: rows.map { $0.moderationLibrary(users: users) }, pagination: window.pagination)
        }
    }

    func moderationLibrary(slug: String) throws -> ModerationLibrary? {
        try writer.read { db in
            try LibraryRecord.filter(LibraryRecord.Columns.slug == slug).fetchOne(db)
                .map { $0.moderationLibrary(users: try Self.usernames(db)) }
        }
    }

    /// Sets a library's status; a reason is stored only when rejecting.
    /// Sets a library's status. The reason is stored only when rejecting (an empty one
    /// included) and otherwise kept, as the real backend does: a library that leaves
    /// `rejected` still carries its old reason.
    func moderateLibrary(slug: String, status: LibraryStatus, rejectionReason: String) throws -> ModerationLibrary? {
        try writer.write { db in
            guard var library = try LibraryRecord.filter(LibraryRecord.Columns.slug == slug).fetchOne(db) else {
                return nil
            }
            library.status = status
            if status == .rejected { library.rejectionReason = rejectionReason }
            try library.update(db)
            return library.moderationLibrary(users: try Self.usernames(db))
        }
    }

    func reports(status: ReportStatus?, reason: String?, page: Int, pageSize: Int) throws -> Components.Schemas.ReportModerationListOut {
        try writer.read { db in
            var request = ReportRecord.all()
            if let status { request = request.filter(ReportRecord.Columns.status == status.rawValue) }
            if let reason { request = request.filter(ReportRecord.Columns.reason == reason) }
            let window = PageWindow(total: try request.fetchCount(db), page: page, size: pageSize)
            let rows = try request.order(ReportRecord.Columns.createdAt.desc, ReportRecord.Columns.id.desc)
                .limit(window.size, offset: window.offset).fetchAll(db)
            let users = try Self.usernames(db)
            let libraries = try Self.librarySummaries(db, ids: rows.map(\.libraryId))
            return .init(
                items: rows.compactMap { row in libraries[row.libraryId].map { row.moderationReport(library: $0, users: users) } },
                pagination: window.pagination)
        }
    }

    func moderateReport(id: Int, status: ReportStatus) throws -> ModerationReport? {
        try writer.write { db in
            guard var report = try ReportRecord.fetchOne(db, key: id) else { return nil }
            report.status = status
            try report.update(db)
            guard let library = try Self.librarySummaries(db, ids: [report.libraryId])[report.libraryId] else { return nil }
            return report.moderationReport(library: library, users: try Self.usernames(db))
        }
    }

    func photos(status: PhotoStatus?, page: Int, pageSize: Int) throws -> Components.Schemas.PhotoModerationListOut {
        try writer.read { db in
            var request = PhotoRecord.all()
            if let status { request = request.filter(PhotoRecord.Columns.status == status.rawValue) }
            let window = PageWindow(total: try request.fetchCount(db), page: page, size: pageSize)
            let rows = try request.order(PhotoRecord.Columns.createdAt.desc, PhotoRecord.Columns.id.desc)
                .limit(window.size, offset: window.offset).fetchAll(db)
            let users = try Self.usernames(db)
            let libraries = try Self.librarySummaries(db, ids: rows.map(\.libraryId))
            return .init(
                items: rows.compactMap { row in libraries[row.libraryId].map { row.moderationPhoto(library: $0, users: users) } },
                pagination: window.pagination)
        }
    }

    /// Sets a photo's status; approving it makes it its library's photo.
    func moderatePhoto(id: Int, status: PhotoStatus) throws -> ModerationPhoto? {
        try writer.write { db in
            guard var photo = try PhotoRecord.fetchOne(db, key: id),
                var library = try LibraryRecord.fetchOne(db, key: photo.libraryId)
            else { return nil }
            photo.status = status
            try photo.update(db)
            if status == .approved {
                library.photoUrl = photo.photoUrl
                library.thumbnailUrl = photo.thumbnailUrl
                try library.update(db)
            }
            return photo.moderationPhoto(library: library.summary, users: try Self.usernames(db))
        }
    }

    // MARK: Public

    func publicLibraries(_ query: PublicLibraryQuery) throws -> Components.Schemas.LibraryListOut {
        try writer.read { db in
            var request = LibraryRecord.filter(LibraryRecord.Columns.status == LibraryStatus.approved.rawValue)
            if let text = query.search {
                let pattern = "%\(text)%"
                request = request.filter(
                    LibraryRecord.Columns.name.like(pattern) || LibraryRecord.Columns.description.like(pattern)
                        || LibraryRecord.Columns.city.like(pattern) || LibraryRecord.Columns.address.like(pattern)
                        || LibraryRecord.Columns.postalCode.like(pattern))
            } else if let text = query.text {
                let pattern = "%\(text)%"
                request = request.filter(LibraryRecord.Columns.name.like(pattern) || LibraryRecord.Columns.description.like(pattern))
            }
            if let city = query.city { request = request.filter(LibraryRecord.Columns.city.like(city)) }
            if let country = query.country { request = request.filter(LibraryRecord.Columns.country == country.uppercased()) }
            if let postalCode = query.postalCode { request = request.filter(LibraryRecord.Columns.postalCode == postalCode) }
            if let hasPhoto = query.hasPhoto {
                request = request.filter(hasPhoto ? LibraryRecord.Columns.photoUrl != "" : LibraryRecord.Columns.photoUrl == "")
            }
            var rows: [LibraryRecord]
            if let near = query.near {
                // A bounding box narrows the candidates in SQL; the great-circle distance decides.
                let latDelta = Double(near.radiusKm) / 111.0
                let lngDelta = Double(near.radiusKm) / max(1.0, 111.0 * cos(near.lat * .pi / 180))
                rows =
                    try request
                    .filter(LibraryRecord.Columns.lat >= near.lat - latDelta && LibraryRecord.Columns.lat <= near.lat + latDelta)
                    .filter(LibraryRecord.Columns.lng >= near.lng - lngDelta && LibraryRecord.Columns.lng <= near.lng + lngDelta)
                    .fetchAll(db)
                    .map { ($0, GreatCircle.kilometres(near.lat, near.lng, $0.lat, $0.lng)) }
                    .filter { $0.1 <= Double(near.radiusKm) }
                    .sorted { $0.1 < $1.1 }
                    .map(\.0)
            } else {
                rows = try request.order(LibraryRecord.Columns.createdAt.desc, LibraryRecord.Columns.id.desc).fetchAll(db)
            }
            let window = PageWindow(total: rows.count, page: query.page, size: query.pageSize)
            let pageRows = rows.dropFirst(window.offset).prefix(window.size)
            return .init(items: pageRows.map(\.publicLibrary), pagination: window.pagination)
        }
    }

    func statistics(now: Date = Date()) throws -> Statistics {
        try writer.read { db in
            let approved = LibraryRecord.filter(LibraryRecord.Columns.status == LibraryStatus.approved.rawValue)
            let withImage =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM library l WHERE l.status = 'approved' AND (l.photoUrl != ''
                          OR EXISTS (SELECT 1 FROM photo p WHERE p.libraryId = l.id AND p.status = 'approved'))
                        """) ?? 0
            let countries = try Row.fetchAll(
                db,
                sql: """
                    SELECT country, COUNT(*) AS count FROM library WHERE status = 'approved'
                    GROUP BY country ORDER BY count DESC, country ASC LIMIT 10
                    """)
            let dates = try Date.fetchAll(db, approved.select(LibraryRecord.Columns.createdAt).order(LibraryRecord.Columns.createdAt))
            let (series, granularity) = GrowthSeries.cumulative(dates: dates, now: now)
            return Statistics(
                totalApproved: dates.count,
                totalWithImage: withImage,
                topCountries: countries.map { row in
                    let code: String = row["country"]
                    return CountryStatistic(
                        countryCode: code, countryName: CountryCatalog.name(of: code),
                        flagEmoji: CountryCatalog.flag(of: code), count: row["count"])
                },
                cumulativeSeries: series,
                granularity: granularity)
        }
    }

    /// True when some library, report or photo hands out this media path.
    func mediaExists(path: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM library WHERE photoUrl = ?1 OR thumbnailUrl = ?1)
                        OR EXISTS (SELECT 1 FROM photo WHERE photoUrl = ?1 OR thumbnailUrl = ?1)
                        OR EXISTS (SELECT 1 FROM report WHERE photoUrl = ?1)
                    """, arguments: [path]) ?? false
        }
    }

    // MARK: Helpers

    private static func usernames(_ db: Database) throws -> [Int: String] {
        Dictionary(uniqueKeysWithValues: try UserRecord.fetchAll(db).map { ($0.id, $0.username) })
    }

    private static func librarySummaries(_ db: Database, ids: [Int]) throws -> [Int: LibrarySummary] {
        let rows = try LibraryRecord.fetchAll(db, keys: Set(ids))
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.summary) })
    }
}

/// Filters of the moderation library list, already validated.
struct ModerationLibraryQuery: Sendable {
    var status: LibraryStatus?
    var text: String?
    var country: String?
    var source: String?
    var page: Int
    var pageSize: Int
}

/// Filters of the public library list, already validated.
struct PublicLibraryQuery: Sendable {
    struct Near: Sendable {
        var lat: Double
        var lng: Double
        var radiusKm: Int
    }

    var text: String?
    var search: String?
    var city: String?
    var country: String?
    var postalCode: String?
    var hasPhoto: Bool?
    var near: Near?
    var page: Int
    var pageSize: Int
}

/// The real backend's paging: a page past the end answers the last page.
struct PageWindow {
    let total: Int
    let page: Int
    let size: Int

    init(total: Int, page: Int, size: Int) {
        self.total = total
        self.size = size
        let totalPages = max(1, (total + size - 1) / size)
        self.page = min(page, totalPages)
    }

    var totalPages: Int { max(1, (total + size - 1) / size) }
    var offset: Int { (page - 1) * size }

    var pagination: Pagination {
        Pagination(
            page: page, pageSize: size, total: total, totalPages: totalPages,
            hasNext: page < totalPages, hasPrevious: page > 1)
    }
}

/// The statistics' cumulative series: daily when the first library is at most 90 days
/// old, else monthly (the real backend's rule).
enum GrowthSeries {
    static func cumulative(dates: [Date], now: Date) -> ([GrowthPoint], String) {
        guard let first = dates.first else { return ([], "daily") }
        let daily = now.timeIntervalSince(first) / 86_400 <= 90
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        var points: [GrowthPoint] = []
        var running = 0
        for date in dates {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let period = String(
                format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, daily ? (parts.day ?? 1) : 1)
            running += 1
            if points.last?.period == period {
                points[points.count - 1].cumulativeCount = running
            } else {
                points.append(GrowthPoint(period: period, cumulativeCount: running))
            }
        }
        return (points, daily ? "daily" : "monthly")
    }
}
