import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The spreadsheet CSV: the audit log as a person reads it in Excel or LibreOffice, one row per
/// entry with when (on the team's clock), who, what, which item, the reason or note, and how it
/// ended, all in words. No client address, browser, ids or hashes: those are for checking the
/// chain, which the plain CSV and NDJSON do (`console audit verify --export`, which says so when
/// handed this one). Every cell is neutralised against formulas (`AuditCSV.field`).
public struct AuditSpreadsheet: Sendable {
    /// The team's zone, named in the time's header.
    public let zone: TimeZone

    public init(zone: TimeZone) {
        self.zone = zone
    }

    /// The header row.
    public var header: [String] {
        ["When (\(zoneName))", "Who", "What", "Item", "Reason or note", "Result"]
    }

    /// Whether `firstCell` opens a spreadsheet CSV: this one's "When (…)", or "Entry" in the
    /// 25-column files made before it, so verifying either says what to verify instead.
    static func isHeader(firstCell: String?) -> Bool {
        guard let firstCell else { return false }
        return firstCell == "Entry" || (firstCell.hasPrefix("When (") && firstCell.hasSuffix(")"))
    }

    /// "Europe/Rome"; "UTC" for the zones that are UTC by another name.
    var zoneName: String {
        ["GMT", "UTC", "Etc/UTC", "Etc/GMT"].contains(zone.identifier) ? "UTC" : zone.identifier
    }

    /// "2026-11-27 06:51:42": the instant on the team's clock, as spreadsheets read a date-time.
    func localTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down)) + time_t(zone.secondsFromGMT(for: date))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(fields.tm_year + 1900)-\(two(fields.tm_mon + 1))-\(two(fields.tm_mday)) \(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec))"
    }

    /// One entry's row, every cell escaped (`AuditCSV.field`), ending in CRLF.
    func row(
        recordedAt: Date?, actor: String, action: String, targetName: String, targetSlug: String, targetId: String, reason: String,
        storedOutcome: String, outcomeDetail: String
    ) -> String {
        let (outcome, detail, _) = AuditOutcome.decode(stored: storedOutcome, detail: outcomeDetail, action: action)
        // A sign-in that did not succeed names what was typed, which is nobody on the staff yet.
        let attempt = action == AuditEntry.signInAction && outcome != .succeeded
        let what = attempt ? "Sign-in attempt" : AuditActionName.of(action)
        let item = !targetName.isEmpty ? targetName : !targetSlug.isEmpty ? targetSlug : targetId.isEmpty ? "" : "#\(targetId)"
        let cells = [recordedAt.map(localTime) ?? "", actor, what, item, reason, Self.result(outcome, detail: detail)]
        return cells.map(AuditCSV.field).joined(separator: ",") + "\r\n"
    }

    /// How it ended, in words: "Done", "Not sent: someone had changed the item first", "Failed: wrong credentials".
    static func result(_ outcome: AuditOutcome, detail: String) -> String {
        func with(_ words: String) -> String { detail.isEmpty ? words : "\(words): \(detail)" }
        return switch outcome {
        case .applied, .succeeded: "Done"
        case .conflict: "Not sent: someone had changed the item first"
        case .failed: with("Failed")
        case .refused: with("Refused")
        case .ended: with("Ended")
        // The detail is the window the mirror saw it in, in a form for machines.
        case .observed: "Seen at Book Corners"
        }
    }
}
