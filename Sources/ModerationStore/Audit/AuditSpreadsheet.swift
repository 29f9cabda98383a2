import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the spreadsheet CSV adds for people who read the log in Excel or LibreOffice: column
/// names in words, the time each entry was recorded on the team's clock as a date-time a
/// spreadsheet recognises, and what happened in words beside the action's machine name.
/// The plain CSV and NDJSON keep the machine names; only they can be verified
/// (`console audit verify --export`), which says so when handed this one.
public struct AuditSpreadsheet: Sendable {
    /// The team's zone, named in the local time's header.
    public let zone: TimeZone

    public init(zone: TimeZone) {
        self.zone = zone
    }

    /// The first column's name: how `AuditCSV` knows this file for the spreadsheet variant.
    static let firstColumn = "Entry"

    /// `AuditExporter.columns` in words, in the same order.
    static let readableColumns = [
        firstColumn, "Recorded at (UTC, exact)", "By (id)", "By", "Action (code)", "Item kind", "Item id", "Item short name (slug)",
        "Item name", "Status before", "Status after", "Reason", "Outcome", "Outcome explained", "Book Corners answer (HTTP status)",
        "Request id", "Client address", "Browser", "Item sent at (UTC)", "Decision id", "Previous hash", "Hash",
    ]

    /// Where the two added columns go: before the UTC instant, and before the action's code.
    static let localTimeBefore = 1
    static let wordsBefore = 4

    /// The header row's names: `readableColumns` with "Recorded at (Europe/Rome)", its "UTC offset"
    /// (the hour the clocks go back happens twice) and "What happened" added.
    public var header: [String] {
        var names = Self.readableColumns
        names.insert("What happened", at: Self.wordsBefore)
        names.insert(contentsOf: ["Recorded at (\(zoneName))", "UTC offset"], at: Self.localTimeBefore)
        return names
    }

    /// "Europe/Rome"; "UTC" for the zones that are UTC by another name.
    var zoneName: String {
        ["GMT", "UTC", "Etc/UTC", "Etc/GMT"].contains(zone.identifier) ? "UTC" : zone.identifier
    }

    /// "2026-11-27 06:51:42,+01:00": the instant on the team's clock, as spreadsheets read a
    /// date-time, and the offset from UTC then: two CSV fields.
    func localTimeAndOffset(_ date: Date) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let minutes = abs(offset) / 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return localTime(date) + "," + (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// "2026-11-27 06:51:42": the instant on the team's clock, as spreadsheets read a date-time.
    func localTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down)) + time_t(zone.secondsFromGMT(for: date))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(fields.tm_year + 1900)-\(two(fields.tm_mon + 1))-\(two(fields.tm_mday)) \(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec))"
    }

    /// The action in words, as a CSV field.
    func words(forAction action: String) -> String {
        AuditCSV.field(AuditActionName.of(action))
    }
}
