import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// Shows a decision form kept when its session had ended, filled in as it was sent, to send
/// again with one click: a normal POST with this session's CSRF token. Shown once; never
/// replayed by the console itself.
struct UnsentWorkController {
    let unsent: UnsentWork
    let renderer: PageRenderer

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.unsentWork.pattern, use: show)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        guard let key = SiteURL.Route.unsentWork.value(in: context.parameters), !key.isEmpty, key.count <= 100 else { throw ConsoleError.notFound }
        let layout = LayoutModel(context: context, title: "Send your decision", active: nil, summary: nil)
        guard let staffId = context.session?.staffId,
            let form = try unsent.store.takeKeptForm(id: RandomToken.digest(key), ownerStaffId: staffId, now: Date()),
            UnsentWork.isDecisionPath(form.path)
        else {
            return try renderer.render(UnsentWorkPage.gone(layout: layout), with: "unsent-work", status: .notFound)
        }
        return try renderer.render(UnsentWorkPage(layout: layout, form: form, summary: unsent.summary(of: form)), with: "unsent-work")
    }
}

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
        fields = []
        hasReason = false
        reason = ""
        items = []
        cancelURL = SiteURL.dashboard.path
    }

    init(layout: LayoutModel, form: KeptForm, summary: String) {
        self.layout = layout
        isKept = true
        self.summary = summary
        actionURL = form.path
        let all = form.fields
        let value = { (name: String) in all.first { $0.name == name }?.value }
        let rejects = value("decision") == Decision.reject.rawValue
        hasReason = rejects
        let typed = (value("reason") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        reason = typed.isEmpty ? value("reason_preset") ?? "" : typed
        fields = all.filter { !rejects || ($0.name != "reason" && $0.name != "reason_preset") }.map { HiddenField(name: $0.name, value: $0.value) }
        items = all.filter { $0.name == "item" }.map { field in
            Item(name: LibraryText.displayName(field.value.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) ?? ""))
        }
        cancelURL = SafeRedirect.path(value("back"))
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "isKept": isKept
        case "summary": summary
        case "actionURL": actionURL
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
