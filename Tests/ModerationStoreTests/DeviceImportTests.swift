import Foundation
import ModerationStore
import Testing

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
    func idempotent() throws {
        // setup
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try ModerationStore(path: path)
        let entries = try DeviceTokenExport.parse(Data(Self.export.utf8))
        // act
        let first = try store.importDevices(entries, now: Date())
        let second = try store.importDevices(entries, now: Date())
        // check
        #expect(first.added == 2 && first.skippedInactive == 1 && first.updated == 0)
        #expect(second.added == 0 && second.unchanged == 2 && second.skippedInactive == 1)
        let devices = try store.devices()
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
        let otherModel = Self.export.replacingOccurrences(of: #""pk": 3, "fields""#, with: #""pk": 3, "x": 1, "fields""#)
            .replacingOccurrences(of: #"{"model": "users.devicetoken", "pk": 3"#, with: #"{"model": "users.user", "pk": 3"#)
        #expect(throws: DeviceTokenExport.Problem(description: "entry 3 (pk 3): model is users.user, not users.devicetoken")) {
            try DeviceTokenExport.parse(Data(otherModel.utf8))
        }
    }

    @Test("a token reactivated by a newer export, or moved to another user, is updated")
    func update() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try ModerationStore(path: path)
        let token = String(repeating: "d4", count: 32)
        try store.importDevices([.init(userID: 1, token: token, environment: .sandbox, isActive: true)], now: Date())
        try store.disableDevice(token: token, reason: "Unregistered", now: Date())
        let result = try store.importDevices([.init(userID: 2, token: token, environment: .production, isActive: true)], now: Date())
        #expect(result.updated == 1)
        let device = try #require(try store.devices().first)
        #expect(device.userId == 2 && device.active && device.disabledReason.isEmpty && device.environment == .production)
    }
}
