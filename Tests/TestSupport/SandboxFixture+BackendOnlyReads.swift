import BookCornersAPI
import Foundation

/// Reads Book Corners offers that the console never makes (the pending queue's shortcut and
/// the public search): the sandbox imitates them, so its tests read them here, over HTTP.
extension SandboxFixture {
    /// `libraries/moderation/pending`, one page.
    public func pendingLibraries(token: String, page: Int = 1, size: Int = 50) async throws -> PagedList<ModerationLibrary> {
        let list = try await json(
            "/api/v1/libraries/moderation/pending?page=\(page)&page_size=\(size)", token: token, as: Components.Schemas.LibraryModerationListOut.self)
        return PagedList(items: list.items, pagination: list.pagination)
    }

    /// `libraries/`, the public search, with these query parameters (first page of 50 unless they say).
    public func publicLibraries(_ query: [String: String] = [:]) async throws -> PagedList<PublicLibrary> {
        var components = URLComponents()
        components.queryItems = ["page_size": "50"].merging(query) { _, asked in asked }.sorted { $0.key < $1.key }.map(URLQueryItem.init)
        let list = try await json("/api/v1/libraries/?" + (components.percentEncodedQuery ?? ""), token: nil, as: Components.Schemas.LibraryListOut.self)
        return PagedList(items: list.items, pagination: list.pagination)
    }

    /// The public search around a point, nearest first.
    public func publicLibraries(near lat: Double, _ lng: Double, radiusKm: Int) async throws -> PagedList<PublicLibrary> {
        try await publicLibraries(["lat": String(lat), "lng": String(lng), "radius_km": String(radiusKm)])
    }

    private func json<Body: Decodable>(_ path: String, token: String?, as type: Body.Type) async throws -> Body {
        let answer = try await raw(.GET, path, token: token)
        guard answer.status == 200 else { throw SandboxReadError(path: path, status: answer.status) }
        return try BackendJSON.decoder().decode(type, from: answer.body)
    }
}

/// A read of the sandbox answered with something other than 200.
public struct SandboxReadError: Error, CustomStringConvertible {
    public let path: String
    public let status: Int
    public var description: String { "GET \(path) answered \(status)" }
}
