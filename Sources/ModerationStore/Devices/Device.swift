import Foundation
import GRDB

/// A device token a person's pushes go to: imported from Book Corners' own export, or added
/// by a staff member for themselves.
public struct Device: Codable, FetchableRecord, MutablePersistableRecord, Sendable, Equatable, Identifiable {
    public static let databaseTableName = "device"

    public var id: Int64?
    /// The Book Corners user id.
    public var userId: Int
    /// 64 hexadecimal digits, lower case.
    public var token: String
    public var environment: Environment
    public var active: Bool
    public var lastSuccessAt: Date?
    /// Why it was disabled (APNs' reason, or who removed it); empty while active.
    public var disabledReason: String
    public var disabledAt: Date?
    /// `import` (the backend's export) or `staff` (the My devices page).
    public var source: String
    public var createdAt: Date

    public init(userId: Int, token: String, environment: Environment, source: String, createdAt: Date) {
        self.userId = userId
        self.token = token
        self.environment = environment
        self.active = true
        self.disabledReason = ""
        self.source = source
        self.createdAt = createdAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Which APNs host serves the token: Xcode builds get sandbox tokens, App Store builds production ones.
    public enum Environment: String, Codable, Sendable, CaseIterable {
        case sandbox, production
    }

    /// A device token as APNs accepts it: 64 hexadecimal digits. Answers it lower-cased, or nil.
    public static func normalizedToken(_ text: String) -> String? {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard token.utf8.count == 64, token.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return token
    }
}
