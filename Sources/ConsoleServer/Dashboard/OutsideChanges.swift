import Foundation
import ModerationStore
import Mustache

/// The dashboard's list of changes made outside the console in the last 24 hours, from the
/// audit log's observed entries.
struct OutsideChanges: MustacheParent {
    struct Change: MustacheParent {
        let label: String
        let change: String
        let href: String
        let age: String

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "change": change
            case "href": href
            case "age": age
            default: nil
            }
        }
    }

    /// Entries shown; the count says how many there were in all.
    static let shown = 10

    let changes: [Change]
    let count: Int
    let isEmpty: Bool
    let auditHref: String

    init(changes: [Change], count: Int) {
        self.changes = changes
        self.count = count
        isEmpty = changes.isEmpty
        auditHref = SiteURL.audit.path(query: [(name: "outcome", value: AuditOutcome.observed.rawValue)])
    }

    /// The newest observed entries of the 24 hours before `now`.
    static func load(from store: ModerationStore, now: Date) async throws -> OutsideChanges {
        let filter = AuditFilter(outcome: .observed, from: now.addingTimeInterval(-86_400))
        let entries = try await store.auditPage(filter, limit: shown).entries
        let changes = entries.map { entry in
            Change(
                label: "\(entry.targetKind) \(entry.targetName.isEmpty ? "#" + entry.targetId : entry.targetName)",
                change: "\(entry.statusBefore) → \(entry.statusAfter)", href: SiteURL.auditEntry(entry.id ?? 0).path,
                age: TimeText.age(of: entry.recordedAt, now: now))
        }
        let count = await entries.count < shown ? entries.count : try store.auditEntryCount(filter)
        return OutsideChanges(changes: changes, count: count)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "changes": changes
        case "count": count
        case "isEmpty": isEmpty
        case "auditHref": auditHref
        default: nil
        }
    }
}
