import Foundation
import GRDB
import ModerationVocabulary

/// One decision as summaries and charts need it: who, what, when, and how long the item waited.
public struct DecisionRecord: Sendable, Equatable {
    public let recordedAt: Date
    public let actorUsername: String
    public let action: String
    /// `library`, `report` or `photo`: the queue the item came from.
    public let queue: String
    public let outcome: AuditOutcome
    /// From submission to decision; `nil` when the backend did not say when the item was
    /// submitted. A change made outside the console is timed at the middle of the window
    /// in which the mirror saw it happen.
    public let secondsWaited: Double?
    /// The reason given with it (a rejection's, told to the submitter); "" for none.
    public let reason: String

    /// Whether it is a change made outside the console, noticed by the mirror.
    public var isObserved: Bool { outcome == .observed }

    private static let decidedStatuses: Set<ItemStatus> = [.approved, .rejected, .resolved, .dismissed]

    /// Whether it decided the item: applied by the console, or a change made outside it to
    /// a decided status (not one back to the queue, nor a deletion).
    public var decided: Bool {
        switch outcome {
        case .applied: true
        case .observed:
            action.split(separator: ".").last.flatMap { ItemStatus(rawValue: String($0)) }
                .map { Self.decidedStatuses.contains($0) } ?? false
        case .conflict, .failed, .succeeded, .refused, .ended: false
        }
    }

    public init(
        recordedAt: Date, actorUsername: String, action: String, queue: String, outcome: AuditOutcome, secondsWaited: Double?, reason: String = ""
    ) {
        self.reason = reason
        self.recordedAt = recordedAt
        self.actorUsername = actorUsername
        self.action = action
        self.queue = queue
        self.outcome = outcome
        self.secondsWaited = secondsWaited
    }
}

/// Decisions of a range counted by staff member, action and outcome, and how long items
/// waited per queue (decided ones only: a conflict decided nothing). Changes made outside
/// the console count under the actor "outside the console" and the outcome `observed`.
public struct AuditSummary: Sendable, Equatable {
    public struct Count: Sendable, Equatable {
        public let key: String
        public let decisions: Int

        public init(key: String, decisions: Int) {
            self.key = key
            self.decisions = decisions
        }
    }

    public struct QueueTiming: Sendable, Equatable {
        public let queue: String
        public let decisions: Int
        public let medianSeconds: Double
        public let p90Seconds: Double

        public init(queue: String, decisions: Int, medianSeconds: Double, p90Seconds: Double) {
            self.queue = queue
            self.decisions = decisions
            self.medianSeconds = medianSeconds
            self.p90Seconds = p90Seconds
        }
    }

    public let total: Int
    public let byStaff: [Count]
    public let byAction: [Count]
    public let byOutcome: [Count]
    /// Rejections by their reason: each preset reason by its words, any other text as one
    /// "other" group (`otherReason`), none given as `noReason`.
    public let byReason: [Count]
    public let queues: [QueueTiming]

    public static let otherReason = "Other reasons (own words)"
    public static let noReason = "No reason given"

    /// `presetOf`: the preset reason a rejection's text was picked as (the duplicate preset names
    /// the library, so its text differs each time), or nil for someone's own words; the rejection
    /// counts under that preset's words.
    public init(_ records: [DecisionRecord], presetOf: (String) -> String? = { _ in nil }) {
        func counts(_ key: (DecisionRecord) -> String) -> [Count] {
            Dictionary(grouping: records, by: key).map { Count(key: $0.key, decisions: $0.value.count) }
                .sorted { ($0.decisions, $1.key) > ($1.decisions, $0.key) }
        }
        total = records.count
        byStaff = counts(\.actorUsername)
        byAction = counts(\.action)
        byOutcome = counts(\.outcome.rawValue)
        let rejections = records.filter { $0.decided && ($0.action.hasSuffix(".reject") || $0.action.hasSuffix(".rejected")) }
        byReason = Dictionary(
            grouping: rejections,
            by: { record in
                let reason = record.reason.trimmingCharacters(in: .whitespacesAndNewlines)
                return reason.isEmpty ? Self.noReason : presetOf(reason) ?? Self.otherReason
            }
        )
        .map { Count(key: $0.key, decisions: $0.value.count) }
        .sorted { ($0.decisions, $1.key) > ($1.decisions, $0.key) }
        let waits = Dictionary(grouping: records.filter(\.decided), by: \.queue)
            .mapValues { $0.compactMap(\.secondsWaited).sorted() }
        queues = waits.keys.sorted().compactMap { queue in
            guard let sorted = waits[queue], !sorted.isEmpty else { return nil }
            return QueueTiming(
                queue: queue, decisions: sorted.count, medianSeconds: Self.percentile(0.5, of: sorted),
                p90Seconds: Self.percentile(0.9, of: sorted))
        }
    }

    /// Nearest-rank percentile of sorted, non-empty values.
    public static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The summary as CSV (RFC 4180): one row per group, hours with one decimal.
    public func csv() -> String {
        var lines = ["group,key,decisions,median_hours,p90_hours"]
        for (group, counts) in [("staff", byStaff), ("action", byAction), ("outcome", byOutcome)] {
            lines += counts.map { "\(group),\(AuditCSV.field($0.key)),\($0.decisions),," }
        }
        func hours(_ seconds: Double) -> String { String(format: "%.1f", seconds / 3600) }
        lines += queues.map { "queue,\($0.queue),\($0.decisions),\(hours($0.medianSeconds)),\(hours($0.p90Seconds))" }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension ModerationStore {
    /// The decisions (not sign-ins or exports) among the entries `filter` matches, oldest first.
    public func decisionRecords(_ filter: AuditFilter) async throws -> [DecisionRecord] {
        let conditions = filter.sqlConditions()
        return try await writer.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT recordedAt, actorUsername, action, targetKind, outcome,
                           (julianday(recordedAt) - julianday(itemCreatedAt)) * 86400.0 AS waited, outcomeDetail, itemCreatedAt, reason
                    FROM auditEntry
                    WHERE \(conditions.sql) AND targetKind IN ('library', 'report', 'photo')
                    ORDER BY id
                    """, arguments: conditions.arguments)
            var records: [DecisionRecord] = []
            while let row = try rows.next() {
                let action: String = row[2]
                let outcome = AuditOutcome.decode(stored: row[4], detail: "", action: action).outcome
                var waited: Double? = row[5]
                if outcome == .observed {
                    // Noticed at the end of its window; it happened somewhere inside it.
                    let created: Date? = row[7]
                    waited = ObservedWindow(detail: row[6]).flatMap { window in created.map { window.middle.timeIntervalSince($0) } }
                }
                records.append(
                    DecisionRecord(
                        recordedAt: row[0], actorUsername: row[1], action: action, queue: row[3], outcome: outcome, secondsWaited: waited,
                        reason: row[8]))
            }
            return records
        }
    }
}
