import BookCornersAPI
import Foundation

/// What the library list's bulk form held — the ticked libraries, the decision and the reason —
/// carried back to the list when its review is cancelled or refused, so that nothing ticked or
/// typed is lost. It travels in the list's address (`bulk_item=…`), which works without
/// JavaScript and survives a reload.
struct BulkDraft: Equatable, Sendable {
    /// The parameter names the draft uses; a list's own address (where its forms return) drops them.
    static let parameterPrefix = "bulk_"
    private static let maxReasonLength = 2_000

    var slugs: [String] = []
    var decision = ""
    var preset = ""
    var reason = ""

    init(slugs: [String] = [], decision: String = "", preset: String = "", reason: String = "") {
        self.slugs = Array(slugs.prefix(BulkSelectionForm.maxItems))
        self.decision = decision
        self.preset = preset
        self.reason = String(reason.prefix(Self.maxReasonLength))
    }

    /// The draft a list's query string carries, bounded as the bulk form is.
    init(query: String?) {
        var slugs: [String] = []
        var decision = "", preset = "", reason = ""
        for (name, value) in FormQuery.parameters(query) {
            switch name {
            case "bulk_item": slugs.append(value)
            case "bulk_decision": decision = value
            case "bulk_preset": preset = value
            case "bulk_reason": reason = Self.unwrapped(value)
            default: continue
            }
        }
        self.init(slugs: slugs, decision: decision, preset: preset, reason: reason)
    }

    /// The draft of a bulk form as it was sent (its rows as `slug|status|name`).
    init(form: BulkSelectionForm) {
        self.init(item: form.item, decision: form.decision, preset: form.reasonPreset, reason: form.reason)
    }

    /// The draft of the list's bulk form as any of its buttons sent it (a row's claim, release
    /// or one-click approval posts the whole form).
    init(item: RepeatedField?, decision: String?, preset: String?, reason: String?) {
        self.init(
            slugs: (item?.values ?? []).compactMap(BulkItem.init(field:)).map(\.slug), decision: decision ?? "", preset: preset ?? "",
            reason: reason ?? "")
    }

    /// Whether the moderator ticked or typed anything: the decision's picker always sends a value.
    var holdsWork: Bool { !slugs.isEmpty || !preset.isEmpty || !reason.isEmpty }

    /// `back` for a button of a row on the library list: the draft added when it holds work, and
    /// the row acted on as the fragment, so the reloaded list (without script) opens at that row
    /// with what was ticked and typed.
    func url(returningTo back: String, atRow slug: String) -> String {
        let page = String(back.prefix { $0 != "#" })
        let row = DecisionController.atRow(.library, key: slug, in: page)
        // Not the library list (a library's own page): back as it was.
        guard row != page else { return back }
        guard holdsWork else { return row }
        return String(self.url(returningTo: page).prefix { $0 != "#" }) + "#library-\(SiteURL.encoded(slug))"
    }

    /// `back` (a list's safe path and query) with the draft added, and the first ticked row as
    /// its fragment so the list opens where the moderator was.
    func url(returningTo back: String) -> String {
        let path = String(back.prefix { $0 != "#" })
        var parameters = slugs.map { ("bulk_item", $0) }
        for (name, value) in [("bulk_decision", decision), ("bulk_preset", preset), ("bulk_reason", Self.wrapped(reason))] where !value.isEmpty {
            parameters.append((name, value))
        }
        guard !parameters.isEmpty else { return path }
        let query = parameters.map { "\($0)=\(SiteURL.encoded($1))" }.joined(separator: "&")
        let fragment = slugs.first.map { "#library-\(SiteURL.encoded($0))" } ?? ""
        return path + (path.contains("?") ? "&" : "?") + query + fragment
    }

    /// The reason as base64url: typed line breaks (CR LF from a browser) would be control
    /// characters in the address, which the console refuses in any request target.
    private static func wrapped(_ reason: String) -> String {
        Data(reason.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The reason a `wrapped` value carries; "" for one that is not base64url of UTF-8 text.
    private static func unwrapped(_ value: String) -> String {
        var base64 = value.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return "" }
        return text
    }

    /// `query` without the draft's parameters: where a list's forms return once the draft is used.
    static func removed(from query: String?) -> String? {
        guard let query else { return nil }
        let kept = query.split(separator: "&").filter { !$0.hasPrefix(parameterPrefix) }.joined(separator: "&")
        return kept.isEmpty ? nil : kept
    }
}
