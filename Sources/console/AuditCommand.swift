import ArgumentParser
import Foundation
import ModerationStore
import ModerationVocabulary

/// `console audit …`: the audit log from the command line.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Verify, export, summarise and prune the audit log.",
        subcommands: [
            AuditVerifyCommand.self, AuditAnchorCommand.self, AuditExportCommand.self, AuditSummaryCommand.self, AuditPruneCommand.self,
            AuditReanchorCommand.self,
        ])
}

/// The database every audit command works on.
struct AuditDatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The console's SQLite file. (env: CONSOLE_DATABASE, default: data/console.sqlite)")
    var database: String?

    @Option(name: .long, help: "The file that keys the audit chain, when it is keyed (32+ random bytes, mode 0600). (env: CONSOLE_AUDIT_KEY)")
    var auditKey: String?

    var path: String { EnvironmentOption.string(database, "CONSOLE_DATABASE", default: "data/console.sqlite") }

    /// The audit key, when one is given; a file that is missing, short or readable by others stops the command.
    func loadAuditKey() throws -> AuditKey? {
        guard let keyPath = EnvironmentOption.optionalString(auditKey, "CONSOLE_AUDIT_KEY") else { return nil }
        do {
            return try AuditKey.load(path: keyPath)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Runs `body` on the store while holding the database's shared lock, as `console serve`
    /// does: a restore is refused while this command runs, and this command refuses (in words)
    /// while a restore runs, so nothing it writes lands in the file a restore moves aside.
    func withStore<Result>(_ body: (ModerationStore) async throws -> Result) async throws -> Result {
        let path = self.path
        guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("No database at \(path).") }
        let lock: DatabaseLock
        do {
            lock = try DatabaseLock.shared(databasePath: path)
        } catch {
            throw CommandFailure(error.description)
        }
        let result = try await body(try ModerationStore(path: path, auditKey: try loadAuditKey()))
        withExtendedLifetime(lock) {}
        return result
    }
}

/// The range and filters of an export or summary, as the audit page offers them.
struct AuditRangeOptions: ParsableArguments {
    @Option(name: .long, help: "First day (yyyy-MM-dd, UTC) or instant (ISO 8601). Default: the oldest entry.")
    var from: String?

    @Option(name: .long, help: "Last day, included (yyyy-MM-dd, UTC), or an instant (ISO 8601), excluded. Default: now.")
    var to: String?

    @Option(name: .long, help: "Only this staff member's entries.")
    var staff: String?

    @Option(name: .long, help: "Only this action, e.g. library.approve.")
    var action: String?

    @Option(name: .long, help: "Only this outcome: \(AuditOutcome.allCases.map(\.rawValue).joined(separator: ", ")).")
    var outcome: String?

    @Option(name: .long, help: "Only entries whose target name or slug contains this text, or whose id is it.")
    var target: String?

    func filter() throws -> AuditFilter {
        func instant(_ text: String?, option: String, dayEnd: Bool) throws -> Date? {
            guard let text else { return nil }
            if let day = ISOTime.parseDay(text) { return dayEnd ? day.addingTimeInterval(86_400) : day }
            if let instant = ISOTime.parse(text) { return instant }
            throw ValidationError("--\(option) must be a day like 2026-11-01 or an instant like 2026-11-01T12:00:00Z, got '\(text)'.")
        }
        let outcome = try self.outcome.map { text in
            guard let outcome = AuditOutcome(rawValue: text) else {
                throw ValidationError("--outcome must be one of \(AuditOutcome.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'.")
            }
            return outcome
        }
        let filter = AuditFilter(
            actorUsername: staff, action: action, outcome: outcome, targetText: target,
            from: try instant(from, option: "from", dayEnd: false), to: try instant(to, option: "to", dayEnd: true))
        if let start = filter.from, let end = filter.to, start >= end { throw ValidationError("--from must come before --to.") }
        return filter
    }
}

/// Who ran a command, as the audit log records it.
enum CommandLineActor {
    static func entry(action: String, targetName: String, outcome: AuditOutcome) -> AuditEntry {
        let user = ProcessInfo.processInfo.environment["USER"] ?? NSUserName()
        return AuditEntry(
            recordedAt: Date(), actorId: nil, actorUsername: "cli:\(user)", action: action, targetKind: "auditLog", targetId: "",
            targetSlug: "", targetName: targetName, statusBefore: "", statusAfter: "", reason: "", outcome: outcome,
            backendStatus: nil, requestId: UUID().uuidString, clientAddress: "command line",
            userAgent: "console \(CommandLine.arguments.dropFirst().prefix(12).joined(separator: " "))", itemCreatedAt: nil,
            actionId: nil)
    }
}

/// `console audit verify`: walks the hash chain.
struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that no audit entry was changed, removed or reordered.",
        discussion: """
            Prints "OK, N entries, head <hash>" or the first entry that does not verify and why; exits non-zero when the chain is broken. \
            With --export, checks a file from `console audit export` or the audit page the same way: every entry against its hash, \
            and the chain wherever the file's ids follow each other (a filtered export skips entries).
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "Check this export file (CSV or NDJSON) instead of the database.")
    var export: String?

    @Option(name: .long, help: "A line from `console audit anchor`: also check that its entry is still there with its hash.")
    var anchor: String?

    func run() async throws {
        if let export {
            try verifyExport(at: export)
            return
        }
        let anchor = try self.anchor.map { line in
            guard let anchor = AuditAnchor(line: line) else {
                throw ValidationError("--anchor must be a line `console audit anchor` printed, like \"audit-anchor id=42 hash=… recorded=… keyed=yes\".")
            }
            return anchor
        }
        try await database.withStore { store in try await Self.verify(store, anchor: anchor) }
    }

    private static func verify(_ store: ModerationStore, anchor: AuditAnchor?) async throws {
        switch try await store.verifyAuditChain() {
        case .intact(let entries, let head):
            ConsoleOutput.write("OK, \(entries) entries, head \(head)\n")
        case .broken(let id, let reason):
            ConsoleOutput.write("BROKEN at entry \(id): \(reason)\n")
            if reason.hasPrefix(AuditChainVerdict.contentMismatchPrefix) {
                // The one kind of damage an older console did by itself, without anyone tampering.
                ConsoleOutput.write(
                    "If this console ran a version from before 2026-11-26, the entry may hold a text that had a NUL byte and was "
                        + "stored cut at it (a sign-in typed with one). Once you have checked that nobody edited it, "
                        + "`console audit reanchor --entry \(id) --reason \"...\"` acknowledges it without rewriting history "
                        + "(README: \"A chain broken by a NUL byte\").\n")
            }
            throw ExitCode(1)
        }
        guard let anchor else { return }
        switch try await store.checkAuditAnchor(anchor) {
        case .matches:
            ConsoleOutput.write("Anchor OK: entry \(anchor.id) still has the anchored hash\n")
        case .prunedBehind(let checkpoint):
            ConsoleOutput.write("Anchor OK: entry \(anchor.id) was pruned; checkpoint entry \(checkpoint) keeps the anchored hash\n")
        case .differs(let found):
            ConsoleOutput.write("ANCHOR BROKEN at entry \(anchor.id): its hash is now \(found), the anchor kept \(anchor.hash) (the log was rewritten)\n")
            throw ExitCode(1)
        case .missing:
            ConsoleOutput.write("ANCHOR BROKEN at entry \(anchor.id): the anchored entry is gone, and no prune checkpoint accounts for it\n")
            throw ExitCode(1)
        }
    }
}

extension AuditVerifyCommand {
    /// Recomputes the chain from an export file alone: CSV cells neutralised against
    /// spreadsheet formulas are restored first, so the hashes match what was recorded.
    private func verifyExport(at path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("Cannot read \(path).") }
        let entries: [AuditEntry]
        do {
            entries = try AuditExportFile.entries(in: String(decoding: data, as: UTF8.self))
        } catch AuditCSVError.spreadsheetVariant {
            throw ValidationError("\(path) cannot be checked. \(AuditCSVError.spreadsheetVariant)")
        } catch {
            throw ValidationError("\(path) is not an audit export: \(error)")
        }
        switch AuditExportFile.verify(entries, key: try database.loadAuditKey()) {
        case .intact(let count, let head, let gaps):
            let skipped = gaps == 0 ? "" : " (\(gaps) gaps in the ids, as in a filtered export: links across them not checked)"
            ConsoleOutput.write("OK, \(CountText.of(count, "entry", "entries")), head \(head)\(skipped)\n")
        case .broken(let id, let reason):
            ConsoleOutput.write("BROKEN at entry \(id): \(reason)\n")
            throw ExitCode(1)
        }
    }
}
