import BookCornersAPI
import Foundation

/// The backend as one request of one staff member sees it: their credentials, our
/// request id, their address, and the shared read cache.
struct StaffBackend: Sendable {
    let client: BackendClient
    let cache: BackendReadCache
    let credentials: StaffCredentials
    let context: CallContext

    func summary() async throws(BackendError) -> Cached<ModerationSummary> {
        let (client, credentials, context) = (client, credentials, context)
        return try await cache.value("summary") { () async throws(BackendError) in
            try await client.summary(credentials, context: context)
        }
    }

    func libraries(_ filter: LibraryFilter, page: Page) async throws(BackendError) -> Cached<PagedList<ModerationLibrary>> {
        let (client, credentials, context) = (client, credentials, context)
        let key = "libraries?\(filter.status.rawValue)|\(filter.text ?? "")|\(filter.country ?? "")|\(filter.source ?? "")|\(page.number)|\(page.size)"
        return try await cache.value(key) { () async throws(BackendError) in
            try await client.libraries(filter, page: page, credentials: credentials, context: context)
        }
    }

    func library(slug: String) async throws(BackendError) -> Cached<ModerationLibrary> {
        let (client, credentials, context) = (client, credentials, context)
        return try await cache.value("library/\(slug)") { () async throws(BackendError) in
            try await client.library(slug: slug, credentials: credentials, context: context)
        }
    }

    /// Approved libraries within 1 km, for spotting duplicates.
    func nearby(lat: Double, lng: Double) async throws(BackendError) -> Cached<PagedList<PublicLibrary>> {
        let (client, context) = (client, context)
        return try await cache.value("nearby/\(lat),\(lng)") { () async throws(BackendError) in
            try await client.publicLibraries(
                LibrarySearch(near: .init(lat: lat, lng: lng, radiusKm: 1)), page: Page(clampingNumber: 1, size: 50), context: context)
        }
    }

    func reports(status: ReportStatusFilter, reason: ReportReasonFilter, page: Page) async throws(BackendError) -> Cached<PagedList<ModerationReport>> {
        let (client, credentials, context) = (client, credentials, context)
        return try await cache.value("reports?\(status.rawValue)|\(reason.queryValue)|\(page.number)|\(page.size)") { () async throws(BackendError) in
            try await client.reports(status: status, reason: reason, page: page, credentials: credentials, context: context)
        }
    }

    func photos(status: StatusFilter, page: Page) async throws(BackendError) -> Cached<PagedList<ModerationPhoto>> {
        let (client, credentials, context) = (client, credentials, context)
        return try await cache.value("photos?\(status.rawValue)|\(page.number)|\(page.size)") { () async throws(BackendError) in
            try await client.photos(status: status, page: page, credentials: credentials, context: context)
        }
    }

    /// Book Corners' public statistics (the backend caches them for five minutes itself).
    func statistics() async throws(BackendError) -> Cached<Statistics> {
        let (client, context) = (client, context)
        return try await cache.value("statistics") { () async throws(BackendError) in
            try await client.statistics(context: context)
        }
    }
}
