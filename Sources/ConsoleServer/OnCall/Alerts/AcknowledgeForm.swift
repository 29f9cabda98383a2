/// The Acknowledge button's form.
struct AcknowledgeForm: Decodable, Sendable {
    var returnTo: String?

    /// Where the button was pressed, so the browser goes back there; nothing else is accepted.
    enum ReturnTo: String {
        case dashboard
        case alerts
    }
}

/// The form that changes one queue's target age.
struct QueueTargetForm: Decodable, Sendable {
    var queue: String?
    var hours: String?
}
