import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// What every signed-in page shows around its content, read once the session is known
/// (`SessionMiddleware` decides who may see the page): the message's Undo, the Pending
/// actions panel with expected send times, the navigation's counts, where the page's live
/// stream starts, and the on-call line. A read that fails leaves its part out, never the page.
struct PageHeaderMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let store: ModerationStore
    /// The header's reads, kept per session while the database is unchanged.
    let headers: RecentHeaders
    /// Gives each decision waiting its turn in the Pending actions panel its expected send time.
    let schedule: SendSchedule

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let session = context.session else { return try await next(request, context) }
        var context = context
        // Only a page with a message looks for its Undo (one indexed read, not on every view).
        if context.flash != nil {
            context.undo = try await UndoOffer.find(
                flash: context.flash, viewer: session.staffId,
                // Without a list's bulk draft: the Undo returns to the list itself, and a long draft would
                // make the address too long to be a safe way back.
                back: SafeRedirect.path(request.uri.path + (BulkDraft.removed(from: request.uri.query).map { "?" + $0 } ?? "")), store: store)
        }
        let (store, schedule, logger) = (store, schedule, context.logger)
        let readHeader = { () async throws -> RecentHeaders.Header in
            var pending = try await store.pendingActionsPanel(actorId: session.staffId, since: Date().addingTimeInterval(-15 * 60))
            // Expected send times the store cannot read leave each decision's own next try, never the page without content.
            do {
                pending = try await schedule.shown(pending, store: store, now: Date())
            } catch {
                logger.error("expected send times not read", metadata: ["error": "\(error)"])
            }
            // Counts the store cannot read leave the navigation without badges, never the page without content.
            var counts: ModerationSummary?
            do {
                counts = try await MirrorPageData.navigationCounts(store)
            } catch {
                logger.error("navigation counts not read", metadata: ["error": "\(error)"])
            }
            return RecentHeaders.Header(
                pendingActions: pending, pendingActionTargets: try await store.targetNames(of: pending), navigationCounts: counts,
                liveAfter: try await store.lastLiveChangeID())
        }
        let header = try await headers.header(session: session.id, store: store, read: readHeader)
        context.pendingActions = header.pendingActions
        context.pendingActionTargets = header.pendingActionTargets
        context.navigationCounts = header.navigationCounts
        context.liveAfter = header.liveAfter
        // A schedule the store cannot read leaves the header without its line, never the page without content.
        let now = Date()
        do {
            context.onCall = await OnCallHeadline(schedule: try store.onCallSchedule(since: now), viewerID: session.staffId, now: now)
        } catch {
            context.logger.error("on-call schedule not read", metadata: ["error": "\(error)"])
        }
        return try await next(request, context)
    }
}
