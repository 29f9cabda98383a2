import Foundation
import GRDB

/// A staff member the console knows: by signing in, or because someone put them in the rotation.
public struct StaffMember: Codable, FetchableRecord, PersistableRecord, Sendable, Hashable, Identifiable {
    public static let databaseTableName = "staffMember"

    /// The Book Corners user id: what alerts are addressed to (their devices are keyed by it).
    public var id: Int
    public var username: String

    public init(id: Int, username: String) {
        self.id = id
        self.username = username
    }

    public enum Columns {
        public static let id = Column("id")
        public static let username = Column("username")
    }
}
