import Foundation
import GRDB
import Testing

@testable import ModerationStore

/// A device token's states with APNs (`Device.State`): what APNs' answers and Book Corners'
/// exports do to them, each move guarded.
@Suite("Device token states")
struct DeviceStateTests {
    private let path = FileManager.default.temporaryDirectory.appendingPathComponent("device-states-\(UUID().uuidString).sqlite").path
    private let token = String(repeating: "5a", count: 32)

    private func store(with environment: Device.Environment = .sandbox) async throws -> ModerationStore {
        let store = try ModerationStore(path: path)
        try await store.importDevices([.init(userID: 4, token: token, environment: environment, isActive: true)], now: Date())
        return store
    }

    private func device(_ store: ModerationStore) async throws -> Device {
        try #require(try await store.devices(userID: 4).first)
    }

    private func report(_ store: ModerationStore, _ finding: DeviceReport.Finding, in environment: Device.Environment?, at date: Date = Date()) throws {
        _ = try store.writer.write { db in
            try ModerationStore.apply(DeviceReport(token: token, environment: environment, finding: finding, reason: "APNs answered it", at: date), db)
        }
    }

    @Test("the transitions are one table: every state can come back to active, and only active goes to APNs")
    func transitions() {
        #expect(Device.State.sources(of: .active) == [.unregistered, .wrongEnvironment, .refused])
        #expect(Device.State.active.allowedNext == [.unregistered, .wrongEnvironment])
        #expect(Device.State.wrongEnvironment.allowedNext == [.active, .unregistered, .refused])
        #expect(Device.State.refused.allowedNext == [.active])
    }

    @Test(
        "a 410 whose APNs time is older than the registration a re-import showed (the push was on its way during the import) leaves the token active; a later one stops it"
    )
    func unregisteredOlderThanReimport() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        let registered = Date(timeIntervalSince1970: 1_795_000_000)
        // The re-import shows the app registered with the token at `registered`.
        try await store.importDevices([.init(userID: 4, token: token, environment: .sandbox, isActive: true, updatedAt: registered)], now: Date())
        try report(store, .unregistered(since: registered.addingTimeInterval(-60)), in: .sandbox)
        #expect(try await device(store).state == .active, "APNs' time is before the registration: the token is valid again")
        try report(store, .unregistered(since: registered.addingTimeInterval(60)), in: .sandbox)
        let stopped = try await device(store)
        #expect(stopped.state == .unregistered && !stopped.active)
        #expect(stopped.invalidSince == registered.addingTimeInterval(60))
    }

    @Test("410 Unregistered: stopped as of APNs' time; an export whose updated_at or last_used_at is not later leaves it stopped, a later one brings it back")
    func unregistered() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        let since = Date(timeIntervalSince1970: 1_780_000_000)
        try report(store, .unregistered(since: since), in: .sandbox)
        let stopped = try await device(store)
        #expect(stopped.state == .unregistered && !stopped.active && stopped.invalidSince == since)
        #expect(try await store.deliverableDevices(userIDs: [4]).isEmpty)
        // the same time, or earlier, does not count; nor does no time at all
        for entry in [
            DeviceTokenExport.Entry(userID: 4, token: token, environment: .sandbox, isActive: true),
            .init(userID: 4, token: token, environment: .sandbox, isActive: true, updatedAt: since, lastUsedAt: since.addingTimeInterval(-1)),
        ] {
            #expect(try await store.importDevices([entry], now: Date()).unchanged == 1)
            #expect(try await device(store).state == .unregistered)
        }
        // a use after it: back
        let result = try await store.importDevices(
            [
                .init(
                    userID: 4, token: token, environment: .sandbox, isActive: true, updatedAt: since.addingTimeInterval(-60),
                    lastUsedAt: since.addingTimeInterval(1))
            ],
            now: Date())
        #expect(result.updated == 1)
        let back = try await device(store)
        #expect(back.state == .active && back.active && back.invalidSince == nil && back.disabledAt == nil && back.disabledReason.isEmpty)
    }

    @Test(
        "BadDeviceToken: wrong environment, offered in the other one; delivered there, active in it; refused there too, refused; an import brings either back")
    func wrongEnvironment() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store(with: .sandbox)
        let marked = Date()
        try report(store, .badDeviceToken, in: .sandbox, at: marked)
        let wrong = try await device(store)
        #expect(wrong.state == .wrongEnvironment && !wrong.active && wrong.disabledReason == "APNs answered it")
        #expect(abs((wrong.disabledAt ?? .distantPast).timeIntervalSince(marked)) < 0.01)
        #expect(wrong.stateText.contains("BadDeviceToken in sandbox"), "\(wrong.stateText)")
        #expect(try await store.deliverableDevices(userIDs: [4])[4]?.map(\.environment) == [.production], "offered in the other environment")
        // a success in the same environment says nothing of the other: no change
        try report(store, .delivered, in: .sandbox)
        #expect(try await device(store).state == .wrongEnvironment)
        // delivered in production: that is its environment
        try report(store, .delivered, in: .production)
        let back = try await device(store)
        #expect(back.state == .active && back.environment == .production && back.lastSuccessAt != nil)
        // refused in both
        try report(store, .badDeviceToken, in: .production)
        try report(store, .badDeviceToken, in: .sandbox)
        #expect(try await device(store).state == .refused)
        #expect(try await store.deliverableDevices(userIDs: [4]).isEmpty)
        // any import listing it brings it back, in the export's environment
        #expect(try await store.importDevices([.init(userID: 4, token: token, environment: .production, isActive: true)], now: Date()).updated == 1)
        let restored = try await device(store)
        #expect(restored.state == .active && restored.environment == .production)
    }

    @Test("its owner adding a token again makes it active from any state")
    func ownerAddsAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await store()
        try report(store, .unregistered(since: Date()), in: nil)
        let added = try await store.addDevice(userID: 4, token: token, environment: .production, now: Date())
        #expect(added.state == .active)
        let readded = try await device(store)
        #expect(readded.state == .active && readded.active)
    }

    @Test("the export's updated_at and last_used_at are read (Z, offsets, fractions, null); a time that is not one refuses the export, naming the entry")
    func exportTimes() throws {
        let export = """
            [{"model": "users.devicetoken", "pk": 1, "fields": {"user": 1, "token": "\(String(repeating: "a1", count: 32))", "environment": "production", "is_active": true,
              "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-02-01T10:00:00.123456Z", "last_used_at": null}},
             {"model": "users.devicetoken", "pk": 2, "fields": {"user": 2, "token": "\(String(repeating: "b2", count: 32))", "environment": "sandbox", "is_active": true,
              "updated_at": "2026-02-01T12:00:00+02:00", "last_used_at": "2026-03-01T00:00:00Z"}}]
            """
        let entries = try DeviceTokenExport.parse(Data(export.utf8))
        #expect(entries[0].updatedAt.map { Int($0.timeIntervalSince1970) } == 1_769_940_000 && entries[0].lastUsedAt == nil)
        #expect(entries[1].updatedAt.map { Int($0.timeIntervalSince1970) } == 1_769_940_000)
        #expect(entries[1].registeredAt.map { Int($0.timeIntervalSince1970) } == 1_772_323_200)
        let bad = export.replacingOccurrences(of: #""last_used_at": "2026-03-01T00:00:00Z""#, with: #""last_used_at": "yesterday""#)
        #expect(throws: DeviceTokenExport.Problem(description: "entry 2 (pk 2): last_used_at is not an ISO 8601 time")) {
            try DeviceTokenExport.parse(Data(bad.utf8))
        }
    }

    @Test("tokens disabled before states existed: BadDeviceToken ones become wrong-environment (tried in the other one), the rest unregistered since then")
    func migration() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v21-audit-keyed")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (userId, token, environment, active, disabledReason, disabledAt, source, createdAt) VALUES
                      (1, '\(String(repeating: "11", count: 32))', 'sandbox', 0, 'APNs answered BadDeviceToken (HTTP 400): x', '2026-01-02 00:00:00.000', 'import', '2026-01-01 00:00:00.000'),
                      (2, '\(String(repeating: "22", count: 32))', 'sandbox', 0, 'APNs answered Unregistered (HTTP 410): x', '2026-01-03 00:00:00.000', 'import', '2026-01-01 00:00:00.000'),
                      (3, '\(String(repeating: "33", count: 32))', 'production', 1, '', NULL, 'staff', '2026-01-01 00:00:00.000');
                    """)
        }
        try queue.close()
        let devices = try await ModerationStore(path: path).devices().sorted { $0.userId < $1.userId }
        #expect(devices.map(\.state) == [.wrongEnvironment, .unregistered, .active])
        #expect(devices[1].invalidSince == devices[1].disabledAt && devices[0].invalidSince == nil)
    }
}
