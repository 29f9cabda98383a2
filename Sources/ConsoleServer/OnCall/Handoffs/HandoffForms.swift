/// The note for the coming hand-off: the shift the form was shown for (so a note sent after
/// the hand-off is not filed under the next shift) and its text.
struct HandoffNoteForm: Decodable, Sendable {
    var shift: String?
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
