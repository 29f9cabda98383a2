import BookCornersAPI
import Foundation
import ModerationVocabulary
import Synchronization

@testable import ConsoleServer

/// Book Corners as the decision simulation models it, with its real semantics (backend-api.md,
/// the fixtures): a PATCH saves the new status, then notifies (a push on pending → approved, and
/// on a library's first rejection with a reason); requests are counted per client and scope in
/// fixed 300-s windows when Book Corners works on them, and past the limit answered 429. Each
/// call waits until the scheduler says what happens to it: answered, answered and the answer
/// lost, held in a queue and acted on later, refused, or the backend down. It stands for the
/// outside system; the code under test is the real runner, store and budget.
final class ModelBookCorners: Sendable {
    struct Library: Sendable {
        let slug: String
        let id: Int
        var status: LibraryStatus
        var rejectionReason = ""
        var rejectedWithReasonBefore = false
        let submitter: Int
    }

    /// One request as it reached Book Corners, and what became of it.
    struct Request: Sendable {
        let id: Int
        let process: Int
        let kind: SimulatedWorld.CallKind
        let slug: String
        let wanted: LibraryStatus?
        let reason: String?
        /// The decision's request id (`action.requestId`), naming the decision it carries.
        let requestID: String
        /// When it left the console (and reached Book Corners: the model has no wire).
        let sentAt: Double
        /// When Book Corners acted on it (a PATCH saved), and what the library was before.
        var actedAt: Double?
        var statusBeforeAct: LibraryStatus?
        /// When the console learned for certain whether it acted: an answer, or a refusal that
        /// proves it did not. nil: never (lost, timed out, the process died): in flight until the bound.
        var settledAt: Double?
        /// Held in Book Corners' queue: acts at this time unless the console's process is gone
        /// and the scheduler drops it.
        var actsAt: Double?
        /// The console gave up waiting (its client's timeout, or the send's deadline).
        var abandoned = false
        /// Book Corners will never act on it (dropped from its queue, or refused).
        var dropped = false
    }

    struct Push: Sendable, Equatable {
        let slug: String
        let event: String
        let at: Double
    }

    /// A status change at Book Corners, by the console's PATCH or by someone in its own pages.
    struct Transition: Sendable {
        let slug: String
        let from: LibraryStatus
        let to: LibraryStatus
        let at: Double
        let requestID: Int?
    }

    private struct State {
        var libraries: [String: Library] = [:]
        var requests: [Int: Request] = [:]
        var counts: [String: Int] = [:]
        var pushes: [Push] = []
        var transitions: [Transition] = []
        var overLimit: [String] = []
    }

    private let state = Mutex(State())
    let limits: BackendLimits
    /// How long the console's HTTP client waits for an answer (BackendClient's request timeout).
    let requestTimeout: Double

    init(limits: BackendLimits, requestTimeout: Double) {
        self.limits = limits
        self.requestTimeout = requestTimeout
    }

    func add(slug: String, status: LibraryStatus, submitter: Int) {
        state.withLock { state in
            state.libraries[slug] = Library(slug: slug, id: 100 + state.libraries.count, status: status, submitter: submitter)
        }
    }

    func library(_ slug: String) -> Library? { state.withLock { $0.libraries[slug] } }
    var slugs: [String] { state.withLock { $0.libraries.keys.sorted() } }
    var requests: [Request] { state.withLock { $0.requests.values.sorted { $0.id < $1.id } } }
    func request(_ id: Int) -> Request? { state.withLock { $0.requests[id] } }
    var pushes: [Push] { state.withLock { $0.pushes } }
    var transitions: [Transition] { state.withLock { $0.transitions } }
    /// Requests Book Corners counted past its limit (each a breach of I5).
    var overLimit: [String] { state.withLock { $0.overLimit } }

    // MARK: Arrivals

    func arrive(
        _ id: Int, process: Int, kind: SimulatedWorld.CallKind, slug: String, wanted: LibraryStatus?, reason: String?, requestID: String, at now: Double
    ) {
        state.withLock { state in
            state.requests[id] = Request(
                id: id, process: process, kind: kind, slug: slug, wanted: wanted, reason: reason, requestID: requestID, sentAt: now)
        }
    }

    func update(_ id: Int, _ change: (inout Request) -> Void) {
        state.withLock { state in
            guard var request = state.requests[id] else { return }
            change(&request)
            state.requests[id] = request
        }
    }

    // MARK: Book Corners' own work

    /// Book Corners works on request `id` at `now`: counts it in its window (429 past the
    /// limit), then for a read answers the library, for a PATCH saves and notifies (unless
    /// `acting` is false: a refusal after the count, such as a 422).
    func work(on id: Int, at now: Double, acting: Bool = true) -> Result<ModerationLibrary, BackendError> {
        state.withLock { state in
            guard var request = state.requests[id], var library = state.libraries[request.slug] else { return .failure(.notFound) }
            let scope = request.kind == .read ? MirrorScopeName.detail : MirrorScopeName.update
            let window = Int((start(now) / Double(limits.windowSeconds)).rounded(.down))
            let key = "\(scope)#\(window)"
            let limit = request.kind == .read ? limits.reads : limits.writes
            let count = (state.counts[key] ?? 0) + 1
            state.counts[key] = count
            if count > limit {
                state.overLimit.append("\(scope) window \(window): request \(id) at +\(now) s is number \(count) of \(limit)")
                let retry = max(1, Int((Double((window + 1) * limits.windowSeconds) - start(now)).rounded(.up)))
                request.dropped = true
                state.requests[id] = request
                return .failure(.rateLimited(retryAfterSeconds: retry))
            }
            if acting, request.kind == .patch, let wanted = request.wanted {
                request.actedAt = now
                request.statusBeforeAct = library.status
                let from = library.status
                library.status = wanted
                if wanted == .rejected { library.rejectionReason = request.reason ?? "" }
                if from != wanted { state.transitions.append(Transition(slug: library.slug, from: from, to: wanted, at: now, requestID: id)) }
                // Book Corners' own pushes: after the save.
                if from == .pending && wanted == .approved { state.pushes.append(Push(slug: library.slug, event: "approved", at: now)) }
                if wanted == .rejected, !(request.reason ?? "").isEmpty, !library.rejectedWithReasonBefore {
                    library.rejectedWithReasonBefore = true
                    state.pushes.append(Push(slug: library.slug, event: "rejected", at: now))
                }
                state.libraries[library.slug] = library
            }
            state.requests[id] = request
            return .success(Self.moderationLibrary(library))
        }
    }

    /// Someone changes a library in Book Corners' own staff pages (no console request).
    func changeOutside(_ slug: String, to status: LibraryStatus, reason: String, at now: Double) {
        state.withLock { state in
            guard var library = state.libraries[slug], library.status != status else { return }
            let from = library.status
            library.status = status
            if status == .rejected { library.rejectionReason = reason }
            state.transitions.append(Transition(slug: slug, from: from, to: status, at: now, requestID: nil))
            if from == .pending && status == .approved { state.pushes.append(Push(slug: slug, event: "approved", at: now)) }
            if status == .rejected, !reason.isEmpty, !library.rejectedWithReasonBefore {
                library.rejectedWithReasonBefore = true
                state.pushes.append(Push(slug: slug, event: "rejected", at: now))
            }
            state.libraries[slug] = library
        }
    }

    /// The epoch second the window count is taken at: the simulation's start is at a whole window.
    private func start(_ now: Double) -> Double { SimulationSetup.epochStart + now }

    static func moderationLibrary(_ library: Library) -> ModerationLibrary {
        .standIn(id: library.id, slug: library.slug, status: library.status, rejectionReason: library.rejectionReason, submitter: library.submitter)
    }
}

/// The rate-limit scopes of the two calls the model answers, as `BackendEndpoint` names them.
enum MirrorScopeName {
    static let detail = "api-library-moderation-detail"
    static let update = "api-library-moderation-update"
}

/// What one simulated console process's client asks of Book Corners: every call passes the
/// process's real budget gate first, as `BackendClient.send` does, then waits in the world
/// until the scheduler says what Book Corners did.
struct ModelBookCornersClient: DecisionBackend {
    let model: ModelBookCorners
    let world: SimulatedWorld
    let process: Int
    let gate: BackendBudget

    var requestTimeout: Duration { .milliseconds(Int64(model.requestTimeout * 1000)) }

    func library(slug: String, credentials: StaffCredentials, context: CallContext) async throws(BackendError) -> ModerationLibrary {
        try await call(.read, slug: slug, wanted: nil, reason: nil, context: context)
    }

    func setLibraryStatus(
        slug: String, to status: LibraryStatus, rejectionReason: String?, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> ModerationLibrary {
        try await call(.patch, slug: slug, wanted: status, reason: rejectionReason, context: context)
    }

    private func call(
        _ kind: SimulatedWorld.CallKind, slug: String, wanted: LibraryStatus?, reason: String?, context: CallContext
    ) async throws(BackendError) -> ModerationLibrary {
        world.enterCall(process, kind)
        defer { world.leaveCall(process) }
        let endpoint = BackendEndpoint(scope: kind == .read ? MirrorScopeName.detail : MirrorScopeName.update, kind: kind == .read ? .read : .write)
        if let until = await gate.admit(endpoint, budget: context.budget) {
            throw .rateLimited(retryAfterSeconds: max(1, Int(until.timeIntervalSince(world.date).rounded(.up))))
        }
        let id = world.newCallID()
        model.arrive(id, process: process, kind: kind, slug: slug, wanted: wanted, reason: reason, requestID: context.requestID, at: world.now)
        let result = await world.park(process: process, kind: kind, id: id) { [model] in
            model.update(id) { $0.abandoned = true }
            return .unavailable(.timedOut)
        }
        if case .failure(.rateLimited(let seconds)) = result {
            await gate.backendLimited(endpoint, until: world.date.addingTimeInterval(Double(seconds)))
        }
        return try result.get()
    }

    func reports(
        status: ReportStatusFilter, reason: ReportReasonFilter, page: BookCornersAPI.Page, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> PagedList<ModerationReport> {
        throw .notFound
    }

    func photos(
        status: StatusFilter, page: BookCornersAPI.Page, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> PagedList<ModerationPhoto> {
        throw .notFound
    }

    func setReportStatus(
        id: Int, to status: ReportStatus, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError)
        -> ModerationReport
    {
        throw .notFound
    }

    func setPhotoStatus(
        id: Int, to status: PhotoStatus, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError)
        -> ModerationPhoto
    {
        throw .notFound
    }
}
