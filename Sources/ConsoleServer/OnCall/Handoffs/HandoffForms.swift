/// The note for the coming hand-off: the hand-off the page promised (seconds since 1970, so a
/// note sent after it happened is recognised as late) and the text.
struct HandoffNoteForm: Decodable, Sendable {
    var handoffAt: String?
    var text: String?
}

/// A follow-up to a hand-off that happened.
struct HandoffFollowUpForm: Decodable, Sendable {
    var text: String?
}

/// Dismiss: where the button was, so the answer returns there (a fixed choice, never a path).
struct HandoffDismissForm: Decodable, Sendable {
    var from: String?
}
