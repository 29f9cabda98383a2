import ArgumentParser
import Foundation
import ModerationStore
import ModerationVocabulary

/// `console devices …`: the device tokens pushes go to.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Import, list and remove the device tokens pushes are delivered to.",
        subcommands: [DevicesImportCommand.self, DevicesListCommand.self, DevicesRemoveCommand.self])
}

/// `console devices import FILE`: Book Corners' own export of its device tokens.
struct DevicesImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import Book Corners' device tokens from its export.",
        discussion: """
            FILE is the backend's own export, `python manage.py dumpdata users.DeviceToken`. Running it again changes \
            nothing more; inactive tokens are skipped. A file with one bad entry is refused whole: nothing is imported.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Argument(help: "The export: a JSON list of users.devicetoken records.")
    var file: String

    func run() async throws {
        // The lock first: the file may be slow to read (a pipe), and a restore must not start meanwhile.
        try await database.withStore { store in try await importDevices(into: store) }
    }

    private func importDevices(into store: ModerationStore) async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CommandFailure("Cannot read \(file); check the path and its permissions.")
        }
        let entries: [DeviceTokenExport.Entry]
        do {
            entries = try DeviceTokenExport.parse(data)
        } catch {
            let problem = (error as? DeviceTokenExport.Problem)?.description ?? "not a device token export"
            throw CommandFailure("\(file) was not imported: \(problem)")
        }
        let result = try await store.importDevices(entries, now: Date())
        let imported = result.added + result.updated + result.unchanged
        ConsoleOutput.write(
            "Imported \(CountText.of(imported, "device token", "device tokens")): \(result.added) added, \(result.updated) updated, "
                + "\(result.unchanged) unchanged; \(result.skippedInactive) inactive skipped.\n")
    }
}

/// `console devices list`: every device, newest first.
struct DevicesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List device tokens, newest first.")

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "Only this Book Corners user's devices.")
    var user: Int?

    func run() async throws {
        let user = self.user
        let devices = try await database.withStore { store in try await store.devices(userID: user) }
        guard !devices.isEmpty else {
            ConsoleOutput.write(user.map { "User \($0) has no devices.\n" } ?? "No devices.\n")
            return
        }
        ConsoleOutput.write(DeviceTable(devices).text)
    }
}

/// `console devices remove TOKEN-OR-ID`.
struct DevicesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a device: pushes stop going to it (an import brings an active one back).")

    @OptionGroup var database: AuditDatabaseOptions

    @Argument(help: "The device's id (as `console devices list` shows it) or its 64-hexadecimal-digit token.")
    var device: String

    func run() async throws {
        try await database.withStore { store in try await remove(from: store) }
        ConsoleOutput.write("Removed device \(device).\n")
    }

    private func remove(from store: ModerationStore) async throws {
        do {
            // An id is a short number; a token is always 64 digits, even one without letters.
            if device.count < 64, let id = Int64(device) {
                try await store.removeDevice(id: id)
            } else {
                try await store.removeDevice(token: device)
            }
        } catch DeviceStoreError.notFound {
            throw CommandFailure("No device \(device); `console devices list` shows the ids and tokens there are.")
        } catch DeviceStoreError.invalidToken {
            throw CommandFailure("'\(device)' is neither a device id nor a 64-hexadecimal-digit token.")
        }
    }
}
