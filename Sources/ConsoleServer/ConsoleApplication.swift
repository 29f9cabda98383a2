import BookCornersAPI
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ModerationStore
import NIOCore
import ServiceLifecycle

/// Builds the web console: opens its database, loads the templates (a missing one stops
/// start-up), and wires controllers, middleware and the backend client together.
public func buildConsoleApplication(
    configuration: ConsoleConfiguration,
    logger: Logger = Logger(label: "console"),
    additionalRoutes: AdditionalRoutes? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let dependencies = try await makeDependencies(configuration: configuration, logger: logger)
    // Shut down in reverse order: the runner and the mirror stop before the clients they use.
    var services: [any Service] = [dependencies.client]
    if let mirror = dependencies.mirror { services += [mirror.client, mirror.sync] }
    if let watcher = dependencies.watcher { services += [watcher.client, watcher.service] }
    services.append(dependencies.runner)
    if let dispatcher = dependencies.dispatcher { services.append(dispatcher) }
    services.append(dependencies.handoffs)
    services.append(dependencies.live)
    let limits = configuration.backendLimits ?? BackendLimits()
    if configuration.staffRecheckInBackground {
        services.append(
            BackgroundStaffRecheck(
                store: dependencies.store, sessions: dependencies.sessions, statusCheck: dependencies.statusCheck, removal: dependencies.removal,
                // The `reads` share, less what the budget keeps from it for sign-ins and page views.
                readsPerWindow: max(1, limits.otherReads - BackendBudget.readsKeptFromRechecks), windowSeconds: limits.windowSeconds,
                idleTimeout: configuration.sessionIdleTimeout,
                logger: logger))
    }
    services.append(
        SessionPruner(
            sessions: dependencies.sessions, store: dependencies.store, interval: configuration.pruneInterval,
            idleFeeds: IdleCalendarFeeds(idleDays: configuration.calendarFeedIdleDays), logger: logger))
    services.append(
        ConcernRefresher(store: dependencies.store, interval: configuration.concernRefreshInterval, logger: logger, nudge: dependencies.concernNudge))
    services.append(
        BackendContactProbe(
            client: dependencies.client, backend: dependencies.backendMetrics, interval: configuration.readinessBackendSilence / 4, logger: logger))
    if let metrics = configuration.metrics {
        let page = MetricsPage(store: dependencies.store, backend: dependencies.backendMetrics, logger: logger)
        services.append(makeMetricsApplication(page: page, host: metrics.host, port: metrics.port, logger: logger))
    }
    return Application(
        router: buildRouter(dependencies: dependencies, additionalRoutes: additionalRoutes),
        server: .http1(configuration: connectionLimits(configuration, logger: logger)),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "BookCornersConsole"),
        services: services,
        onServerRunning: { [databaseLock = dependencies.databaseLock] channel in
            // The application keeps this closure as long as it runs, and with it the database lock.
            withExtendedLifetime(databaseLock) {}
            await onServerRunning(channel.localAddress?.port ?? configuration.port)
        },
        logger: logger)
}

/// Slow clients must not hold connections: Hummingbird's idle timeout closes a connection
/// with nothing read or answered for a while (a head that never finishes counts as nothing,
/// since it is not a request part yet); our deadline bounds a request whose body trickles.
private func connectionLimits(_ configuration: ConsoleConfiguration, logger: Logger) -> HTTP1Channel.Configuration {
    let readDeadline = TimeAmount.milliseconds(Int64(configuration.requestReadTimeout * 1000))
    return HTTP1Channel.Configuration(
        additionalChannelHandlers: [HTTP10CloseInstaller(), RequestReadDeadlineHandler(deadline: readDeadline, logger: logger)],
        idleTimeout: .milliseconds(Int64(configuration.connectionIdleTimeout * 1000)))
}

func makeDependencies(configuration: ConsoleConfiguration, logger: Logger) async throws -> ConsoleDependencies {
    ConsoleMetrics.bootstrap()
    let databaseURL = URL(fileURLWithPath: configuration.databasePath)
    try FileManager.default.createDirectory(at: databaseURL.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Held for the console's lifetime, so `console restore` never replaces the file under it.
    let databaseLock = try DatabaseLock.shared(databasePath: configuration.databasePath)
    // Before anything reads or writes it: a damaged file would answer errors on every page while taking writes.
    let problems = try await DatabaseIntegrity.problems(atPath: configuration.databasePath)
    guard problems.isEmpty else { throw DatabaseDamagedError(path: configuration.databasePath, problems: problems) }
    let auditKey = try configuration.auditKeyPath.map { path throws(AuditKeyError) in try AuditKey.load(path: path) }
    let store = try ModerationStore(path: configuration.databasePath, auditKey: auditKey)
    if auditKey == nil, let since = try await store.auditKeyedSince() {
        // Nothing could be recorded: stop now rather than at the first sign-in.
        throw AuditKeyError.keyRequired(since: since)
    }
    if let path = configuration.auditKeyPath, try await !store.auditKeyWroteTheChain() { throw AuditKeyError.notTheLogsKey(path) }
    try await store.switchAuditToKeyed(
        by: AuditEntry(
            recordedAt: Date(), actorId: nil, actorUsername: "console", action: AuditEntry.keyedAction, targetKind: "auditLog",
            targetId: "", targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded,
            backendStatus: nil, requestId: UUID().uuidString, clientAddress: "console start", userAgent: "console", itemCreatedAt: nil,
            actionId: nil))
    let sealer = try TokenSealer.load(
        base64Key: configuration.tokenKey,
        keyFile: databaseURL.deletingLastPathComponent().appendingPathComponent("console.key").path)
    let renderer = try await PageRenderer(directory: configuration.templatesDirectory, keptRows: configuration.keptRows)
    let staticFiles = try StaticFileLibrary(directory: configuration.publicDirectory)
    // A transport that cannot be set up (an unreadable key) stops start-up here, before any
    // HTTP client exists: from here on nothing throws, and only services' shutdowns end clients.
    let outboxTransport = try configuration.outbox.makeTransport()
    let backendMetrics = BackendCallMetrics(
        limits: configuration.mirror.map {
            BackendCallMetrics.Limits(windowSeconds: $0.policy.windowSeconds, reads: $0.policy.backendLimit)
        } ?? BackendCallMetrics.Limits())
    let budget = makeBackendBudget(configuration: configuration, store: store, logger: logger)
    // Without configured limits only the mirror's and the watcher's reads are budgeted.
    let client = BackendClient(
        configuration: .init(
            baseURL: configuration.backendURL, observer: backendMetrics, extraMediaOrigins: configuration.extraMediaOrigins,
            gate: configuration.backendLimits == nil ? nil : budget),
        logger: logger)
    // Rows mirrored before photo addresses were checked, or under other --media-origin settings.
    let policy = client.mediaPolicy
    let forgotten = try await store.forgetMediaAddresses { !policy.accepted($0).isEmpty }
    if forgotten > 0 { logger.notice("photo addresses not allowed removed from the mirror", metadata: ["rows": "\(forgotten)"]) }
    let sessions = StaffSessions(
        store: store, sealer: sealer, idleTimeout: configuration.sessionIdleTimeout, lifetime: configuration.sessionLifetime,
        logger: logger)
    let audit = StaffAuditWriter(store: store)
    let removal = StaffRemoval(store: store, sessions: sessions, audit: audit, logger: logger)
    let mirror = configuration.mirror.map { mirrorConfiguration in
        let mirrorClient = BackendClient(
            configuration: .init(
                baseURL: configuration.backendURL, readRetry: .none, observer: backendMetrics,
                extraMediaOrigins: configuration.extraMediaOrigins, gate: budget),
            logger: logger)
        let sync = MirrorSync(
            store: store, client: mirrorClient, sessions: sessions, configuration: mirrorConfiguration, budget: budget, logger: logger,
            removal: removal)
        return (sync: sync, client: mirrorClient)
    }
    let dispatcher: OutboxDispatcher?
    let delivery: OutboxDeliveryOverview
    if let (transport, description) = outboxTransport {
        let created = OutboxDispatcher(
            store: store, transport: transport, policy: configuration.outbox.policy, configuration: configuration.outbox.dispatcher, logger: logger)
        dispatcher = created
        delivery = OutboxDeliveryOverview(
            transport: description, isOff: false, policy: configuration.outbox.policy, watchURL: configuration.outbox.watchURL ?? "",
            nudge: { created.nudge() })
    } else {
        dispatcher = nil
        delivery = OutboxDeliveryOverview(
            transport: OutboxDeliveryOverview.offText, isOff: true, policy: configuration.outbox.policy, nudge: {})
    }
    // On call: hand-offs, their digests with the watcher's alert episodes.
    let handoffs = HandoffService(
        store: store, builder: HandoffDigestBuilder(store: store), bundleID: configuration.apnsTopic, nudge: delivery.nudge, logger: logger)
    let watcher = configuration.onCallWatcher.map { watcherConfiguration in
        makeQueueWatcher(
            configuration: configuration, watcher: watcherConfiguration, store: store, sessions: sessions, nudge: delivery.nudge,
            observer: backendMetrics, budget: budget, logger: logger, removal: removal)
    }
    return ConsoleDependencies(
        configuration: configuration, databaseLock: databaseLock, store: store, client: client, sessions: sessions,
        statusCheck: StaffStatusCheck(
            client: client, interval: configuration.staffRecheckInterval, grace: configuration.staffUnconfirmedGrace, logger: logger), removal: removal,
        untrustedForwarding: UntrustedForwarding(logger: logger), renderer: renderer,
        staticFiles: staticFiles,
        cookie: SessionCookie(secure: configuration.behindTLSProxy),
        throttle: SignInThrottle(store: store),
        runner: ActionRunner(
            store: store, client: client, sessions: sessions, logger: logger, bundleID: configuration.apnsTopic,
            forwardClientAddress: configuration.forwardClientAddress, decisionChecks: mirror?.sync, checkClient: mirror?.client,
            rules: DecisionProtocol(inFlightLimit: configuration.decisionInFlightLimit), removal: removal),
        audit: audit,
        mirror: mirror, watcher: watcher, dispatcher: dispatcher, delivery: delivery, handoffs: handoffs,
        live: LiveChangeFeed(
            store: store,
            limits: .init(perSession: configuration.liveStreamsPerSession, perPerson: configuration.liveStreamsPerPerson, total: configuration.liveStreams),
            logger: logger),
        sendSchedule: SendSchedule(limits: configuration.backendLimits == nil ? nil : budget.limits), backendMetrics: backendMetrics, logger: logger)
}

/// The one budget of backend calls every console process on the database shares: the configured
/// limits, else (tests) the mirror's window and reads. Its shares: the mirror's, the watcher's.
func makeBackendBudget(configuration: ConsoleConfiguration, store: ModerationStore, logger: Logger) -> BackendBudget {
    let mirrorPolicy =
        configuration.mirror?.policy
        ?? ReadPlanner.Policy(windowSeconds: configuration.backendLimits?.windowSeconds ?? 300, backendLimit: configuration.backendLimits?.reads ?? 60)
    let limits = configuration.backendLimits ?? BackendLimits(windowSeconds: mirrorPolicy.windowSeconds, reads: mirrorPolicy.backendLimit)
    // Book Corners may count a call as late as the in-flight bound after the client's timeout.
    let countSpan = configuration.backendCountSpan ?? configuration.decisionInFlightLimit + BackendClientConfiguration.defaultRequestTimeout.timeInterval
    return BackendBudget(
        store: store, limits: limits, mirrorPolicy: mirrorPolicy, watcherBudget: configuration.onCallWatcher?.budget ?? 0, logger: logger,
        countSpan: countSpan)
}

/// The queue watcher with its own backend client, reading with the most recently active staff member's tokens.
private func makeQueueWatcher(
    configuration: ConsoleConfiguration, watcher: OnCallWatcherConfiguration, store: ModerationStore, sessions: StaffSessions,
    nudge: @escaping @Sendable () -> Void, observer: BackendCallMetrics, budget: BackendBudget, logger: Logger, removal: StaffRemoval
) -> (service: QueueWatcher, client: BackendClient) {
    let client = BackendClient(
        configuration: .init(baseURL: configuration.backendURL, readRetry: .none, observer: observer, gate: budget), logger: logger)
    let source = QueueAgeSource(
        store: store, client: client,
        credentials: { refused in
            do {
                return try await sessions.credentialsOfMostRecentSession(excluding: refused)
            } catch {
                logger.error("queue watcher could not look up a session", metadata: ["error": "\(error)"])
                return nil
            }
        },
        mirrorIsOn: configuration.mirror != nil, configuration: watcher, budget: budget, logger: logger, removal: removal)
    let service = QueueWatcher(
        store: store, source: source, configuration: watcher, bundleID: configuration.apnsTopic, nudge: nudge, logger: logger)
    return (service, client)
}

func buildRouter(dependencies: ConsoleDependencies, additionalRoutes: AdditionalRoutes? = nil) -> Router<ConsoleRequestContext> {
    // HEAD finds each GET route; `HeadAsGetMiddleware` then runs it exactly as a GET.
    let router = Router(context: ConsoleRequestContext.self, options: .autoGenerateHeadEndpoints)
    let configuration = dependencies.configuration
    // Outermost, so every answer is counted and logged as it left, error pages included.
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: RequestLogMiddleware())
    router.add(
        middleware: ClientAddressMiddleware(
            trusted: configuration.trustedProxies, header: configuration.forwardingHeader, untrusted: dependencies.untrustedForwarding))
    router.add(middleware: HeadAsGetMiddleware())
    // Before the error pages, so they too tell time on the team's clock.
    router.add(middleware: TeamClockMiddleware(clocks: TeamClockCache(store: dependencies.store)))
    router.add(
        middleware: SecurityHeadersMiddleware(
            mediaOrigin: dependencies.client.mediaPolicy.sourceList, strictTransportSecurity: configuration.behindTLSProxy))
    let errorPages = ErrorPageMiddleware(
        renderer: dependencies.renderer, sessions: dependencies.sessions, audit: dependencies.audit, cookie: dependencies.cookie)
    // Twice: outside the session (its own failures) and inside it (pages see who is signed in).
    router.add(middleware: errorPages)
    router.add(middleware: RequestTargetCheckMiddleware())
    router.add(middleware: StaticFileMiddleware(library: dependencies.staticFiles))
    router.add(middleware: OriginCheckMiddleware(publicOrigin: configuration.publicURL?.absoluteString, behindTLSProxy: configuration.behindTLSProxy))
    router.add(middleware: ChangeStampMiddleware(store: dependencies.store))
    router.add(
        middleware: SessionMiddleware(
            sessions: dependencies.sessions, statusCheck: dependencies.statusCheck, removal: dependencies.removal, audit: dependencies.audit,
            cookie: dependencies.cookie,
            store: dependencies.store, forwardClientAddress: configuration.forwardClientAddress, schedule: dependencies.sendSchedule))
    router.add(
        middleware: PageHeaderMiddleware(
            store: dependencies.store, headers: RecentHeaders(), schedule: dependencies.sendSchedule))
    router.add(middleware: errorPages)
    router.get(SiteURL.Route.healthz.pattern) { _, _ in "ok" }
    let readiness = ReadinessCheck(
        store: dependencies.store, renderer: dependencies.renderer, backend: dependencies.backendMetrics,
        backendSilenceLimit: configuration.readinessBackendSilence, databasePath: configuration.databasePath,
        integrityInterval: configuration.readinessIntegrityInterval, logger: dependencies.logger)
    router.get(SiteURL.Route.readyz.pattern) { _, _ -> Response in
        let verdict = await readiness.verdict()
        return Response(
            status: verdict.isReady ? .ok : .serviceUnavailable,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: verdict.json)))
    }

    let (store, renderer) = (dependencies.store, dependencies.renderer)
    let signIn = SignInController(
        store: store, client: dependencies.client, sessions: dependencies.sessions, statusCheck: dependencies.statusCheck,
        removal: dependencies.removal, throttle: dependencies.throttle, cookie: dependencies.cookie, runner: dependencies.runner, audit: dependencies.audit,
        renderer: renderer, forwardClientAddress: configuration.forwardClientAddress)
    signIn.addRoutes(to: router)
    CalendarFeedController(store: store, publicURL: configuration.publicURL, idleFeeds: IdleCalendarFeeds(idleDays: configuration.calendarFeedIdleDays))
        .addRoutes(to: router)

    let unsent = UnsentWork(store: store)
    var staff = router.group().add(middleware: RequireStaffMiddleware(unsent: unsent, cookie: dependencies.cookie)).add(middleware: CSRFMiddleware())
        .add(middleware: KeptFormSpending(store: store))
    if configuration.recentPageLifetime > 0 {
        let pages = RecentPages(lifetime: .milliseconds(Int(configuration.recentPageLifetime * 1000)))
        staff = staff.add(middleware: RecentPageMiddleware(pages: pages, store: dependencies.store))
    }
    signIn.addSignedInRoutes(to: staff)
    // Outside the page copies and the kept forms: a stream is neither a page nor a form.
    LiveEventsController(
        store: store, sessions: dependencies.sessions, feed: dependencies.live, batches: LiveBatches(store: store),
        stallLimit: dependencies.configuration.liveStreamStallLimit,
        lifetime: dependencies.configuration.liveStreamLifetime,
        logger: dependencies.logger
    ).addRoutes(
        to: router.group().add(middleware: RequireStaffMiddleware(unsent: unsent, cookie: dependencies.cookie)))
    UnsentWorkController(unsent: unsent, renderer: renderer, sessions: dependencies.sessions).addRoutes(to: staff)
    DashboardController(store: store, renderer: renderer, delivery: dependencies.delivery, untrustedForwarding: dependencies.untrustedForwarding)
        .addRoutes(to: staff)
    LibraryQueueController(store: store, renderer: renderer).addRoutes(to: staff)
    ConcernSettingsController(
        store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit, nudge: dependencies.concernNudge
    ).addRoutes(to: staff)
    ReportQueueController(store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit).addRoutes(to: staff)
    PhotoQueueController(store: store, renderer: renderer).addRoutes(to: staff)
    DecisionController(
        store: store, sessions: dependencies.sessions, runner: dependencies.runner, renderer: renderer,
        limits: configuration.backendLimits ?? BackendLimits()
    ).addRoutes(to: staff)
    DecisionCancelController(store: store, sessions: dependencies.sessions, audit: dependencies.audit).addRoutes(to: staff)
    ClaimController(
        store: store, sessions: dependencies.sessions, renderer: renderer, audit: dependencies.audit, duration: configuration.claimDuration
    ).addRoutes(to: staff)
    OutboxController(
        store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit, delivery: dependencies.delivery
    ).addRoutes(to: staff)
    DevicesController(store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit).addRoutes(to: staff)
    AuditController(store: store, audit: dependencies.audit, renderer: renderer).addRoutes(to: staff)
    StatisticsController(store: store, renderer: renderer).addRoutes(to: staff)
    OnCallController(
        store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit, publicURL: configuration.publicURL,
        handoffs: dependencies.handoffs
    ).addRoutes(to: staff)
    HandoffController(store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit).addRoutes(to: staff)
    // On call: alerts
    AlertsController(
        store: store, renderer: renderer, sessions: dependencies.sessions, audit: dependencies.audit, watcher: configuration.onCallWatcher
    ).addRoutes(to: staff)
    if let additionalRoutes {
        additionalRoutes.signedIn(staff)
        additionalRoutes.open(router)
    }
    return router
}
