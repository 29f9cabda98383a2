import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// The first page after sign-in: what waits, for how long, and whether the backend answers.
struct DashboardController {
    let backends: StaffBackendFactory
    let store: ModerationStore
    let renderer: PageRenderer

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.dashboard.pattern, use: show)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let backend = try await backends.backend(for: context)
        var status = PageStatus()
        let summary = try await status.attempt(await backend.summary())
        // A page past the end answers the last page, which holds the oldest items: one call per queue.
        let oldestPage = Page(clampingNumber: Page.numberRange.upperBound, size: Page.sizeRange.upperBound)
        let libraries = try await status.attempt(await backend.libraries(LibraryFilter(status: .pending), page: oldestPage))
        let reports = try await status.attempt(await backend.reports(status: .open, reason: .all, page: oldestPage))
        let photos = try await status.attempt(await backend.photos(status: .pending, page: oldestPage))
        let now = Date()
        let page = DashboardPage(
            layout: LayoutModel(context: context, title: "Dashboard", active: .dashboard, summary: summary, status: status),
            summary: summary.map(DashboardPage.Counts.init),
            queues: [
                DashboardPage.Queue(
                    title: "Library submissions", href: SiteURL.libraries.path, total: summary?.pendingLibrariesCount,
                    items: (libraries?.items ?? []).suffix(5).reversed().map {
                        .init(label: LibraryText.displayName($0.name), detail: LibraryText.place(city: $0.city, country: $0.country),
                              href: SiteURL.library($0.slug).path, age: TimeText.age(of: $0.createdAt, now: now))
                    }),
                DashboardPage.Queue(
                    title: "Open reports", href: SiteURL.reports.path, total: summary?.openReportsCount,
                    items: (reports?.items ?? []).suffix(5).reversed().map {
                        .init(label: LibraryText.displayName($0.library.name), detail: ReportReason(rawValue: $0.reason)?.label ?? $0.reason,
                              href: SiteURL.library($0.library.slug).path, age: TimeText.age(of: $0.createdAt, now: now))
                    }),
                DashboardPage.Queue(
                    title: "Community photos", href: SiteURL.photos.path, total: summary?.pendingPhotosCount,
                    items: (photos?.items ?? []).suffix(5).reversed().map {
                        .init(label: LibraryText.displayName($0.library.name), detail: $0.caption,
                              href: SiteURL.library($0.library.slug).path, age: TimeText.age(of: $0.createdAt, now: now))
                    }),
            ],
            backendReachable: status.problem == nil,
            backendStatus: status.problem?.staffMessage ?? "Book Corners is answering normally.",
            outside: try OutsideChanges.load(from: store, now: now))
        return try renderer.render(page, with: "dashboard")
    }
}

/// The dashboard's model.
struct DashboardPage {
    struct Counts {
        let pendingLibraries: Int
        let openReports: Int
        let pendingPhotos: Int
        let totalPending: Int
        let totalLibraries: Int
        let totalUsers: Int
        let librariesURL = SiteURL.libraries.path
        let reportsURL = SiteURL.reports.path
        let photosURL = SiteURL.photos.path

        init(_ summary: ModerationSummary) {
            pendingLibraries = summary.pendingLibrariesCount
            openReports = summary.openReportsCount
            pendingPhotos = summary.pendingPhotosCount
            totalPending = summary.totalPending
            totalLibraries = summary.totalLibraries
            totalUsers = summary.totalUsers
        }
    }

    struct Queue {
        struct Item {
            let label: String
            let detail: String
            let href: String
            let age: String
        }

        let title: String
        let href: String
        // Never nil: a nil would send the template looking for `total` further up the context.
        let total: Int
        let hasTotal: Bool
        let items: [Item]
        let isEmpty: Bool

        init(title: String, href: String, total: Int?, items: [Item]) {
            self.title = title
            self.href = href
            self.total = total ?? 0
            hasTotal = total != nil
            self.items = items
            isEmpty = items.isEmpty
        }
    }

    let layout: LayoutModel
    let summary: Counts?
    let queues: [Queue]
    let backendReachable: Bool
    let backendStatus: String
    let outside: OutsideChanges
}
