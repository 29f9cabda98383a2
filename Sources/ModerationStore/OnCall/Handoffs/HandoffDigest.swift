import Foundation
import ModerationVocabulary

/// What happened in one rotation shift, as the person taking over reads it: decisions by kind
/// and by person, what still waits, alerts, changes made outside the console and the note of
/// the person handing over. Built once at the hand-off and stored as JSON, so it reads the
/// same later whatever happened since.
public struct HandoffDigest: Codable, Sendable, Equatable {
    /// A number of decisions under a key: an audit action (`library.approve`) or a username.
    public struct Count: Codable, Sendable, Equatable {
        public let key: String
        public let count: Int

        public init(key: String, count: Int) {
            self.key = key
            self.count = count
        }
    }

    /// One of the items that has waited longest in a queue.
    public struct WaitingItem: Codable, Sendable, Equatable {
        public let label: String
        public let detail: String
        /// The library it concerns, for a link.
        public let librarySlug: String
        public let createdAt: Date
        /// Past its queue's target when the digest was built.
        public let overdue: Bool

        public init(label: String, detail: String, librarySlug: String, createdAt: Date, overdue: Bool) {
            self.label = label
            self.detail = detail
            self.librarySlug = librarySlug
            self.createdAt = createdAt
            self.overdue = overdue
        }
    }

    /// What waits in one queue when the shift ends, from the mirror.
    public struct QueueState: Codable, Sendable, Equatable {
        public let queue: ModerationQueue
        public let waiting: Int
        public let overdue: Int
        public let targetMinutes: Int
        /// Oldest first, at most `HandoffDigest.oldestShown`.
        public let oldest: [WaitingItem]

        public init(queue: ModerationQueue, waiting: Int, overdue: Int, targetMinutes: Int, oldest: [WaitingItem]) {
            self.queue = queue
            self.waiting = waiting
            self.overdue = overdue
            self.targetMinutes = targetMinutes
            self.oldest = oldest
        }
    }

    /// An alert episode of the shift (the alert watcher supplies them).
    public struct Alert: Codable, Sendable, Equatable {
        public let queue: ModerationQueue
        public let openedAt: Date
        public let acknowledgedBy: String?
        public let acknowledgedAt: Date?
        public let escalated: Bool
        public let closedAt: Date?

        /// An episode of the queue watcher, as the digest keeps it.
        public init(_ alert: QueueAlert) {
            self.init(
                queue: alert.queue, openedAt: alert.openedAt, acknowledgedBy: alert.acknowledgedByUsername, acknowledgedAt: alert.acknowledgedAt,
                escalated: alert.escalationLevel > 0, closedAt: alert.closedAt)
        }

        public init(queue: ModerationQueue, openedAt: Date, acknowledgedBy: String?, acknowledgedAt: Date?, escalated: Bool, closedAt: Date?) {
            self.queue = queue
            self.openedAt = openedAt
            self.acknowledgedBy = acknowledgedBy
            self.acknowledgedAt = acknowledgedAt
            self.escalated = escalated
            self.closedAt = closedAt
        }
    }

    /// A change the mirror saw at Book Corners that no decision of the console explains.
    public struct OutsideChange: Codable, Sendable, Equatable {
        public let auditEntryID: Int64
        public let label: String
        /// `pending → approved`.
        public let change: String
        public let recordedAt: Date

        public init(auditEntryID: Int64, label: String, change: String, recordedAt: Date) {
            self.auditEntryID = auditEntryID
            self.label = label
            self.change = change
            self.recordedAt = recordedAt
        }
    }

    /// The outgoing person's note, as it stood at the hand-off.
    public struct Note: Codable, Sendable, Equatable {
        public let author: String
        public let text: String
        public let writtenAt: Date

        public init(author: String, text: String, writtenAt: Date) {
            self.author = author
            self.text = text
            self.writtenAt = writtenAt
        }
    }

    /// How many of each queue's oldest items a digest keeps.
    public static let oldestShown = 3
    /// How many changes made outside the console a digest lists (the count says how many there were).
    public static let outsideChangesShown = 20

    /// When the waiting counts and ages were taken.
    public var asOf: Date
    /// The rotation's IANA zone, in which pages and Markdown show the shift's times.
    public var timeZone: String
    /// Most first, then by key.
    public var decisionsByKind: [Count]
    public var decisionsByPerson: [Count]
    /// `nil` when the mirror held nothing yet: nothing is known of what waits.
    public var queues: [QueueState]?
    public var alerts: [Alert]
    public var outsideChanges: [OutsideChange]
    public var outsideChangeCount: Int
    public var note: Note?

    public init(
        asOf: Date, timeZone: String, decisionsByKind: [Count], decisionsByPerson: [Count], queues: [QueueState]?, alerts: [Alert],
        outsideChanges: [OutsideChange], outsideChangeCount: Int, note: Note?
    ) {
        self.asOf = asOf
        self.timeZone = timeZone
        self.decisionsByKind = decisionsByKind
        self.decisionsByPerson = decisionsByPerson
        self.queues = queues
        self.alerts = alerts
        self.outsideChanges = outsideChanges
        self.outsideChangeCount = outsideChangeCount
        self.note = note
    }

    public var decisionCount: Int { decisionsByKind.reduce(0) { $0 + $1.count } }
    public var waitingCount: Int { queues?.reduce(0) { $0 + $1.waiting } ?? 0 }
    public var overdueCount: Int { queues?.reduce(0) { $0 + $1.overdue } ?? 0 }

    /// Keys counted, most first and then by key, so two digests of the same shift read alike.
    public static func counts(of keys: [String]) -> [Count] {
        Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +)
            .map { Count(key: $0.key, count: $0.value) }
            .sorted { ($1.count, $0.key) < ($0.count, $1.key) }
    }

    /// A decision's audit action in words, in the number `count` asks for:
    /// `library.reject` → "libraries rejected", or "library rejected" for one.
    public static func label(forAction action: String, count: Int = 2) -> String {
        let (singular, plural, verb): (String, String, String) =
            switch action {
            case "library.approve": ("library", "libraries", "approved")
            case "library.reject": ("library", "libraries", "rejected")
            case "library.returnToPending": ("library", "libraries", "returned to pending")
            case "report.resolve": ("report", "reports", "resolved")
            case "report.dismiss": ("report", "reports", "dismissed")
            case "report.reopen": ("report", "reports", "reopened")
            case "photo.approve": ("photo", "photos", "approved")
            case "photo.reject": ("photo", "photos", "rejected")
            case "photo.returnToPending": ("photo", "photos", "returned to pending")
            default: (action, action, "")
            }
        let noun = CountText.noun(count, singular, plural)
        return verb.isEmpty ? noun : "\(noun) \(verb)"
    }

    /// The digest as stored: JSON with sorted keys, times in milliseconds since 1970 (exact round trips).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    public static func decode(_ json: String) throws -> HandoffDigest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(HandoffDigest.self, from: Data(json.utf8))
    }
}
