import BookCornersAPI
import Foundation
import Logging

/// Asks the backend (`auth/me`) whether a signed-in person is still staff, at most once per
/// staff member per `interval`, however many requests and sessions they have: the answer
/// spends their backend read budget.
actor StaffStatusCheck {
    /// What the backend said about the person.
    enum Verdict: Sendable, Equatable {
        case staff
        case notStaff
        /// The session's tokens are refused: that session (not the person) is finished.
        case refused
        /// Book Corners has given no usable answer for longer than the grace since the last
        /// confirmation at `since`: no more pages until it answers (the session is kept).
        case unconfirmed(since: Date, grace: TimeInterval)
    }

    private let client: BackendClient
    private let interval: TimeInterval
    /// How long after the last confirmation pages are still shown while Book Corners cannot be asked.
    private let grace: TimeInterval
    private let logger: Logger
    private var checkedAt: [Int: Date] = [:]
    /// When Book Corners last said each person is staff (sign-in included); before any answer in
    /// this process, when the process started.
    private var confirmedAt: [Int: Date] = [:]
    private let startedAt: Date
    /// The running check per staff member, and the session credentials it asks with.
    private var inFlight: [Int: (task: Task<Verdict?, Never>, credentials: ObjectIdentifier)] = [:]

    /// The default `grace`: 15 minutes.
    static let defaultGrace: TimeInterval = 15 * 60

    init(client: BackendClient, interval: TimeInterval, grace: TimeInterval = defaultGrace, logger: Logger, now: Date = Date()) {
        self.client = client
        self.interval = interval
        self.grace = grace
        self.logger = logger
        self.startedAt = now
    }

    /// Notes a fresh answer, such as the one sign-in just had.
    func recordStaff(_ staffId: Int, at now: Date = Date()) {
        checkedAt[staffId] = now
        confirmedAt[staffId] = now
    }

    /// The verdict for a staff member: from the last check while it is fresh, else from the
    /// backend (one call, shared by concurrent requests).
    /// `signedInAt`: when the session began (its sign-in asked `auth/me`), the confirmation to
    /// go by when this process has none of its own.
    func verdict(staffId: Int, credentials: StaffCredentials, context: CallContext, signedInAt: Date? = nil, now: Date = Date()) async -> Verdict {
        if let signedInAt, signedInAt > confirmedAt[staffId] ?? .distantPast { confirmedAt[staffId] = signedInAt }
        if let last = checkedAt[staffId], now.timeIntervalSince(last) < interval {
            // The last answer confirmed them: fresh until the interval is up, whatever the grace.
            if let confirmed = confirmedAt[staffId], confirmed >= last { return .staff }
            return withinGrace(staffId, now: now)
        }
        let task: Task<Verdict?, Never>
        let sharedTokens: Bool
        if let running = inFlight[staffId] {
            task = running.task
            sharedTokens = running.credentials == ObjectIdentifier(credentials)
        } else {
            let client = client
            task = Task { await Self.ask(client, credentials: credentials, context: context, logger: logger) }
            inFlight[staffId] = (task, ObjectIdentifier(credentials))
            sharedTokens = true
        }
        var answer = await task.value
        if inFlight[staffId]?.task == task { inFlight[staffId] = nil }
        // Refused tokens are one session's, not the person's: another session asks with its own.
        if answer == .refused, !sharedTokens {
            answer = await Self.ask(client, credentials: credentials, context: context, logger: logger)
        }
        switch answer {
        case .staff?:
            checkedAt[staffId] = now
            confirmedAt[staffId] = now
            return .staff
        case nil:
            // The backend could not answer: let the person go on for the grace, and ask again
            // after a full interval rather than on every request while the backend is struggling.
            checkedAt[staffId] = now
            return withinGrace(staffId, now: now)
        case let verdict?:
            checkedAt[staffId] = nil
            return verdict
        }
    }

    /// `.staff` while the last confirmation is within the grace, else `.unconfirmed`.
    private func withinGrace(_ staffId: Int, now: Date) -> Verdict {
        let since = confirmedAt[staffId] ?? startedAt
        return now.timeIntervalSince(since) <= grace ? .staff : .unconfirmed(since: since, grace: grace)
    }

    /// Asks now, whatever the last answer's age (the background re-check); nil: no usable answer.
    func recheck(staffId: Int, credentials: StaffCredentials, context: CallContext, now: Date = Date()) async -> Verdict? {
        let answer = await Self.ask(client, credentials: credentials, context: context, logger: logger)
        switch answer {
        case .staff?:
            checkedAt[staffId] = now
            confirmedAt[staffId] = now
        case nil, .unconfirmed?: break
        case .notStaff?, .refused?: checkedAt[staffId] = nil
        }
        return answer
    }

    /// `nil` when the backend gave no usable answer.
    private static func ask(_ client: BackendClient, credentials: StaffCredentials, context: CallContext, logger: Logger) async -> Verdict? {
        do {
            return try await client.me(credentials, context: context).isStaff ? .staff : .notStaff
        } catch .sessionExpired {
            return .refused
        } catch .notStaff {
            return .notStaff
        } catch {
            logger.warning("staff status not re-checked", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
