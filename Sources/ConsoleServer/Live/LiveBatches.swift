import Foundation
import ModerationStore

/// What one set of changes means for every open stream, read once per process rather than
/// once per stream: the changes after an id, the items they touch as they are now, when the
/// decisions among them should be sent, and the queue counts. Each stream then writes it for
/// its own viewer ("you are reviewing", "queued by you") from memory. Streams woken by one
/// change all stand at the same id, so 200 open pages cost one set of reads per change.
actor LiveBatches {
    /// The changes after one id, as every viewer's stream needs them.
    struct Batch: Sendable {
        /// The newest change covered; `nil` when there was none.
        let lastID: Int64?
        /// Each item changed, with the id of the newest change that touched it, oldest first.
        fileprivate let items: [(item: LiveItem, id: Int64)]
        /// Each decision on its way, with its expected send time, by id.
        fileprivate let shownByID: [Int64: ModerationAction]
        fileprivate let submitted: [(kind: ModerationAction.TargetKind, count: Int)]

        /// The events for `viewer`: one per item changed, then new submissions as one count per kind.
        func text(viewer: Int, now: Date) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var text = ""
            for (item, id) in items {
                let decision = item.latestDecision.map { latest in latest.id.flatMap { shownByID[$0] } ?? latest }
                let json = String(decoding: try encoder.encode(LiveItemView(item, decision: decision, viewerId: viewer, now: now)), as: UTF8.self)
                text += "id: \(id)\nevent: item\ndata: \(json)\n\n"
            }
            for (kind, count) in submitted {
                text += "event: submitted\ndata: {\"count\":\(count),\"kind\":\"\(kind.rawValue)\"}\n\n"
            }
            return text
        }
    }

    private let store: ModerationStore
    /// The batch in the making or made for each starting id, with the newest change known when
    /// it was asked for; one newer than that is read again.
    private var batches: [Int64: (newest: Int64, task: Task<Batch, any Error>)] = [:]
    /// The queue counts (`event: counts`), read once per newest change and second (the mirror's
    /// read of Book Corners' summary moves them without a change of its own).
    private var counts: (newest: Int64, at: Date, task: Task<String?, any Error>)?
    /// Batches read from the database, for the tests' and the benchmark's count.
    private(set) var reads = 0

    init(store: ModerationStore) {
        self.store = store
    }

    /// The changes after `id` while `newest` is the newest known, read at most once for every
    /// stream that asks.
    func batch(after id: Int64, newest: Int64, schedule: SendSchedule) async throws -> Batch {
        if let made = batches[id], made.newest >= newest { return try await made.task.value }
        // Entries for an older newest are of no use to anyone any more.
        batches = batches.filter { $0.value.newest >= newest }
        reads += 1
        let store = store
        let task = Task { try await Self.read(after: id, store: store, schedule: schedule) }
        batches[id] = (newest, task)
        do {
            return try await task.value
        } catch {
            // A failed read (the database busy for a moment) is not kept: the next wake reads again.
            if batches[id]?.task == task { batches[id] = nil }
            throw error
        }
    }

    /// The queue counts as `{"library":…}`, read once per `newest` and second; `nil` before a summary is loaded.
    func counts(newest: Int64, now: Date = Date()) async throws -> String? {
        if let made = counts, made.newest >= newest, now.timeIntervalSince(made.at) < 1 { return try await made.task.value }
        let store = store
        let task = Task { () async throws -> String? in
            guard let summary = try await store.mirrorSummary() else { return nil }
            return "{\"library\":\(summary.pendingLibraries),\"photo\":\(summary.pendingPhotos),\"report\":\(summary.openReports)}"
        }
        counts = (newest, now, task)
        do {
            return try await task.value
        } catch {
            if counts?.task == task { counts = nil }
            throw error
        }
    }

    private static func read(after id: Int64, store: ModerationStore, schedule: SendSchedule) async throws -> Batch {
        let changes = try await store.liveChanges(after: id)
        let now = Date()
        var latest: [ItemClaim.Target: Int64] = [:]
        var submitted: [ModerationAction.TargetKind: Int] = [:]
        for change in changes {
            if change.cause == .submitted { submitted[change.targetKind, default: 0] += 1 }
            latest[change.target] = change.id
        }
        let ordered = latest.sorted { $0.value < $1.value }
        let items = ordered.isEmpty ? [] : try await store.liveItems(ordered.map(\.key), now: now)
        // Decisions on their way say when they should really be sent, as the panel does.
        let waiting = items.compactMap(\.latestDecision).filter { !$0.state.isFinal }
        let shown = waiting.isEmpty ? [] : ((try? await schedule.shown(waiting, store: store, now: now)) ?? waiting)
        return Batch(
            lastID: changes.last?.id, items: Array(zip(items, ordered.map(\.value))),
            shownByID: Dictionary(shown.compactMap { action in action.id.map { ($0, action) } }, uniquingKeysWith: { first, _ in first }),
            submitted: submitted.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) })
    }
}
