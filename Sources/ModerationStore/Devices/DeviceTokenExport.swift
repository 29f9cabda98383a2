import Foundation

/// Book Corners' own export of its device tokens (`python manage.py dumpdata users.DeviceToken`):
/// a JSON list of `{"model": "users.devicetoken", "pk": …, "fields": {"user": id, "token": "…",
/// "environment": "sandbox"|"production", "is_active": bool, "created_at", "updated_at",
/// "last_used_at": ISO 8601 or null}}`.
public enum DeviceTokenExport {
    /// One token of the export, checked.
    public struct Entry: Sendable, Equatable {
        public var userID: Int
        public var token: String
        public var environment: Device.Environment
        public var isActive: Bool
        /// Book Corners' `updated_at`: moves whenever the app registers the token again.
        public var updatedAt: Date?
        /// Book Corners' `last_used_at`: the app's last use of the token, if any.
        public var lastUsedAt: Date?

        public init(userID: Int, token: String, environment: Device.Environment, isActive: Bool, updatedAt: Date? = nil, lastUsedAt: Date? = nil) {
            self.userID = userID
            self.token = token
            self.environment = environment
            self.isActive = isActive
            self.updatedAt = updatedAt
            self.lastUsedAt = lastUsedAt
        }

        /// The latest time Book Corners saw the app with this token registered.
        public var registeredAt: Date? { [updatedAt, lastUsedAt].compactMap { $0 }.max() }
    }

    /// Why an export could not be read, naming the entry.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    private struct Record: Decodable {
        struct Fields: Decodable {
            let user: Int
            let token: String
            let environment: String?
            let is_active: Bool?
            let updated_at: String?
            let last_used_at: String?
        }

        let model: String
        let pk: Int?
        let fields: Fields
    }

    /// Reads a whole export; a single bad entry refuses all of it (nothing half-imported).
    public static func parse(_ data: Data) throws -> [Entry] {
        let records: [Record]
        do {
            records = try JSONDecoder().decode([Record].self, from: data)
        } catch {
            throw Problem(description: "not a dumpdata export of users.DeviceToken (a JSON list of {\"model\", \"pk\", \"fields\"}): \(error)")
        }
        var seen: [String: Int] = [:]
        return try records.enumerated().map { index, record in
            let name = "entry \(index + 1)" + (record.pk.map { " (pk \($0))" } ?? "")
            guard record.model.lowercased() == "users.devicetoken" else {
                throw Problem(description: "\(name): model is \(record.model), not users.devicetoken")
            }
            guard let token = Device.normalizedToken(record.fields.token) else {
                throw Problem(description: "\(name): the token is not 64 hexadecimal digits")
            }
            if let first = seen[token] {
                throw Problem(description: "\(name): the same token as entry \(first); an export lists each token once")
            }
            seen[token] = index + 1
            let environmentText = record.fields.environment ?? "production"
            guard let environment = Device.Environment(rawValue: environmentText) else {
                throw Problem(description: "\(name): environment \(environmentText) is neither sandbox nor production")
            }
            var dates: [Date?] = []
            for (field, text) in [("updated_at", record.fields.updated_at), ("last_used_at", record.fields.last_used_at)] {
                guard let text else {
                    dates.append(nil)
                    continue
                }
                guard let date = Self.date(text) else { throw Problem(description: "\(name): \(field) is not an ISO 8601 time") }
                dates.append(date)
            }
            return Entry(
                userID: record.fields.user, token: token, environment: environment, isActive: record.fields.is_active ?? true,
                updatedAt: dates[0], lastUsedAt: dates[1])
        }
    }

    /// Django's `dumpdata` times: `2026-01-01T00:00:00Z`, with or without fractions of a second,
    /// `Z` or an offset.
    static func date(_ text: String) -> Date? {
        let whole = ISO8601DateFormatter()
        if let date = whole.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}
