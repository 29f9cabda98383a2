/// The moderation status of a library or a community photo.
public enum LibraryStatus: String, Codable, Sendable, CaseIterable {
    case pending, approved, rejected
}

/// The moderation status of a community photo.
public typealias PhotoStatus = LibraryStatus

/// The status filter of the library and photo lists: one status, or all of them.
public enum StatusFilter: String, Sendable, CaseIterable {
    case all, pending, approved, rejected
}

/// The status of a problem report.
public enum ReportStatus: String, Codable, Sendable, CaseIterable {
    case open, resolved, dismissed
}

/// The status filter of the report list.
public enum ReportStatusFilter: String, Sendable, CaseIterable {
    case all, open, resolved, dismissed
}

/// Why someone reported a library.
public enum ReportReason: String, Codable, Sendable, CaseIterable {
    case damaged, missing
    case incorrectInfo = "incorrect_info"
    case inappropriate, other

    /// The reason in words, for people.
    public var label: String {
        switch self {
        case .damaged: "Damaged"
        case .missing: "Missing"
        case .incorrectInfo: "Incorrect information"
        case .inappropriate: "Inappropriate"
        case .other: "Other"
        }
    }
}

/// The reason filter of the report list.
public enum ReportReasonFilter: Sendable, Hashable {
    case all
    case only(ReportReason)

    /// The value the backend expects in `reason=`.
    public var queryValue: String {
        switch self {
        case .all: "all"
        case .only(let reason): reason.rawValue
        }
    }
}
