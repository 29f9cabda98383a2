import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// How Book Corners grows and how moderation keeps up, drawn as SVG on the server.
struct StatisticsController {
    let store: ModerationStore
    let backends: StaffBackendFactory
    let renderer: PageRenderer
    static let periods = [30, 90]
    /// Pages of 50 fetched from the front of each queue for the age histograms; a longer
    /// queue adds its last one or two pages, so at most 5 reads per queue.
    static let newestPages = 3
    /// How far back the weekly waiting times reach: about six months of weeks.
    static let historyDays = 182

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.statistics.pattern, use: show)
        router.get(SiteURL.Route.statisticsData.pattern, use: csv)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let (report, status, summary, days) = try await build(request, context: context)
        let page = StatisticsPage(
            layout: LayoutModel(context: context, title: "Statistics", active: .statistics, summary: summary, status: status),
            periods: Self.periods.map { PeriodOption(days: $0, href: SiteURL.statistics.path(query: [("days", String($0))]), current: $0 == days) },
            community: report.community, hasCommunity: !report.community.isEmpty,
            moderation: report.moderation, waitingNow: report.waitingNow, hasWaiting: !report.waitingNow.isEmpty, days: days)
        return try renderer.render(page, with: "statistics")
    }

    /// One chart's numbers as a CSV download.
    @Sendable func csv(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        guard let id = SiteURL.Route.statisticsData.value(in: context.parameters), id.count <= 40 else { throw ConsoleError.notFound }
        let (report, _, _, days) = try await build(request, context: context)
        guard let chart = report.charts.first(where: { $0.id == id }) else { throw ConsoleError.notFound }
        return Response(
            status: .ok,
            headers: [.contentType: AuditExportFormat.csv.contentType, .contentDisposition: "attachment; filename=\"book-corners-\(id)-\(days)d.csv\""],
            body: .init(byteBuffer: ByteBuffer(string: chart.table.csv)))
    }

    private func build(_ request: Request, context: ConsoleRequestContext) async throws -> (StatisticsReport, PageStatus, ModerationSummary?, Int) {
        let query = ListQuery(request)
        let days = query.text("days", maxLength: 3).flatMap(Int.init).flatMap { Self.periods.contains($0) ? $0 : nil } ?? 30
        let now = Date()
        let backend = try await backends.backend(for: context)
        var status = PageStatus()
        let summary = try await status.attempt(await backend.summary())
        let statistics = try await status.attempt(await backend.statistics())
        let history = try store.decisionRecords(AuditFilter(from: now.addingTimeInterval(-86_400 * Double(Self.historyDays))))
        let recent = history.filter { $0.recordedAt >= now.addingTimeInterval(-86_400 * Double(days)) }
        let waiting = try await waitingItems(backend, status: &status)
        let report = StatisticsReport(
            statistics: statistics, decisions: recent, history: history, waiting: waiting, days: days, now: now,
            csvHref: { SiteURL.statisticsData($0).path(query: [("days", String(days))]) })
        return (report, status, summary, days)
    }

    /// When the waiting items were submitted, per queue: the newest `newestPages` pages and,
    /// for a longer queue, its last one or two pages (the oldest items).
    private func waitingItems(_ backend: StaffBackend, status: inout PageStatus) async throws -> [StatisticsReport.Waiting] {
        let libraries = try await waiting("library", status: &status) { page async throws(BackendError) in
            try await backend.libraries(LibraryFilter(status: .pending), page: page).map { $0.map(\.createdAt) }
        }
        let reports = try await waiting("report", status: &status) { page async throws(BackendError) in
            try await backend.reports(status: .open, reason: .all, page: page).map { $0.map(\.createdAt) }
        }
        let photos = try await waiting("photo", status: &status) { page async throws(BackendError) in
            try await backend.photos(status: .pending, page: page).map { $0.map(\.createdAt) }
        }
        // A queue the backend did not answer for is left out, not drawn as empty.
        return [libraries, reports, photos].compactMap { $0 }
    }

    private func waiting(
        _ queue: String, status: inout PageStatus, fetch: (Page) async throws(BackendError) -> Cached<PagedList<Date>>
    ) async throws -> StatisticsReport.Waiting? {
        let size = Page.sizeRange.upperBound
        func read(_ number: Int) async throws -> PagedList<Date>? {
            try await status.attempt(await fetch(Page(clampingNumber: number, size: size)))
        }
        var newest: [Date] = []
        var total = 0
        for number in 1...Self.newestPages where number == 1 || newest.count < total {
            guard let list = try await read(number) else { return number == 1 ? nil : .init(queue: queue, newest: newest, oldest: [], total: total) }
            newest += list.items
            total = list.pagination.total
        }
        var oldest: [Date] = []
        let lastPage = (total + size - 1) / size
        if lastPage > Self.newestPages {
            // The last page may hold a single item: take the one before it too.
            for number in max(Self.newestPages + 1, lastPage - 1)...lastPage {
                guard let list = try await read(number) else { break }
                oldest += list.items
            }
        }
        return .init(queue: queue, newest: newest, oldest: oldest, total: max(total, newest.count + oldest.count))
    }
}

struct PeriodOption {
    let days: Int
    let href: String
    let current: Bool
}

struct StatisticsPage {
    let layout: LayoutModel
    let periods: [PeriodOption]
    let community: [Chart]
    let hasCommunity: Bool
    let moderation: [Chart]
    let waitingNow: [Chart]
    let hasWaiting: Bool
    let days: Int
}
