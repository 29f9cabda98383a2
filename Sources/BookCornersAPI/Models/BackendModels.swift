import Foundation

// Readable names for the types generated from the backend's OpenAPI document
// (Sources/BookCornersAPI/Generated). The rest of the code uses these names only.

/// A library as staff see it: the public fields plus moderation status and submitter.
public typealias ModerationLibrary = Components.Schemas.LibraryModerationOut
/// An approved library as the public API returns it.
public typealias PublicLibrary = Components.Schemas.LibraryOut
/// A problem report about a library.
public typealias ModerationReport = Components.Schemas.ReportModerationOut
/// A community photo proposed as a library's new photo.
public typealias ModerationPhoto = Components.Schemas.PhotoModerationOut
/// The compact library nested in reports and photos.
public typealias LibrarySummary = Components.Schemas.LibraryModerationSummaryOut
/// The submitter or reporter of an item.
public typealias ModerationUser = Components.Schemas.ModerationUserOut
/// Counts of what waits for review.
public typealias ModerationSummary = Components.Schemas.ModerationSummaryOut
/// Pagination metadata of every list answer.
public typealias Pagination = Components.Schemas.PaginationMeta
/// The signed-in account, from `auth/me`.
public typealias Account = Components.Schemas.MeOut
/// Access and refresh token, from `auth/login`.
public typealias TokenPair = Components.Schemas.TokenPairOut
/// Public statistics, from `statistics/`.
public typealias Statistics = Components.Schemas.StatisticsOut
/// One country in the statistics' top list.
public typealias CountryStatistic = Components.Schemas.CountryStatOut
/// One point of the statistics' cumulative series.
public typealias GrowthPoint = Components.Schemas.TimeSeriesPointOut
/// The error body every JSON error carries.
public typealias ErrorBody = Components.Schemas.ErrorOut

/// A page of items together with the backend's pagination metadata.
public struct PagedList<Item: Sendable>: Sendable {
    public var items: [Item]
    public var pagination: Pagination

    public init(items: [Item], pagination: Pagination) {
        self.items = items
        self.pagination = pagination
    }

    /// The same page with each item transformed.
    public func map<Other: Sendable>(_ transform: (Item) throws -> Other) rethrows -> PagedList<Other> {
        PagedList<Other>(items: try items.map(transform), pagination: pagination)
    }
}
