import BookCornersAPI
import ModerationStore

extension ModerationSummary {
    /// The counts the navigation and the dashboard show, from the mirror's summary row.
    init(_ mirror: MirrorSummary) {
        self.init(
            pendingLibrariesCount: mirror.pendingLibraries, openReportsCount: mirror.openReports,
            pendingPhotosCount: mirror.pendingPhotos, totalPending: mirror.totalPending, totalLibraries: mirror.totalLibraries,
            totalUsers: mirror.totalUsers)
    }
}
