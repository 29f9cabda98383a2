import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Asks Book Corners (`auth/me`) whether each signed-in person is still staff, in the
/// background, so that someone removed there loses every access within a minute even if they
/// never open a page again. One process on the database does it at a time (a work lease), and
/// the pace fits the read budget: each person every `interval(people:)`, which grows with the
/// number of people signed in (5 people: every 58 s with Book Corners' defaults).
struct BackgroundStaffRecheck: Service {
    let store: ModerationStore
    let sessions: StaffSessions
    let statusCheck: StaffStatusCheck
    let removal: StaffRemoval
    /// Reads per window the re-checks may spend (the `reads` share, less a few kept for sign-ins).
    let readsPerWindow: Int
    let windowSeconds: Int
    let idleTimeout: TimeInterval
    /// How often it looks for someone due.
    var tick: TimeInterval = 2
    let owner = "staff-recheck-" + UUID().uuidString
    let logger: Logger

    static let leaseName = "staff-recheck"

    /// The least time between two checks of one person.
    static let shortestInterval: TimeInterval = 10

    /// How long between two checks of one person when `people` are signed in.
    func interval(people: Int) -> TimeInterval {
        Self.interval(people: people, readsPerWindow: readsPerWindow, windowSeconds: windowSeconds)
    }

    /// Each person once per interval, all of them within `readsPerWindow` asks per window.
    static func interval(people: Int, readsPerWindow: Int, windowSeconds: Int) -> TimeInterval {
        max(shortestInterval, Double(max(1, people) * windowSeconds) / Double(max(1, readsPerWindow)))
    }

    func run() async throws {
        let checkedAt = CheckTimes()
        await repeatUntilShutdown(every: .milliseconds(Int(tick * 1000))) { await self.checkOneDue(checkedAt) }
    }

    /// Checks the person whose last check is the oldest, if it is due.
    func checkOneDue(_ checkedAt: CheckTimes, now: Date = Date()) async {
        do {
            guard try await store.holdWorkLease(Self.leaseName, owner: owner, until: now.addingTimeInterval(3 * tick + 5), now: now) else { return }
            let live = try await store.recentSessions(now: now, activeSince: now.addingTimeInterval(-idleTimeout), limit: 500)
            var people: [Int: StaffSession] = [:]
            for session in live where people[session.staffId] == nil { people[session.staffId] = session }
            let every = interval(people: people.count)
            let times = await checkedAt.all()
            // The person checked longest ago (never, first), once `every` has passed since.
            guard let session = people.values.min(by: { (times[$0.staffId] ?? .distantPast) < (times[$1.staffId] ?? .distantPast) }),
                now.timeIntervalSince(times[session.staffId] ?? .distantPast) >= every
            else { return }
            await checkedAt.set(session.staffId, now)
            guard let credentials = try? await sessions.credentials(for: session) else { return }
            let context = CallContext(requestID: "staff-recheck-" + UUID().uuidString, budget: CallBudget(pool: BackendBudget.backgroundRecheckPool))
            switch await statusCheck.recheck(staffId: session.staffId, credentials: credentials, context: context, now: now) {
            case .notStaff?:
                try await removal.remove(staffId: session.staffId, username: session.username, noticedBy: context.requestID, now: now)
            case .refused?, .staff?, .unconfirmed?, nil:
                // Refused tokens are that session's own end, which its next page handles (keeping
                // the form it carries); nothing else is the re-check's to end.
                break
            }
        } catch is CancellationError {
            return
        } catch {
            logger.error("staff re-check failed", metadata: ["error": "\(error)"])
        }
    }

    /// When each person was last checked, by this process.
    actor CheckTimes {
        private var times: [Int: Date] = [:]
        func set(_ staffId: Int, _ at: Date) { times[staffId] = at }
        func all() -> [Int: Date] { times }
    }
}
