import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Works through recorded decisions: checks each item is still as the moderator saw it,
/// sends the PATCH, and stores the outcome with its audit entry and notifications in one
/// transaction. Waits out rate limits and outages; parks decisions whose author has no
/// session; after a restart resumes everything unfinished, re-checking before re-sending.
final class ActionRunner: Service, Sendable {
    private let store: ModerationStore
    private let client: BackendClient
    private let sessions: SessionManager
    private let cache: BackendReadCache
    private let logger: Logger
    private let bundleID: String
    private let forwardClientAddress: Bool
    private let doorbell = Doorbell()
    private let holds = HoldBook()

    init(
        store: ModerationStore, client: BackendClient, sessions: SessionManager, cache: BackendReadCache, logger: Logger,
        bundleID: String, forwardClientAddress: Bool
    ) {
        self.store = store
        self.client = client
        self.sessions = sessions
        self.cache = cache
        self.logger = logger
        self.bundleID = bundleID
        self.forwardClientAddress = forwardClientAddress
    }

    /// Asks the runner to look for due work now (a decision was just recorded).
    func nudge() {
        doorbell.ring()
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.workThroughDueActions()
                } catch {
                    self.logger.error("action runner pass failed", metadata: ["error": "\(error)"])
                }
                await self.sleepUntilDueOrNudged()
            }
        }
    }

    /// One pass over everything due now.
    func workThroughDueActions(now: Date = Date()) async throws {
        for action in try store.dueActions(now: now) {
            guard !Task.isCancelled else { return }
            if let until = await holds.hold(for: holdKey(action)), until > Date() {
                try store.reschedule(
                    action.id ?? 0, state: .waiting, nextAttemptAt: until,
                    message: "Book Corners asked us to slow down; next try \(TimeText.utc(until)).", backendStatus: 429,
                    countAttempt: false, now: Date())
                continue
            }
            await process(action)
        }
    }

    private func sleepUntilDueOrNudged() async {
        let next = (try? store.nextDueDate()) ?? nil
        let wait = min(max((next ?? .distantFuture).timeIntervalSinceNow, 0.05), 1)
        await doorbell.wait(atMost: .milliseconds(Int(wait * 1000)))
    }

    // MARK: One action

    private func process(_ action: ModerationAction) async {
        guard let id = action.id else { return }
        do {
            guard let credentials = try await sessions.credentials(forStaff: action.actorId) else {
                try store.reschedule(
                    id, state: .parked, nextAttemptAt: Date(),
                    message: "Waiting for \(action.actorUsername) to sign in again; it is sent as soon as they do.",
                    backendStatus: nil, countAttempt: false, now: Date())
                return
            }
            let context = CallContext(requestID: action.requestId, forwardedFor: forwardClientAddress ? action.clientAddress : nil)
            let target: DecisionTarget
            do {
                target = try await look(at: action, credentials: credentials, context: context)
            } catch {
                try await handle(error, for: action, target: nil)
                return
            }
            // An earlier attempt may have reached the backend before we could store its outcome.
            let mayHaveBeenSent = action.state == .sending || action.attempts > 0
            if target.status == action.statusWanted, mayHaveBeenSent {
                try finishApplied(action, target: target, backendStatus: 200, note: " (confirmed on re-check)")
                return
            }
            guard target.status == action.statusSeen else {
                try finish(
                    action, state: .conflict, target: target, statusAfter: target.status, backendStatus: nil,
                    message: "Not sent: someone else changed this to \(target.status) before your decision went out (you saw it \(action.statusSeen)). Look again and decide.")
                return
            }
            try store.reschedule(id, state: .sending, nextAttemptAt: Date(), message: nil, backendStatus: nil, countAttempt: true, now: Date())
            do {
                try await send(action, target: target, credentials: credentials, context: context)
            } catch {
                try await handle(error, for: action, target: target)
                return
            }
            try finishApplied(action, target: target, backendStatus: 200, note: "")
        } catch {
            logger.error("action could not be processed", metadata: ["action.id": "\(id)", "error": "\(error)"])
        }
    }

    private func look(at action: ModerationAction, credentials: StaffCredentials, context: CallContext) async throws(BackendError) -> DecisionTarget {
        switch action.targetKind {
        case .library:
            return DecisionTarget(try await client.library(slug: action.targetKey, credentials: credentials, context: context))
        case .report:
            // There is no GET by id for reports: find it in the list.
            for number in 1...20 {
                let page = try await client.reports(
                    status: .all, page: Page(clampingNumber: number, size: 50), credentials: credentials, context: context)
                if let report = page.items.first(where: { String($0.id) == action.targetKey }) { return DecisionTarget(report) }
                if !page.pagination.hasNext { break }
            }
            throw .notFound
        case .photo:
            for number in 1...20 {
                let page = try await client.photos(
                    status: .all, page: Page(clampingNumber: number, size: 50), credentials: credentials, context: context)
                if let photo = page.items.first(where: { String($0.id) == action.targetKey }) { return DecisionTarget(photo) }
                if !page.pagination.hasNext { break }
            }
            throw .notFound
        }
    }

    private func send(_ action: ModerationAction, target: DecisionTarget, credentials: StaffCredentials, context: CallContext) async throws(BackendError) {
        switch action.targetKind {
        case .library:
            let status = LibraryStatus(rawValue: action.statusWanted) ?? .pending
            _ = try await client.setLibraryStatus(
                slug: action.targetKey, to: status, rejectionReason: status == .rejected ? action.reason : nil,
                credentials: credentials, context: context)
        case .report:
            _ = try await client.setReportStatus(
                id: target.itemID, to: ReportStatus(rawValue: action.statusWanted) ?? .open, credentials: credentials, context: context)
        case .photo:
            _ = try await client.setPhotoStatus(
                id: target.itemID, to: PhotoStatus(rawValue: action.statusWanted) ?? .pending, credentials: credentials, context: context)
        }
    }

    /// Outages wait with backoff, rate limits wait as told, an expired session parks; the
    /// backend refusing the decision itself (404, 422, 403) is final.
    private func handle(_ error: BackendError, for action: ModerationAction, target: DecisionTarget?) async throws {
        let id = action.id ?? 0
        let now = Date()
        switch error {
        case .rateLimited(let seconds):
            let until = now.addingTimeInterval(Double(seconds))
            await holds.set(holdKey(action), until: until)
            try store.reschedule(
                id, state: .waiting, nextAttemptAt: until,
                message: "Book Corners asked us to slow down; next try \(TimeText.utc(until)).", backendStatus: 429,
                countAttempt: false, now: now)
        case .unavailable, .unexpectedAnswer:
            // Exponential backoff with full jitter: 2 s, 4 s, … capped at 5 minutes.
            let ceiling = min(300, 2 * pow(2, Double(min(action.attempts, 10))))
            let until = now.addingTimeInterval(Double.random(in: 1...max(1, ceiling)))
            try store.reschedule(
                id, state: .waiting, nextAttemptAt: until,
                message: "\(error.staffMessage) Next try \(TimeText.utc(until)).", backendStatus: nil, countAttempt: false, now: now)
        case .sessionExpired, .invalidCredentials:
            try store.reschedule(
                id, state: .parked, nextAttemptAt: now,
                message: "Waiting for \(action.actorUsername) to sign in again; it is sent as soon as they do.",
                backendStatus: 401, countAttempt: false, now: now)
        case .notFound:
            try finish(action, state: .failed, target: target, statusAfter: target?.status ?? action.statusSeen, backendStatus: 404,
                       message: "Not applied: this item no longer exists at Book Corners.")
        case .validation(let fields):
            try finish(action, state: .failed, target: target, statusAfter: target?.status ?? action.statusSeen, backendStatus: 422,
                       message: "Not applied: Book Corners refused it (\(fields.map { "\($0.location): \($0.message)" }.joined(separator: "; "))).")
        case .notStaff:
            try finish(action, state: .failed, target: target, statusAfter: target?.status ?? action.statusSeen, backendStatus: 403,
                       message: "Not applied: Book Corners says \(action.actorUsername) is no longer staff.")
        }
    }

    private func finishApplied(_ action: ModerationAction, target: DecisionTarget, backendStatus: Int, note: String) throws {
        try finish(
            action, state: .applied, target: target, statusAfter: action.statusWanted, backendStatus: backendStatus,
            message: "\(DecisionVerb.pastTense(action.statusWanted)): \(target.nameInCity)\(note).")
        Task { [cache] in
            for prefix in ["summary", "libraries?", "library/", "reports?", "photos?", "nearby/"] { await cache.invalidate(prefix: prefix) }
        }
    }

    private func finish(
        _ action: ModerationAction, state: ModerationAction.State, target: DecisionTarget?, statusAfter: String, backendStatus: Int?,
        message: String
    ) throws {
        let now = Date()
        let audit = AuditEntry(
            recordedAt: now, actorId: action.actorId, actorUsername: action.actorUsername,
            action: DecisionVerb.auditAction(kind: action.targetKind, statusAfter: action.statusWanted),
            targetKind: action.targetKind.rawValue, targetId: target.map { String($0.itemID) } ?? action.targetKey,
            targetSlug: target?.slug ?? (action.targetKind == .library ? action.targetKey : ""), targetName: target?.name ?? "",
            statusBefore: target?.status ?? action.statusSeen, statusAfter: statusAfter, reason: action.reason,
            outcome: state.rawValue, backendStatus: backendStatus, requestId: action.requestId, clientAddress: action.clientAddress,
            userAgent: action.userAgent, itemCreatedAt: target?.createdAt, actionId: action.id)
        var messages: [OutboxMessage] = []
        if state == .applied, let target, let recipient = target.submitterID,
            let push = DecisionNotifications.notification(for: target, statusAfter: action.statusWanted, reason: action.reason)
        {
            let messageID = UUID().uuidString
            let headers = push.headers(
                messageID: messageID, bundleID: bundleID, collapseID: "\(target.kind.rawValue)-\(target.itemID)", now: now)
            let headerJSON = String(decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
            messages.append(OutboxMessage(
                id: messageID, actionId: action.id ?? 0, recipientUserId: recipient, eventType: push.type,
                payload: push.payloadJSON(), headers: headerJSON, createdAt: now))
        }
        try store.finish(action.id ?? 0, state: state, message: message, backendStatus: backendStatus, audit: audit, notifications: messages, now: now)
        logger.info("decision finished", metadata: ["action.id": "\(action.id ?? 0)", "outcome": "\(state.rawValue)", "actor": "\(action.actorUsername)"])
    }

    /// Rate limits count per client and endpoint: one hold per address and kind of PATCH.
    private func holdKey(_ action: ModerationAction) -> String {
        "\(forwardClientAddress ? action.clientAddress : "console")|\(action.targetKind.rawValue)"
    }
}

/// When each endpoint may be written to again.
private actor HoldBook {
    private var holds: [String: Date] = [:]

    func hold(for key: String) -> Date? { holds[key] }

    func set(_ key: String, until: Date) {
        holds[key] = max(holds[key] ?? until, until)
    }
}
