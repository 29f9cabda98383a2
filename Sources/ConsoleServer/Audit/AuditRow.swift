import Foundation
import ModerationStore
import Mustache

/// One audit entry as a table row.
struct AuditRow: MustacheParent {
    let id: Int64
    let href: String
    let actor: String
    let action: String
    let targetKind: String
    let target: String
    let statusChange: String
    let reason: String
    let hasReason: Bool
    let outcome: String
    /// `applied`, `conflict`, … as a CSS-safe word for the status badge.
    let outcomeClass: String
    let recordedAt: String
    let recordedUTC: String
    /// "2026-11-24 21:30 CET": on the team's clock, with its zone, for a log people print.
    let recordedLocal: String
    let age: String
    let hash: String
    let shortHash: String

    /// `city` is given when the target's name repeats in the list: it tells them apart.
    init(_ entry: AuditEntry, now: Date, clock: OnCallTimeText = OnCallTimeText(zone: .gmt), city: String? = nil) {
        id = entry.id ?? 0
        href = SiteURL.auditEntry(id).path
        // A sign-in that did not succeed names what was typed, which is nobody on the staff yet.
        let attempt = entry.action == AuditEntry.signInAction && entry.outcome != .succeeded
        actor =
            entry.actorUsername.isEmpty
            ? "—" : attempt ? "typed “\(Self.shortened(entry.actorUsername))”" : entry.actorUsername
        action = attempt ? "Sign-in attempt" : AuditActionName.of(entry.action)
        targetKind = entry.targetKind
        let name = entry.targetName.isEmpty ? entry.targetSlug : entry.targetName
        let plain = name.isEmpty ? (entry.targetId.isEmpty ? "" : "#\(entry.targetId)") : name
        target = city.map { "\(plain) (\($0))" } ?? plain
        statusChange = entry.statusBefore.isEmpty && entry.statusAfter.isEmpty ? "" : "\(entry.statusBefore) → \(entry.statusAfter)"
        reason = entry.reason
        hasReason = !entry.reason.isEmpty
        // The window of a change made outside the console is on the entry's own page.
        outcome = entry.isObserved ? AuditEntry.outsideActor : entry.outcomeText
        outcomeClass = entry.outcome.rawValue
        recordedAt = TimeText.iso(entry.recordedAt)
        recordedUTC = TimeText.utc(entry.recordedAt)
        recordedLocal = clock.stamp(entry.recordedAt)
        age = TimeText.age(of: entry.recordedAt, now: now)
        hash = entry.hash
        shortHash = String(entry.hash.prefix(12))
    }

    /// At most 40 characters, then "…": a login typed by anyone must not fill the row.
    private static func shortened(_ text: String) -> String {
        text.count > 40 ? text.prefix(40) + "…" : text
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "href": href
        case "actor": actor
        case "action": action
        case "targetKind": targetKind
        case "target": target
        case "statusChange": statusChange
        case "reason": reason
        case "hasReason": hasReason
        case "outcome": outcome
        case "outcomeClass": outcomeClass
        case "recordedAt": recordedAt
        case "recordedUTC": recordedUTC
        case "recordedLocal": recordedLocal
        case "age": age
        case "hash": hash
        case "shortHash": shortHash
        default: nil
        }
    }
}
