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
    }

    private let client: BackendClient
    private let interval: TimeInterval
    private let logger: Logger
    private var checkedAt: [Int: Date] = [:]
    /// The running check per staff member, and the session credentials it asks with.
    private var inFlight: [Int: (task: Task<Verdict?, Never>, credentials: ObjectIdentifier)] = [:]

    init(client: BackendClient, interval: TimeInterval, logger: Logger) {
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    /// Notes a fresh answer, such as the one sign-in just had.
    func recordStaff(_ staffId: Int, at now: Date = Date()) {
        checkedAt[staffId] = now
    }

    /// The verdict for a staff member: from the last check while it is fresh, else from the
    /// backend (one call, shared by concurrent requests).
    func verdict(staffId: Int, credentials: StaffCredentials, context: CallContext, now: Date = Date()) async -> Verdict {
        if let last = checkedAt[staffId], now.timeIntervalSince(last) < interval { return .staff }
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
            return .staff
        case nil:
            // The backend could not answer: let the person go on, and ask again after a full
            // interval rather than on every request while the backend is struggling.
            checkedAt[staffId] = now
            return .staff
        case let verdict?:
            checkedAt[staffId] = nil
            return verdict
        }
    }

    /// Asks now, whatever the last answer's age (the background re-check); nil: no usable answer.
    func recheck(staffId: Int, credentials: StaffCredentials, context: CallContext, now: Date = Date()) async -> Verdict? {
        let answer = await Self.ask(client, credentials: credentials, context: context, logger: logger)
        switch answer {
        case .staff?: checkedAt[staffId] = now
        case nil: break
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
