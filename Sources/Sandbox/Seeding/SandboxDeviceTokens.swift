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
                fields: .init(user: id, token: token(userID: id), environment: "sandbox", is_active: id % 10 != 0, created_at: "2026-01-01T00:00:00Z"))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(records)
    }

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
        }

        var model = "users.devicetoken"
        let pk: Int
        let fields: Fields
    }
}
