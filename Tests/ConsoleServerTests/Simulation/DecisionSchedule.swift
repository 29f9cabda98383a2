import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ModerationVocabulary
import Synchronization
import TestSupport

@testable import ConsoleServer

/// What every schedule starts from: one migrated database file with three staff signed in,
/// copied into memory per schedule, and the numbers the model and the console share.
struct SimulationSetup: Sendable {
    /// The schedule's first moment, at the start of a backend window (a multiple of 300 s).
    static let epochStart: Double = 1_795_000_200
    static let staff = [
        Account(id: 7, username: "maria", email: "maria@example.com", isSocialOnly: false, isStaff: true),
        Account(id: 2, username: "staff", email: "staff@example.com", isSocialOnly: false, isStaff: true),
        Account(id: 9, username: "jonas", email: "jonas@example.com", isSocialOnly: false, isStaff: true),
    ]
    static let sealerKey = Data(repeating: 3, count: 32)
    /// The protocol's bound on a request in flight (I2) in every schedule.
    static let inFlightLimit: TimeInterval = 60
    /// BackendClient's request timeout, as the model's client keeps it.
    static let requestTimeout: Double = 10
    static let limits = BackendLimits(windowSeconds: 300, reads: 12, writes: 3)

    let template: ModerationStore
    let directory: TemporaryDirectory

    /// Made once per test process: migrating takes longer than a whole schedule.
    static func shared() async throws -> SimulationSetup {
        if let made = cache.withLock({ $0 }) { return made }
        let directory = try TemporaryDirectory()
        let template = try ModerationStore(path: directory.path("template.sqlite"))
        let sessions = StaffSessions(
            store: template, sealer: try TokenSealer(key: sealerKey), idleTimeout: 30 * 86_400, lifetime: 60 * 86_400,
            logger: ConsoleFixture.quietLogger)
        for account in staff {
            _ = try await sessions.start(
                account: account, tokens: TokenPair(access: "a-\(account.id)", refresh: "r-\(account.id)"), clientAddress: "", userAgent: "",
                now: Date(timeIntervalSince1970: epochStart))
        }
        let made = SimulationSetup(template: template, directory: directory)
        return cache.withLock { cached in
            if let cached { return cached }
            cached = made
            return made
        }
    }

    private static let cache = Mutex<SimulationSetup?>(nil)
}

/// One broken invariant, in words, with the kind it belongs to.
struct SimulationViolation: Sendable, CustomStringConvertible {
    enum Kind: String, Sendable {
        /// I1: a decision sent again while its own earlier PATCH may still be in flight.
        case sentAgainInFlight = "I1 sent again in flight"
        /// I1: two decisions on one item in flight at once, sent by one console process.
        case twoInFlight = "I1 two in flight"
        /// I1: two decisions on one item in flight at once, sent by two console processes.
        case twoProcessesInFlight = "I1 two processes in flight"
        /// A PATCH acted on an item changed since its decision was made.
        case overrode = "I1 overrode a change"
        /// I3: a decision that did not end once, in words, matching what Book Corners did.
        case ending = "I3"
        /// I4: a push doubled.
        case push = "I4"
        /// I5: more calls than the limit in a window.
        case budget = "I5"
        /// A decision never ended, or a runner's pass failed.
        case liveness = "liveness"
    }

    let kind: Kind
    let words: String

    var description: String { "\(kind.rawValue): \(words)" }
}

/// What one schedule came to.
struct ScheduleReport: Sendable {
    let seed: UInt64
    let violations: [SimulationViolation]
    /// Book Corners held a request past the protocol's bound: outside its assumption, not a failure.
    let assumptionViolated: Bool
    let trace: [String]
    let events: Int

    var broken: Bool { !violations.isEmpty && !assumptionViolated }
}

/// One schedule of the decision simulation: up to three console processes (real `ActionRunner`s
/// built as `serve` builds them, each with its own budget gate) on one database, staff posting
/// decisions, Book Corners' model answering, holding, losing and refusing, processes killed and
/// restarted; every choice from one seed. Afterwards I1–I5 are checked from the model's record
/// of what it received and did, and from the console's database.
final class DecisionSchedule {
    private struct Process {
        let index: Int
        let runner: ActionRunner
        var task: Task<Void, Never>?
    }

    private struct Decided {
        let id: Int64
        let actor: Account
        let slug: String
        let seen: LibraryStatus
        let wanted: LibraryStatus
    }

    let seed: UInt64
    let rules: DecisionProtocol
    private let random: SimulationRandom
    private let world: SimulatedWorld
    private let model: ModelBookCorners
    private let store: ModerationStore
    private var processes: [Process] = []
    private var decided: [String: Decided] = [:]
    private var trace: [String] = []
    private var decisions = 0
    private var events = 0
    private var assumptionViolated = false
    private var passFailures: [String] = []
    private let messageIDs = SimulationCounter()
    private let sealer: TokenSealer

    init(seed: UInt64, rules: DecisionProtocol, setup: SimulationSetup) throws {
        self.seed = seed
        self.rules = rules
        random = SimulationRandom(seed: seed)
        world = SimulatedWorld(start: Date(timeIntervalSince1970: SimulationSetup.epochStart))
        model = ModelBookCorners(limits: SimulationSetup.limits, requestTimeout: SimulationSetup.requestTimeout)
        store = try ModerationStore.inMemoryCopy(of: setup.template)
        sealer = try TokenSealer(key: SimulationSetup.sealerKey)
    }

    /// Runs the schedule to its end, checks the invariants, and stops every task it started.
    func run() async throws -> ScheduleReport {
        for index in 0..<random.int(2...3) {
            model.add(slug: "corner-\(index + 1)", status: .pending, submitter: 40 + index)
        }
        for _ in 0..<random.int(1...3) { startProcess() }
        note("\(processes.count) console processes, libraries \(model.slugs.joined(separator: ", "))")
        let watchdog = Task { [world] in await world.watch() }
        defer { watchdog.cancel() }
        let violations: [SimulationViolation]
        do {
            let steps = random.int(12...36)
            for _ in 0..<steps { try await step(faults: true) }
            try await drain()
            violations = try await check()
        } catch {
            await close()
            throw error
        }
        await close()
        return ScheduleReport(seed: seed, violations: violations, assumptionViolated: assumptionViolated, trace: trace, events: events)
    }

    // MARK: Events

    private func step(faults: Bool) async throws {
        events += 1
        let alive = processes.filter { world.process($0.index).alive }
        let stopped = processes.filter { !world.process($0.index).alive }
        let idle = alive.filter { !world.process($0.index).passRunning }
        let answerable = answerableCalls()
        let choice = random.weighted([
            ("decide", faults ? 14 : 0), ("bulk", faults ? 3 : 0), ("outside", faults ? 2 : 0),
            ("pass", idle.isEmpty ? 0 : 24), ("answer", answerable.isEmpty ? 0 : 30), ("tick", 20),
            ("kill", faults && alive.count > 0 ? 2 : 0), ("restart", faults && alive.count < 3 && processes.count < 6 ? 2 : 0),
            ("thaw", faults && !stopped.isEmpty ? 1 : 0),
        ])
        switch choice {
        case "decide": try await decide(count: 1)
        case "bulk": try await decide(count: random.int(2...3))
        case "outside": outsideChange()
        case "pass": if let process = random.pick(idle) { startPass(process.index) }
        case "answer": if let call = random.pick(answerable) { answer(call, faults: faults) }
        case "kill":
            if let process = random.pick(alive) {
                world.kill(process.index)
                note("p\(process.index) killed")
            }
        case "restart": startProcess()
        case "thaw":
            if let process = random.pick(stopped) {
                world.thaw(process.index)
                note("p\(process.index) goes on after a pause")
            }
        default: tick(faults: faults)
        }
        try await world.rest()
    }

    /// Staff post `count` decisions (a bulk decision when more than one), as they see each
    /// library: usually as Book Corners has it now, sometimes as it was before its last change
    /// (a page open for a while); half the time on the library the last decision was about,
    /// as when two colleagues decide one item at once.
    private func decide(count: Int) async throws {
        guard let actor = random.pick(SimulationSetup.staff) else { return }
        var slugs = model.slugs
        for _ in 0..<count {
            let last = decided.values.max { $0.id < $1.id }?.slug
            guard let slug = (count == 1 && random.chance(0.5) ? last : nil) ?? random.pick(slugs), let library = model.library(slug) else { return }
            slugs.removeAll { $0 == slug }
            let previous = model.transitions.last { $0.slug == slug }?.from
            let seen = random.chance(0.2) ? (previous ?? library.status) : library.status
            let wanted: LibraryStatus =
                seen == .pending ? (random.chance(0.5) ? .approved : .rejected) : (random.chance(0.7) ? .pending : (seen == .approved ? .rejected : .approved))
            let reason = wanted == .rejected && random.chance(0.7) ? "Not a book exchange" : ""
            decisions += 1
            let key = "r\(decisions)"
            let action = ModerationAction(
                idempotencyKey: "k\(decisions)", actorId: actor.id, actorUsername: actor.username, targetKind: .library, targetKey: slug,
                statusSeen: ItemStatus(seen), statusWanted: ItemStatus(wanted), reason: reason, requestId: key, clientAddress: "127.0.0.1",
                userAgent: "simulation", now: world.date)
            let recorded = try await store.record(action)
            guard let id = recorded.action.id else { continue }
            decided[key] = Decided(id: id, actor: actor, slug: slug, seen: seen, wanted: wanted)
            note("\(actor.username) decides \(slug): \(seen.rawValue) → \(wanted.rawValue)\(reason.isEmpty ? "" : " (with a reason)") [action \(id)]")
        }
    }

    private func outsideChange() {
        guard let slug = random.pick(model.slugs), let library = model.library(slug) else { return }
        let to: LibraryStatus = library.status == .pending ? (random.chance(0.5) ? .approved : .rejected) : .pending
        model.changeOutside(slug, to: to, reason: to == .rejected ? "Changed in Book Corners' own pages" : "", at: world.now)
        note("someone at Book Corners changes \(slug) to \(to.rawValue)")
    }

    private func startProcess() {
        let index = world.addProcess()
        let gateClock = world.clock(process: index, role: .gate)
        let budget = BackendBudget(
            store: store, limits: SimulationSetup.limits,
            mirrorPolicy: ReadPlanner.Policy(windowSeconds: SimulationSetup.limits.windowSeconds, backendLimit: SimulationSetup.limits.reads),
            watcherBudget: 0, logger: ConsoleFixture.quietLogger, now: { [world] in world.date },
            sleep: { try await gateClock.sleep(for: $0) },
            countSpan: SimulationSetup.inFlightLimit + SimulationSetup.requestTimeout)
        let client = ModelBookCornersClient(model: model, world: world, process: index, gate: budget)
        let sessions = StaffSessions(
            store: store, sealer: sealer, idleTimeout: 30 * 86_400, lifetime: 60 * 86_400, logger: ConsoleFixture.quietLogger)
        let random = random
        let messageIDs = messageIDs
        let runner = ActionRunner(
            store: store, client: client, sessions: sessions, logger: ConsoleFixture.quietLogger, bundleID: "org.bookcorners.app",
            forwardClientAddress: false, decisionChecks: SimulatedCheckBudget(budget: budget, world: world), checkClient: client,
            clock: ServiceClock(world.clock(process: index, role: .runner), startingAt: world.date), rules: rules, owner: "p\(index)",
            jitter: JitterSource { random.seconds($0) },
            messageIDs: { "m\(messageIDs.next())" })
        processes.append(Process(index: index, runner: runner))
        if index > 0 { note("p\(index) started") }
    }

    private func startPass(_ index: Int) {
        world.setPassRunning(index, true)
        let runner = processes[index].runner
        let world = world
        processes[index].task = Task {
            do {
                try await runner.workThroughDueActions()
            } catch {
                world.notePassFailure("p\(index): \(error)")
            }
            world.setPassRunning(index, false)
        }
        note("p\(index) pass")
    }

    /// Parked calls of living processes that Book Corners has not queued to act on later.
    private func answerableCalls() -> [SimulatedWorld.ParkedCall] {
        world.parkedCalls.filter { call in
            guard world.process(call.process).alive, let request = model.request(call.id) else { return false }
            return request.actsAt == nil && !request.dropped
        }
    }

    /// Book Corners deals with a waiting call: for a read, answers (or loses the answer, fails,
    /// or is down); for a PATCH, acts and answers, acts and loses the answer, queues it to act
    /// later (within the bound; rarely past it, outside the protocol's assumption), refuses
    /// it, fails without acting, or is down.
    private func answer(_ call: SimulatedWorld.ParkedCall, faults: Bool) {
        guard let request = model.request(call.id) else { return }
        let now = world.now
        let what =
            "call \(call.id) p\(call.process) \(request.kind == .read ? "GET" : "PATCH") \(request.slug)\(request.wanted.map { " → \($0.rawValue)" } ?? "")"
        // Book Corners works on nothing later than the bound after it arrived (the protocol's
        // assumption): a call left waiting longer (its process was paused) has expired there.
        if now > request.sentAt + SimulationSetup.inFlightLimit {
            model.update(call.id) { $0.dropped = true }
            world.answer(call.id, with: .failure(.unavailable(.timedOut)))
            note("\(what): expired in Book Corners' queue, never worked on")
            return
        }
        let outcome =
            faults
            ? random.weighted(
                request.kind == .read
                    ? [("ok", 70), ("lost", 10), ("503", 10), ("down", 10)]
                    : [("ok", 45), ("lost", 12), ("hold", 18), ("hold-long", 1), ("422", 8), ("503", 8), ("down", 8)]) ?? "ok"
            : "ok"
        switch outcome {
        case "lost":
            _ = model.work(on: call.id, at: now)
            world.answer(call.id, with: .failure(.unavailable(.connectionFailed)))
            note("\(what): worked on, answer lost")
        case "hold", "hold-long":
            let latest = request.sentAt + SimulationSetup.inFlightLimit
            let actsAt =
                outcome == "hold" ? min(now + random.seconds(0.5...40), latest - 0.001) : latest + random.seconds(1...30)
            if outcome == "hold-long" { assumptionViolated = true }
            model.update(call.id) { $0.actsAt = actsAt }
            note("\(what): queued at Book Corners, acts at +\(format(actsAt))\(outcome == "hold-long" ? " (past the bound: assumption violated)" : "")")
        case "422":
            _ = model.work(on: call.id, at: now, acting: false)
            model.update(call.id) {
                $0.settledAt = now
                $0.dropped = true
            }
            world.answer(call.id, with: .failure(.validation([BackendError.FieldError(location: "body.status", message: "refused", type: "value_error")])))
            note("\(what): refused (422)")
        case "503":
            model.update(call.id) { $0.dropped = true }
            world.answer(call.id, with: .failure(.unavailable(.serverError(status: 503))))
            note("\(what): 503 without acting")
        case "down":
            model.update(call.id) {
                $0.settledAt = now
                $0.dropped = true
            }
            world.answer(call.id, with: .failure(.unavailable(.connectionRefused)))
            note("\(what): connection refused")
        default:
            let result = model.work(on: call.id, at: now)
            model.update(call.id) { $0.settledAt = now }
            world.answer(call.id, with: result)
            note("\(what): \(describe(result))")
        }
    }

    /// Time moves on to the next thing that happens by itself (a queued PATCH acts, a client
    /// gives up, a sleeper wakes), or, with nothing due or by chance, by up to 90 s.
    private func tick(faults: Bool) {
        let now = world.now
        let held = model.requests.filter { $0.actsAt != nil && $0.actedAt == nil && !$0.dropped }
        let nextAct = held.compactMap(\.actsAt).min()
        let waiting = world.parkedCalls.filter { world.process($0.process).alive }
        let timeouts = waiting.compactMap { call in model.request(call.id).map { (call, $0.sentAt + model.requestTimeout) } }
        let nextTimeout = timeouts.map(\.1).min()
        let nextWake = world.earliestWake()
        let next = [nextAct, nextTimeout, nextWake].compactMap { $0 }.min()
        if next == nil || (faults && random.chance(0.25)) {
            let target = now + random.seconds(0.5...90)
            if let next, next <= target {
                // Something happens first.
            } else {
                world.advance(to: target)
                note("time moves on to +\(format(target))")
                return
            }
        }
        guard let next else { return }
        if let nextAct, nextAct == next, let request = held.first(where: { $0.actsAt == nextAct }) {
            world.advance(to: nextAct)
            let result = model.work(on: request.id, at: nextAct)
            let process = world.process(request.process)
            if !request.abandoned, process.alive, world.parkedCall(request.id) != nil {
                if faults && random.chance(0.15) {
                    world.answer(request.id, with: .failure(.unavailable(.connectionFailed)))
                    note("call \(request.id): Book Corners works on the queued request, answer lost")
                } else {
                    model.update(request.id) { $0.settledAt = nextAct }
                    world.answer(request.id, with: result)
                    note("call \(request.id): Book Corners works on the queued request: \(describe(result))")
                }
            } else {
                note("call \(request.id): Book Corners works on the queued request (nobody waits for it): \(describe(result))")
            }
            return
        }
        if let nextTimeout, nextTimeout == next, let (call, _) = timeouts.first(where: { $0.1 == nextTimeout }) {
            world.advance(to: nextTimeout)
            if model.request(call.id)?.actsAt == nil { model.update(call.id) { $0.dropped = true } }
            model.update(call.id) { $0.abandoned = true }
            world.answer(call.id, with: .failure(.unavailable(.timedOut)))
            note("call \(call.id): p\(call.process)'s client gives up after \(Int(model.requestTimeout)) s")
            return
        }
        if let woken = world.wakeEarliest() {
            note("p\(woken.process) \(woken.role) wakes at +\(format(world.now))")
        }
    }

    /// No more decisions or faults: Book Corners answers at once, and time moves on, until every
    /// decision has ended (or, after 2 000 events, a liveness failure is noted).
    private func drain() async throws {
        note("— no more faults —")
        for _ in 0..<2_000 {
            let unfinished = try await store.unfinishedActions()
            let held = model.requests.contains { $0.actsAt != nil && $0.actedAt == nil && !$0.dropped }
            if unfinished.isEmpty && answerableCalls().isEmpty && !held { return }
            events += 1
            if let call = answerableCalls().first {
                answer(call, faults: false)
            } else if let idle = processes.first(where: { world.process($0.index).alive && !world.process($0.index).passRunning }),
                !unfinished.isEmpty, random.chance(0.5)
            {
                startPass(idle.index)
            } else if processes.allSatisfy({ !world.process($0.index).alive }) {
                startProcess()
            } else {
                tick(faults: false)
            }
            try await world.rest()
        }
    }

    // MARK: Invariants

    private func check() async throws -> [SimulationViolation] {
        var violations: [SimulationViolation] = []
        let requests = model.requests
        let patches = requests.filter { $0.kind == .patch }
        let bound = SimulationSetup.inFlightLimit
        // I1: per item, no PATCH leaves while another may still be in flight.
        for (slug, sent) in Dictionary(grouping: patches, by: \.slug) {
            let ordered = sent.sorted { ($0.sentAt, $0.id) < ($1.sentAt, $1.id) }
            for (index, first) in ordered.enumerated() {
                let settled = first.settledAt ?? first.sentAt + bound
                for later in ordered.dropFirst(index + 1) where later.sentAt < settled {
                    let kind: SimulationViolation.Kind =
                        first.requestID == later.requestID ? .sentAgainInFlight : first.process == later.process ? .twoInFlight : .twoProcessesInFlight
                    violations.append(
                        SimulationViolation(
                            kind: kind,
                            words:
                                "\(slug): PATCH \(later.id) (\(later.requestID)) left at +\(format(later.sentAt)) while PATCH \(first.id) (\(first.requestID)), sent at +\(format(first.sentAt)), may still have been in flight until +\(format(settled))"
                        ))
                }
            }
        }
        // What Book Corners did with each decision's PATCHes.
        var acted: [String: [ModelBookCorners.Request]] = [:]
        for request in patches where request.actedAt != nil { acted[request.requestID, default: []].append(request) }
        for (key, done) in acted {
            guard let decision = decided[key] else { continue }
            // A lost answer, then someone in Book Corners' own pages putting the item back before
            // the re-check: the console cannot tell that from a PATCH that never acted (docs).
            let revertedOutside =
                done.count > 1
                && model.transitions.contains { transition in
                    transition.slug == decision.slug && transition.requestID == nil && transition.at >= (done.first?.actedAt ?? 0)
                        && transition.at <= (done.last?.sentAt ?? 0)
                }
            if done.count > 1 && !revertedOutside {
                violations.append(
                    SimulationViolation(kind: .sentAgainInFlight, words: "action \(decision.id) acted at Book Corners \(done.count) times"))
            }
            // Someone in Book Corners' own pages may change an item while a PATCH is on its way
            // (nothing can stop that); another console decision must never be overridden.
            for request in done where request.statusBeforeAct != decision.seen && request.statusBeforeAct != decision.wanted {
                // What changed the item last before this PATCH's own change (in the order they happened).
                let transitions = model.transitions
                let own = transitions.firstIndex { $0.requestID == request.id } ?? transitions.endIndex
                let cause = transitions[..<own].last { $0.slug == decision.slug }
                guard cause?.requestID != nil else { continue }
                violations.append(
                    SimulationViolation(
                        kind: .overrode,
                        words:
                            "action \(decision.id) (\(decision.seen.rawValue) → \(decision.wanted.rawValue)) acted on \(decision.slug) at +\(format(request.actedAt ?? 0)) when it was \(request.statusBeforeAct?.rawValue ?? "?")"
                    ))
            }
        }
        // I3: every decision ended once, in words, as Book Corners saw it.
        let audit = try await store.auditEntries(limit: 100_000)
        let outbox = try await store.outboxMessages(limit: 100_000)
        let actions = Dictionary(uniqueKeysWithValues: try await store.allActions().compactMap { action in action.id.map { ($0, action) } })
        for (key, decision) in decided {
            guard let action = actions[decision.id] else { continue }
            let entries = audit.filter { $0.actionId == decision.id }
            let didAct = !(acted[key] ?? []).isEmpty
            if !action.state.isFinal {
                violations.append(
                    SimulationViolation(kind: .liveness, words: "action \(decision.id) never ended: \(action.state.rawValue), \(action.outcomeMessage ?? "")"))
                continue
            }
            if entries.count != 1 {
                violations.append(SimulationViolation(kind: .ending, words: "action \(decision.id) has \(entries.count) audit entries"))
            }
            if (action.outcomeMessage ?? "").isEmpty {
                violations.append(SimulationViolation(kind: .ending, words: "action \(decision.id) ended \(action.state.rawValue) without words"))
            }
            switch action.state {
            case .conflict, .failed, .cancelled:
                // Only an attempt whose answer was lost may have acted, and then the words must say so.
                if didAct, !(action.outcomeMessage ?? "").contains("may have applied") {
                    violations.append(
                        SimulationViolation(
                            kind: .ending,
                            words:
                                "action \(decision.id) ended \(action.state.rawValue) (“\(action.outcomeMessage ?? "")”) but Book Corners acted on its PATCH"
                        ))
                }
            case .applied:
                let outside = model.transitions.contains { $0.slug == decision.slug && $0.requestID == nil && $0.to == decision.wanted }
                if !didAct && !outside {
                    violations.append(
                        SimulationViolation(kind: .ending, words: "action \(decision.id) ended applied, but Book Corners never acted on it"))
                }
            default:
                break
            }
        }
        // I4: no news told twice: Book Corners' own pushes and the console's deliverable ones
        // together, at most one per change into that status; one console message per decision.
        let byAction = Dictionary(grouping: outbox.compactMap { message in message.actionId.map { ($0, message) } }, by: \.0)
        for (id, messages) in byAction where messages.count > 1 {
            violations.append(SimulationViolation(kind: .push, words: "action \(id) queued \(messages.count) pushes"))
        }
        for slug in model.slugs {
            for (event, status, type) in [
                ("approved", LibraryStatus.approved, OutboxMessage.EventType.libraryApproved), ("rejected", .rejected, .libraryRejected),
            ] {
                let changes = model.transitions.filter { $0.slug == slug && $0.to == status }.count
                let own = model.pushes.filter { $0.slug == slug && $0.event == event }.count
                let console = outbox.filter { message in
                    message.eventType == type && !message.sentByBookCorners
                        && decided.values.contains { $0.id == message.actionId && $0.slug == slug }
                }.count
                // A change in Book Corners' own pages racing a PATCH whose answer was lost is taken
                // for the console's own (nothing tells them apart): its push may then be doubled (docs).
                let outside = model.transitions.contains { transition in
                    transition.slug == slug && transition.requestID == nil
                        && (transition.to == status
                            || patches.contains { $0.slug == slug && $0.sentAt <= transition.at && transition.at <= ($0.actedAt ?? $0.sentAt + bound) })
                }
                if own + console > changes && !outside {
                    violations.append(
                        SimulationViolation(
                            kind: .push, words: "\(slug): \(own) pushes by Book Corners and \(console) by the console for \(changes) changes to \(event)"))
                }
            }
        }
        // I5: Book Corners never counted more than its limit in a window.
        violations += model.overLimit.map { SimulationViolation(kind: .budget, words: $0) }
        violations += world.passFailures.map { SimulationViolation(kind: .liveness, words: "a pass failed: \($0)") }
        for (key, decision) in decided.sorted(by: { $0.value.id < $1.value.id }) {
            let action = actions[decision.id]
            note("end: action \(decision.id) [\(key)] \(action?.state.rawValue ?? "?"): \(action?.outcomeMessage ?? "")")
        }
        for slug in model.slugs { note("end: \(slug) is \(model.library(slug)?.status.rawValue ?? "?") at Book Corners") }
        for request in requests {
            note(
                "request \(request.id) p\(request.process) \(request.kind == .read ? "GET" : "PATCH") \(request.slug) [\(request.requestID)] sent +\(format(request.sentAt))"
                    + (request.actedAt.map { ", acted +\(format($0))" } ?? "") + (request.settledAt.map { ", settled +\(format($0))" } ?? ", never settled"))
        }
        return violations
    }

    /// Ends every task the schedule started: their waits answered, their sleeps cancelled.
    private func close() async {
        world.close()
        for process in processes { process.task?.cancel() }
        for process in processes { await process.task?.value }
    }

    // MARK: Words

    private func note(_ line: String) {
        trace.append("+\(format(world.now)) \(line)")
        // SIM_TRACE=live prints each line as it happens: for a schedule that never ends.
        if Self.live { print("seed \(seed) " + (trace.last ?? "")) }
    }

    private static let live = ProcessInfo.processInfo.environment["SIM_TRACE"] == "live"

    private func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    private func describe(_ result: Result<ModerationLibrary, BackendError>) -> String {
        switch result {
        case .success(let library): "200, \(library.status)"
        case .failure(let error): "\(error)"
        }
    }

}

/// The check's read budget as `MirrorSync` gives it, on the simulation's clock.
struct SimulatedCheckBudget: DecisionCheckBudget {
    let budget: BackendBudget
    let world: SimulatedWorld

    func reserveDecisionCheck(_ scope: MirrorScope) async -> BudgetGrant {
        await budget.reserveDecisionCheck(scope, at: world.date)
    }
}

/// Numbers handed out in order: the ids of the pushes a schedule queues.
final class SimulationCounter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
