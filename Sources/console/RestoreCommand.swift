import ArgumentParser
import Foundation
import ModerationStore

/// `console restore`: puts a backup in place of the database, never under a running console.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the console's database with a backup, after checking the backup.",
        discussion: """
            Refuses while a `console serve` or `console demo` runs on the database (each holds <database>.lock). \
            FILE is checked first on a copy (SQLite's integrity check, migrations this console knows, the audit \
            chain, with --audit-key when it is keyed); then the database is replaced in one rename. Whatever \
            was recorded after the backup is lost: take a backup of the current database first if in doubt.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "The backup to restore, from `console backup`.")
    var from: String

    func run() async throws {
        let key = try database.loadAuditKey()
        let databasePath = database.path
        let check: DatabaseCopyCheck
        do {
            check = try ModerationStore.restore(from: from, to: databasePath, auditKey: key)
        } catch let error as DatabaseLockError {
            throw CommandFailure("Not restored. \(error.description)")
        } catch let error as DatabaseCopyError {
            throw CommandFailure("Not restored. \(error.description)")
        }
        ConsoleOutput.write(DatabaseCopyLines.lines(check, copiedTo: databasePath, verb: "Restored \(from)"))
    }
}
