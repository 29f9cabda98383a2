import Foundation
import ModerationStore

/// Which outbox messages go out, per event type: Book Corners already pushes the submitter
/// when a library is approved from pending or rejected with a reason, and the same news must
/// not arrive twice.
public struct DeliveryPolicy: Sendable, Equatable {
    /// What happens to a message of one event type.
    public enum Rule: String, Sendable, CaseIterable {
        /// Delivered by the console's transport.
        case deliver
        /// Kept for the record and marked "sent by Book Corners" when Book Corners pushes that
        /// news itself; delivered when it does not (a rejection without a reason, an approval of
        /// a library that was not pending), so nobody misses it.
        case recordedOnly = "recorded-only"
    }

    private var rules: [OutboxMessage.EventType: Rule]

    /// Library approvals and rejections recorded only; everything else delivered.
    public static let standard = DeliveryPolicy(rules: [.libraryApproved: .recordedOnly, .libraryRejected: .recordedOnly])

    public init(rules: [OutboxMessage.EventType: Rule]) {
        self.rules = rules
    }

    public func rule(for type: OutboxMessage.EventType) -> Rule { rules[type] ?? .deliver }

    /// Whether the dispatcher keeps this message for the record instead of delivering it.
    public func recordsOnly(_ message: OutboxMessage) -> Bool {
        rule(for: message.eventType) == .recordedOnly && message.sentByBookCorners
    }

    /// Event types Book Corners pushes itself, the only ones `recorded-only` can apply to.
    public static let typesBookCornersSends: Set<OutboxMessage.EventType> = [.libraryApproved, .libraryRejected]

    /// Why a policy text was refused.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads `library.approved=deliver,photo.approved=deliver`: the standard policy with the
    /// named types changed. Unknown types or rules are refused, naming what is allowed, and so
    /// is delivering news Book Corners pushes itself unless the operator states, with
    /// `bookCornersPushesOff`, that Book Corners' own pushes are turned off: the submitter would
    /// be told twice (the decision protocol's I4).
    public static func parse(_ text: String, bookCornersPushesOff: Bool = false) throws(Problem) -> DeliveryPolicy {
        var policy = standard
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.count == 2 else { throw Problem(description: "\(part): expected TYPE=RULE, e.g. library.approved=deliver") }
            guard let type = OutboxMessage.EventType(rawValue: pieces[0]) else {
                throw Problem(description: "\(pieces[0]): not an event type (\(OutboxMessage.EventType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let rule = Rule(rawValue: pieces[1]) else {
                throw Problem(description: "\(pieces[1]): not a rule (deliver or recorded-only)")
            }
            guard rule == .deliver || typesBookCornersSends.contains(type) else {
                throw Problem(description: "\(type.rawValue)=recorded-only: Book Corners never sends \(type.rawValue) itself, so nobody would be told")
            }
            guard rule == .recordedOnly || !typesBookCornersSends.contains(type) || bookCornersPushesOff else {
                throw Problem(
                    description:
                        "\(type.rawValue)=deliver: Book Corners pushes this news to the submitter itself, so they would be told twice. Deliver it from the console only if Book Corners' own pushes are turned off, and say so with --book-corners-pushes-off (CONSOLE_BOOK_CORNERS_PUSHES_OFF=1)"
                )
            }
            policy.rules[type] = rule
        }
        return policy
    }

    /// The policy as `--outbox-policy` takes it, every type named.
    public var text: String {
        OutboxMessage.EventType.allCases.map { "\($0.rawValue)=\(rule(for: $0).rawValue)" }.joined(separator: ",")
    }
}
