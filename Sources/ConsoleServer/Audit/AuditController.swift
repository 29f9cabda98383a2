import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// The audit log for people: browse with filters, read one entry, check the chain, and
/// take a range away as a file or a printable summary.
struct AuditController {
    let store: ModerationStore
    let audit: StaffAuditWriter
    let renderer: PageRenderer
    static let pageSize = 50

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.audit.pattern, use: list)
        router.post(SiteURL.Route.auditVerify.pattern, use: verify)
        router.get(SiteURL.Route.auditExport.pattern, use: export)
        router.get(SiteURL.Route.auditSummary.pattern, use: summary)
        router.get(SiteURL.Route.auditEntry.pattern, use: show)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        try await page(request, context: context, verdict: nil)
    }

    @Sendable func verify(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let verdict = await AuditVerdictText(try store.verifyAuditChain())
        return try await page(request, context: context, verdict: verdict)
    }

    private func page(_ request: Request, context: ConsoleRequestContext, verdict: AuditVerdictText?) async throws -> HTML {
        let listQuery = ListQuery(request)
        let query = AuditQuery(listQuery)
        let before = listQuery.text("before", maxLength: 20).flatMap { Int64($0) }
        let after = before == nil ? listQuery.text("after", maxLength: 20).flatMap { Int64($0) } : nil
        let page = try await store.auditPage(query.filter, before: before, after: after, limit: Self.pageSize)
        let choices = try await store.auditFilterChoices()
        let clock = TeamClock.current
        let cities = try await Self.citiesOfRepeatedNames(page.entries, store: store)
        let now = Date()
        let model = AuditListPage(
            layout: LayoutModel(context: context, title: "Audit log", active: .audit, summary: nil),
            staffOptions: FilterOption.choices(choices.actors, selected: query.filter.actorUsername, any: "Anyone"),
            actionOptions: FilterOption.choices(choices.actions, selected: query.filter.action, any: "Any action", label: AuditActionName.of),
            outcomeOptions: FilterOption.choices(
                AuditOutcome.allCases.map(\.rawValue), selected: query.filter.outcome?.rawValue, any: "Any outcome",
                label: { $0 == AuditOutcome.observed.rawValue ? AuditEntry.outsideActor : $0 }),
            q: query.filter.targetText ?? "", from: query.typedFrom, to: query.typedTo, problems: query.problems,
            matching: try await store.auditEntryCount(query.filter),
            rows: page.entries.map { AuditRow($0, now: now, clock: clock, city: cities[$0.targetSlug]) }, isEmpty: page.entries.isEmpty,
            clockName: clock.clockName,
            newerHref: page.hasNewer ? page.entries.first.flatMap { $0.id }.map { query.href(.audit, adding: [("after", String($0))]) } : nil,
            olderHref: page.hasOlder ? page.entries.last.flatMap { $0.id }.map { query.href(.audit, adding: [("before", String($0))]) } : nil,
            newestHref: page.hasNewer ? query.href(.audit) : nil,
            csvHref: query.href(.auditExport, adding: [("format", AuditExportFormat.csv.rawValue)]),
            spreadsheetHref: query.href(.auditExport, adding: [("format", AuditExportFormat.spreadsheetCSV.rawValue)]),
            ndjsonHref: query.href(.auditExport, adding: [("format", "ndjson")]),
            summaryHref: query.href(.auditSummary),
            verifyAction: query.href(.auditVerify),
            verdict: verdict)
        return try renderer.render(model, with: "audit")
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        guard let text = SiteURL.Route.auditEntry.value(in: context.parameters), let id = Int64(text), let entry = try await store.auditEntry(id: id) else {
            throw ConsoleError.notFound
        }
        let neighbours = try await store.auditNeighbours(of: id)
        let now = Date()
        let clock = TeamClock.current
        func neighbour(_ id: Int64?) async throws -> AuditRow? {
            guard let id, let entry = try await store.auditEntry(id: id) else { return nil }
            return AuditRow(entry, now: now, clock: clock)
        }
        let older = try await neighbour(neighbours.older)
        let newer = try await neighbour(neighbours.newer)
        let model = AuditEntryPage(
            layout: LayoutModel(context: context, title: "Audit entry \(id)", active: .audit, summary: nil),
            row: AuditRow(entry, now: now, clock: clock), fields: AuditField.fields(of: entry),
            item: Self.item(entry), older: older, newer: newer,
            hashMatches: store.auditEntryHashMatches(entry),
            chainsToOlder: older.map { $0.hash == entry.previousHash } ?? true)
        return try renderer.render(model, with: "audit-entry")
    }

    /// Cities for the libraries whose name appears more than once among `entries` with
    /// different slugs ("Sunrise Library Box" in Lyon and in Leeds), keyed by slug.
    static func citiesOfRepeatedNames(_ entries: [AuditEntry], store: ModerationStore) async throws -> [String: String] {
        var slugsByName: [String: Set<String>] = [:]
        for entry in entries where !entry.targetSlug.isEmpty && !entry.targetName.isEmpty {
            slugsByName[entry.targetName, default: []].insert(entry.targetSlug)
        }
        let repeated = slugsByName.values.filter { $0.count > 1 }.reduce(into: Set<String>()) { $0.formUnion($1) }
        return try await store.mirroredCities(slugs: repeated)
    }

    /// Where the entry's item lives in the console: the library itself, the library a report or
    /// photo is about, or the outbox message a Retry now or Discard moved.
    static func item(_ entry: AuditEntry) -> AuditEntryPage.ItemLink? {
        if entry.targetKind == "outbox", !entry.targetId.isEmpty {
            return .init(href: SiteURL.outboxMessage(entry.targetId).path, label: "Open the message in the outbox →")
        }
        if entry.targetKind == "report", let id = ItemReference.id(entry.targetId) {
            return .init(href: SiteURL.report(id).path, label: "Open the report in the console →")
        }
        guard entry.isDecision, !entry.targetSlug.isEmpty else { return nil }
        return .init(href: SiteURL.library(entry.targetSlug).path, label: "Open the library in the console →")
    }

    @Sendable func export(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let listQuery = ListQuery(request)
        let query = AuditQuery(listQuery)
        let format = listQuery.choice("format", default: AuditExportFormat.csv)
        let (store, audit) = (store, audit)
        let filename = query.fileName(
            "audit", fileExtension: format.fileExtension, variant: format == .spreadsheetCSV ? "spreadsheet" : nil, today: Date())
        let filter = query.filter
        // Read here: the body is written after the request's clock is gone.
        let zone = TeamClock.current.zone
        // No entry, no export: recorded before the answer starts, so a failure is a page saying so,
        // not a download. A HEAD (answered without its body) exports nothing and records nothing.
        if !context.answersHead {
            let entry = audit.staffEntry(
                AuditEntry.exportAction, targetKind: "auditLog", targetId: "", targetName: "\(format.rawValue) export: \(filter.description)",
                context: context, userAgent: request.userAgent)
            do {
                try await store.appendAudit(entry)
            } catch {
                context.logger.error("export refused: its audit entry was not written", metadata: ["error": "\(error)"])
                throw ConsoleError.exportNotRecorded
            }
        }
        let body = ResponseBody { writer in
            var exporter = AuditExporter(store: store, filter: filter, format: format, zone: zone)
            var chunk: [UInt8] = []
            while try await exporter.nextChunk(into: &chunk) {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: format.contentType, .contentDisposition: "attachment; filename=\"\(filename)\""],
            body: body)
    }

    @Sendable func summary(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let listQuery = ListQuery(request)
        let query = AuditQuery(listQuery)
        // Only what decided an item: a note, a take-over or a decision Book Corners refused is not one.
        let decisions = try await store.decisionRecords(query.filter).filter(\.decided)
        let summary = AuditSummary(decisions, presetOf: DecisionController.presetReason(of:))
        if listQuery.text("format", maxLength: 10) == "csv" {
            let filename = query.fileName("audit-summary", fileExtension: "csv", today: Date())
            return Response(
                status: .ok,
                headers: [.contentType: AuditExportFormat.csv.contentType, .contentDisposition: "attachment; filename=\"\(filename)\""],
                body: .init(byteBuffer: ByteBuffer(string: summary.csv())))
        }
        // A fresh walk of the chain, so "checked" in a printed copy means when it was made.
        let chain = try await store.verifyAuditChain()
        let clock = TeamClock.current.clockName
        let dates = decisions.map(\.recordedAt)
        let range = query.filter.description(spanning: dates.min().flatMap { first in dates.max().map { first...$0 } })
        let model = AuditSummaryPage(
            layout: LayoutModel(context: context, title: "Book Corners moderation summary, \(range) (\(clock))", active: .audit, summary: nil),
            range: range, problems: query.problems, summary: summary,
            csvHref: query.href(.auditSummary, adding: [("format", "csv")]), backHref: query.href(.audit), generatedAt: TeamClock.stamp(Date()),
            madeBy: context.session?.username ?? "", clockName: clock, chain: chain)
        return try renderer.render(model, with: "audit-summary").response(from: request, context: context)
    }
}
