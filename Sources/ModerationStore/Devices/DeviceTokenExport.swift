import Foundation

/// Book Corners' own export of its device tokens (`python manage.py dumpdata users.DeviceToken`):
/// a JSON list of `{"model": "users.devicetoken", "pk": …, "fields": {"user": id, "token": "…",
/// "environment": "sandbox"|"production", "is_active": bool, …}}`.
public enum DeviceTokenExport {
    /// One token of the export, checked.
    public struct Entry: Sendable, Equatable {
        public var userID: Int
        public var token: String
        public var environment: Device.Environment
        public var isActive: Bool

        public init(userID: Int, token: String, environment: Device.Environment, isActive: Bool) {
            self.userID = userID
            self.token = token
            self.environment = environment
            self.isActive = isActive
        }
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
            return Entry(userID: record.fields.user, token: token, environment: environment, isActive: record.fields.is_active ?? true)
        }
    }
}
