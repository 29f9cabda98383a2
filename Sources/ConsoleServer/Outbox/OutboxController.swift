import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// The notification outbox: what is pushed to whom, how delivery went, and Retry now /
/// Discard for the messages delivery gave up on.
struct OutboxController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    let delivery: OutboxDeliveryOverview

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.outbox.pattern, use: list)
        router.get(SiteURL.Route.outboxMessage.pattern, use: show)
        router.post(SiteURL.Route.outboxRetry.pattern) { request, context in
            try await move(.retry, request: request, context: context)
        }
        router.post(SiteURL.Route.outboxDiscard.pattern) { request, context in
            try await move(.discard, request: request, context: context)
        }
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let query = ListQuery(request)
        let status = query.text("status", maxLength: 20).flatMap(OutboxMessage.State.init(rawValue:))
        let type = query.text("type", maxLength: 40).flatMap(OutboxMessage.EventType.init(rawValue:))
        let messages = try await store.outboxMessages(status: status, eventType: type, limit: 200)
        // Whatever the filter, messages a restore held wait for a person: they are listed first, apart.
        let held = try await store.outboxMessages(status: .held, limit: 200)
        let attempts = try await store.outboxAttemptCounts(messageIDs: messages.map(\.id) + held.map(\.id))
        let health = try await store.outboxHealth(since: Date().addingTimeInterval(-3_600))
        // The navigation counts, from the mirror (no backend read); this page's own data is local.
        var pageStatus = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &pageStatus)
        let names = try await store.knownUsernames(userIDs: Set((messages + held).map(\.recipientUserId)))
        let now = Date()
        let page = OutboxPage(
            layout: LayoutModel(context: context, title: "Outbox", active: .outbox, summary: summary),
            statusOptions: [FilterOption(value: "", label: "Any status", selected: status == nil)]
                + OutboxMessage.State.allCases.map { FilterOption(value: $0.rawValue, label: $0.label, selected: $0 == status) },
            typeOptions: [FilterOption(value: "", label: "Any type", selected: type == nil)]
                + OutboxMessage.EventType.allCases.map { FilterOption(value: $0.rawValue, label: $0.label, selected: $0 == type) },
            rows: messages.map { OutboxRow($0, attempts: attempts[$0.id] ?? 0, now: now, names: names) }, isEmpty: messages.isEmpty,
            counts: OutboxMessage.State.allCases.map { OutboxPage.Count(state: $0, count: health.count($0)) },
            transport: delivery.transport, deliveryOff: delivery.isOff, watchURL: delivery.watchURL,
            policy: OutboxMessage.EventType.allCases.map { OutboxPage.PolicyRow(type: $0, rule: delivery.policy.rule(for: $0)) },
            held: held.map { OutboxRow($0, attempts: attempts[$0.id] ?? 0, now: now, names: names) })
        return try renderer.render(page, with: "outbox")
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let message = try await requestedMessage(context)
        let attempts = try await store.outboxAttempts(messageID: message.id)
        let names = try await store.knownUsernames(userIDs: [message.recipientUserId])
        let now = Date()
        let page = OutboxMessagePage(
            layout: LayoutModel(context: context, title: "Outbox message", active: .outbox, summary: nil),
            row: OutboxRow(message, attempts: attempts.count, now: now, names: names), payload: Self.pretty(message.payload),
            headers: Self.pretty(message.headers), payloadBytes: message.payload.utf8.count,
            attempts: attempts.reversed().map(OutboxMessagePage.Attempt.init), hasAttempts: !attempts.isEmpty,
            canRetry: OutboxMessage.State.staffSources(of: .pending).contains(message.status), isHeld: message.status == .held,
            canDiscard: OutboxMessage.State.staffSources(of: .discarded).contains(message.status),
            retryURL: SiteURL.outboxRetry(message.id).path, discardURL: SiteURL.outboxDiscard(message.id).path)
        return try renderer.render(page, with: "outbox-message")
    }

    /// What a staff member may do to a message delivery gave up on, or a restore held.
    enum Move: String {
        case retry, discard

        var target: OutboxMessage.State { self == .retry ? .pending : .discarded }

        /// The audit action: sending a message a restore held is a decision of its own, not a retry.
        func auditAction(from state: OutboxMessage.State) -> String {
            self == .retry && state == .held ? "outbox.send" : "outbox.\(rawValue)"
        }
    }

    /// Retry now or Discard: a confirmation page first, then the move with its audit entry in
    /// one transaction. A message someone else moved meanwhile gets words, not an error page.
    private func move(_ move: Move, request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let message = try await requestedMessage(context)
        let form = try await request.decodeForm(as: OutboxMoveForm.self, context: context)
        let back = SiteURL.outboxMessage(message.id).path
        guard form.confirmed == "1" else {
            let page = await OutboxConfirmPage(
                layout: LayoutModel(
                    context: context, title: move == .retry ? (message.status == .held ? "Send?" : "Retry now?") : "Discard?", active: .outbox, summary: nil),
                move: move, held: message.status == .held,
                row: OutboxRow(message, attempts: 0, now: Date(), names: try store.knownUsernames(userIDs: [message.recipientUserId])), cancelURL: back)
            return try renderer.render(page, with: "outbox-confirm").response(from: request, context: context)
        }
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let recipient =
            try await store.knownUsernames(userIDs: [message.recipientUserId])[message.recipientUserId]
            ?? "a Book Corners user (id \(message.recipientUserId))"
        let entry = audit.staffEntry(
            move.auditAction(from: message.status), targetKind: "outbox", targetId: message.id,
            targetName: "\(message.eventType.label) to \(recipient)", statusBefore: message.status.rawValue,
            statusAfter: move.target.rawValue, context: context, userAgent: request.userAgent)
        let flash: String
        do {
            switch move {
            case .retry:
                try await store.retryOutboxMessage(message.id, audit: entry, now: Date())
                delivery.nudge()
                flash =
                    delivery.isOff
                    ? "Queued again, but delivery is off (--outbox-transport off): it waits in the outbox."
                    : message.status == .held
                        ? "Queued to send: the dispatcher sends it now, to the devices that have not had it."
                        : "Queued again: the dispatcher tries it now."
            case .discard:
                try await store.discardOutboxMessage(message.id, audit: entry, now: Date())
                flash = "Discarded: it stays here for the record and is never delivered."
            }
        } catch OutboxStoreError.notMovable(_, let found) {
            flash = "Nothing done: the message is \((found ?? message.status).label.lowercased()) now (someone or the dispatcher moved it)."
        }
        try await sessions.flash(flash, sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }

    private func requestedMessage(_ context: ConsoleRequestContext) async throws -> OutboxMessage {
        guard let id = SiteURL.Route.outboxMessage.value(in: context.parameters), id.count <= 64, let message = try await store.outboxMessage(id: id) else {
            throw ConsoleError.notFound
        }
        return message
    }

    static func pretty(_ json: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return json }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The Retry now / Discard form: only its confirmation (the CSRF token is checked before).
struct OutboxMoveForm: Decodable, Sendable {
    var confirmed: String?
}
