import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The problem reports queue and a report's own page, read from the mirror (no backend read
/// per page view); staff notes on a report are the console's own, audited.
struct ReportQueueController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.reports.pattern, use: list)
        router.get(SiteURL.Route.report.pattern, use: detail)
        router.post(SiteURL.Route.reportNote.pattern, use: addNote)
    }

    @Sendable func detail(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let id = try reportID(context)
        return try await renderer.render(try detailPage(id: id, queue: ReportQueueContext(ListQuery(request)), context: context), with: "report-detail")
    }

    /// The page of report `id` as opened from `queue`; an unknown report is a 404, as the backend's would be.
    private func detailPage(id: Int, queue: ReportQueueContext, context: ConsoleRequestContext) async throws -> ReportDetailPage {
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        guard let report = try await store.mirroredReport(id: id) else { throw ConsoleError.backend(.notFound) }
        status.mirrored(confirmedAt: report.lastConfirmedAt)
        let now = Date()
        let library = try await store.mirroredLibrary(slug: report.librarySlug)
        var page = ReportDetailPage(
            layout: LayoutModel(
                context: context, title: "Report on \(LibraryText.displayName(report.libraryName))", active: .reports, summary: summary, status: status),
            report: report, library: library,
            others: try await store.mirroredReports(libraryId: report.libraryId, excluding: report.id),
            notes: try await store.reportNotes(reportId: report.id), targets: try await store.queueTargets(), now: now)
        // Both people behind a report: the reporter's earlier reports, and the library's submitter's record.
        if let reporter = report.reporterId {
            let name = report.reporterUsername ?? "user \(reporter)"
            page.reporterHistory = try await ContributorHistoryView.load(
                heading: "Also from \(name), who reported this", accountId: reporter, username: name, excludingReport: report.id, store: store, now: now)
        }
        if let library, let submitter = library.submitterId {
            let name = library.submitterUsername ?? "user \(submitter)"
            page.submitterHistory = try await ContributorHistoryView.load(
                heading: "From \(name), who submitted the library", accountId: submitter, username: name, store: store, now: now)
        }
        let neighbours = try await ReportQueueNavigator(store: store).neighbours(of: report, in: queue, viewer: context.session?.staffId, now: now)
        page.queue = QueueLinks(queue: queue, previous: neighbours.previous, next: neighbours.next, here: queue.detailPath(id: report.id))
        let target = ItemClaim.Target(kind: .report, key: String(report.id))
        if let action = await context.sendSchedule.shown(
            byKey: try store.unfinishedDecisions(kind: .report, keys: [target.key]), store: store, now: now)[target.key]
        {
            page.queued = QueuedDecisionNote(action, viewerId: context.session?.staffId, now: now)
        } else {
            page.claim = await ClaimBadge(
                claim: try store.activeClaim(target, now: now), target: target, viewerId: context.session?.staffId, isWaiting: report.status == .open,
                now: now, back: queue.detailPath(id: report.id))
        }
        return page
    }

    /// Keeps a staff note on the report (audited `report.note`); an empty or too long note shows the page again with what was typed.
    @Sendable func addNote(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let id = try reportID(context)
        let form = try await request.decodeForm(as: ReportNoteForm.self, context: context)
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let report = try await store.mirroredReport(id: id) else { throw ConsoleError.backend(.notFound) }
        let typed = form.note ?? ""
        let entry = audit.staffEntry(
            "report.note", targetKind: "report", targetId: String(id),
            targetName: "report on \(LibraryText.nameInCity(report.libraryName, city: report.libraryCity))", context: context,
            userAgent: request.userAgent)
        var withText = entry
        withText.reason = TypedText.withLineFeeds(typed).trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let kept = try await store.addReportNote(
                ReportNote(
                    reportId: id, authorId: session.staffId, authorUsername: session.username, text: typed, writtenAt: Date(),
                    formKey: DecisionForm.idempotencyKey(form.key)),
                audit: withText)
            guard kept.isNew else {
                try await sessions.flash("This note was already kept (the form was sent twice); it is listed once.", sessionID: session.id)
                return .redirect(to: SiteURL.report(id).path + "#notes", type: .normal)
            }
        } catch let problem as ReportNote.Problem {
            var page = try await detailPage(id: id, queue: ReportQueueContext(ListQuery(query: nil)), context: context)
            page.noteText = typed
            page.noteProblem = problem.description
            return try renderer.render(page, with: "report-detail", status: .unprocessableContent).response(from: request, context: context)
        }
        try await sessions.flash("Note kept with the report (only staff see it).", sessionID: session.id)
        return .redirect(to: SiteURL.report(id).path + "#notes", type: .normal)
    }

    private func reportID(_ context: ConsoleRequestContext) throws -> Int {
        guard let text = SiteURL.Route.report.value(in: context.parameters), let id = ItemReference.id(text) else { throw ConsoleError.notFound }
        return id
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let query = ListQuery(request)
        let queue = ReportQueueContext(query)
        let (statusFilter, reason, order) = (queue.status, queue.reason, queue.order)
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        let standardOrder = QueueOrder.standard(listsWaitingItems: statusFilter == .open)
        let (pageRows, total) = try await store.mirroredReportPage(
            status: queue.mirrorStatus, reason: reason, order: order, limit: query.page.size,
            offset: { Pagination.mirroredOffset(query.page, total: $0) })
        let pagination = Pagination.mirrored(query.page, total: total)
        // Reports the viewer just decided out of this list stay where they were, decided (and a
        // form sent without script comes back to its row, not to a list without it).
        let decisions = try await DecidedRows.recentDecisions(store, kind: .report, viewer: context.session?.staffId, now: Date())
        let onPage = Set(pageRows.map { String($0.id) })
        let decidedAway = try await store.mirroredReports(
            ids: decisions.values.filter { !onPage.contains($0.targetKey) && statusFilter.rawValue == $0.statusSeen.rawValue }
                .compactMap { Int($0.targetKey) }, reason: reason)
        let rows = DecidedRows.merge(
            page: pageRows, decided: decidedAway, order: order, isFirstPage: pagination.page == 1, isLastPage: !pagination.hasNext,
            key: { DecidedRows.SortKey(createdAt: $0.createdAt, id: $0.id) })
        if statusFilter == .open { status.freshnessGoal = MirrorPageData.queueFreshnessGoal }
        for row in pageRows { status.mirrored(confirmedAt: row.lastConfirmedAt) }
        if !pageRows.isEmpty { status.showsMirroredRows() }
        let now = Date()
        let filters: [(String, String?)] = [
            ("status", statusFilter.rawValue), ("reason", reason?.rawValue), ("order", order == standardOrder ? nil : order.rawValue),
        ]
        // Decisions and claims come back to this very list: its filters, order and page.
        let back = SafeRedirect.path(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""))
        let claims = try await store.activeClaims(kind: .report, keys: rows.map { String($0.id) }, now: now)
        // A decision on its way shows as such, with nothing left to decide until it is sent.
        let queued = await context.sendSchedule.shown(
            byKey: try store.unfinishedDecisions(kind: .report, keys: rows.map { String($0.id) }), store: store, now: now)
        let targets = try await store.queueTargets()
        var page = ReportListPage(
            layout: LayoutModel(context: context, title: "Reports", active: .reports, summary: summary, status: status),
            statusOptions: ReportStatusFilter.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == statusFilter) },
            reasonOptions: [FilterOption(value: "", label: "Any reason", selected: reason == nil)]
                + ReportReason.allCases.map { FilterOption(value: $0.rawValue, label: $0.label, selected: $0 == reason) },
            rows: rows.map { report in
                var row = ReportRow(report, targets: targets, now: now)
                row.reportURL = queue.detailPath(id: report.id)
                let target = ItemClaim.Target(kind: .report, key: String(report.id))
                if let action = queued[target.key] {
                    row.queued = QueuedDecisionNote(action, viewerId: context.session?.staffId, now: now)
                } else {
                    row.claim = ClaimBadge(
                        claim: claims[target.key], target: target, viewerId: context.session?.staffId, isWaiting: report.status == .open, now: now,
                        back: back)
                }
                return row
            },
            loaded: summary != nil || !rows.isEmpty,
            pager: Pager(url: .reports, filters: filters, pagination: pagination, order: order))
        page.frame.back = back
        page.frame.keepPageSize(of: query)
        page.frame.say(ignored: queue.ignoredFilters, reading: queue.filterItems.map(\.name), of: query, shownPage: pagination.page)
        page.frame.orderSwitch = OrderSwitch(order: order, standard: standardOrder, url: .reports, filters: filters)
        return try renderer.render(page, with: "reports")
    }
}
