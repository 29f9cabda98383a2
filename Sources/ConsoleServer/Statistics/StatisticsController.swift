import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// How Book Corners grows and how moderation keeps up, drawn as SVG on the server.
struct StatisticsController {
    let dependencies: ConsoleDependencies
    static let periods = [30, 90]
    /// Pages of 50 fetched per queue for the age histograms: the newest 200 at most.
    static let waitingPages = 4
    /// How far back the weekly waiting times reach: about six months of weeks.
    static let historyDays = 182

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get("/statistics", use: show)
        router.get("/statistics/data/:chart", use: csv)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let (report, status, summary, days) = try await build(request, context: context)
        let page = StatisticsPage(
            layout: LayoutModel(context: context, title: "Statistics", active: .statistics, summary: summary, status: status),
            periods: Self.periods.map { PeriodOption(days: $0, href: "/statistics?days=\($0)", current: $0 == days) },
            community: report.community, hasCommunity: !report.community.isEmpty,
            moderation: report.moderation, waitingNow: report.waitingNow, hasWaiting: !report.waitingNow.isEmpty, days: days)
        return dependencies.renderer.render(page, with: "statistics")
    }

    /// One chart's numbers as a CSV download.
    @Sendable func csv(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        guard let id = context.parameters.get("chart"), id.count <= 40 else { throw ConsoleError.notFound }
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
        let backend = try await dependencies.backend(for: context)
        var status = PageStatus()
        let summary = try await status.attempt { () async throws(BackendError) in try await backend.summary() }
        let statistics = try await status.attempt { () async throws(BackendError) in try await backend.statistics() }
        let history = try dependencies.store.decisionRecords(AuditFilter(from: now.addingTimeInterval(-86_400 * Double(Self.historyDays))))
        let recent = history.filter { $0.recordedAt >= now.addingTimeInterval(-86_400 * Double(days)) }
        let waiting = try await waitingItems(backend, status: &status)
        let report = StatisticsReport(
            statistics: statistics, decisions: recent, history: history, waiting: waiting, days: days, now: now,
            csvHref: { "/statistics/data/\($0)?days=\(days)" })
        return (report, status, summary, days)
    }

    /// When each waiting item was submitted, per queue, newest first, up to `waitingPages` pages.
    private func waitingItems(_ backend: StaffBackend, status: inout PageStatus) async throws -> [StatisticsReport.Waiting] {
        var libraries: [Date] = [], reports: [Date] = [], photos: [Date] = []
        var totals = (libraries: 0, reports: 0, photos: 0)
        for number in 1...Self.waitingPages {
            let page = Page(clampingNumber: number, size: Page.sizeRange.upperBound)
            if number == 1 || libraries.count < totals.libraries,
                let list = try await status.attempt({ () async throws(BackendError) in try await backend.libraries(LibraryFilter(status: .pending), page: page) }) {
                libraries += list.items.map(\.createdAt)
                totals.libraries = list.pagination.total
            }
            if number == 1 || reports.count < totals.reports,
                let list = try await status.attempt({ () async throws(BackendError) in try await backend.reports(status: .open, reason: .all, page: page) }) {
                reports += list.items.map(\.createdAt)
                totals.reports = list.pagination.total
            }
            if number == 1 || photos.count < totals.photos,
                let list = try await status.attempt({ () async throws(BackendError) in try await backend.photos(status: .pending, page: page) }) {
                photos += list.items.map(\.createdAt)
                totals.photos = list.pagination.total
            }
        }
        guard status.problem == nil || !(libraries.isEmpty && reports.isEmpty && photos.isEmpty) else { return [] }
        return [
            .init(queue: "library", submitted: libraries, total: max(totals.libraries, libraries.count)),
            .init(queue: "report", submitted: reports, total: max(totals.reports, reports.count)),
            .init(queue: "photo", submitted: photos, total: max(totals.photos, photos.count)),
        ]
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
