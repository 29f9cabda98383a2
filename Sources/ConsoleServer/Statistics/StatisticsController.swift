import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// How Book Corners grows and how moderation keeps up, drawn as SVG on the server.
struct StatisticsController {
    let store: ModerationStore
    let renderer: PageRenderer
    static let periods = [30, 90]
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
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        let statistics = try await mirroredStatistics(status: &status)
        let history = try await store.decisionRecords(AuditFilter(from: now.addingTimeInterval(-86_400 * Double(Self.historyDays))))
        let recent = history.filter { $0.recordedAt >= now.addingTimeInterval(-86_400 * Double(days)) }
        let report = await StatisticsReport(
            statistics: statistics, decisions: recent, history: history, waiting: try waitingItems(loaded: summary != nil), days: days,
            now: now, csvHref: { SiteURL.statisticsData($0).path(query: [("days", String(days))]) })
        return (report, status, summary, days)
    }

    /// Book Corners' statistics as the mirror last read them; `nil` before the first read.
    private func mirroredStatistics(status: inout PageStatus) async throws -> Statistics? {
        let row = try await store.mirrorStatistics()
        status.mirrored(confirmedAt: row?.lastConfirmedAt)
        // The row holds what the client decoded and encoded again; a row it cannot read is as good as none.
        return row.flatMap { try? BackendJSON.decoder().decode(Statistics.self, from: $0.json) }
    }

    /// When every waiting item was submitted, per queue, from the mirror (no sampling needed:
    /// it costs no backend read). Nothing before the mirror's first read, rather than empty queues.
    private func waitingItems(loaded: Bool) async throws -> [StatisticsReport.Waiting] {
        guard loaded else { return [] }
        let waiting = try await store.mirroredWaitingDates()
        return [("library", waiting.libraries), ("report", waiting.reports), ("photo", waiting.photos)].map {
            StatisticsReport.Waiting(queue: $0.0, newest: $0.1, oldest: [], total: $0.1.count)
        }
    }
}
