/// The backend's rate-limit scopes the mirror reads through, named as the backend names
/// them (backend-api.md): each has its own budget of reads per window.
public enum MirrorScope: String, Codable, Sendable, CaseIterable {
    /// `libraries/moderation` and `libraries/moderation/pending` together.
    case libraryList = "api-library-moderation-list"
    case libraryDetail = "api-library-moderation-detail"
    case reportList = "api-report-moderation-list"
    case photoList = "api-photo-moderation-list"
    case summary = "api-moderation-summary"
    case statistics = "api-statistics"
}
