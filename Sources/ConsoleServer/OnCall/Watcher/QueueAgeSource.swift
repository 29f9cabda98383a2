import BookCornersAPI
import Foundation
import Logging
import ModerationStore

/// Where the watcher learns how long a queue's items have waited. The mirror, when it is on
/// and fresh for the queue, answers without a backend read (the console's read cache);
/// otherwise the watcher reads the queue's two ends itself, within its own share of the
/// database's `BackendBudget` (one count for every console process on the database):
/// the first page (newest items, and how many pages there are) and the last (the oldest).
actor QueueAgeSource {
    /// The most recently active staff member's tokens, skipping sessions the backend refused; `nil`: nobody signed in.
    typealias Credentials = @Sendable (_ refused: Set<String>) async -> (sessionID: String, credentials: StaffCredentials)?

    private let store: ModerationStore
    private let client: BackendClient
    private let credentials: Credentials
    private let mirrorIsOn: Bool
    private let configuration: OnCallWatcherConfiguration
    private let logger: Logger
    private let budget: BackendBudget
    /// Ends every access of someone whose tokens Book Corners answers "Staff access required".
    private let removal: StaffRemoval?
    private var sightings: [ModerationQueue: QueueSighting] = [:]
    private var lastRead: [ModerationQueue: Date] = [:]
    private var pagesLastSeen: [ModerationQueue: Int] = [:]
    private var refusedSessions: Set<String> = []
    private var saidNobodySignedIn = false

    /// Items per list read (the backend's most).
    static let pageSize = 50

    init(
        store: ModerationStore, client: BackendClient, credentials: @escaping Credentials, mirrorIsOn: Bool,
        configuration: OnCallWatcherConfiguration, budget: BackendBudget, logger: Logger, removal: StaffRemoval? = nil
    ) {
        self.removal = removal
        self.store = store
        self.client = client
        self.credentials = credentials
        self.mirrorIsOn = mirrorIsOn
        self.configuration = configuration
        self.logger = logger
        self.budget = budget
    }

    /// What is known of `queue` at `now`: from the fresh mirror, a read made now if one is due
    /// and the budget allows, else the last sighting; `nil` when nothing is known yet.
    func sighting(_ queue: ModerationQueue, now: Date) async -> QueueSighting? {
        if let mirrored = await mirrorSighting(queue, now: now) { return mirrored }
        if isReadDue(queue, now: now) { await read(queue, now: now) }
        return sightings[queue]
    }

    // MARK: The mirror

    private func mirrorSighting(_ queue: ModerationQueue, now: Date) async -> QueueSighting? {
        guard mirrorIsOn else { return nil }
        do {
            guard let health = try await store.mirrorHealth(), health.unansweredSince == nil,
                let passEnded = try await store.mirrorScopeState(Self.scope(queue)).lastPassCompletedAt,
                now.timeIntervalSince(passEnded) <= configuration.mirrorFreshness
            else { return nil }
            let waiting = try await store.mirroredWaitingDates()
            switch queue {
            case .libraries: return QueueSighting(dates: waiting.libraries)
            case .reports: return QueueSighting(dates: waiting.reports)
            case .photos: return QueueSighting(dates: waiting.photos)
            }
        } catch {
            logger.error("watcher could not read the mirror", metadata: ["error": "\(error)"])
            return nil
        }
    }

    // MARK: Its own reads

    /// Paced so a window's budget lasts the whole window: two reads a look, `budget` a window.
    private func isReadDue(_ queue: ModerationQueue, now: Date) -> Bool {
        guard configuration.budget > 0 else { return false }
        guard let last = lastRead[queue] else { return true }
        let pace = Double(configuration.windowSeconds) * 2 / Double(configuration.budget)
        return now.timeIntervalSince(last) >= pace
    }

    private func read(_ queue: ModerationQueue, now: Date) async {
        let scope = Self.scope(queue)
        // A look needs both ends; without room for both (when there is more than one page) it waits.
        let needed = (pagesLastSeen[queue] ?? 2) > 1 ? 2 : 1
        guard await budget.watcherAvailable(scope, at: now) >= needed else { return }
        guard let signedIn = await credentials(refusedSessions) else {
            if !saidNobodySignedIn { logger.notice("queue watcher waits: nobody is signed in to read the queues with") }
            saidNobodySignedIn = true
            return
        }
        saidNobodySignedIn = false
        lastRead[queue] = now
        do {
            guard case .granted(let firstBudget) = await budget.claimWatcher(scope, at: now) else { return }
            let first = try await page(queue, number: 1, credentials: signedIn.credentials, budget: firstBudget)
            let pages = max(1, first.pagination.totalPages)
            pagesLastSeen[queue] = pages
            guard pages > 1 else {
                sightings[queue] = QueueSighting(dates: first.dates)
                return
            }
            guard case .granted(let lastBudget) = await budget.claimWatcher(scope, at: now) else { return }
            let last = try await page(queue, number: min(pages, Page.numberRange.upperBound), credentials: signedIn.credentials, budget: lastBudget)
            let read = first.dates + last.dates
            let unseen = max(0, first.pagination.total - read.count)
            let range: ClosedRange<Date>? = {
                guard let newestOfLast = last.dates.max(), let oldestOfFirst = first.dates.min(), newestOfLast <= oldestOfFirst else { return nil }
                return newestOfLast...oldestOfFirst
            }()
            sightings[queue] = QueueSighting(dates: read, unseen: unseen, unseenRange: range)
        } catch .rateLimited(let seconds) {
            // Another client at our address spent the budget: the client stored the backend's
            // retry_after for every process, and the budget is refused until then.
            logger.notice("queue watcher read limited by the backend", metadata: ["queue": "\(queue.rawValue)", "retry_after": "\(seconds)"])
        } catch .sessionExpired {
            refusedSessions.insert(signedIn.sessionID)
        } catch .notStaff {
            // Removed at Book Corners: never read with again, and every access ends now.
            refusedSessions.insert(signedIn.sessionID)
            do {
                try await removal?.removeOwner(ofSession: signedIn.sessionID, noticedBy: "queue-watcher")
            } catch {
                logger.error("access of someone no longer staff not ended", metadata: ["error": "\(error)"])
            }
        } catch {
            // Down or answering nonsense: what was seen before stands; the read is tried on a later look.
            logger.warning("queue watcher read failed", metadata: ["queue": "\(queue.rawValue)", "error": "\(error)"])
        }
    }

    private func page(
        _ queue: ModerationQueue, number: Int, credentials: StaffCredentials, budget: CallBudget
    ) async throws(BackendError) -> (dates: [Date], pagination: Pagination) {
        let page = Page(clampingNumber: number, size: Self.pageSize)
        let context = CallContext(budget: budget)
        switch queue {
        case .libraries:
            let list = try await client.libraries(
                LibraryFilter(status: .pending), page: page, credentials: credentials, context: context)
            return (list.items.map(\.createdAt), list.pagination)
        case .reports:
            let list = try await client.reports(status: .open, page: page, credentials: credentials, context: context)
            return (list.items.map(\.createdAt), list.pagination)
        case .photos:
            let list = try await client.photos(status: .pending, page: page, credentials: credentials, context: context)
            return (list.items.map(\.createdAt), list.pagination)
        }
    }

    /// The backend's rate-limit scope of each queue's list.
    static func scope(_ queue: ModerationQueue) -> MirrorScope {
        switch queue {
        case .libraries: .libraryList
        case .reports: .reportList
        case .photos: .photoList
        }
    }
}
