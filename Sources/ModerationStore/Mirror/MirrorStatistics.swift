import Foundation
import GRDB

/// The backend's public statistics as last read (one row), kept as the JSON it sent:
/// pages decode it with the client's own types.
public struct MirrorStatistics: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorStatistics"

    /// Always 1: the table holds one row.
    var id: Int = 1
    public var json: Data
    public var lastConfirmedAt: Date

    public init(json: Data, lastConfirmedAt: Date) {
        self.json = json
        self.lastConfirmedAt = lastConfirmedAt
    }
}
