import Foundation
import Logging
import ModerationStore
import ServiceLifecycle
import Synchronization

/// Tells open pages' streams that the change record has moved. One poller per process looks
/// at the database's change stamp (a read of a few bytes) several times a second while any
/// stream is open, and reads the newest change id only when the stamp moved; every stream is
/// told that id and reads what it has not sent from the database itself, at its own pace, so a
/// slow reader holds no queue of events in memory. Every `heartbeat` each stream is woken
/// anyway, to keep proxies from closing it and to check its session.
final class LiveChangeFeed: Service, Sendable {
    /// How many streams one session, one person (across every process on the database), and
    /// the whole process may hold open.
    struct Limits: Sendable {
        var perSession = 4
        var perPerson = 8
        var total = 200
    }

    /// What a stream is woken with.
    enum Wake: Sendable, Equatable {
        /// The newest change recorded now.
        case changed(newest: Int64)
        /// Nothing new since the last wake: time for a heartbeat.
        case quiet
    }

    private struct Subscriber {
        let sessionID: String
        /// Its row in the database's count of each person's streams.
        let ticket: String
        let continuation: AsyncStream<Wake>.Continuation
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextTicket: UInt64 = 0
        var newest: Int64 = 0
        /// Streams ended (the server is shutting down): none is opened any more.
        var streamsEnded = false
    }

    private let store: ModerationStore
    private let limits: Limits
    private let pollInterval: Duration
    private let heartbeat: Duration
    /// How long changes are kept for pages that reconnect.
    private let keptFor: TimeInterval
    private let logger: Logger
    private let state = Mutex(State())
    /// Set by this service's own graceful shutdown: the poller stops.
    private let stopping = Atomic<Bool>(false)
    /// This process's part of each stream's ticket.
    private let process = UUID().uuidString
    /// How often an open stream is woken when nothing changed (a stream also checks its session this often).
    static let heartbeatSeconds: TimeInterval = 15

    init(
        store: ModerationStore, limits: Limits = Limits(), pollInterval: Duration = .milliseconds(200),
        heartbeat: Duration = .seconds(Int(LiveChangeFeed.heartbeatSeconds)),
        keptFor: TimeInterval = 600, logger: Logger
    ) {
        self.store = store
        self.limits = limits
        self.pollInterval = pollInterval
        self.heartbeat = heartbeat
        self.keptFor = keptFor
        self.logger = logger
    }

    /// Why a stream was not opened.
    enum Refusal: Error, Equatable {
        case tooManyForSession, tooManyForPerson, tooMany, shuttingDown
    }

    /// A stream of wakes for one open page of `staffId`, or a refusal when a limit is reached;
    /// the subscription ends when the stream's consumer stops iterating.
    func subscribe(sessionID: String, staffId: Int, now: Date = Date()) async -> Result<AsyncStream<Wake>, Refusal> {
        let (stream, continuation) = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .bufferingNewest(1))
        let outcome: Result<UInt64, Refusal> = state.withLock { state in
            guard !state.streamsEnded else { return .failure(.shuttingDown) }
            guard state.subscribers.count < limits.total else { return .failure(.tooMany) }
            guard state.subscribers.values.filter({ $0.sessionID == sessionID }).count < limits.perSession else {
                return .failure(.tooManyForSession)
            }
            state.nextTicket += 1
            state.subscribers[state.nextTicket] = Subscriber(
                sessionID: sessionID, ticket: "\(process)-\(state.nextTicket)", continuation: continuation)
            return .success(state.nextTicket)
        }
        guard case .success(let number) = outcome else {
            continuation.finish()
            if case .failure(let refusal) = outcome { return .failure(refusal) }
            return .failure(.tooMany)
        }
        let ticket = "\(process)-\(number)"
        // One person's streams across every process: a row each, renewed every heartbeat.
        let opened: Bool
        do {
            opened = try await store.openLiveStream(
                ticket: ticket, staffId: staffId, limit: limits.perPerson, liveSince: now.addingTimeInterval(-3 * Self.heartbeatSeconds), now: now)
        } catch {
            // The count could not be read: the page still follows changes (this process's limits hold).
            logger.warning("live stream not counted", metadata: ["error": "\(error)"])
            opened = true
        }
        guard opened else {
            _ = state.withLock { $0.subscribers.removeValue(forKey: number) }
            continuation.finish()
            return .failure(.tooManyForPerson)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: number) }
            Task { [store = self?.store] in try? await store?.closeLiveStream(ticket: ticket) }
        }
        return .success(stream)
    }

    /// The newest change the poller has seen (a heartbeat may have replaced the wake that said so).
    var newest: Int64 { state.withLock { $0.newest } }

    /// Streams open now, for the metrics and the tests.
    var openStreams: Int { state.withLock { $0.subscribers.count } }

    func run() async throws {
        await withGracefulShutdownHandler {
            var lastStamp: ChangeStamp?
            var sinceHeartbeat = Duration.zero
            var sincePrune = Duration.seconds(3600)
            var sinceTouch = Duration.zero
            while !Task.isCancelled && !stopping.load(ordering: .relaxed) {
                try? await Task.sleep(for: pollInterval)
                sinceHeartbeat += pollInterval
                sincePrune += pollInterval
                if sincePrune >= .seconds(60) {
                    sincePrune = .zero
                    await prune()
                }
                guard state.withLock({ !$0.subscribers.isEmpty }) else { continue }
                let stamp = store.changeStamp()
                if stamp == nil || stamp != lastStamp {
                    lastStamp = stamp
                    if let newest = try? await store.lastLiveChangeID(), newest != state.withLock({ $0.newest }) {
                        state.withLock { $0.newest = newest }
                        broadcast(.changed(newest: newest))
                        sinceHeartbeat = .zero
                        continue
                    }
                }
                if sinceHeartbeat >= heartbeat {
                    sinceHeartbeat = .zero
                    broadcast(.quiet)
                }
                sinceTouch += pollInterval
                if sinceTouch >= heartbeat {
                    sinceTouch = .zero
                    await touchOpenStreams()
                }
            }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
            self.endStreams()
        }
        endStreams()
    }

    /// Ends every stream and opens no more (a shutdown does not wait for open pages). The
    /// poller goes on until this service's own shutdown, so that ServiceGroup never sees it
    /// return early.
    func endStreams() {
        let continuations = state.withLock { state in
            state.streamsEnded = true
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }

    private func broadcast(_ wake: Wake) {
        let continuations = state.withLock { $0.subscribers.values.map(\.continuation) }
        for continuation in continuations { continuation.yield(wake) }
    }

    /// Renews this process's rows in the count of each person's streams.
    private func touchOpenStreams() async {
        let tickets = state.withLock { $0.subscribers.values.map(\.ticket) }
        do {
            try await store.touchLiveStreams(tickets, now: Date())
        } catch {
            logger.warning("live streams not renewed", metadata: ["error": "\(error)"])
        }
    }

    private func prune() async {
        do {
            try await store.pruneLiveChanges(before: Date().addingTimeInterval(-keptFor))
        } catch {
            // Kept a little longer: the next prune tries again.
            logger.warning("live changes not pruned", metadata: ["error": "\(error)"])
        }
    }
}
