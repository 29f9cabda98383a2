import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// Takes staff decisions: records each one (the action) before anything is sent, lets the
/// runner send it, and tells the moderator the outcome if it comes within two seconds.
struct DecisionController {
    let store: ModerationStore
    let sessions: StaffSessions
    let runner: ActionRunner
    let renderer: PageRenderer
    /// What Book Corners takes from the console: the bulk review says its rate of changes.
    var limits = BackendLimits()

    /// Reasons staff pick most; the text stays editable before sending.
    static let presetReasons = [
        "Duplicate of a library already on the map.",
        "The photo does not show a book-sharing library.",
        "The location is private or not publicly accessible.",
        "Not enough information to find it.",
        "Not a book-sharing library.",
    ]

    /// The preset `reason` was picked as, by its words: a preset as it is, or the duplicate
    /// preset in the form that names the library (`LibraryConcerns.duplicateReason`); nil for
    /// anything else, someone's own words.
    static func presetReason(of reason: String) -> String? {
        if presetReasons.contains(reason) || photoPresetReasons.contains(reason) { return reason }
        let namesDuplicate =
            reason.hasPrefix("Duplicate of “")
            && (reason.hasSuffix(" away.") && reason.contains("”, already on the map ") || reason.hasSuffix(", already waiting for review."))
        return namesDuplicate ? presetReasons.first : nil
    }

    /// Reasons staff pick most for a proposed photo; the text stays editable before sending.
    static let photoPresetReasons = [
        "The photo does not show this library.",
        "The photo is blurred, too dark or too small.",
        "The photo shows people or private details.",
        "The current photo shows the library better.",
    ]

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.post(SiteURL.Route.libraryDecide.pattern) { request, context in
            try await decide(.library, route: .libraryDecide, request: request, context: context)
        }
        router.post(SiteURL.Route.reportDecide.pattern) { request, context in
            try await decide(.report, route: .reportDecide, request: request, context: context)
        }
        router.post(SiteURL.Route.photoDecide.pattern) { request, context in
            try await decide(.photo, route: .photoDecide, request: request, context: context)
        }
        router.post(SiteURL.Route.librariesBulk.pattern, use: confirmBulk)
        router.post(SiteURL.Route.librariesBulkConfirm.pattern, use: applyBulk)
    }

    /// One decision on one item, named by `route`'s segment.
    private func decide(
        _ kind: ModerationAction.TargetKind, route: SiteURL.Route, request: Request, context: ConsoleRequestContext
    ) async throws -> Response {
        var request = request
        let key = try requiredParameter(of: route, context)
        // Refused before anything is recorded: only a real id or slug can name an item.
        switch kind {
        case .library: guard ItemReference.isSlug(key) else { throw ConsoleError.notFound }
        case .report, .photo: guard ItemReference.id(key) != nil else { throw ConsoleError.notFound }
        }
        let form = try await request.decodeForm(as: DecisionForm.self, context: context)
        // An id the mirror never held names nothing the console showed: refused now, rather than
        // recorded and later mistaken for an item someone else changed. (Before the mirror's first
        // read of that kind, nothing can be said yet.)
        if kind != .library, let id = ItemReference.id(key), try await store.mirrorHoldsAny(kind),
            try await !store.mirrorEverHeld(kind: kind, key: String(id))
        {
            throw FormError.neverMirrored(noun: kind.rawValue, id: id, typed: form.reason ?? "")
        }
        // Where to return when the form names no page: a library's own page, else its queue.
        let fallback =
            switch kind {
            case .library: SiteURL.library(key).path
            case .report: SiteURL.reports.path
            case .photo: SiteURL.photos.path
            }
        let intent: DecisionForm.Intent
        switch form.checked(for: kind) {
        case .success(let checked):
            intent = checked
        case .failure(let error):
            // A reason to fix is said on the same form, beside the field, with what was typed kept.
            guard error.isAboutTheReason, let reasonPage = ReasonPage(kind) else { throw error }
            return try await formAgain(reasonPage, key: key, form: form, error: error, context: context).response(from: request, context: context)
        }
        if form.confirmed != "1",
            let page = try await reversalPage(kind, key: key, intent: intent, form: form, back: SafeRedirect.path(form.back ?? fallback), context: context)
        {
            return try renderer.render(page, with: "reverse-confirm").response(from: request, context: context)
        }
        if intent.recordsNow, form.anyway != "1",
            let page = try await decideAnywayPage(
                ItemClaim.Target(kind: kind, key: key), form: form, back: SafeRedirect.path(form.back ?? fallback), context: context)
        {
            return try renderer.render(page, with: "decide-anyway").response(from: request, context: context)
        }
        switch intent {
        case .quickApproval(let seen, let listKey):
            // A list row's one-click approval, sent with the list's bulk form. A library with a
            // strong reason to look has none on the list (its row offers Compare… or Look
            // first…): one sent anyway is not recorded, and the library's page shows why.
            if let library = try await store.mirroredLibrary(slug: key),
                let strong = try await LibraryConcerns.of([library], in: store)[library.id]?.first(where: { $0.strength == .strong }),
                let session = context.session
            {
                let named = LibraryText.nameInCity(library.name, city: library.city)
                let words =
                    strong.kind == .duplicate
                    ? "Not approved: \(named) may be a duplicate. Compare it with the libraries beside it, then decide here."
                    : "Not approved: \(named) needs a look first (\(strong.badge)). See why, then decide here."
                try await sessions.flash(words, sessionID: session.id)
                return .redirect(to: SiteURL.library(key).path + (strong.kind == .duplicate ? "#compare" : "#concerns"), type: .normal)
            }
            return try await record(
                kind: .library, key: key, wanted: Decision.approve.statusWanted, reason: "", seen: ItemStatus(seen),
                idempotencyKey: "\(listKey)-\(key)", request: request, context: context,
                back: BulkDraft(item: form.item, decision: form.decision, preset: form.reasonPreset, reason: form.reason)
                    .url(returningTo: SafeRedirect.path(form.back ?? SiteURL.libraries.path), atRow: key))
        case .confirmRejection(let seen, let formKey, let reason):
            // Rejecting tells the submitter no, with this reason: show exactly that before recording it.
            let mirrored = try await store.mirroredLibrary(slug: key)
            var page = RejectConfirmPage(
                layout: LayoutModel(context: context, title: "Confirm rejection", active: .libraries, summary: nil),
                slug: key, seen: seen, key: formKey, reason: reason, back: SafeRedirect.path(form.back ?? fallback),
                queue: LibraryQueueContext(formValue: form.queue))
            // The confirmation names what it rejects and says what it does (from the mirror: no backend read).
            if let mirrored { page.names(mirrored) }
            await page.describe(mirrored, earlier: try earlierDecision(on: mirrored, now: Date()))
            return try renderer.render(page, with: "reject-confirm").response(from: request, context: context)
        case .record(let decision, let seen, let idempotencyKey, let reason, let reportReason):
            return try await record(
                kind: kind, key: key, wanted: decision.statusWanted, reason: reason, seen: seen, idempotencyKey: idempotencyKey,
                request: request, context: context, back: SafeRedirect.path(form.back ?? fallback), reportReason: reportReason,
                queue: ItemQueue(kind: kind, formValue: form.queue))
        }
    }

    /// The pages a rejection reason is typed on (a report's decision takes none).
    private enum ReasonPage {
        case library, photo

        init?(_ kind: ModerationAction.TargetKind) {
            switch kind {
            case .library: self = .library
            case .photo: self = .photo
            case .report: return nil
            }
        }
    }

    /// The page a decision form is shown again on when its reason needs fixing: a library's own
    /// page, or the photo queue with that photo's card, the error beside the field (422).
    private func formAgain(
        _ reasonPage: ReasonPage, key: String, form: DecisionForm, error: FormError, context: ConsoleRequestContext
    ) async throws -> HTML {
        let queue = LibraryQueueContext(formValue: form.queue)
        switch reasonPage {
        case .photo:
            let back = SafeRedirect.path(form.back ?? SiteURL.photos.path)
            let query = back.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
            let state = RejectionFormState(
                error: error.message, typedReason: form.reason ?? "", chosenPreset: form.reasonPreset ?? "", presets: Self.photoPresetReasons)
            let page = try await PhotoQueueController(store: store, renderer: renderer).gridPage(
                query: ListQuery(query: query), back: back, context: context, rejection: (id: ItemReference.id(key) ?? 0, state: state))
            return try renderer.render(page, with: "photos", status: .unprocessableContent)
        case .library:
            var page = try await LibraryQueueController(store: store, renderer: renderer).detailPage(
                slug: key, queue: queue ?? LibraryQueueContext(ListQuery(query: nil)), context: context)
            page.rejection = RejectionFormState(
                error: error.message, typedReason: form.reason ?? "", chosenPreset: form.reasonPreset ?? "", presets: page.presetReasons)
            return try renderer.render(page, with: "library-detail", status: .unprocessableContent)
        }
    }

    /// The confirmation before a decision reverses an earlier one (a rejected library
    /// approved, a decided one returned to pending), naming that decision; nil when the form
    /// decides a waiting library or is the rejection (which has its own confirmation).
    private func reversalPage(
        _ kind: ModerationAction.TargetKind, key: String, intent: DecisionForm.Intent, form: DecisionForm, back: String, context: ConsoleRequestContext
    ) async throws -> ReverseConfirmPage? {
        guard kind == .library else { return nil }
        let seen: ItemStatus
        let wanted: ItemStatus
        switch intent {
        case .quickApproval(let status, _): seen = ItemStatus(status); wanted = .approved
        case .record(let decision, let status, _, _, _): seen = status; wanted = decision.statusWanted
        case .confirmRejection: return nil
        }
        guard seen != .pending, seen != wanted else { return nil }
        let mirrored = try await store.mirroredLibrary(slug: key)
        return ReverseConfirmPage(
            layout: LayoutModel(context: context, title: "Confirm", active: .libraries, summary: nil),
            name: mirrored.map { LibraryText.nameInCity($0.name, city: $0.city) } ?? key, seen: seen, wanted: wanted,
            earlier: try await earlierDecision(on: mirrored, now: Date())
                ?? DecidedNote(status: seen, entry: nil, mirroredReason: mirrored?.rejectionReason ?? "", now: Date()),
            decideURL: SiteURL.libraryDecide(key).path, fields: form.resentFields, cancelURL: back)
    }

    /// Who made a decided library what it is now, when and why; nil for a waiting one or one the mirror does not know.
    private func earlierDecision(on library: MirrorLibrary?, now: Date) async throws -> DecidedNote? {
        guard let library, library.status != .pending else { return nil }
        let entry = try await store.latestDecisions(kind: .library, targetIds: [String(library.id)])[String(library.id)]
        return DecidedNote(status: ItemStatus(library.status), entry: entry, mirroredReason: library.rejectionReason, now: now)
    }

    /// The decide-anyway page when someone other than the moderator holds a live claim on the item; nil otherwise.
    private func decideAnywayPage(
        _ target: ItemClaim.Target, form: DecisionForm, back: String, context: ConsoleRequestContext
    ) async throws -> DecideAnywayPage? {
        let now = Date()
        guard let session = context.session, let claim = try await store.activeClaim(target, now: now), claim.holderId != session.staffId else { return nil }
        let decideURL =
            switch target.kind {
            case .library: SiteURL.libraryDecide(target.key).path
            case .report: SiteURL.reportDecide(ItemReference.id(target.key) ?? 0).path
            case .photo: SiteURL.photoDecide(ItemReference.id(target.key) ?? 0).path
            }
        let verb = form.decision.flatMap(Decision.init(rawValue:))?.verb ?? "Decide"
        return DecideAnywayPage(
            layout: LayoutModel(context: context, title: "\(verb) anyway?", active: nil, summary: nil),
            holder: claim.holderUsername, verb: verb, timeLeft: "\(claim.minutesLeft(at: now)) min left", item: await ItemText.name(target, store: store),
            decideURL: decideURL, fields: form.resentFields, cancelURL: back)
    }

    /// The page that lists what a bulk decision will do, before anything is recorded.
    @Sendable func confirmBulk(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        var request = request
        let form = try await request.decodeForm(as: BulkSelectionForm.self, context: context)
        let selection: BulkSelectionForm.Selection
        let check: BulkSelectionCheck
        do {
            selection = try form.validated()
            check = try await BulkSelectionCheck.check(selection.items, decision: selection.decision, store: store)
        } catch let error as FormError {
            // Said in the list's own bulk bar, the list as it was, the reason chosen kept (422).
            let back = SafeRedirect.path(form.back ?? SiteURL.libraries.path)
            let query = back.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
            var page = try await LibraryQueueController(store: store, renderer: renderer).listPage(query: ListQuery(query: query), back: back, context: context)
            page.bulkError = error.message
            page.keep(BulkDraft(form: form))
            return try renderer.render(page, with: "libraries", status: .unprocessableContent)
        }
        let verb = selection.decision == .approve ? "Approve" : "Reject"
        // Claims warn, they do not block: items others are reviewing are named, not refused.
        let now = Date()
        let claims = try await store.activeClaims(kind: .library, keys: check.chosen.map(\.item.slug), now: now)
            .filter { $0.value.holderId != context.session?.staffId }
        let items = check.chosen.map { chosen in
            let item = chosen.item
            var row = BulkConfirmPage.Item(
                slug: item.slug, seen: item.seen.rawValue, name: item.name, concerns: chosen.concerns,
                claimNote: claims[item.slug].map { "\($0.holderUsername) is reviewing · \($0.minutesLeft(at: now)) min left" } ?? "")
            // The mirror's row tells two libraries of one name apart: their place and photo (no backend read).
            if let library = chosen.library { row.shows(library) }
            return row
        }
        var page = BulkConfirmPage(
            layout: LayoutModel(context: context, title: "Confirm", active: .libraries, summary: nil),
            decision: selection.decision.rawValue, verb: verb, count: items.count, items: items,
            heading: BulkConfirmPage.heading(verb: verb, count: items.count),
            reason: selection.reason, isReject: selection.decision == .reject, key: UUID().uuidString,
            back: SafeRedirect.path(selection.back ?? SiteURL.libraries.path), draft: BulkDraft(form: form), writeRate: limits.writeRate)
        page.leaves(out: check.leftOut)
        return try renderer.render(page, with: "bulk-confirm")
    }

    @Sendable func applyBulk(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let confirmation = try await request.decodeForm(as: BulkConfirmationForm.self, context: context).validated()
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        // Checked again: a reason may have turned strong since the confirmation page, and its form can be edited.
        let check: BulkSelectionCheck
        do {
            check = try await BulkSelectionCheck.check(confirmation.items, decision: confirmation.decision, store: store)
        } catch let error as FormError {
            try await sessions.flash(error.message + " Nothing was recorded.", sessionID: session.id)
            return .redirect(to: SafeRedirect.path(confirmation.back ?? SiteURL.libraries.path), type: .normal)
        }
        let items = check.chosen.map(\.item)
        for (index, item) in items.enumerated() {
            _ = try await recordAction(
                makeAction(
                    session: session, kind: .library, key: item.slug, seen: ItemStatus(item.seen), wanted: confirmation.decision.statusWanted,
                    reason: confirmation.reason, idempotencyKey: "\(confirmation.key)-\(index)", request: request, context: context))
        }
        runner.nudge()
        let leftOut =
            check.leftOut.isEmpty
            ? "" : " Not approved: \(check.leftOut.map { "“\($0.name)”" }.joined(separator: ", ")), with a strong reason to look first; decide on its page."
        try await sessions.flash(
            "\(CountText.of(items.count, "decision", "decisions")) recorded. They are sent to Book Corners as fast as its limits allow; see Pending actions."
                + leftOut,
            sessionID: session.id)
        // Back to the list as it was: the same filters, order and page.
        return .redirect(to: SafeRedirect.path(confirmation.back ?? SiteURL.libraries.path), type: .normal)
    }

    // MARK: Recording

    private func record(
        kind: ModerationAction.TargetKind, key: String, wanted: ItemStatus, reason: String, seen: ItemStatus, idempotencyKey: String,
        request: Request, context: ConsoleRequestContext, back: String, reportReason: ReportReason? = nil,
        queue: ItemQueue? = nil
    ) async throws -> Response {
        // An item decided on its page opened from a list: on to the next one of that list.
        func destination() async throws -> String {
            guard let queue else { return Self.atRow(kind, key: key, in: back) }
            return try await queue.afterDecision(on: key, store: store, viewer: context.session?.staffId, now: Date())
        }
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        var action = makeAction(
            session: session, kind: kind, key: key, seen: seen, wanted: wanted, reason: reason, idempotencyKey: idempotencyKey,
            request: request, context: context)
        action.reportReason = reportReason
        let recorded = try await recordAction(action)
        guard recorded.isNew else {
            // The same form again (a double click, the back button): say what became of the
            // decision it already made, never as if it had just been made.
            let existing = recorded.action
            let outcome =
                existing.state.isFinal
                ? "Its outcome: \(existing.outcomeMessage ?? existing.state.rawValue)"
                : "It is still waiting to be sent; see Pending actions."
            try await sessions.flash(
                "This decision was already recorded at \(TeamClock.stamp(existing.createdAt)); nothing new was sent. \(outcome) Reload the page to decide again.",
                sessionID: session.id)
            return await .redirect(to: try destination(), type: .normal)
        }
        runner.nudge()
        let outcome = try await waitForOutcome(of: recorded.action.id ?? 0, upTo: .seconds(2))
        let message: String
        switch outcome?.state {
        case .applied?, .conflict?, .failed?: message = outcome?.outcomeMessage ?? "Done."
        case .cancelled?: message = "Your decision was cancelled before it was sent: nothing changed at Book Corners."
        default:
            // The runner's "next try <UTC>" is for the log; the panel says when, in the viewer's terms.
            let why =
                outcome?.outcomeMessage.map(LayoutModel.PendingActionItem.withoutNextTry).flatMap { $0.isEmpty ? nil : $0 }
                ?? "Book Corners is slow to answer."
            message = "Your decision is recorded and waiting to be sent: \(why) It appears under Pending actions, with when it sends, until it is."
        }
        try await sessions.flash(message, sessionID: session.id)
        return await .redirect(to: try destination(), type: .normal)
    }

    /// `back` with the decided item's row as its fragment when `back` is that kind's list: the
    /// browser returns to the row, not to the top of the page.
    static func atRow(_ kind: ModerationAction.TargetKind, key: String, in back: String) -> String {
        let list: SiteURL =
            switch kind {
            case .library: .libraries
            case .report: .reports
            case .photo: .photos
            }
        let path = back.split(separator: "?", maxSplits: 1).first.map(String.init) ?? back
        guard path == list.path, !back.contains("#") else { return back }
        return back + "#\(kind.rawValue)-\(key)"
    }

    /// Records an action; a form key reused for another decision is refused in words.
    private func recordAction(_ action: ModerationAction) async throws -> RecordedAction {
        do {
            return try await store.record(action)
        } catch ActionStoreError.keyReused(let existing) {
            throw ConsoleError.badInput(
                "This form was already used for another decision (\(existing.statusWanted.rawValue) on \(existing.targetKind.rawValue) \(existing.targetKey)). Nothing new was recorded: reload the page and decide again."
            )
        }
    }

    private func makeAction(
        session: StaffSession, kind: ModerationAction.TargetKind, key: String, seen: ItemStatus, wanted: ItemStatus, reason: String,
        idempotencyKey: String, request: Request, context: ConsoleRequestContext
    ) -> ModerationAction {
        ModerationAction(
            idempotencyKey: idempotencyKey, actorId: session.staffId, actorUsername: session.username, targetKind: kind,
            targetKey: key, statusSeen: seen, statusWanted: wanted, reason: reason, requestId: context.requestID,
            clientAddress: context.clientAddress, userAgent: String((request.userAgent).prefix(300)), now: Date())
    }

    private func waitForOutcome(of id: Int64, upTo limit: Duration) async throws -> ModerationAction? {
        let deadline = ContinuousClock.now + limit
        var action = try await store.action(id: id)
        while let current = action, !current.state.isFinal, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            action = try await store.action(id: id)
        }
        return action
    }

    // MARK: Input

    private func requiredParameter(of route: SiteURL.Route, _ context: ConsoleRequestContext) throws -> String {
        guard let value = route.value(in: context.parameters), !value.isEmpty, value.count <= 255 else { throw ConsoleError.notFound }
        return value
    }
}
