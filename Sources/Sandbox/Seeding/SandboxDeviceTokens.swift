import Crypto
import Foundation
import GRDB

/// The device tokens of the sandbox's seeded users, in the shape Book Corners exports its own
/// (`python manage.py dumpdata users.DeviceToken`): what `console devices import` reads, so the
/// demo's pushes have phones to go to. Tokens are derived from user ids, the same on every run;
/// every tenth user's token is inactive, as an uninstalled app's would be.
public enum SandboxDeviceTokens {
    /// The export for every user in the sandbox database at `path`.
    public static func export(databasePath path: String) throws -> Data {
        let userIDs = try DatabaseQueue(path: path).read { db in try Int.fetchAll(db, sql: "SELECT id FROM user ORDER BY id") }
        return try export(userIDs: userIDs)
    }

    static func export(userIDs: [Int]) throws -> Data {
        let records = userIDs.map { id in
            Record(
                pk: id,
                fields: .init(
                    user: id, token: token(userID: id), environment: "sandbox", is_active: id % 10 != 0, created_at: registeredAt,
                    updated_at: registeredAt, last_used_at: id % 10 != 0 ? lastUsedAt : nil))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(records)
    }

    /// When the seeded tokens were registered, and last used (an inactive one never since):
    /// fixed, so every export of one database is the same file.
    static let registeredAt = "2026-01-01T00:00:00Z"
    static let lastUsedAt = "2026-01-02T08:30:00.250000Z"

    /// The demo token of a user: 64 hexadecimal digits.
    public static func token(userID: Int) -> String {
        SHA256.hash(data: Data("bookcorners-demo-device-\(userID)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private struct Record: Encodable {
        struct Fields: Encodable {
            let user: Int
            let token: String
            let environment: String
            let is_active: Bool
            let created_at: String
            /// Django's `auto_now` field: moves whenever the app registers the token again.
            let updated_at: String
            /// `null` when never used; encoded as JSON null, as `dumpdata` writes it.
            let last_used_at: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(user, forKey: .user)
                try container.encode(token, forKey: .token)
                try container.encode(environment, forKey: .environment)
                try container.encode(is_active, forKey: .is_active)
                try container.encode(created_at, forKey: .created_at)
                try container.encode(updated_at, forKey: .updated_at)
                try container.encode(last_used_at, forKey: .last_used_at)
            }

            private enum CodingKeys: String, CodingKey {
                case user, token, environment, is_active, created_at, updated_at, last_used_at
            }
        }

        var model = "users.devicetoken"
        let pk: Int
        let fields: Fields
    }
}
