import Foundation
import GRDB

/// The backend's moderation summary as last read (one row).
public struct MirrorSummary: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorSummary"

    /// Always 1: the table holds one row.
    var id: Int = 1
    public var pendingLibraries: Int
    public var openReports: Int
    public var pendingPhotos: Int
    public var totalPending: Int
    public var totalLibraries: Int
    public var totalUsers: Int
    public var lastConfirmedAt: Date

    public init(
        pendingLibraries: Int, openReports: Int, pendingPhotos: Int, totalPending: Int, totalLibraries: Int, totalUsers: Int,
        lastConfirmedAt: Date
    ) {
        self.pendingLibraries = pendingLibraries
        self.openReports = openReports
        self.pendingPhotos = pendingPhotos
        self.totalPending = totalPending
        self.totalLibraries = totalLibraries
        self.totalUsers = totalUsers
        self.lastConfirmedAt = lastConfirmedAt
    }
}
