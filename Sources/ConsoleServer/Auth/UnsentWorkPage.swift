import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The kept decision form, to check and send.
struct UnsentWorkPage: MustacheParent {
    /// One library of a kept bulk form, named as the form carried it.
    struct Item: MustacheParent {
        let name: String

        func child(named key: String) -> Any? {
            key == "name" ? name : nil
        }
    }

    let layout: LayoutModel
    let isKept: Bool
    /// "Your rejection of Corner Books (Florence) was not sent".
    let summary: String
    let actionURL: String
    /// The kept form's key, sent with it so the decision POST spends it (`KeptFormSpending`).
    let keptKey: String
    let discardURL: String
    let fields: [HiddenField]
    /// The rejection reason as it was typed (or chosen), editable before sending.
    let hasReason: Bool
    let reason: String
    let items: [Item]
    let cancelURL: String

    static func gone(layout: LayoutModel) -> UnsentWorkPage {
        UnsentWorkPage(layout: layout)
    }

    private init(layout: LayoutModel) {
        self.layout = layout
        isKept = false
        summary = ""
        actionURL = ""
        keptKey = ""
        discardURL = ""
        fields = []
        hasReason = false
        reason = ""
        items = []
        cancelURL = SiteURL.dashboard.path
    }

    init(layout: LayoutModel, form: KeptForm, key: String, summary: String) {
        self.layout = layout
        isKept = true
        self.summary = summary
        actionURL = form.path
        keptKey = key
        discardURL = SiteURL.unsentWorkDiscard(key).path
        let all = form.fields
        let value = { (name: String) in all.first { $0.name == name }?.value }
        let rejects = value("decision") == Decision.reject.rawValue
        hasReason = rejects
        let typed = (value("reason") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        reason = typed.isEmpty ? value("reason_preset") ?? "" : typed
        let kept = all.filter { !rejects || ($0.name != "reason" && $0.name != "reason_preset") }.map { HiddenField(name: $0.name, value: $0.value) }
        // This page shows the rejection and its reason, editable: it is the confirmation, so Send
        // records it rather than asking a second time on the rejection's own confirmation page.
        fields = rejects && value("confirmed") == nil ? kept + [HiddenField(name: "confirmed", value: "1")] : kept
        items = all.filter { $0.name == "item" }.map { field in
            Item(
                name: LibraryText.displayName(
                    field.value.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) ?? ""))
        }
        cancelURL = SafeRedirect.path(value("back"))
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "isKept": isKept
        case "summary": summary
        case "actionURL": actionURL
        case "keptKey": keptKey
        case "keptField": KeptFormSpending.fieldName
        case "discardURL": discardURL
        case "fields": fields
        case "hasReason": hasReason
        case "reason": reason
        case "items": items
        case "hasItems": !items.isEmpty
        case "cancelURL": cancelURL
        default: nil
        }
    }
}
