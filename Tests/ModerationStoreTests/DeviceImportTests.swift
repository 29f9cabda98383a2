import Foundation
import GRDB
import Testing

@testable import ModerationStore

/// Book Corners' own export of its device tokens, read and imported.
@Suite("Device token import")
struct DeviceImportTests {
    private static let export = """
        [
          {"model": "users.devicetoken", "pk": 1, "fields": {"user": 7, "token": "\(String(repeating: "A1", count: 32))", "environment": "production", "is_active": true, "created_at": "2026-01-01T00:00:00Z"}},
          {"model": "users.devicetoken", "pk": 2, "fields": {"user": 8, "token": "\(String(repeating: "b2", count: 32))", "environment": "sandbox", "is_active": true}},
          {"model": "users.devicetoken", "pk": 3, "fields": {"user": 9, "token": "\(String(repeating: "c3", count: 32))", "environment": "sandbox", "is_active": false}}
        ]
        """

    @Test("an export imports once: active tokens added (lower-cased), inactive ones skipped, a second import changes nothing")
    func idempotent() async throws {
        // setup
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try ModerationStore(path: path)
        let entries = try DeviceTokenExport.parse(Data(Self.export.utf8))
        // act
        let first = try await store.importDevices(entries, now: Date())
        let second = try await store.importDevices(entries, now: Date())
        // check
        #expect(first.added == 2 && first.skippedInactive == 1 && first.updated == 0)
        #expect(second.added == 0 && second.unchanged == 2 && second.skippedInactive == 1)
        let devices = try await store.devices()
        #expect(Set(devices.map(\.token)) == [String(repeating: "a1", count: 32), String(repeating: "b2", count: 32)])
        #expect(devices.first { $0.userId == 7 }?.environment == .production)
        #expect(devices.allSatisfy { $0.active && $0.source == "import" })
    }

    @Test("a bad entry refuses the whole export, naming it")
    func badEntry() throws {
        let bad = Self.export.replacingOccurrences(of: String(repeating: "b2", count: 32), with: "not-a-token")
        #expect(throws: DeviceTokenExport.Problem(description: "entry 2 (pk 2): the token is not 64 hexadecimal digits")) {
            try DeviceTokenExport.parse(Data(bad.utf8))
        }
        #expect(throws: DeviceTokenExport.Problem.self) { try DeviceTokenExport.parse(Data("{}".utf8)) }
        let twice = Self.export.replacingOccurrences(of: String(repeating: "c3", count: 32), with: String(repeating: "A1", count: 32))
        #expect(throws: DeviceTokenExport.Problem(description: "entry 3 (pk 3): the same token as entry 1; an export lists each token once")) {
            try DeviceTokenExport.parse(Data(twice.utf8))
        }
        let otherModel = Self.export.replacingOccurrences(of: #""pk": 3, "fields""#, with: #""pk": 3, "x": 1, "fields""#)
            .replacingOccurrences(of: #"{"model": "users.devicetoken", "pk": 3"#, with: #"{"model": "users.user", "pk": 3"#)
        #expect(throws: DeviceTokenExport.Problem(description: "entry 3 (pk 3): model is users.user, not users.devicetoken")) {
            try DeviceTokenExport.parse(Data(otherModel.utf8))
        }
    }

    @Test("a token moved to another user is updated; one APNs called gone stays disabled however often Book Corners still lists it")
    func update() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try ModerationStore(path: path)
        let moved = String(repeating: "d4", count: 32)
        let gone = String(repeating: "e5", count: 32)
        try await store.importDevices(
            [.init(userID: 1, token: moved, environment: .sandbox, isActive: true), .init(userID: 1, token: gone, environment: .sandbox, isActive: true)],
            now: Date())
        try await store.disableDevice(token: gone, reason: "Unregistered", now: Date())
        let result = try await store.importDevices(
            [.init(userID: 2, token: moved, environment: .production, isActive: true), .init(userID: 1, token: gone, environment: .sandbox, isActive: true)],
            now: Date())
        #expect(result.updated == 1 && result.unchanged == 1)
        let devices = try await store.devices()
        let movedDevice = try #require(devices.first { $0.token == moved })
        #expect(movedDevice.userId == 2 && movedDevice.active && movedDevice.environment == .production)
        let goneDevice = try #require(devices.first { $0.token == gone })
        #expect(!goneDevice.active && goneDevice.disabledReason == "Unregistered")
    }
}

/// The step from a console that only recorded messages to one that delivers them.
@Suite("Outbox migration to delivery")
struct OutboxDeliveryMigrationTests {
    @Test("messages recorded before delivery keep their expiry, and library news counts as sent by Book Corners")
    func oldMessages() async throws {
        // setup: a database as the console left it before delivery existed
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v10-mirror-present-row-indexes")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO action (idempotencyKey, actorId, actorUsername, targetKind, targetKey, statusSeen, statusWanted, reason, requestId,
                        clientAddress, userAgent, state, nextAttemptAt, createdAt, updatedAt, attempts)
                    VALUES ('k', 3, 'staff', 'library', 'slug', 'pending', 'approved', '', 'r', '127.0.0.1', 'test', 'applied',
                        '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', 1);
                    INSERT INTO outboxMessage (id, actionId, recipientUserId, eventType, payload, headers, status, attempts, createdAt)
                    VALUES ('old-library', 1, 7, 'library.approved', '{}', '{"apns-expiration":"1767830400"}', 'pending', 0, '2026-01-01 00:00:00.000'),
                           ('old-photo', 1, 8, 'photo.approved', '{}', '{"apns-expiration":"1767830400"}', 'pending', 0, '2026-01-01 00:00:00.000');
                    """)
        }
        // act
        let store = try ModerationStore(path: path)
        // check
        let library = try #require(try await store.outboxMessage(id: "old-library"))
        let photo = try #require(try await store.outboxMessage(id: "old-photo"))
        #expect(library.sentByBookCorners && !photo.sentByBookCorners)
        #expect(photo.expiresAt == Date(timeIntervalSince1970: 1_767_830_400))
        #expect(photo.status == .pending && photo.nextAttemptAt == photo.createdAt)
    }
}
