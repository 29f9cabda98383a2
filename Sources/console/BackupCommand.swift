import ArgumentParser
import Foundation
import ModerationStore
import ModerationVocabulary

/// `console backup`: a consistent copy of the database, taken while consoles keep running.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the console's database to a file while the console keeps running, and check the copy.",
        discussion: """
            Uses SQLite's backup API, so the copy is one consistent moment however busy the console is. The copy is \
            written beside FILE under a temporary name, checked (SQLite's integrity check, the audit chain, with \
            --audit-key when it is keyed) and only then renamed to FILE. The key files are not in the database: \
            back them up too (see the README).
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "The file to write the copy to.")
    var to: String

    @Flag(name: .long, help: "Replace FILE if it exists.")
    var force = false

    func run() async throws {
        let (to, force) = (to, force)
        let check = try await database.withStore { store in
            do {
                return try store.backup(to: to, replacing: force)
            } catch let error as DatabaseCopyError {
                throw CommandFailure(error.description)
            }
        }
        ConsoleOutput.write(DatabaseCopyLines.lines(check, copiedTo: to))
    }
}

/// What a backup or restore prints: one line each for where, the check, and the audit chain.
enum DatabaseCopyLines {
    static func lines(_ check: DatabaseCopyCheck, copiedTo path: String, verb: String = "Backed up") -> String {
        let keyed = check.keyed ? ", keyed" : ""
        let head = check.headID.map { "head entry \($0), hash \(check.head)" } ?? "empty log"
        return """
            \(verb) to \(path)
            Integrity: ok
            Audit chain: OK, \(CountText.of(check.entries, "entry", "entries"))\(keyed), \(head)

            """
    }
}
