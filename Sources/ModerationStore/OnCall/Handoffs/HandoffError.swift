/// Why a note, follow-up or dismissal was refused, in words staff can act on.
public enum HandoffError: Error, Equatable, CustomStringConvertible, Sendable {
    case emptyNote
    case noteTooLong(Int)
    case alreadyHandedOver
    case noSuchHandoff
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
        case .alreadyHandedOver:
            "The hand-off has already happened, so the note went with its digest: add a follow-up instead."
        case .noSuchHandoff:
            "There is no hand-off digest for that shift."
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
