import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// The notification outbox: what will be pushed to whom, payload and headers included.
struct OutboxController {
    let store: ModerationStore
    let renderer: PageRenderer

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.outbox.pattern, use: list)
        router.get(SiteURL.Route.outboxMessage.pattern, use: show)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        let query = ListQuery(request)
        let status = query.text("status", maxLength: 20).flatMap(OutboxMessage.State.init(rawValue:))
        let type = query.text("type", maxLength: 40).flatMap(OutboxMessage.EventType.init(rawValue:))
        let messages = try store.outboxMessages(status: status, eventType: type, limit: 200)
        // The navigation counts, from the mirror (no backend read); this page's own data is local.
        var pageStatus = PageStatus()
        let summary = try MirrorPageData.summary(store, status: &pageStatus)
        let now = Date()
        let page = OutboxPage(
            layout: LayoutModel(context: context, title: "Outbox", active: .outbox, summary: summary),
            statusOptions: [FilterOption(value: "", label: "Any status", selected: status == nil)]
                + OutboxMessage.State.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == status) },
            typeOptions: [FilterOption(value: "", label: "Any type", selected: type == nil)]
                + OutboxMessage.EventType.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue, selected: $0 == type) },
            rows: messages.map { OutboxRow($0, now: now) }, isEmpty: messages.isEmpty)
        return try renderer.render(page, with: "outbox")
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        guard let id = SiteURL.Route.outboxMessage.value(in: context.parameters), id.count <= 64, let message = try store.outboxMessage(id: id) else {
            throw ConsoleError.notFound
        }
        let page = OutboxMessagePage(
            layout: LayoutModel(context: context, title: "Outbox message", active: .outbox, summary: nil),
            row: OutboxRow(message, now: Date()), payload: Self.pretty(message.payload), headers: Self.pretty(message.headers),
            payloadBytes: message.payload.utf8.count)
        return try renderer.render(page, with: "outbox-message")
    }

    static func pretty(_ json: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return json }
        return String(decoding: data, as: UTF8.self)
    }
}

struct OutboxRow {
    let id: String
    let eventType: String
    let recipient: Int
    let title: String
    let body: String
    let status: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let messageURL: String

    init(_ message: OutboxMessage, now: Date) {
        id = message.id
        messageURL = SiteURL.outboxMessage(message.id).path
        eventType = message.eventType.rawValue
        recipient = message.recipientUserId
        let alert = (try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
            .flatMap { ($0["aps"] as? [String: Any])?["alert"] as? [String: Any] }
        title = alert?["title"] as? String ?? ""
        body = alert?["body"] as? String ?? ""
        status = message.status.rawValue
        age = TimeText.age(of: message.createdAt, now: now)
        createdAt = TimeText.iso(message.createdAt)
        createdUTC = TimeText.utc(message.createdAt)
    }
}

struct OutboxPage {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let typeOptions: [FilterOption]
    let rows: [OutboxRow]
    let isEmpty: Bool
    let filterURL = SiteURL.outbox.path
}

struct OutboxMessagePage {
    let layout: LayoutModel
    let row: OutboxRow
    let payload: String
    let headers: String
    let payloadBytes: Int
    let listURL = SiteURL.outbox.path
}
