import Foundation
import GRDB
import ModerationVocabulary

/// What the outgoing person writes for the next one: one note before the hand-off (their
/// pending note, edited in place until a hand-off of theirs takes it), and any number of
/// follow-ups after it.
public struct HandoffNote: Sendable, Equatable, FetchableRecord {
    public static let databaseTableName = "handoffNote"
    /// The longest text a note or follow-up may have, in Unicode scalars (as SQLite counts).
    public static let maxLength = 4_000

    public enum Kind: String, Sendable, CaseIterable {
        case note
        case followUp
    }

    public let id: Int64
    /// The hand-off it went with; `nil` for a note not handed over yet.
    public let handoffID: Int64?
    public let kind: Kind
    public let author: StaffMember
    public let text: String
    public let writtenAt: Date

    public init(id: Int64, handoffID: Int64?, kind: Kind, author: StaffMember, text: String, writtenAt: Date) {
        self.id = id
        self.handoffID = handoffID
        self.kind = kind
        self.author = author
        self.text = text
        self.writtenAt = writtenAt
    }

    public init(row: Row) throws {
        id = row["id"]
        handoffID = row["handoffId"]
        guard let kind = Kind(rawValue: row["kind"]) else { throw HandoffError.unreadableNote }
        self.kind = kind
        author = StaffMember(id: row["authorId"], username: row["authorUsername"])
        text = row["text"]
        writtenAt = row["writtenAt"]
    }

    /// `text` trimmed with its line breaks as LF, or why it cannot be a note: empty, or longer than `maxLength`.
    public static func checked(_ text: String) throws(HandoffError) -> String {
        let trimmed = TypedText.withLineFeeds(text).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyNote }
        guard trimmed.unicodeScalars.count <= maxLength else { throw .noteTooLong(trimmed.unicodeScalars.count) }
        return trimmed
    }
}
