import ArgumentParser
import Foundation
import ModerationStore

/// `console audit …`: maintenance of the audit log.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Maintain the audit log.", subcommands: [VerifyCommand.self])

    /// `console audit verify`: walks the hash chain.
    struct VerifyCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check that no audit entry was changed, removed or reordered.",
            discussion: "Prints \"OK, N entries, head <hash>\" or the first entry that does not verify and why; exits non-zero when the chain is broken.")

        @Option(name: .long, help: "The console's SQLite file. (env: CONSOLE_DATABASE, default: data/console.sqlite)")
        var database: String?

        func run() async throws {
            let path = EnvironmentOption.string(database, "CONSOLE_DATABASE", default: "data/console.sqlite")
            guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("No database at \(path).") }
            switch try ModerationStore(path: path).verifyAuditChain() {
            case .intact(let entries, let head):
                ConsoleOutput.write("OK, \(entries) entries, head \(head)\n")
            case .broken(let id, let reason):
                ConsoleOutput.write("BROKEN at entry \(id): \(reason)\n")
                throw ExitCode(1)
            }
        }
    }
}
