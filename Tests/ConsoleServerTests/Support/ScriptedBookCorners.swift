import BookCornersAPI
import Foundation
import ModerationVocabulary
import Synchronization

@testable import ConsoleServer

/// A stand-in for Book Corners in the action runner's direct tests: libraries held in memory,
/// reads and changes answered as scripted. It stands for the outside system, not for our code.
final class ScriptedBookCorners: DecisionBackend {
    /// How a PATCH is answered.
    enum ChangeAnswer: Sendable {
        /// Applied, answered 200.
        case applied
        /// Refused with this error; nothing changes.
        case refused(BackendError)
        /// Applied, but the answer never comes: the call hangs until its caller gives up.
        case appliedAnswerLost
    }

    private struct State {
        var libraries: [String: ModerationLibrary] = [:]
        var readErrors: [BackendError] = []
        var changeAnswers: [ChangeAnswer] = []
        var reads = 0
        var listReads = 0
        var changes: [(slug: String, status: String, reason: String?)] = []
    }

    private let state = Mutex(State())
    let requestTimeout: Duration

    init(requestTimeout: Duration = .seconds(2)) {
        self.requestTimeout = requestTimeout
    }

    /// Adds a library in `status`, submitted by `submitter`.
    func add(slug: String, status: LibraryStatus = .pending, submitter: Int = 42) {
        let library = ModerationLibrary.standIn(id: 100 + state.withLock { $0.libraries.count }, slug: slug, status: status, submitter: submitter)
        state.withLock { $0.libraries[slug] = library }
    }

    /// Someone else changes a library at Book Corners.
    func setStatus(_ slug: String, _ status: LibraryStatus) {
        state.withLock { $0.libraries[slug]?.status = status.rawValue }
    }

    /// The next reads fail with these errors, one each, before reads answer again.
    func failReads(_ errors: BackendError...) { state.withLock { $0.readErrors += errors } }
    /// The next changes are answered so, one each; after them, applied.
    func answerChanges(_ answers: ChangeAnswer...) { state.withLock { $0.changeAnswers += answers } }

    var reads: Int { state.withLock { $0.reads } }
    var listReads: Int { state.withLock { $0.listReads } }
    var changes: [(slug: String, status: String, reason: String?)] { state.withLock { $0.changes } }
    func status(of slug: String) -> String? { state.withLock { $0.libraries[slug]?.status } }

    func library(slug: String, credentials: StaffCredentials, context: CallContext) async throws(BackendError) -> ModerationLibrary {
        let answer: Result<ModerationLibrary, BackendError> = state.withLock { state in
            state.reads += 1
            if !state.readErrors.isEmpty { return .failure(state.readErrors.removeFirst()) }
            guard let library = state.libraries[slug] else { return .failure(.notFound) }
            return .success(library)
        }
        return try answer.get()
    }

    func reports(
        status: ReportStatusFilter, reason: ReportReasonFilter, page: BookCornersAPI.Page, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> PagedList<ModerationReport> {
        state.withLock { $0.listReads += 1 }
        return PagedList(items: [], pagination: Self.emptyPage)
    }

    /// Lists no photo: every photo decision's item is "not found".
    func photos(
        status: StatusFilter, page: BookCornersAPI.Page, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> PagedList<ModerationPhoto> {
        state.withLock { $0.listReads += 1 }
        return PagedList(items: [], pagination: Self.emptyPage)
    }

    func setLibraryStatus(
        slug: String, to status: LibraryStatus, rejectionReason: String?, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> ModerationLibrary {
        let (answer, library): (ChangeAnswer, ModerationLibrary?) = state.withLock { state in
            let answer = state.changeAnswers.isEmpty ? .applied : state.changeAnswers.removeFirst()
            state.changes.append((slug, status.rawValue, rejectionReason))
            if case .refused = answer { return (answer, state.libraries[slug]) }
            state.libraries[slug]?.status = status.rawValue
            return (answer, state.libraries[slug])
        }
        switch answer {
        case .applied:
            guard let library else { throw .notFound }
            return library
        case .refused(let error):
            throw error
        case .appliedAnswerLost:
            // Until the caller's deadline cancels the call, on whatever clock it keeps.
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            throw .unavailable(.connectionFailed)
        }
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

    private static let emptyPage = Pagination(page: 1, pageSize: 50, total: 0, totalPages: 0, hasNext: false, hasPrevious: false)
}

extension ModerationLibrary {
    /// A library in Milan as the backend's stand-ins in tests answer it.
    static func standIn(id: Int, slug: String, status: LibraryStatus, rejectionReason: String = "", submitter: Int) -> ModerationLibrary {
        ModerationLibrary(
            id: id, slug: slug, name: "Corner \(slug)", description: "", photoUrl: "", thumbnailUrl: "", lat: 45.46, lng: 9.19,
            address: "Via Roma 1", city: "Milano", country: "IT", postalCode: "20100", wheelchairAccessible: "", website: "", contact: "",
            source: "", _operator: "", brand: "", createdAt: Date(timeIntervalSince1970: 1_790_000_000), status: status.rawValue,
            rejectionReason: rejectionReason, createdBy: .init(id: submitter, username: "reader\(submitter)"))
    }
}
