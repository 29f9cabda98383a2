import Foundation
import Hummingbird
import ModerationStore

/// Puts every request on the team's clock (`TeamClock`): the rotation's zone (else the one staff
/// chose, else the server's) and the hours staff chose, read again only when the database has
/// changed since (a change on the on-call page, in any process on the database, reaches the next page).
struct TeamClockMiddleware<Context: RequestContext>: RouterMiddleware {
    let clocks: TeamClockCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = await clocks.clock()
        return try await TeamClock.$current.withValue(clock) { try await next(request, context) }
    }
}

/// The team's clock, kept while the database's change stamp stays where it was read.
actor TeamClockCache {
    private let store: ModerationStore
    private var cached: (clock: OnCallTimeText, stamp: ChangeStamp)?

    init(store: ModerationStore) {
        self.store = store
    }

    func clock() async -> OnCallTimeText {
        let stamp = store.changeStamp()
        if let cached, let stamp, cached.stamp == stamp { return cached.clock }
        do {
            let choice = try await store.teamClock()
            let clock = OnCallTimeText(zone: choice.zone, twelveHour: choice.twelveHour)
            cached = stamp.map { (clock, $0) }
            return clock
        } catch {
            // A database that cannot be read leaves the last clock known (or the server's): a
            // page on the team's last clock beats no page, and the read is tried again next time.
            return cached?.clock ?? OnCallTimeText(zone: .current)
        }
    }
}
