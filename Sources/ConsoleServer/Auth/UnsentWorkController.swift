import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// Shows a decision form kept when its session had ended, filled in as it was sent, to send
/// again with one click: a normal POST with this session's CSRF token. Looking at it spends
/// nothing (a link prefetch must not use it up): the POST that sends it (`KeptFormSpending`)
/// or discards it does. Never replayed by the console itself.
struct UnsentWorkController {
    let unsent: UnsentWork
    let renderer: PageRenderer
    let sessions: StaffSessions

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.unsentWork.pattern, use: show)
        router.post(SiteURL.Route.unsentWorkDiscard.pattern, use: discard)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        guard let key = SiteURL.Route.unsentWork.value(in: context.parameters), !key.isEmpty, key.count <= 100 else { throw ConsoleError.notFound }
        let layout = LayoutModel(context: context, title: "Send your decision", active: nil, summary: nil)
        guard let staffId = context.session?.staffId,
            let form = try await unsent.store.keptForm(id: RandomToken.digest(key), ownerStaffId: staffId, now: Date()),
            UnsentWork.isDecisionPath(form.path)
        else {
            return try renderer.render(UnsentWorkPage.gone(layout: layout), with: "unsent-work", status: .notFound)
        }
        return try await renderer.render(UnsentWorkPage(layout: layout, form: form, key: key, summary: unsent.summary(of: form)), with: "unsent-work")
    }

    /// "Do not send": the kept form is dropped, and the person goes back where the form was sent from.
    @Sendable func discard(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let key = SiteURL.Route.unsentWorkDiscard.value(in: context.parameters), !key.isEmpty, key.count <= 100 else { throw ConsoleError.notFound }
        _ = try await request.decodeForm(as: CSRFForm.self, context: context)
        let id = RandomToken.digest(key)
        let form = try await unsent.store.keptForm(id: id, ownerStaffId: session.staffId, now: Date())
        let discarded = try await unsent.store.spendKeptForm(id: id, ownerStaffId: session.staffId)
        try await sessions.flash(
            discarded ? "Not sent: your kept decision was discarded, and nothing was recorded." : "That kept decision was no longer there; nothing was sent.",
            sessionID: session.id)
        let back = form.map { form in SafeRedirect.path(form.fields.first { $0.name == "back" }?.value) } ?? SiteURL.dashboard.path
        return .redirect(to: back, type: .normal)
    }
}

/// Spends a kept form once the decision POST that carries its key (`unsent`, from the Send
/// form of `/unsent/<key>`) has been accepted: the form then cannot be sent a second time from
/// its page. A refused POST (a problem shown on the form) leaves it to send again.
struct KeptFormSpending: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    static let fieldName = "unsent"
    let store: ModerationStore

    private struct Reference: Decodable {
        let unsent: String?
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, UnsentWork.isDecisionPath(request.uri.path), let staffId = context.session?.staffId else {
            return try await next(request, context)
        }
        var request = request
        let key = try await request.decodeForm(as: Reference.self, context: context).unsent
        let response = try await next(request, context)
        if let key, !key.isEmpty, key.count <= 100, response.status.code < 400 {
            try await store.spendKeptForm(id: RandomToken.digest(key), ownerStaffId: staffId)
        }
        return response
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
        fields = all.filter { !rejects || ($0.name != "reason" && $0.name != "reason_preset") }.map { HiddenField(name: $0.name, value: $0.value) }
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
