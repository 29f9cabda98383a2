import Foundation
import ModerationStore

/// When each decision still on its way should reach Book Corners, by the same arithmetic the
/// budget holds the runners to: per kind of item, at most `limits.writes` sends in each window
/// (less what the window has spent already), in the order the runners take them (due time,
/// then id), none before a 429's pause ends. "13 waiting" for a window of 10 is "10 at 21:35,
/// 3 at 21:40", not 13 at 21:35: the time each `nextAttemptAt` names is only the earliest try.
struct SendSchedule: Sendable {
    /// What a window of one kind has spent already, and until when that kind is paused.
    struct KindState: Sendable {
        var spentThisWindow = 0
        var pausedUntil: Date?
    }

    /// The backend's limits the budget holds writes to; `nil` when writes are not budgeted (then
    /// nothing can be said beyond each decision's own next try, and `shown` changes nothing).
    let limits: BackendLimits?

    /// The write scope the budget counts decisions on items of `kind` in (as `BackendEndpoint` names it).
    static func writeScope(_ kind: ModerationAction.TargetKind) -> String {
        switch kind {
        case .library: "api-library-moderation-update"
        case .report: "api-report-moderation-update"
        case .photo: "api-photo-moderation-update"
        }
    }

    /// The expected send time of every unfinished action in `unfinished` (all authors'): a
    /// `sending` one now, a parked one not at all (it waits for its author).
    func expectedSends(of unfinished: [ModerationAction], kinds: [ModerationAction.TargetKind: KindState], now: Date) -> [Int64: Date] {
        guard let limits, limits.writes > 0, limits.windowSeconds > 0 else { return [:] }
        let window = Double(limits.windowSeconds)
        func index(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / window).rounded(.down)) }
        let current = index(now)
        var used: [ModerationAction.TargetKind: [Int: Int]] = [:]
        for (kind, state) in kinds { used[kind, default: [:]][current] = state.spentThisWindow }
        var expected: [Int64: Date] = [:]
        let inOrder = unfinished.filter { $0.state != .parked }.sorted { ($0.nextAttemptAt, $0.id ?? 0) < ($1.nextAttemptAt, $1.id ?? 0) }
        for action in inOrder {
            guard let id = action.id else { continue }
            // In flight: its send was counted when it was granted.
            guard action.state != .sending else { expected[id] = now; continue }
            var earliest = max(action.nextAttemptAt, now, kinds[action.targetKind]?.pausedUntil ?? now)
            var slot = index(earliest)
            while used[action.targetKind, default: [:]][slot, default: 0] >= limits.writes {
                slot += 1
                earliest = Date(timeIntervalSince1970: Double(slot) * window)
            }
            used[action.targetKind, default: [:]][slot, default: 0] += 1
            expected[id] = earliest
        }
        return expected
    }

    /// `queued` (decisions by item key, as a list reads them) with their expected send times, as
    /// `shown`; on a store error, as they are (a page never fails for an estimate).
    func shown(byKey queued: [String: ModerationAction], store: ModerationStore, now: Date) async -> [String: ModerationAction] {
        guard let shown = try? await shown(Array(queued.values), store: store, now: now) else { return queued }
        return Dictionary(shown.map { ($0.targetKey, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// `actions` as the Pending actions panel shows them: each one waiting its turn carries its
    /// expected send time as its `nextAttemptAt` (for display only; nothing is stored).
    func shown(_ actions: [ModerationAction], store: ModerationStore, now: Date) async throws -> [ModerationAction] {
        guard let limits, actions.contains(where: { $0.state == .queued || $0.state == .waiting }) else { return actions }
        var kinds: [ModerationAction.TargetKind: KindState] = [:]
        let window = Int((now.timeIntervalSince1970 / Double(limits.windowSeconds)).rounded(.down))
        for kind in [ModerationAction.TargetKind.library, .report, .photo] {
            let scope = Self.writeScope(kind)
            kinds[kind] = KindState(
                spentThisWindow: try await store.backendBudgetSpending(scope: scope, pool: BackendBudget.writePool, windowIndex: window).spent,
                pausedUntil: try await store.backendScopePausedUntil(scope, now: now))
        }
        let expected = expectedSends(of: try await store.unfinishedActions(), kinds: kinds, now: now)
        return actions.map { action in
            guard action.state == .queued || action.state == .waiting, let id = action.id, let time = expected[id] else { return action }
            var shown = action
            shown.nextAttemptAt = time
            return shown
        }
    }
}
