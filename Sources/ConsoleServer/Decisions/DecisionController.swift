import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// Takes staff decisions: records each one (the action) before anything is sent, lets the
/// runner send it, and tells the moderator the outcome if it comes within two seconds.
struct DecisionController {
    let store: ModerationStore
    let sessions: SessionManager
    let runner: ActionRunner
    let renderer: PageRenderer

    /// Reasons staff pick most; the text stays editable before sending.
    static let presetReasons = [
        "Duplicate of a library already on the map.",
        "The photo does not show a book-sharing library.",
        "The location is private or not publicly accessible.",
        "Not enough information to find it.",
        "Not a book-sharing library.",
    ]
    static let maxBulk = 50

    /// The decisions each kind of item takes, and the status each one sets.
    static let decisions: [ModerationAction.TargetKind: [String: String]] = [
        .library: ["approve": "approved", "reject": "rejected", "pending": "pending"],
        .report: ["resolve": "resolved", "dismiss": "dismissed", "reopen": "open"],
        .photo: ["approve": "approved", "reject": "rejected"],
    ]

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        // Parameter names match the detail routes' (the router refuses two names at one place).
        router.post("/libraries/:slug/decide") { request, context in
            try await decide(.library, parameter: "slug", request: request, context: context, back: "/libraries/")
        }
        router.post("/reports/:id/decide") { request, context in
            try await decide(.report, parameter: "id", request: request, context: context, back: "/reports")
        }
        router.post("/photos/:id/decide") { request, context in
            try await decide(.photo, parameter: "id", request: request, context: context, back: "/photos")
        }
        router.post("/libraries/bulk", use: confirmBulk)
        router.post("/libraries/bulk/confirm", use: applyBulk)
    }

    /// One decision on one item. `back` is where to return by default (a library's own page
    /// when it ends in a slash).
    private func decide(
        _ kind: ModerationAction.TargetKind, parameter: String, request: Request, context: ConsoleRequestContext, back: String
    ) async throws -> Response {
        var request = request
        let form = try await FormFields(request: &request, context: context)
        let key = try requiredParameter(parameter, context)
        // Refused before anything is recorded: only a real id or slug can name an item.
        switch kind {
        case .library: guard ItemReference.isSlug(key) else { throw ConsoleError.notFound }
        case .report, .photo: guard ItemReference.id(key) != nil else { throw ConsoleError.notFound }
        }
        if kind == .library, let seen = form["quick"] {
            // A list row's one-click approval, sent with the list's bulk form.
            guard let listKey = form["key"], !listKey.isEmpty, listKey.count <= 100 else {
                throw ConsoleError.badInput("The list form is missing its key. Reload the page and decide again.")
            }
            return try await record(
                kind: .library, key: key, wanted: "approved", reason: "", seen: seen, idempotencyKey: "\(listKey)-\(key)",
                request: request, context: context, back: SafeRedirect.path(form["back"] ?? "/libraries"))
        }
        let allowed = Self.decisions[kind] ?? [:]
        guard let decision = form["decision"], let wanted = allowed[decision] else {
            throw ConsoleError.badInput("Choose one of: \(allowed.keys.sorted().joined(separator: ", ")).")
        }
        let reason = kind == .library ? try Self.reason(form, required: wanted == "rejected") : ""
        let fallback = back.hasSuffix("/") ? back + key : back
        if kind == .library, wanted == "rejected", form["confirmed"] != "1" {
            // Rejecting tells the submitter no, with this reason: show exactly that before recording it.
            let page = RejectConfirmPage(
                layout: LayoutModel(context: context, title: "Confirm rejection", active: .libraries, summary: nil),
                slug: key, seen: form["seen"] ?? "", key: form["key"] ?? "", reason: reason,
                back: SafeRedirect.path(form["back"] ?? fallback))
            return try renderer.render(page, with: "reject-confirm").response(from: request, context: context)
        }
        guard let seen = form["seen"], !seen.isEmpty, seen.count <= 20 else {
            throw ConsoleError.badInput("The form did not say which status you saw. Reload the page and decide again.")
        }
        guard let idempotencyKey = form["key"], !idempotencyKey.isEmpty, idempotencyKey.count <= 100 else {
            throw ConsoleError.badInput("The form is missing its key. Reload the page and decide again.")
        }
        return try await record(
            kind: kind, key: key, wanted: wanted, reason: reason, seen: seen, idempotencyKey: idempotencyKey, request: request,
            context: context, back: SafeRedirect.path(form["back"] ?? fallback),
            reportReason: kind == .report ? form["report_reason"].flatMap(ReportReason.init(rawValue:))?.rawValue : nil)
    }

    /// The page that lists what a bulk decision will do, before anything is recorded.
    @Sendable func confirmBulk(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        var request = request
        let form = try await FormFields(request: &request, context: context)
        let items = try Self.bulkItems(form)
        let decision = form["decision"] ?? ""
        guard ["approve", "reject"].contains(decision) else { throw ConsoleError.badInput("Choose approve or reject for the selected libraries.") }
        let reason = try Self.reason(form, required: decision == "reject")
        let page = BulkConfirmPage(
            layout: LayoutModel(context: context, title: "Confirm", active: .libraries, summary: nil),
            decision: decision, verb: decision == "approve" ? "Approve" : "Reject", count: items.count,
            items: items.map { BulkConfirmPage.Item(slug: $0.slug, seen: $0.seen, name: $0.name) },
            reason: reason, isReject: decision == "reject", key: UUID().uuidString)
        return try renderer.render(page, with: "bulk-confirm")
    }

    @Sendable func applyBulk(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let form = try await FormFields(request: &request, context: context)
        let items = try Self.bulkItems(form)
        guard let key = form["key"], !key.isEmpty, key.count <= 100 else { throw ConsoleError.badInput("The confirmation form is incomplete; start again from the list.") }
        let wanted = form["decision"] == "approve" ? "approved" : form["decision"] == "reject" ? "rejected" : ""
        guard !wanted.isEmpty else { throw ConsoleError.badInput("Choose approve or reject.") }
        let reason = try Self.reason(form, required: wanted == "rejected")
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        for (index, item) in items.enumerated() {
            _ = try recordAction(makeAction(
                session: session, kind: .library, key: item.slug, seen: item.seen, wanted: wanted, reason: reason,
                idempotencyKey: "\(key)-\(index)", request: request, context: context))
        }
        runner.nudge()
        try await sessions.flash(
            "\(items.count) \(items.count == 1 ? "decision" : "decisions") recorded. They are sent to Book Corners as fast as its limits allow; see Pending actions.",
            sessionID: session.id)
        return .redirect(to: "/libraries", type: .normal)
    }

    // MARK: Recording

    private func record(
        kind: ModerationAction.TargetKind, key: String, wanted: String, reason: String, seen: String, idempotencyKey: String,
        request: Request, context: ConsoleRequestContext, back: String, reportReason: String? = nil
    ) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        var action = makeAction(
            session: session, kind: kind, key: key, seen: seen, wanted: wanted, reason: reason, idempotencyKey: idempotencyKey,
            request: request, context: context)
        action.reportReason = reportReason
        let recorded = try recordAction(action)
        guard recorded.isNew else {
            // The same form again (a double click, the back button): say what became of the
            // decision it already made, never as if it had just been made.
            let existing = recorded.action
            let outcome = existing.state.isFinal
                ? "Its outcome: \(existing.outcomeMessage ?? existing.state.rawValue)"
                : "It is still waiting to be sent; see Pending actions."
            try await sessions.flash(
                "This decision was already recorded at \(TimeText.utc(existing.createdAt)); nothing new was sent. \(outcome) Reload the page to decide again.",
                sessionID: session.id)
            return .redirect(to: back, type: .normal)
        }
        runner.nudge()
        let outcome = try await waitForOutcome(of: recorded.action.id ?? 0, upTo: .seconds(2))
        let message: String
        switch outcome?.state {
        case .applied?, .conflict?, .failed?: message = outcome?.outcomeMessage ?? "Done."
        default:
            message = "Your decision is recorded and waiting to be sent: \(outcome?.outcomeMessage ?? "Book Corners is slow to answer.") It appears under Pending actions until it is."
        }
        try await sessions.flash(message, sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }

    /// Records an action; a form key reused for another decision is refused in words.
    private func recordAction(_ action: ModerationAction) throws -> RecordedAction {
        do {
            return try store.record(action)
        } catch ActionStoreError.keyReused(let existing) {
            throw ConsoleError.badInput(
                "This form was already used for another decision (\(existing.statusWanted) on \(existing.targetKind.rawValue) \(existing.targetKey)). Nothing new was recorded: reload the page and decide again.")
        }
    }

    private func makeAction(
        session: StaffSession, kind: ModerationAction.TargetKind, key: String, seen: String, wanted: String, reason: String,
        idempotencyKey: String, request: Request, context: ConsoleRequestContext
    ) -> ModerationAction {
        ModerationAction(
            idempotencyKey: idempotencyKey, actorId: session.staffId, actorUsername: session.username, targetKind: kind,
            targetKey: key, statusSeen: seen, statusWanted: wanted, reason: reason, requestId: context.requestID,
            clientAddress: context.clientAddress, userAgent: String((request.headers[.userAgent] ?? "").prefix(300)), now: Date())
    }

    private func waitForOutcome(of id: Int64, upTo limit: Duration) async throws -> ModerationAction? {
        let deadline = ContinuousClock.now + limit
        var action = try store.action(id: id)
        while let current = action, !current.state.isFinal, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            action = try store.action(id: id)
        }
        return action
    }

    // MARK: Input

    private func requiredParameter(_ name: String, _ context: ConsoleRequestContext) throws -> String {
        guard let value = context.parameters.get(name), !value.isEmpty, value.count <= 255 else { throw ConsoleError.notFound }
        return value
    }

    /// The reason: typed text wins over the preset; required when rejecting; at most 2000 characters.
    static func reason(_ form: FormFields, required: Bool) throws -> String {
        let typed = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let reason = typed.isEmpty ? (form["reason_preset"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines) : typed
        if required, reason.isEmpty {
            throw ConsoleError.badInput("A rejection needs a reason: the submitter reads it. Pick one or write your own.")
        }
        guard reason.count <= 2000 else {
            throw ConsoleError.badInput("The reason is \(reason.count) characters; Book Corners accepts at most 2000. Shorten it and try again.")
        }
        return reason
    }

    struct BulkItem {
        let slug: String
        let seen: String
        let name: String
    }

    /// Selected rows arrive as `item=<slug>|<status seen>|<name>`.
    static func bulkItems(_ form: FormFields) throws -> [BulkItem] {
        let items: [BulkItem] = form.all("item").compactMap { value in
            let parts = value.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 2, ItemReference.isSlug(parts[0]), LibraryStatus(rawValue: parts[1]) != nil else { return nil }
            return BulkItem(slug: parts[0], seen: parts[1], name: LibraryText.displayName(parts.count > 2 ? parts[2] : ""))
        }
        guard !items.isEmpty else { throw ConsoleError.badInput("Select at least one library first.") }
        guard items.count <= maxBulk else { throw ConsoleError.badInput("Select at most \(maxBulk) libraries at once.") }
        return items
    }
}

/// The confirmation page of a single rejection.
struct RejectConfirmPage {
    let layout: LayoutModel
    let slug: String
    let seen: String
    let key: String
    let reason: String
    let back: String
}

/// The confirmation page of a bulk decision.
struct BulkConfirmPage {
    struct Item {
        let slug: String
        let seen: String
        let name: String
    }

    let layout: LayoutModel
    let decision: String
    let verb: String
    let count: Int
    let items: [Item]
    let reason: String
    let isReject: Bool
    let key: String
}
