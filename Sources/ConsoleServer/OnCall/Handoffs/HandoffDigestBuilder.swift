import Foundation
import ModerationStore

/// Builds the digest of one shift from what the console holds: decisions from the audit log,
/// what waits from the mirror (never a backend read), changes made outside the console from
/// the observed audit entries, and the queue watcher's alert episodes.
struct HandoffDigestBuilder: Sendable {
    let store: ModerationStore
    /// The alert episodes under way in a stretch of time.
    let alerts: @Sendable (DateInterval) async throws -> [HandoffDigest.Alert]

    /// `alerts` defaults to the watcher's episodes in `store`; a test may give its own.
    init(store: ModerationStore, alerts: (@Sendable (DateInterval) async throws -> [HandoffDigest.Alert])? = nil) {
        self.store = store
        self.alerts = alerts ?? { interval in try await store.queueAlerts(overlapping: interval).map(HandoffDigest.Alert.init) }
    }

    /// The digest of `[startsAt, endsAt)`, waiting items aged at `asOf`. The note is added when
    /// the hand-off is stored (`ModerationStore.recordHandoff`).
    func digest(startsAt: Date, endsAt: Date, timeZone: TimeZone, asOf: Date) async throws -> HandoffDigest {
        let decisions = try await store.decisionRecords(AuditFilter(outcome: .applied, from: startsAt, to: endsAt))
        let observed = AuditFilter(outcome: .observed, from: startsAt, to: endsAt)
        let outside = try await store.auditPage(observed, limit: HandoffDigest.outsideChangesShown).entries
        return HandoffDigest(
            asOf: asOf, timeZone: timeZone.identifier,
            decisionsByKind: HandoffDigest.counts(of: decisions.map(\.action)),
            decisionsByPerson: HandoffDigest.counts(of: decisions.map(\.actorUsername)),
            queues: try await queues(asOf: asOf),
            alerts: try await alerts(DateInterval(start: startsAt, end: max(startsAt, endsAt))).sorted { $0.openedAt < $1.openedAt },
            outsideChanges: outside.map { entry in
                HandoffDigest.OutsideChange(
                    auditEntryID: entry.id ?? 0,
                    label: "\(entry.targetKind) \(entry.targetName.isEmpty ? "#" + entry.targetId : entry.targetName)",
                    change: "\(entry.statusBefore) → \(entry.statusAfter)", recordedAt: entry.recordedAt)
            },
            outsideChangeCount: await outside.count < HandoffDigest.outsideChangesShown ? outside.count : try store.auditEntryCount(observed),
            note: nil)
    }

    /// Each queue's waiting and overdue counts and its oldest items; `nil` before the mirror's first read.
    private func queues(asOf: Date) async throws -> [HandoffDigest.QueueState]? {
        guard try await store.mirrorSummary() != nil else { return nil }
        let targets = try await store.queueTargets()
        let waiting = try await store.mirroredWaitingDates()
        let shown = HandoffDigest.oldestShown
        func item(_ label: String, _ detail: String, _ slug: String, _ createdAt: Date, _ queue: ModerationQueue) -> HandoffDigest.WaitingItem {
            HandoffDigest.WaitingItem(
                label: label, detail: detail, librarySlug: slug, createdAt: createdAt,
                overdue: targets.standing(queue, createdAt: createdAt, now: asOf) == .overdue)
        }
        func state(_ queue: ModerationQueue, _ dates: [Date], _ oldest: [HandoffDigest.WaitingItem]) -> HandoffDigest.QueueState {
            HandoffDigest.QueueState(
                queue: queue, waiting: dates.count, overdue: dates.count { targets.standing(queue, createdAt: $0, now: asOf) == .overdue },
                targetMinutes: targets.minutes(queue), oldest: oldest)
        }
        return await [
            state(
                .libraries, waiting.libraries,
                try store.oldestMirroredLibraries(status: .pending, count: shown).map {
                    item(LibraryText.displayName($0.name), LibraryText.place(city: $0.city, country: $0.country), $0.slug, $0.createdAt, .libraries)
                }),
            await state(
                .reports, waiting.reports,
                try store.oldestMirroredReports(status: .open, count: shown).map {
                    item(LibraryText.displayName($0.libraryName), $0.reason.label, $0.librarySlug, $0.createdAt, .reports)
                }),
            await state(
                .photos, waiting.photos,
                try store.oldestMirroredPhotos(status: .pending, count: shown).map {
                    item(LibraryText.displayName($0.libraryName), $0.caption, $0.librarySlug, $0.createdAt, .photos)
                }),
        ]
    }
}
