import BookCornersAPI
import Foundation
import Hummingbird

/// Community photos: each proposed photo beside the library's current one.
struct PhotoQueueController {
    let backends: StaffBackendFactory
    let renderer: PageRenderer

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.photos.pattern, use: grid)
    }

    @Sendable func grid(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let query = ListQuery(request)
        let statusFilter = query.choice("status", default: StatusFilter.pending)
        let backend = try await backends.backend(for: context)
        var status = PageStatus()
        let summary = try await status.attempt(await backend.summary())
        let list = try await status.attempt(await backend.photos(status: statusFilter, page: query.page))
        // The current photo is only on the library itself: one cached read per distinct library.
        var currentPhotos: [String: String] = [:]
        for slug in Set((list?.items ?? []).map(\.library.slug)) {
            do {
                currentPhotos[slug] = status.take(try await backend.library(slug: slug)).photoUrl
            } catch .notFound {
                continue
            } catch .sessionExpired {
                throw ConsoleError.backend(.sessionExpired)
            } catch {
                try status.absorb(error)
            }
        }
        let now = Date()
        let page = PhotoGridPage(
            layout: LayoutModel(context: context, title: "Photos", active: .photos, summary: summary, status: status),
            statusOptions: StatusFilter.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == statusFilter) },
            cards: (list?.items ?? []).map { PhotoCard($0, currentPhotoURL: currentPhotos[$0.library.slug], now: now) },
            loaded: list != nil,
            pager: list.map { Pager(url: .photos, filters: [("status", statusFilter.rawValue)], pagination: $0.pagination) })
        return try renderer.render(page, with: "photos")
    }
}

struct PhotoGridPage {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let cards: [PhotoCard]
    let loaded: Bool
    let pager: Pager?
    let isEmpty: Bool
    let back: String
    let filterURL = SiteURL.photos.path

    init(layout: LayoutModel, statusOptions: [FilterOption],  cards: [PhotoCard], loaded: Bool, pager: Pager?) {
        self.layout = layout
        self.statusOptions = statusOptions
        
        self.cards = cards
        self.loaded = loaded
        self.pager = pager
        isEmpty = loaded && cards.isEmpty
        back = SiteURL.photos.path
    }
}

/// A proposed photo and the photo it would replace.
struct PhotoCard {
    let id: Int
    let proposedURL: String
    let currentURL: String
    let hasCurrentPhoto: Bool
    let caption: String
    let submitter: String
    let libraryName: String
    let librarySlug: String
    let libraryPlace: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let status: String
    let isPending: Bool
    let decisionKey = UUID().uuidString
    let libraryURL: String
    let decideURL: String

    init(_ photo: ModerationPhoto, currentPhotoURL: String?, now: Date) {
        id = photo.id
        libraryURL = SiteURL.library(photo.library.slug).path
        decideURL = SiteURL.photoDecide(photo.id).path
        proposedURL = photo.photoUrl
        currentURL = currentPhotoURL ?? ""
        hasCurrentPhoto = !currentURL.isEmpty
        caption = photo.caption.isEmpty ? "(no caption)" : photo.caption
        submitter = photo.createdBy?.username ?? "anonymous"
        libraryName = LibraryText.displayName(photo.library.name)
        librarySlug = photo.library.slug
        libraryPlace = LibraryText.place(city: photo.library.city, country: photo.library.country)
        age = TimeText.age(of: photo.createdAt, now: now)
        createdAt = TimeText.iso(photo.createdAt)
        createdUTC = TimeText.utc(photo.createdAt)
        status = photo.status
        isPending = photo.moderationStatus == .pending
    }
}
