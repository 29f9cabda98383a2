import Foundation
import ModerationStore
import Mustache

/// One labelled field of the entry page.
struct AuditField: MustacheParent {
    let label: String
    let value: String
    let isCode: Bool
    /// Shown on hover: the exact instant of a time.
    var title = ""

    /// "exactly 2026-11-27 08:56:12.345 UTC": the instant the hash covers, to the millisecond,
    /// written as people read a time rather than as ISO 8601's "T…Z".
    static func exactly(_ date: Date) -> String {
        "exactly " + ISOTime.string(date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    static func fields(of entry: AuditEntry) -> [AuditField] {
        func text(_ label: String, _ value: String, code: Bool = false) -> AuditField {
            AuditField(label: label, value: value.isEmpty ? "—" : value, isCode: code && !value.isEmpty)
        }
        // On the team's clock; the instant the hash covers, to the millisecond, on hover.
        func time(_ label: String, _ date: Date) -> AuditField {
            AuditField(label: label, value: TeamClock.stamp(date), isCode: false, title: exactly(date))
        }
        return [
            time("Recorded", entry.recordedAt),
            // A failed or refused sign-in records whatever login was typed: not necessarily anyone on the staff.
            text(
                entry.action == AuditEntry.signInAction && entry.outcome != .succeeded ? "Login typed" : "Staff member",
                entry.actorUsername.isEmpty ? (entry.actorId.map { "a Book Corners user (id \($0))" } ?? "") : entry.actorUsername),
            text("Action", AuditActionName.of(entry.action)),
            // The on-call settings are one row each: their "#1" says nothing.
            text(
                "Target",
                [AuditActionName.kind(entry.targetKind), entry.targetId.isEmpty || entry.targetKind == "oncall" ? "" : "#\(entry.targetId)", entry.targetName]
                    .filter { !$0.isEmpty }.joined(separator: " ")),
            text("Short name (slug)", entry.targetSlug, code: true),
            text("Status before", entry.statusBefore),
            text("Status after", entry.statusAfter),
            text("Reason", entry.reason),
            text("Outcome", entry.outcomeText),
            text("Backend answer", entry.backendStatus.map { "HTTP \($0)" } ?? ""),
            entry.itemCreatedAt.map { time("Submitted", $0) } ?? text("Submitted", ""),
            text("Request id", entry.requestId, code: true),
            text("Client address", entry.clientAddress),
            text("Browser", entry.userAgent),
            text("Action record", entry.actionId.map { "#\($0)" } ?? ""),
            text("Previous hash", entry.previousHash, code: true),
            text("Hash", entry.hash, code: true),
        ]
    }

    func child(named key: String) -> Any? {
        switch key {
        case "label": label
        case "value": value
        case "isCode": isCode
        case "title": title
        case "hasTitle": !title.isEmpty
        default: nil
        }
    }
}
