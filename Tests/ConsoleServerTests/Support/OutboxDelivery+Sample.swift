import ConsoleServer
import Foundation
import ModerationStore

extension OutboxDelivery {
    /// A library-approved push for user 7's two devices, as the dispatcher hands it to a transport.
    static func sample(id: String = UUID().uuidString.lowercased(), title: String = "Your library is live") -> OutboxDelivery {
        let payload =
            #"{"aps":{"alert":{"title":"\#(title)","body":"Corner Books in Florence has been approved."},"sound":"default"},"data":{"library_id":42,"type":"library.approved"}}"#
        let headers = ["apns-id": id, "apns-push-type": "alert", "apns-priority": "10", "apns-topic": "org.bookcorners.app"]
        let message = OutboxMessage(
            id: id, actionId: 1, recipientUserId: 7, eventType: .libraryApproved, payload: payload,
            headers: #"{"apns-id":"\#(id)"}"#, createdAt: sampleCreatedAt)
        return OutboxDelivery(
            message: message, headers: headers,
            devices: [
                Device(userId: 7, token: String(repeating: "a1", count: 32), environment: .production, source: "import", createdAt: sampleCreatedAt),
                Device(userId: 7, token: String(repeating: "0f", count: 32), environment: .sandbox, source: "staff", createdAt: sampleCreatedAt),
            ])
    }

    /// Whole milliseconds, as the envelope writes times.
    static let sampleCreatedAt = Date(timeIntervalSince1970: 1_795_000_000.123)
}
