/// Why a note, follow-up or dismissal was refused, in words staff can act on.
public enum HandoffError: Error, Equatable, CustomStringConvertible, Sendable {
    case emptyNote
    case noteTooLong(Int)
    case noSuchHandoff
    /// The author's hand-off was stored while they saved: the note would wait for the next one.
    case handedOverMeanwhile
    case notOutgoing
    case notIncoming
    case alreadyDismissed
    case unreadableNote

    public var description: String {
        switch self {
        case .emptyNote:
            "The note is empty: write something, or leave it."
        case .noteTooLong(let length):
            "The note has \(length) characters; at most \(HandoffNote.maxLength) fit: shorten it."
        case .handedOverMeanwhile:
            "Your hand-off happened while you wrote: add the note to it as a follow-up."
        case .noSuchHandoff:
            "There is no such hand-off."
        case .notOutgoing:
            "Only the person who handed over can add a follow-up to this hand-off."
        case .notIncoming:
            "Only the person who took over can dismiss this hand-off."
        case .alreadyDismissed:
            "This hand-off was already dismissed."
        case .unreadableNote:
            "A stored note has a kind this console does not know."
        }
    }
}
