import BookCornersAPI
import ModerationVocabulary

/// What the action runner asks of Book Corners: the item as it is now (a library by its slug,
/// reports and photos from their lists) and the three status changes. `BackendClient` in
/// production; in the runner's direct tests, a stand-in for Book Corners that answers as told.
protocol DecisionBackend: Sendable {
    /// The longest one request may take: a send's deadline is built from it.
    var requestTimeout: Duration { get }

    func library(slug: String, credentials: StaffCredentials, context: CallContext) async throws(BackendError) -> ModerationLibrary

    func reports(
        status: ReportStatusFilter, reason: ReportReasonFilter, page: Page, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> PagedList<ModerationReport>

    func photos(
        status: StatusFilter, page: Page, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> PagedList<
        ModerationPhoto
    >

    func setLibraryStatus(
        slug: String, to status: LibraryStatus, rejectionReason: String?, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) -> ModerationLibrary

    func setReportStatus(
        id: Int, to status: ReportStatus, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError)
        -> ModerationReport

    func setPhotoStatus(
        id: Int, to status: PhotoStatus, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError)
        -> ModerationPhoto
}

extension BackendClient: DecisionBackend {
    var requestTimeout: Duration { configuration.requestTimeout }
}
