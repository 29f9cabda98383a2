import Foundation
import ModerationStore
import Mustache

/// "Retry now?" / "Discard?" before the move is made.
struct OutboxConfirmPage: MustacheParent {
    let heading: String
    let explanation: String
    let button: String
    let isDanger: Bool
    let actionURL: String
    let layout: LayoutModel
    let row: OutboxRow
    let cancelURL: String

    init(layout: LayoutModel, move: OutboxController.Move, held: Bool = false, row: OutboxRow, cancelURL: String) {
        self.layout = layout
        self.row = row
        self.cancelURL = cancelURL
        switch move {
        case .retry where held:
            heading = "Send this held message?"
            explanation =
                "It was waiting to be sent when the backup now restored was taken, so it may have reached its recipient after the backup. Send it only if you know they have not had it: it goes out with the same message id (a device shows a message id once), to the devices the restored attempts show it has not reached. This is written to the audit log."
            button = "Send"
            isDanger = false
            actionURL = SiteURL.outboxRetry(row.id).path
        case .retry:
            heading = "Retry this message now?"
            explanation = "It goes back to the dispatcher with the same message id and is tried at once, to every active device of the recipient."
            button = "Retry now"
            isDanger = false
            actionURL = SiteURL.outboxRetry(row.id).path
        case .discard:
            heading = "Discard this message?"
            explanation = "It stays in the outbox for the record, marked discarded, and is never delivered. This is written to the audit log."
            button = "Discard"
            isDanger = true
            actionURL = SiteURL.outboxDiscard(row.id).path
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "heading": heading
        case "explanation": explanation
        case "button": button
        case "isDanger": isDanger
        case "actionURL": actionURL
        case "layout": layout
        case "row": row
        case "cancelURL": cancelURL
        default: nil
        }
    }
}
