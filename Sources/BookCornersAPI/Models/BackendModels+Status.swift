import ModerationVocabulary

// The generated models carry statuses and reasons as the backend's text; these turn them
// into the vocabulary's types at the one place the text arrives. `nil` is a value this
// console does not know (a newer backend): shown as it is, never decided on.

extension ModerationLibrary {
    public var moderationStatus: LibraryStatus? { LibraryStatus(rawValue: status) }
}

extension LibrarySummary {
    public var moderationStatus: LibraryStatus? { LibraryStatus(rawValue: status) }
}

extension ModerationReport {
    public var moderationStatus: ReportStatus? { ReportStatus(rawValue: status) }
    public var moderationReason: ReportReason? { ReportReason(rawValue: reason) }
}

extension ModerationPhoto {
    public var moderationStatus: PhotoStatus? { PhotoStatus(rawValue: status) }
}
