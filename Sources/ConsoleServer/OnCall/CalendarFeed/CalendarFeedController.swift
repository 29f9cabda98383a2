import Foundation
import Hummingbird
import ModerationStore

/// Serves a staff member's shifts to their calendar app. Calendar apps cannot sign in, so the
/// secret in the address is the only key: an unknown one gets a bare 404, nothing else.
struct CalendarFeedController {
    static let suffix = ".ics"

    let store: ModerationStore
    let publicURL: URL?
    let idleFeeds: IdleCalendarFeeds

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.calendarFeed.pattern, use: feed)
    }

    @Sendable func feed(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        guard let segment = SiteURL.Route.calendarFeed.value(in: context.parameters) else { return Self.notFound }
        let token = segment.hasSuffix(Self.suffix) ? String(segment.dropLast(Self.suffix.count)) : segment
        let now = Date()
        guard let member = try await store.calendarFeedOwner(token: token),
            // An owner long gone: the feed stops now rather than at the next hourly prune.
            try await idleFeeds.stop(in: store, now: now, staffId: member.id).isEmpty
        else { return Self.notFound }
        // A feed made before there is a rotation is still a good subscription: calendar apps
        // take a 404 as a broken one and stop asking, so it answers a calendar with no turns yet.
        let body =
            if let schedule = try await store.onCallSchedule(since: now.addingTimeInterval(-15 * 86_400)) {
                ShiftCalendar(schedule: schedule, member: member, consoleURL: publicURL?.absoluteString).render(now: now)
            } else {
                ShiftCalendar.empty(for: member, zone: TeamClock.current.zone, now: now)
            }
        var headers = HTTPFields()
        headers[.contentType] = "text/calendar; charset=utf-8"
        headers[.cacheControl] = "private, no-cache"
        headers[.contentDisposition] = "inline; filename=\"book-corners-on-call.ics\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private static var notFound: Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "Not found.\n")))
    }
}
