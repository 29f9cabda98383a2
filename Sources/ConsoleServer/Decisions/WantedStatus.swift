import BookCornersAPI
import ModerationStore
import ModerationVocabulary

/// The status a decision asks for, typed for its kind of item: what the PATCH sends.
enum WantedStatus: Sendable, Equatable {
    case library(LibraryStatus)
    case report(ReportStatus)
    case photo(PhotoStatus)

    /// The status for an item of `kind`, or nil when that kind has no such status.
    init?(kind: ModerationAction.TargetKind, status: ItemStatus) {
        switch kind {
        case .library: guard let status = status.libraryStatus else { return nil }; self = .library(status)
        case .report: guard let status = status.reportStatus else { return nil }; self = .report(status)
        case .photo: guard let status = status.libraryStatus else { return nil }; self = .photo(status)
        }
    }
}
