import Foundation
import ModerationStore
import TestSupport
import Testing

/// The real `console devices …` commands, on a real database, with Book Corners' own export.
@Suite("console devices: import, list, remove", .timeLimit(.minutes(3)))
struct DevicesCommandTests {
    private static var binary: String { RepositoryPaths.root.appendingPathComponent(".build/debug/console").path }

    private func console(_ arguments: String...) throws -> ChildProcess {
        try ChildProcess.run(Self.binary, arguments)
    }

    private static let alicePhone = String(repeating: "a1", count: 32)
    private static let aliceXcode = String(repeating: "0f", count: 32)
    private static let bobOldPhone = String(repeating: "b2", count: 32)

    /// What `python manage.py dumpdata users.DeviceToken` prints: two active tokens (one from an
    /// Xcode build), one the app turned off; extra fields the console does not read.
    private static let export = """
        [
        {"model": "users.devicetoken", "pk": 11, "fields": {"user": 7, "token": "\(alicePhone.uppercased())", "environment": "production", "is_active": true, "created_at": "2026-10-01T09:12:44.120Z", "updated_at": "2026-11-02T18:00:01.002Z"}},
        {"model": "users.devicetoken", "pk": 12, "fields": {"user": 7, "token": "\(aliceXcode)", "environment": "sandbox", "is_active": true, "created_at": "2026-10-03T10:00:00Z", "updated_at": "2026-10-03T10:00:00Z"}},
        {"model": "users.devicetoken", "pk": 13, "fields": {"user": 9, "token": "\(bobOldPhone)", "environment": "production", "is_active": false, "created_at": "2025-01-05T08:30:00Z", "updated_at": "2025-06-30T21:45:10Z"}}
        ]
        """

    private func database(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("console.sqlite")
        _ = try ModerationStore(path: path)
        return path
    }

    private func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("import counts what it added and skipped, and a second import of the same export changes nothing")
    func importIsIdempotent() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try database(in: directory)
        let file = directory.path("devicetokens.json")
        try write(Self.export, to: file)

        // act
        let first = try console("devices", "import", file, "--database", path)
        let second = try console("devices", "import", file, "--database", path)

        // check
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(first.output == "Imported 2 device tokens: 2 added, 0 updated, 0 unchanged; 1 inactive skipped.\n")
        #expect(second.status == 0, "\(second.errorOutput)")
        #expect(second.output == "Imported 2 device tokens: 0 added, 0 updated, 2 unchanged; 1 inactive skipped.\n")
        let devices = try await ModerationStore(path: path).devices()
        #expect(Set(devices.map(\.token)) == [Self.alicePhone, Self.aliceXcode])
        #expect(devices.first { $0.token == Self.aliceXcode }?.environment == .sandbox)
        #expect(devices.allSatisfy { $0.userId == 7 && $0.active && $0.source == "import" })
    }

    @Test("a token that moved to another user (or environment) since the last import is updated")
    func importUpdates() async throws {
        // setup: the export imported, then Alice's phone passed on to user 8 (a token APNs called
        // gone stays disabled instead: ModerationStoreTests' DeviceImportTests)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try database(in: directory)
        let store = try ModerationStore(path: path)
        _ = try await store.importDevices(try DeviceTokenExport.parse(Data(Self.export.utf8)), now: Date())
        let file = directory.path("later.json")
        try write(Self.export.replacingOccurrences(of: #""pk": 11, "fields": {"user": 7"#, with: #""pk": 11, "fields": {"user": 8"#), to: file)

        // act
        let run = try console("devices", "import", file, "--database", path)

        // check
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output == "Imported 2 device tokens: 0 added, 1 updated, 1 unchanged; 1 inactive skipped.\n")
        let phone = try #require(try await store.devices().first { $0.token == Self.alicePhone })
        #expect(phone.userId == 8 && phone.active && phone.disabledReason.isEmpty)
    }

    @Test("an export with one bad entry, or not an export at all, exits 1 with the problem on one line and imports nothing")
    func malformedImportsNothing() async throws {
        // setup: the good export with a cut-off token in its second entry
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try database(in: directory)
        let broken = directory.path("broken.json")
        try write(Self.export.replacingOccurrences(of: Self.aliceXcode, with: "0f0f0f"), to: broken)
        let notJSON = directory.path("notes.txt")
        try write("token list\nsee wiki\n", to: notJSON)

        // act
        let badEntry = try console("devices", "import", broken, "--database", path)
        let badFile = try console("devices", "import", notJSON, "--database", path)

        // check
        #expect(badEntry.status == 1)
        #expect(badEntry.errorOutput == "Error: \(broken) was not imported: entry 2 (pk 12): the token is not 64 hexadecimal digits\n")
        #expect(badFile.status == 1)
        #expect(badFile.errorOutput.hasPrefix("Error: \(notJSON) was not imported: not a dumpdata export of users.DeviceToken"))
        #expect(badFile.errorOutput.filter { $0 == "\n" }.count == 1, "one line: \(badFile.errorOutput)")
        #expect(try await ModerationStore(path: path).devices().isEmpty)
    }

    @Test("list shows each device with its user, environment, status and a shortened token; --user narrows it")
    func list() async throws {
        // setup: the export imported, one device disabled by APNs
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try database(in: directory)
        let store = try ModerationStore(path: path)
        _ = try await store.importDevices(try DeviceTokenExport.parse(Data(Self.export.utf8)), now: Date())
        try await store.addDevice(userID: 3, token: Self.bobOldPhone, environment: .production, now: Date())
        try await store.disableDevice(token: Self.bobOldPhone, reason: "Unregistered", now: Date())

        // act
        let all = try console("devices", "list", "--database", path)
        let user7 = try console("devices", "list", "--user", "7", "--database", path)
        let nobody = try console("devices", "list", "--user", "99", "--database", path)

        // check
        #expect(all.status == 0, "\(all.errorOutput)")
        let lines = all.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(
            lines == [
                "ID USER ENVIRONMENT STATUS LAST SUCCESS SOURCE TOKEN",
                "3 3 production unregistered: Unregistered never staff b2b2b2b2…b2b2",
                "2 7 sandbox active never import 0f0f0f0f…0f0f",
                "1 7 production active never import a1a1a1a1…a1a1",
            ])
        #expect(!all.output.contains(Self.alicePhone), "whole tokens stay out of terminals and logs")
        #expect(user7.output.split(separator: "\n").count == 3)
        #expect(nobody.status == 0 && nobody.output == "User 99 has no devices.\n")
    }

    @Test("remove takes a token or an id; an unknown one exits 1 and says where to look")
    func remove() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try database(in: directory)
        let store = try ModerationStore(path: path)
        _ = try await store.importDevices(try DeviceTokenExport.parse(Data(Self.export.utf8)), now: Date())
        let xcodeID = try #require(try await store.devices().first { $0.token == Self.aliceXcode }?.id)

        // act
        let byToken = try console("devices", "remove", Self.alicePhone.uppercased(), "--database", path)
        let byID = try console("devices", "remove", String(xcodeID), "--database", path)
        let again = try console("devices", "remove", Self.alicePhone, "--database", path)
        let gibberish = try console("devices", "remove", "not-a-token", "--database", path)

        // check
        #expect(byToken.status == 0 && byToken.output == "Removed device \(Self.alicePhone.uppercased()).\n", "\(byToken.errorOutput)")
        #expect(byID.status == 0, "\(byID.errorOutput)")
        await #expect(try store.devices().isEmpty)
        #expect(again.status == 1)
        #expect(again.errorOutput == "Error: No device \(Self.alicePhone); `console devices list` shows the ids and tokens there are.\n")
        #expect(gibberish.status == 1)
        #expect(gibberish.errorOutput.contains("is neither a device id nor a 64-hexadecimal-digit token"))
    }
}
