import BookCornersAPI
import Foundation
import Logging
import ModerationStore

/// What start-up builds once; `buildRouter` hands each controller the parts it uses.
struct ConsoleDependencies: Sendable {
    let configuration: ConsoleConfiguration
    /// The shared lock on the database file, released when the console's parts are.
    let databaseLock: DatabaseLock
    let store: ModerationStore
    let client: BackendClient
    let sessions: StaffSessions
    let statusCheck: StaffStatusCheck
    /// Ends every access of someone Book Corners no longer calls staff.
    let removal: StaffRemoval
    /// Forwarding headers seen from a peer that is not a trusted proxy.
    let untrustedForwarding: UntrustedForwarding
    // `var` so a test can render with its own templates.
    var renderer: PageRenderer
    let staticFiles: StaticFileLibrary
    let cookie: SessionCookie
    let throttle: SignInThrottle
    let runner: ActionRunner
    let audit: StaffAuditWriter
    /// The mirror sync and its own client (no read retries: every attempt counts against the budget); `nil` when off.
    let mirror: (sync: MirrorSync, client: BackendClient)?
    /// The queue watcher and its own client (no read retries: every attempt counts against its share); `nil` when off.
    let watcher: (service: QueueWatcher, client: BackendClient)?
    /// Delivers the outbox; `nil` when delivery is off.
    let dispatcher: OutboxDispatcher?
    let delivery: OutboxDeliveryOverview
    /// On call: builds each hand-off's digest and sends its `shift.handoff` message.
    let handoffs: HandoffService
    /// Tells open pages' event streams that items changed (any process's writes).
    let live: LiveChangeFeed
    /// When the decisions on their way should reach Book Corners, by the budget's own arithmetic.
    let sendSchedule: SendSchedule
    /// Every backend call, counted for `/metrics` and remembered for `/readyz`.
    let backendMetrics: BackendCallMetrics
    let logger: Logger
    /// Wakes the reasons' refresher when staff change its settings.
    let concernNudge = ConcernRefreshNudge()
}
