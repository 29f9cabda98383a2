import Foundation
import ModerationStore

/// An APNs push in the shape the Book Corners iOS app already understands:
/// `{"aps": {"alert": {"title", "body"}, "sound": "default"}, "data": {"type", …ids}}`.
struct PushNotification: Sendable, Equatable {
    /// APNs refuses payloads over 4096 bytes.
    static let maxPayloadBytes = 4096

    let title: String
    let body: String
    /// `library.approved`, `photo.rejected`, `report.resolved`, …
    let type: OutboxMessage.EventType
    /// Ids the app opens: `library_id`, `photo_id`, `report_id`.
    let ids: [String: Int]
    /// Text fields of `data` the app reads beside the ids (`queue` of a `queue.overdue`).
    var texts: [String: String] = [:]

    /// The JSON payload, the body shortened (never the JSON broken) to fit 4096 bytes.
    func payloadJSON() -> String {
        var body = self.body
        while true {
            let json = Self.encode(title: title, body: body, type: type.rawValue, ids: ids, texts: texts)
            let overflow = json.utf8.count - Self.maxPayloadBytes
            guard overflow > 0, !body.isEmpty else { return json }
            // Keep whole characters within the bytes that fit, leaving 3 bytes for "…"; escapes
            // in the JSON can make it a little longer still, which the next round catches.
            let budget = body.utf8.count - overflow - 3
            var kept = ""
            var used = 0
            for character in body {
                let size = character.utf8.count
                guard used + size <= budget else { break }
                kept.append(character)
                used += size
            }
            body = kept.isEmpty ? "" : kept + "…"
        }
    }

    /// Past this, news of a decision is stale: APNs drops it, and the dispatcher gives up.
    func expiration(now: Date) -> Date {
        Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 7 * 86_400).rounded(.down))
    }

    /// The headers APNs wants with the payload.
    func headers(messageID: String, bundleID: String, collapseID: String?, now: Date) -> [String: String] {
        var headers = [
            "apns-push-type": "alert", "apns-priority": "10", "apns-topic": bundleID, "apns-id": messageID,
            "apns-expiration": String(Int(expiration(now: now).timeIntervalSince1970)),
        ]
        if let collapseID { headers["apns-collapse-id"] = collapseID }
        return headers
    }

    private struct Payload: Encodable {
        struct APS: Encodable {
            struct Alert: Encodable {
                let title: String
                let body: String
            }

            let alert: Alert
            let sound = "default"
        }

        let aps: APS
        let data: [String: DataValue]
    }

    private enum DataValue: Encodable {
        case text(String)
        case number(Int)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            }
        }
    }

    private static func encode(title: String, body: String, type: String, ids: [String: Int], texts: [String: String]) -> String {
        var data: [String: DataValue] = [:]
        for (key, value) in texts { data[key] = .text(value) }
        data["type"] = .text(type)
        for (key, value) in ids { data[key] = .number(value) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = Payload(aps: .init(alert: .init(title: title, body: body)), data: data)
        // Strings and integers always encode.
        return String(decoding: (try? encoder.encode(payload)) ?? Data(), as: UTF8.self)
    }
}
