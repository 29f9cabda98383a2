import Foundation
import ModerationStore
import Mustache

/// The page of one audit entry: what was decided, by whom, the chain link that seals it.
struct AuditEntryPage: MustacheParent {
    /// Where the entry's item lives in the console, and how the link says it.
    struct ItemLink: Sendable, Equatable, MustacheParent {
        let href: String
        let label: String

        func child(named key: String) -> Any? {
            switch key {
            case "href": href
            case "label": label
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let row: AuditRow
    let fields: [AuditField]
    // Never nil: a missing name would be looked up further up the context stack.
    let hasItem: Bool
    let itemHref: String
    let itemLabel: String
    let older: AuditRow?
    let newer: AuditRow?
    /// `nil`: the entry is keyed and this console runs without the audit key, so it cannot tell.
    let hashMatches: Bool?
    let chainsToOlder: Bool
    let listURL = SiteURL.audit.path

    init(
        layout: LayoutModel, row: AuditRow, fields: [AuditField], item: ItemLink?, older: AuditRow?, newer: AuditRow?, hashMatches: Bool?,
        chainsToOlder: Bool
    ) {
        self.layout = layout
        self.row = row
        self.fields = fields
        hasItem = item != nil
        itemHref = item?.href ?? ""
        itemLabel = item?.label ?? ""
        self.older = older
        self.newer = newer
        self.hashMatches = hashMatches
        self.chainsToOlder = chainsToOlder
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "row": row
        case "fields": fields
        case "hasItem": hasItem
        case "itemHref": itemHref
        case "itemLabel": itemLabel
        case "older": older
        case "newer": newer
        case "hashMatches": hashMatches == true
        case "hashBroken": hashMatches == false
        case "hashUnchecked": hashMatches == nil
        case "chainsToOlder": chainsToOlder
        case "listURL": listURL
        default: nil
        }
    }
}
