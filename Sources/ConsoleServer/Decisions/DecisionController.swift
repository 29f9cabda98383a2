import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

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
        let fallback = switch kind {
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
            guard error.isAboutTheReason, kind != .report else { throw error }
            return try await formAgain(kind, key: key, form: form, error: error, context: context).response(from: request, context: context)
        }
        if form.confirmed != "1", let page = try await reversalPage(kind, key: key, intent: intent, form: form, back: SafeRedirect.path(form.back ?? fallback), context: context) {
            return try renderer.render(page, with: "reverse-confirm").response(from: request, context: context)
        }
        if intent.recordsNow, form.anyway != "1",
            let page = try await decideAnywayPage(ItemClaim.Target(kind: kind, key: key), form: form, back: SafeRedirect.path(form.back ?? fallback), context: context)
        {
            return try renderer.render(page, with: "decide-anyway").response(from: request, context: context)
        }
        switch intent {
        case .quickApproval(let seen, let listKey):
            // A list row's one-click approval, sent with the list's bulk form.
            return try await record(
                kind: .library, key: key, wanted: Decision.approve.statusWanted, reason: "", seen: ItemStatus(seen),
                idempotencyKey: "\(listKey)-\(key)", request: request, context: context,
                back: SafeRedirect.path(form.back ?? SiteURL.libraries.path))
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
                queue: kind == .library ? LibraryQueueContext(formValue: form.queue) : nil)
        }
    }

    /// The page a decision form is shown again on when its reason needs fixing: a library's own
    /// page, or the photo queue with that photo's card, the error beside the field (422).
    private func formAgain(
        _ kind: ModerationAction.TargetKind, key: String, form: DecisionForm, error: FormError, context: ConsoleRequestContext
    ) async throws -> HTML {
        let queue = LibraryQueueContext(formValue: form.queue)
        switch kind {
        case .photo:
            let back = SafeRedirect.path(form.back ?? SiteURL.photos.path)
            let query = back.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
            let state = RejectionFormState(
                error: error.message, typedReason: form.reason ?? "", chosenPreset: form.reasonPreset ?? "", presets: Self.photoPresetReasons)
            let page = try await PhotoQueueController(store: store, renderer: renderer).gridPage(
                query: ListQuery(query: query), back: back, context: context, rejection: (id: ItemReference.id(key) ?? 0, state: state))
            return try renderer.render(page, with: "photos", status: .unprocessableContent)
        case .library, .report:
            var page = try await LibraryQueueController(store: store, renderer: renderer).detailPage(slug: key, queue: queue ?? LibraryQueueContext(ListQuery(query: nil)), context: context)
            page.rejection = RejectionFormState(
                error: error.message, typedReason: form.reason ?? "", chosenPreset: form.reasonPreset ?? "", presets: Self.presetReasons)
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
            earlier: try await earlierDecision(on: mirrored, now: Date()) ?? DecidedNote(status: seen, entry: nil, mirroredReason: mirrored?.rejectionReason ?? "", now: Date()),
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
        let decideURL = switch target.kind {
        case .library: SiteURL.libraryDecide(target.key).path
        case .report: SiteURL.reportDecide(ItemReference.id(target.key) ?? 0).path
        case .photo: SiteURL.photoDecide(ItemReference.id(target.key) ?? 0).path
        }
        return DecideAnywayPage(
            layout: LayoutModel(context: context, title: "Decide anyway?", active: nil, summary: nil),
            holder: claim.holderUsername, timeLeft: "\(claim.minutesLeft(at: now)) min left", item: await ItemText.name(target, store: store),
            decideURL: decideURL, fields: form.resentFields, cancelURL: back)
    }

    /// The page that lists what a bulk decision will do, before anything is recorded.
    @Sendable func confirmBulk(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        var request = request
        let form = try await request.decodeForm(as: BulkSelectionForm.self, context: context)
        let selection: BulkSelectionForm.Selection
        do {
            selection = try form.validated()
        } catch {
            // Said in the list's own bulk bar, the list as it was, the reason chosen kept (422).
            let back = SafeRedirect.path(form.back ?? SiteURL.libraries.path)
            let query = back.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
            var page = try await LibraryQueueController(store: store, renderer: renderer).listPage(query: ListQuery(query: query), back: back, context: context)
            page.bulkError = error.message
            page.bulkPreset = form.reasonPreset ?? ""
            page.bulkDecision = form.decision ?? ""
            page.bulkReason = form.reason ?? ""
            return try renderer.render(page, with: "libraries", status: .unprocessableContent)
        }
        let verb = selection.decision == .approve ? "Approve" : "Reject"
        // Claims warn, they do not block: items others are reviewing are named, not refused.
        let now = Date()
        let claims = try await store.activeClaims(kind: .library, keys: selection.items.map(\.slug), now: now)
            .filter { $0.value.holderId != context.session?.staffId }
        var items: [BulkConfirmPage.Item] = []
        for item in selection.items {
            // The mirror's row tells two libraries of one name apart: their place and photo (no backend read).
            let library = try await store.mirroredLibrary(slug: item.slug)
            var hasDuplicate = false
            if let library { hasDuplicate = try await !store.idsWithDuplicates(among: [library]).isEmpty }
            var row = BulkConfirmPage.Item(
                slug: item.slug, seen: item.seen.rawValue, name: item.name, hasDuplicate: hasDuplicate,
                claimNote: claims[item.slug].map { "\($0.holderUsername) is reviewing · \($0.minutesLeft(at: now)) min left" } ?? "")
            if let library { row.shows(library) }
            items.append(row)
        }
        let page = BulkConfirmPage(
            layout: LayoutModel(context: context, title: "Confirm", active: .libraries, summary: nil),
            decision: selection.decision.rawValue, verb: verb, count: selection.items.count, items: items,
            heading: BulkConfirmPage.heading(verb: verb, count: selection.items.count),
            reason: selection.reason, isReject: selection.decision == .reject, key: UUID().uuidString,
            back: SafeRedirect.path(selection.back ?? SiteURL.libraries.path))
        return try renderer.render(page, with: "bulk-confirm")
    }

    @Sendable func applyBulk(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let confirmation = try await request.decodeForm(as: BulkConfirmationForm.self, context: context).validated()
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let items = confirmation.items
        for (index, item) in items.enumerated() {
            _ = try await recordAction(makeAction(
                session: session, kind: .library, key: item.slug, seen: ItemStatus(item.seen), wanted: confirmation.decision.statusWanted,
                reason: confirmation.reason, idempotencyKey: "\(confirmation.key)-\(index)", request: request, context: context))
        }
        runner.nudge()
        try await sessions.flash(
            "\(CountText.of(items.count, "decision", "decisions")) recorded. They are sent to Book Corners as fast as its limits allow; see Pending actions.",
            sessionID: session.id)
        // Back to the list as it was: the same filters, order and page.
        return .redirect(to: SafeRedirect.path(confirmation.back ?? SiteURL.libraries.path), type: .normal)
    }

    // MARK: Recording

    private func record(
        kind: ModerationAction.TargetKind, key: String, wanted: ItemStatus, reason: String, seen: ItemStatus, idempotencyKey: String,
        request: Request, context: ConsoleRequestContext, back: String, reportReason: ReportReason? = nil,
        queue: LibraryQueueContext? = nil
    ) async throws -> Response {
        // A library decided on its page opened from a list: on to the next one of that list.
        func destination() async throws -> String {
            guard let queue else { return back }
            return try await LibraryQueueNavigator(store: store).afterDecision(on: key, in: queue, viewer: context.session?.staffId, now: Date())
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
            let outcome = existing.state.isFinal
                ? "Its outcome: \(existing.outcomeMessage ?? existing.state.rawValue)"
                : "It is still waiting to be sent; see Pending actions."
            try await sessions.flash(
                "This decision was already recorded at \(TimeText.utc(existing.createdAt)); nothing new was sent. \(outcome) Reload the page to decide again.",
                sessionID: session.id)
            return await .redirect(to: try destination(), type: .normal)
        }
        runner.nudge()
        let outcome = try await waitForOutcome(of: recorded.action.id ?? 0, upTo: .seconds(2))
        let message: String
        switch outcome?.state {
        case .applied?, .conflict?, .failed?: message = outcome?.outcomeMessage ?? "Done."
        default:
            // The runner's "next try <UTC>" is for the log; the panel says when, in the viewer's terms.
            let why = outcome?.outcomeMessage.map(LayoutModel.PendingActionItem.withoutNextTry).flatMap { $0.isEmpty ? nil : $0 }
                ?? "Book Corners is slow to answer."
            message = "Your decision is recorded and waiting to be sent: \(why) It appears under Pending actions, with when it sends, until it is."
        }
        try await sessions.flash(message, sessionID: session.id)
        return await .redirect(to: try destination(), type: .normal)
    }

    /// Records an action; a form key reused for another decision is refused in words.
    private func recordAction(_ action: ModerationAction) async throws -> RecordedAction {
        do {
            return try await store.record(action)
        } catch ActionStoreError.keyReused(let existing) {
            throw ConsoleError.badInput(
                "This form was already used for another decision (\(existing.statusWanted.rawValue) on \(existing.targetKind.rawValue) \(existing.targetKey)). Nothing new was recorded: reload the page and decide again.")
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

/// The confirmation page of a single rejection.
struct RejectConfirmPage: MustacheParent {
    let layout: LayoutModel
    let slug: String
    let seen: String
    let key: String
    let reason: String
    let back: String
    let decideURL: String
    let cancelURL: String
    /// The list the library's page was opened from, sent on so the next one opens; "" for none.
    let queue: String
    let hasQueue: Bool
    /// The library being rejected, by name and place; its slug until the mirror names it.
    private(set) var name: String
    private(set) var place = ""
    private(set) var isUnnamed = false
    /// What happens, in words that hold for this library: who is told, or that nobody is.
    private(set) var consequence = "The library will not appear on the map, and its submitter will be told, with this reason:"
    /// The decision this rejection reverses, when the library is not waiting.
    private(set) var earlier = DecidedNote.none

    /// Says what the rejection does for `library` as the mirror has it (nil: not known yet).
    mutating func describe(_ library: MirrorLibrary?, earlier: DecidedNote?) {
        self.earlier = earlier ?? .none
        guard let library else { return }
        let map = library.status == .approved ? "The library will be taken off the map" : "The library will not appear on the map"
        if let submitter = library.submitterUsername {
            consequence = "\(map), and its submitter, \(submitter), will be told, with this reason:"
        } else {
            consequence = "\(map). It was imported and has no submitter, so nobody is told; the reason is kept with the library and in the audit log:"
        }
    }

    init(layout: LayoutModel, slug: String, seen: String, key: String, reason: String, back: String, queue: LibraryQueueContext? = nil) {
        self.layout = layout
        self.slug = slug
        self.seen = seen
        self.key = key
        self.reason = reason
        self.back = back
        decideURL = SiteURL.libraryDecide(slug).path
        cancelURL = queue?.detailPath(slug: slug) ?? SiteURL.library(slug).path
        self.queue = queue?.formValue ?? ""
        hasQueue = queue != nil
        name = slug
    }

    /// Names the library as the mirror has it.
    mutating func names(_ library: MirrorLibrary) {
        name = LibraryText.displayName(library.name)
        isUnnamed = LibraryText.isBlank(library.name)
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "slug": slug
        case "seen": seen
        case "key": self.key
        case "reason": reason
        case "back": back
        case "decideURL": decideURL
        case "cancelURL": cancelURL
        case "queue": queue
        case "hasQueue": hasQueue
        case "name": name
        case "place": place
        case "hasPlace": !place.isEmpty
        case "isUnnamed": isUnnamed
        case "consequence": consequence
        case "earlier": earlier
        default: nil
        }
    }
}

/// The confirmation page of a bulk decision.
struct BulkConfirmPage: MustacheParent {
    struct Item: MustacheParent {
        let slug: String
        let seen: String
        let name: String
        let libraryURL: String
        /// Where it is ("Rue Mouffetard 69, Paris, FR") and its thumbnail, from the mirror: two
        /// libraries of one name are told apart; "" when the mirror does not know it.
        private(set) var place = ""
        private(set) var thumbnailURL = ""
        /// Whether someone submitted it (and reads a rejection's reason); nil when the mirror does not know it.
        private(set) var hasSubmitter: Bool?
        /// The mirror knows another approved or pending library within 50 m or with its name in its city.
        let hasDuplicate: Bool
        /// "maria is reviewing · 8 min left" when someone else holds a claim on it; "" otherwise.
        let claimNote: String
        let isClaimed: Bool

        init(slug: String, seen: String, name: String, hasDuplicate: Bool, claimNote: String = "") {
            self.slug = slug
            self.seen = seen
            self.name = name
            self.hasDuplicate = hasDuplicate
            self.claimNote = claimNote
            isClaimed = !claimNote.isEmpty
            libraryURL = SiteURL.library(slug).path
        }

        /// Takes the place and thumbnail of the library as the mirror has it.
        mutating func shows(_ library: MirrorLibrary) {
            place = LibraryText.place(address: library.address, city: library.city, country: library.country)
            thumbnailURL = library.thumbnailUrl.isEmpty ? library.photoUrl : library.thumbnailUrl
            hasSubmitter = library.submitterUsername != nil
        }

        func child(named key: String) -> Any? {
            switch key {
            case "slug": slug
            case "seen": seen
            case "name": name
            case "place": place
            case "hasPlace": !place.isEmpty
            case "thumbnailURL": thumbnailURL
            case "hasThumbnail": !thumbnailURL.isEmpty
            case "libraryURL": libraryURL
            case "hasDuplicate": hasDuplicate
            case "claimNote": claimNote
            case "isClaimed": isClaimed
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let decision: String
    let verb: String
    let count: Int
    let items: [Item]
    /// Stored, not computed: Mustache reads stored properties only.
    let heading: String
    let reason: String
    let isReject: Bool
    /// Who reads the reason: "Each submitter will read this reason", less those imported without one.
    let reasonReaders: String
    let key: String
    /// "2 of these are being reviewed by someone else …"; "" when none is.
    private(set) var claimedNotice: String
    let hasClaimed: Bool
    let confirmURL = SiteURL.librariesBulkConfirm.path
    /// "Reject 3 libraries", "Approve 1 library": the confirming button.
    let buttonLabel: String
    /// The list the selection was made on (filters, order, page): Cancel and the decision return there.
    let back: String

    init(
        layout: LayoutModel, decision: String, verb: String, count: Int, items: [Item], heading: String, reason: String, isReject: Bool,
        key: String, back: String = SiteURL.libraries.path
    ) {
        buttonLabel = "\(verb) \(CountText.libraries(count))"
        self.back = back
        self.layout = layout
        self.decision = decision
        self.verb = verb
        self.count = count
        self.items = items
        self.heading = heading
        self.reason = reason
        self.isReject = isReject
        self.key = key
        reasonReaders = Self.reasonReaders(items)
        let claimed = items.filter(\.isClaimed).count
        hasClaimed = claimed > 0
        claimedNotice = claimed == 0 ? "" : claimed == 1
            ? "1 of these libraries is being reviewed by someone else (marked below). Confirming decides it anyway and ends their claim."
            : "\(claimed) of these libraries are being reviewed by someone else (marked below). Confirming decides them anyway and ends their claims."
        // One library is "this library", not "1 of these libraries".
        if claimed == 1, count == 1 {
            claimedNotice = "Someone else is reviewing this library (marked below). Confirming decides it anyway and ends their claim."
        }
    }

    /// Who is told the reason, as far as the mirror knows who submitted each library.
    static func reasonReaders(_ items: [Item]) -> String {
        let withSubmitter = items.filter { $0.hasSubmitter == true }.count
        let imported = items.filter { $0.hasSubmitter == false }.count
        switch (items.count, withSubmitter, imported) {
        case (1, 1, _): return "Its submitter will read this reason:"
        case (1, _, 1): return "It was imported and has no submitter, so nobody is told; the reason is kept with the library:"
        case (_, _, 0): return "Each submitter will read this reason:"
        case (_, 0, _) where imported == items.count:
            return "They were all imported and have no submitter, so nobody is told; the reason is kept with each library:"
        default:
            return "Each submitter will read this reason (\(imported) of them \(imported == 1 ? "was" : "were") imported and \(imported == 1 ? "has" : "have") none, so nobody is told for \(imported == 1 ? "it" : "those")):"
        }
    }

    /// "Approve 1 library?", "Reject 3 libraries?".
    static func heading(verb: String, count: Int) -> String {
        "\(verb) \(CountText.libraries(count))?"
    }
    var cancelURL: String { back }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "buttonLabel": buttonLabel
        case "back": back
        case "decision": decision
        case "verb": verb
        case "count": count
        case "items": items
        case "heading": heading
        case "reason": reason
        case "isReject": isReject
        case "reasonReaders": reasonReaders
        case "key": self.key
        case "claimedNotice": claimedNotice
        case "hasClaimed": hasClaimed
        case "confirmURL": confirmURL
        case "cancelURL": cancelURL
        default: nil
        }
    }
}

/// The confirmation before a decision that reverses an earlier one, naming it.
struct ReverseConfirmPage: MustacheParent {
    let layout: LayoutModel
    /// "Approve a rejected library?"
    let heading: String
    /// The library, named with its city.
    let name: String
    /// "Rejected by maria on … (3 d ago), with the reason: “…”."
    let earlier: String
    /// What confirming does, in words.
    let consequence: String
    let verb: String
    let decideURL: String
    /// The form as it came, posted again with `confirmed=1`.
    let fields: [HiddenField]
    let cancelURL: String

    init(
        layout: LayoutModel, name: String, seen: ItemStatus, wanted: ItemStatus, earlier: DecidedNote, decideURL: String, fields: [HiddenField],
        cancelURL: String
    ) {
        self.layout = layout
        self.name = name
        self.earlier = earlier.sentence
        self.decideURL = decideURL
        self.fields = fields.filter { $0.name != "confirmed" }
        self.cancelURL = cancelURL
        switch wanted {
        case .approved:
            heading = "Approve a library that was \(seen.rawValue)?"
            verb = "Approve"
            consequence = "Approving reverses that decision: the library appears on the map."
        case .pending:
            heading = "Return a \(seen.rawValue) library to pending?"
            verb = "Return to pending"
            consequence = seen == .approved
                ? "Returning it to pending reverses that decision: the library leaves the map and waits in the queue again."
                : "Returning it to pending reverses that decision: the library waits in the queue again."
        default:
            heading = "Change a \(seen.rawValue) library to \(wanted.rawValue)?"
            verb = "Change"
            consequence = "This reverses that decision."
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "heading": heading
        case "name": name
        case "earlier": earlier
        case "consequence": consequence
        case "verb": verb
        case "decideURL": decideURL
        case "fields": fields
        case "cancelURL": cancelURL
        default: nil
        }
    }
}
