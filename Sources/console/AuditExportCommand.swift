import ArgumentParser
import Foundation
import ModerationStore

/// `console audit export`: a date range of the log as CSV or NDJSON, streamed.
struct AuditExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write audit entries of a range to a file or standard output, chain hashes included.",
        discussion: """
            CSV follows RFC 4180 (UTF-8, header row, CRLF, ISO 8601 UTC times). spreadsheet-csv is the same with a byte-order mark, \
            column names in words, each entry's time on the team's clock as a date-time spreadsheets read, and what happened in words; \
            it is for reading: only csv and ndjson can be checked with `console audit verify --export`. The export itself is recorded in the audit log.
            """)

    @OptionGroup var database: AuditDatabaseOptions
    @OptionGroup var range: AuditRangeOptions

    @Option(name: .long, help: "csv, spreadsheet-csv or ndjson.")
    var format: AuditExportFormat = .csv

    @Option(name: .long, help: "Write here instead of standard output (an existing file is replaced).")
    var output: String?

    func run() async throws {
        let filter = try range.filter()
        try await database.withStore { store in try await export(store, filter: filter) }
    }

    /// No entry, no export: the export is recorded before a byte of it is written, and a file
    /// made for it is removed again when it cannot be.
    private func export(_ store: ModerationStore, filter: AuditFilter) async throws {
        let destination: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else {
                throw ValidationError("Cannot write to \(output).")
            }
            destination = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        } else {
            destination = FileHandle.standardOutput
        }
        do {
            try await store.appendAudit(
                CommandLineActor.entry(
                    action: AuditEntry.exportAction, targetName: "\(format.rawValue) export: \(filter.description)", outcome: .succeeded))
        } catch {
            if let output {
                try? destination.close()
                try? FileManager.default.removeItem(atPath: output)
            }
            throw CommandFailure("The export was not made: the audit log could not record it (\(error)). Nothing was written.")
        }
        let progress = await ExportProgress(total: try store.auditEntryCount(filter))
        var exporter = AuditExporter(store: store, filter: filter, format: format, zone: try await store.teamTimeZone())
        var chunk: [UInt8] = []
        while try await exporter.nextChunk(into: &chunk) {
            try chunk.withUnsafeBytes { try destination.write(contentsOf: $0) }
            progress.report(exporter.rowsWritten)
        }
        try destination.synchronize()
        progress.finish(exporter.rowsWritten, destination: output)
    }
}

extension AuditExportFormat: ExpressibleByArgument {}

/// "Exported 120000 of 200000 entries (60 %)" on standard error, rewritten in place, only
/// when standard error is a terminal, so pipes and logs get one closing line.
final class ExportProgress {
    private let total: Int
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private var lastReport = Date.distantPast

    init(total: Int) {
        self.total = total
    }

    func report(_ rows: Int) {
        guard isTerminal, Date().timeIntervalSince(lastReport) > 0.2 else { return }
        lastReport = Date()
        let percent = total == 0 ? 100 : min(100, rows * 100 / total)
        FileHandle.standardError.write(Data("\rExported \(rows) of \(total) entries (\(percent) %)".utf8))
    }

    func finish(_ rows: Int, destination: String?) {
        let seconds = Date().timeIntervalSince(started)
        let place = destination.map { " to \($0)" } ?? ""
        let clear = isTerminal ? "\r\u{1B}[K" : ""
        FileHandle.standardError.write(Data("\(clear)Exported \(rows) entries\(place) in \(String(format: "%.1f", seconds)) s.\n".utf8))
    }
}
