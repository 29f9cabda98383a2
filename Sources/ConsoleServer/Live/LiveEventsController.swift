import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ModerationStore
import NIOCore
import ServiceLifecycle

/// `GET /events`: a server-sent event stream of changes to items (decisions, claims, what the
/// mirror saw at Book Corners), for open queue pages to stay true without a reload. Behind the
/// session: it ends when the session does, and carries only what the viewer's pages show. A
/// page that reconnects with `Last-Event-ID` gets what it missed while the change record keeps
/// it, or `event: reload` when it has been away longer.
struct LiveEventsController {
    let store: ModerationStore
    let sessions: StaffSessions
    let feed: LiveChangeFeed
    /// What each change means for the open streams, read once for all of them.
    let batches: LiveBatches
    /// How long one write may wait for a page that stopped reading before its stream ends.
    let stallLimit: Duration
    /// How long one stream lasts before it ends and its page reconnects (with `Last-Event-ID`,
    /// missing nothing): a frozen page on a quiet console never fills its socket, so this is
    /// what lets its place go.
    let lifetime: TimeInterval
    let logger: Logger

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.events.pattern, use: events)
    }

    @Sendable func events(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        guard let session = context.session else { throw HTTPError(.unauthorized) }
        let stream: AsyncStream<LiveChangeFeed.Wake>
        switch await feed.subscribe(sessionID: session.id, staffId: session.staffId) {
        case .success(let subscribed):
            stream = subscribed
        case .failure(let refusal):
            // The page's script tries again later; nothing it shows is wrong meanwhile, only not live.
            let text =
                switch refusal {
                case .tooManyForSession: "Too many open pages follow changes for this session."
                case .tooManyForPerson: "Too many of your open pages follow changes, in every browser together."
                case .tooMany, .shuttingDown: "Too many open pages follow changes."
                }
            // 429, not a 5xx: the console is well; this client asks for more than its share.
            return Response(
                status: .tooManyRequests, headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "30", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { Int64($0) } ?? request.uri.queryParameters["after"].flatMap { Int64($0) }
        let start = try await startingPoint(after: lastEventID)
        let (batches, sessions, feed, viewer, sessionID, logger) = (batches, sessions, feed, session.staffId, session.id, logger)
        let schedule = context.sendSchedule
        let (stallLimit, lifetime) = (stallLimit, lifetime)
        // Read now: the body is written after the request's clock is gone, and the rows it sends
        // ("next try 9:40 AM CET") must read as the page around them does.
        let clock = TeamClock.current
        let body = ResponseBody { writer in
            var sent = start.after
            // A page that reconnects quickly tries again within 2 s.
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n" + (start.missed ? "event: reload\ndata: {}\n\n" : "")))
            // A page that goes away (its tab closed, or it moved on) frees its stream at once, not
            // at the next heartbeat's failed write: someone stepping through pages would
            // otherwise meet the limit of streams per session. The request's own body is not read.
            // A page that stopped reading is let go the same way, once a write has waited too long.
            let watch = StalledReaderWatch(limit: stallLimit)
            /// Why the stream ended: only one that ran its course still owns its response's end.
            enum Ending: String { case finished, closedByPage, notRead }
            let ending: Ending
            do {
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await watch.run {
                        try await TeamClock.$current.withValue(clock) {
                            try await Self.follow(
                                stream, from: &sent, newest: start.newest, to: &writer, watch: watch, batches: batches, sessions: sessions, feed: feed,
                                viewer: viewer, sessionID: sessionID, schedule: schedule, until: Date().addingTimeInterval(lifetime))
                        }
                    }
                }
                ending = .finished
            } catch is CancellationError {
                ending = .closedByPage
            } catch is StalledReaderWatch.Stalled {
                ending = .notRead
            }
            logger.debug("live stream ended", metadata: ["session.staffId": "\(viewer)", "ending": "\(ending.rawValue)"])
            switch ending {
            case .finished: try await writer.finish(nil)
            // Thrown on, so that the connection is closed rather than kept for a next request it would never read.
            case .notRead: throw StalledReaderWatch.Stalled()
            case .closedByPage: break
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: body)
    }

    /// Writes what a stream's page must hear until the stream ends (a shutdown, the session's
    /// end, or `end`): what it missed, the counts, then whatever each wake brings. What a change
    /// means is read once per process (`LiveBatches`); only the viewer's words are this stream's.
    private static func follow(
        _ stream: AsyncStream<LiveChangeFeed.Wake>, from sent: inout Int64, newest start: Int64, to writer: inout any ResponseBodyWriter,
        watch: StalledReaderWatch, batches: LiveBatches, sessions: StaffSessions, feed: LiveChangeFeed, viewer: Int, sessionID: String,
        schedule: SendSchedule, until end: Date
    ) async throws {
        // A shutdown ends every stream at once: open pages must not hold the server's grace period.
        try await withGracefulShutdownHandler {
            var newest = start
            // What a reconnecting page missed first, then whatever each wake brings.
            sent = try await send(after: sent, newest: newest, to: &writer, watch: watch, batches: batches, viewer: viewer, schedule: schedule)
            var counts = try await sendCounts(unless: "", newest: newest, to: &writer, watch: watch, batches: batches)
            var sessionCheckedAt = Date()
            for await wake in stream {
                guard Date() < end else { break }
                // However busy the console, an ended session's stream ends within a heartbeat.
                if Date().timeIntervalSince(sessionCheckedAt) >= LiveChangeFeed.heartbeatSeconds || wake == .quiet {
                    guard try await sessions.isLive(sessionID: sessionID, now: Date()) else { break }
                    sessionCheckedAt = Date()
                }
                // A heartbeat may have replaced an unread `.changed`: the feed's own newest says what it said.
                if case .changed(let latest) = wake { newest = max(newest, latest) }
                newest = max(newest, feed.newest)
                let before = sent
                // Nothing newer than what it sent: no read at all.
                if sent < newest {
                    sent = try await send(after: sent, newest: newest, to: &writer, watch: watch, batches: batches, viewer: viewer, schedule: schedule)
                }
                let countsBefore = counts
                counts = try await sendCounts(unless: counts, newest: newest, to: &writer, watch: watch, batches: batches)
                if sent == before, counts == countsBefore, wake == .quiet {
                    try await watch.write { try await writer.write(ByteBuffer(string: ": still here\n\n")) }
                }
            }
        } onGracefulShutdown: {
            // Ends the streams only: the feed itself stops when its own service is told to.
            feed.endStreams()
        }
    }

    /// Where a stream begins: after the page's last event when the record still holds what
    /// followed it; otherwise now, saying the page missed changes. `newest`: the newest change now.
    private func startingPoint(after lastEventID: Int64?) async throws -> (after: Int64, missed: Bool, newest: Int64) {
        let newest = try await store.lastLiveChangeID()
        guard let lastEventID else { return (newest, false, newest) }
        // An id the record never gave (a database restored from a backup since): missed, to be safe.
        guard lastEventID <= newest else { return (newest, true, newest) }
        let oldest = try await store.oldestLiveChangeID() ?? newest + 1
        return lastEventID + 1 >= oldest ? (lastEventID, false, newest) : (newest, true, newest)
    }

    /// Writes the events recorded after `id`, if any; answers the id of the last one written (or `id`).
    private static func send(
        after id: Int64, newest: Int64, to writer: inout any ResponseBodyWriter, watch: StalledReaderWatch, batches: LiveBatches, viewer: Int,
        schedule: SendSchedule
    ) async throws -> Int64 {
        let batch = try await batches.batch(after: id, newest: newest, schedule: schedule)
        guard let last = batch.lastID else { return id }
        let text = try batch.text(viewer: viewer, now: Date())
        try await watch.write { try await writer.write(ByteBuffer(string: text)) }
        return last
    }

    /// Writes the queue counts the navigation and the dashboard show (`event: counts`) unless
    /// they are `lastSent`; answers what they are now. A decision, a submission or the mirror's
    /// read of Book Corners' statistics moves them; a summary not loaded yet sends nothing.
    private static func sendCounts(
        unless lastSent: String, newest: Int64, to writer: inout any ResponseBodyWriter, watch: StalledReaderWatch, batches: LiveBatches
    ) async throws -> String {
        guard let counts = try await batches.counts(newest: newest) else { return lastSent }
        if counts != lastSent { try await watch.write { try await writer.write(ByteBuffer(string: "event: counts\ndata: \(counts)\n\n")) } }
        return counts
    }
}
