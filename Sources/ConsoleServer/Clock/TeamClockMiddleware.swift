import Foundation
import Hummingbird
import ModerationStore

/// Puts every request on the team's clock (`TeamClock`): the rotation's zone, read again only
/// when the database has changed since (a zone staff change on the on-call page, in any process
/// on the database, reaches the next page).
struct TeamClockMiddleware<Context: RequestContext>: RouterMiddleware {
    let zones: TeamZoneCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = OnCallTimeText(zone: await zones.zone())
        return try await TeamClock.$current.withValue(clock) { try await next(request, context) }
    }
}

/// The rotation's zone, kept while the database's change stamp stays where it was read.
actor TeamZoneCache {
    private let store: ModerationStore
    private var cached: (zone: TimeZone, stamp: ChangeStamp)?

    init(store: ModerationStore) {
        self.store = store
    }

    func zone() async -> TimeZone {
        let stamp = store.changeStamp()
        if let cached, let stamp, cached.stamp == stamp { return cached.zone }
        do {
            let zone = TeamClock.zone(rotationZone: try await store.rotation()?.timeZone)
            cached = stamp.map { (zone, $0) }
            return zone
        } catch {
            // A database that cannot be read leaves the last zone known (or the server's): a
            // page on the team's last clock beats no page, and the read is tried again next time.
            return cached?.zone ?? TeamClock.zone(rotationZone: nil)
        }
    }
}
