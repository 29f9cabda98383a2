import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary

/// What happens to a request that arrives without a live session: a page keeps its address
/// (`next`), a decision form keeps what was typed (a `KeptForm` under a random one-time key),
/// and the sign-in page says plainly what was not sent. The kept form is only ever shown back
/// as a form: it is sent again by its owner, signed in, with a fresh CSRF token.
struct UnsentWork: Sendable {
    let store: ModerationStore

    /// The only fields a kept form holds: a decision form's own. Never a token, never a password.
    static let keptFieldNames: Set<String> = [
        "decision", "seen", "key", "back", "quick", "confirmed", "reason", "reason_preset", "report_reason", "queue", "anyway", "item",
    ]

    /// On the sign-in address: a decision arrived that could not be kept for anyone.
    static let notSavedParameter = "not_saved"
    /// On the sign-in address: another form (a note, a hand-off, the rotation) arrived without a
    /// live session. The server keeps nothing of it; the page's script may have kept the text.
    static let formNotSentParameter = "form_not_sent"

    /// Whether `path` is a route whose POST is a decision worth keeping.
    static func isDecisionPath(_ path: String) -> Bool {
        if path == SiteURL.librariesBulk.path || path == SiteURL.librariesBulkConfirm.path { return true }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[3] == "decide" else { return false }
        switch parts[1] {
        case "libraries": return ItemReference.isSlug(String(parts[2]))
        case "reports", "photos": return ItemReference.id(String(parts[2])) != nil
        default: return false
        }
    }

    /// Where to send someone whose request came without a live session: sign-in, saying why
    /// (`ending`), where they were going (a page) or what was kept (a decision form). Forms are
    /// kept only for a request whose session was found and had just expired (`owner`, its staff
    /// member): a cookie that names no session, or none at all, can never fill the store.
    func signInPath(for request: inout Request, context: ConsoleRequestContext, ending: SessionEnding?, owner: Int? = nil) async -> String {
        var query: [(name: String, value: String?)] = []
        if let ending {
            query.append(ending == .expired ? ("expired", "1") : ("ended", ending.rawValue))
        }
        let path = request.uri.path
        if request.method == .get || request.method == .head {
            let target = path + (request.uri.query.map { "?" + $0 } ?? "")
            if SafeRedirect.path(target) == target { query.append(("next", target)) }
        } else if request.method == .post, Self.isDecisionPath(path) {
            if let owner, let key = await keep(&request, path: path, owner: owner, context: context) {
                query.append(("kept", key))
            } else {
                // Nobody to keep it for (the session is long gone, or there was none): at least say it was not saved.
                query.append((ending != nil ? Self.notSavedParameter : Self.formNotSentParameter, "1"))
            }
            // Back to the page the form was on after signing in (its script offers back what was typed there).
            if query.allSatisfy({ $0.name != "kept" }), let page = Self.pageOfForm(referer: request.headers[.referer], decisionPath: path) {
                query.append(("next", page))
            }
        } else if request.method == .post, path != SiteURL.signOut.path {
            // Any other form: said to be unsent, and sign-in goes back to the page it was on,
            // whose script offers back what was typed there (kept in the tab, never here).
            query.append((Self.formNotSentParameter, "1"))
            if let page = Self.pageOfForm(referer: request.headers[.referer], formPath: path) { query.append(("next", page)) }
        }
        return SiteURL.signIn.path(query: query)
    }

    /// The page a form was posted from: the `Referer`'s path and query when it is one of ours,
    /// else, for a decision, the item's page (the decision address without `/decide`).
    /// A page that was itself the answer to this form (`formPath`: a refusal, a list being
    /// edited) cannot be opened: its parent page is, as for `/on-call/rotation` and `/on-call`.
    static func pageOfForm(referer: String?, decisionPath: String? = nil, formPath: String? = nil) -> String? {
        if let referer, let url = URLComponents(string: referer), !url.percentEncodedPath.isEmpty {
            var page = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            if url.percentEncodedPath == formPath {
                page = String(url.percentEncodedPath[..<(url.percentEncodedPath.lastIndex(of: "/") ?? url.percentEncodedPath.startIndex)])
            }
            if !page.isEmpty, SafeRedirect.path(page) == page, !page.hasPrefix(SiteURL.signIn.path) { return page }
        }
        let suffix = "/decide"
        guard let decisionPath, decisionPath.hasSuffix(suffix) else { return nil }
        let page = String(decisionPath.dropLast(suffix.count))
        return SafeRedirect.path(page) == page ? page : nil
    }

    /// Keeps the decision fields of the form `request` carries; answers the key for the
    /// address, or nil when there is nothing to keep (or too much: more than `KeptForm.maxCharacters`).
    private func keep(_ request: inout Request, path: String, owner: Int, context: ConsoleRequestContext) async -> String? {
        guard FormBodyDecoder.isForm(request.headers[.contentType]),
            let body = try? await request.collectBody(upTo: context.maxUploadSize)
        else { return nil }
        let fields = Self.fields(of: String(buffer: body)).filter { Self.keptFieldNames.contains($0.name) }
        guard !fields.isEmpty, fields.reduce(0, { $0 + $1.name.count + $1.value.count }) <= KeptForm.maxCharacters else { return nil }
        let key = RandomToken.make()
        do {
            try await store.keep(try KeptForm(id: RandomToken.digest(key), path: path, ownerStaffId: owner, fields: fields, now: Date()), now: Date())
        } catch {
            context.logger.error("unsent form not kept", metadata: ["error": "\(error)"])
            return nil
        }
        return key
    }

    /// The name–value pairs of a form body, in order, decoded.
    static func fields(of body: String) -> [KeptForm.Field] {
        body.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String? { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = parts.first.flatMap(decoded), !name.isEmpty else { return nil }
            return KeptForm.Field(name: name, value: parts.count > 1 ? decoded(parts[1]) ?? "" : "")
        }
    }

    /// "Your rejection of Corner Books (Florence) was not sent": what a kept form would have done, in words.
    func summary(of form: KeptForm) async -> String {
        "Your \(Self.noun(of: form.fields).lowercased()) of \(await itemName(of: form)) was not sent"
    }

    /// The decision a kept form asks for, as a noun: "Rejection", "Approval".
    static func noun(of fields: [KeptForm.Field]) -> String {
        let value = { (name: String) in fields.first { $0.name == name }?.value }
        if value("quick") != nil { return QueuedDecisionNote.noun(.approved) }
        guard let decision = value("decision").flatMap(Decision.init(rawValue:)) else { return "Decision" }
        return QueuedDecisionNote.noun(decision.statusWanted)
    }

    /// The item a kept form is about, named as the mirror knows it.
    func itemName(of form: KeptForm) async -> String {
        let items = form.fields.filter { $0.name == "item" }
        if form.path == SiteURL.librariesBulk.path || form.path == SiteURL.librariesBulkConfirm.path {
            return items.count == 1 ? "1 library" : "\(items.count) libraries"
        }
        let parts = form.path.split(separator: "/")
        guard parts.count == 3, let kind = ModerationAction.TargetKind(pathSegment: String(parts[0])) else { return "an item" }
        let key = String(parts[1])
        let named = await (try? store.targetNames(of: [(kind, key)]))?[DecisionTargetName.key(kind, key)]
        let library = named.map { LibraryText.nameInCity($0.name, city: $0.city) } ?? key
        switch kind {
        case .library: return library
        case .photo: return "the photo proposed for \(library)"
        case .report: return "the report on \(library)"
        }
    }
}

extension ModerationAction.TargetKind {
    /// The kind a decision path's first segment names (`libraries`, `reports`, `photos`).
    init?(pathSegment: String) {
        switch pathSegment {
        case "libraries": self = .library
        case "reports": self = .report
        case "photos": self = .photo
        default: return nil
        }
    }
}
