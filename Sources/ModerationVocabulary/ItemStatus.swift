/// Any status a moderated item can have: a library's or a photo's, or a report's. Decisions
/// and their records name statuses with it; the raw value is the backend's spelling, which
/// is also what the database stores.
public enum ItemStatus: String, Codable, Sendable, CaseIterable {
    case pending, approved, rejected
    case open, resolved, dismissed

    public init(_ status: LibraryStatus) {
        switch status {
        case .pending: self = .pending
        case .approved: self = .approved
        case .rejected: self = .rejected
        }
    }

    public init(_ status: ReportStatus) {
        switch status {
        case .open: self = .open
        case .resolved: self = .resolved
        case .dismissed: self = .dismissed
        }
    }

    /// "Approved", "Returned to pending", "Reopened", …: what a decision that leads here did.
    public var pastTense: String {
        switch self {
        case .pending: "Returned to pending"
        case .open: "Reopened"
        case .approved: "Approved"
        case .rejected: "Rejected"
        case .resolved: "Resolved"
        case .dismissed: "Dismissed"
        }
    }
}

extension ItemStatus {
    /// This status as a library's or photo's, if it is one.
    public var libraryStatus: LibraryStatus? {
        switch self {
        case .pending: .pending
        case .approved: .approved
        case .rejected: .rejected
        case .open, .resolved, .dismissed: nil
        }
    }

    /// This status as a report's, if it is one.
    public var reportStatus: ReportStatus? {
        switch self {
        case .open: .open
        case .resolved: .resolved
        case .dismissed: .dismissed
        case .pending, .approved, .rejected: nil
        }
    }
}

extension StatusFilter {
    /// The filter that shows items of exactly this status.
    public init(_ status: LibraryStatus) {
        switch status {
        case .pending: self = .pending
        case .approved: self = .approved
        case .rejected: self = .rejected
        }
    }
}

extension ReportStatusFilter {
    /// The filter that shows reports of exactly this status.
    public init(_ status: ReportStatus) {
        switch status {
        case .open: self = .open
        case .resolved: self = .resolved
        case .dismissed: self = .dismissed
        }
    }
}
