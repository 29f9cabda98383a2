import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// One report on its own page, as Mastodon's report view shows one: the report, the library
/// with its photo and status, the other reports on it, staff notes, and Resolve / Dismiss
/// with what each does. Everything comes from the mirror and the console's own tables.
struct ReportDetailPage: MustacheParent {
    /// Another report on the same library.
    struct OtherReport: MustacheParent {
        let reason: String
        let details: String
        let reporter: String
        let age: String
        let createdAt: String
        let createdUTC: String
        let status: String
        let reportURL: String

        init(_ report: MirrorReport, now: Date) {
            reason = report.reason.label
            details = report.details.isEmpty ? "(no details given)" : report.details
            reporter = report.reporterUsername ?? "anonymous"
            age = TimeText.age(of: report.createdAt, now: now)
            createdAt = TimeText.iso(report.createdAt)
            createdUTC = TimeText.utc(report.createdAt)
            status = report.status.rawValue
            reportURL = SiteURL.report(report.id).path
        }

        func child(named key: String) -> Any? {
            switch key {
            case "reason": reason
            case "details": details
            case "reporter": reporter
            case "age": age
            case "createdAt": createdAt
            case "createdUTC": createdUTC
            case "status": status
            case "reportURL": reportURL
            default: nil
            }
        }
    }

    /// A staff note kept by the console.
    struct Note: MustacheParent {
        let author: String
        let text: String
        let age: String
        let writtenAt: String
        let writtenUTC: String

        init(_ note: ReportNote, now: Date) {
            author = note.authorUsername
            text = note.text
            age = TimeText.age(of: note.writtenAt, now: now)
            writtenAt = TimeText.iso(note.writtenAt)
            writtenUTC = TimeText.utc(note.writtenAt)
        }

        func child(named key: String) -> Any? {
            switch key {
            case "author": author
            case "text": text
            case "age": age
            case "writtenAt": writtenAt
            case "writtenUTC": writtenUTC
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let id: Int
    /// The reporter's earlier items, and the library submitter's (`ContributorHistoryView`).
    var reporterHistory = ContributorHistoryView.none
    var submitterHistory = ContributorHistoryView.none
    let heading: String
    let reason: String
    let reasonValue: String
    let details: String
    let hasEvidence: Bool
    let evidenceURL: String
    let reporter: String
    /// "They are told it was resolved" or "Nobody can be told": what Resolve means for the reporter.
    let hasReporter: Bool
    let age: String
    let createdAt: String
    let createdUTC: String
    /// When it was reported, on the team's clock.
    let createdText: String
    let status: String
    let isOpen: Bool
    let statusSentence: String
    let libraryName: String
    let isUnnamed: Bool
    let libraryPlace: String
    let libraryStatus: String
    let libraryURL: String
    let libraryPhotoURL: String
    let hasLibraryPhoto: Bool
    let others: [OtherReport]
    let hasOthers: Bool
    /// "2 other reports on this library"; "Other reports on this library" when there are none.
    let othersHeading: String
    let notes: [Note]
    let hasNotes: Bool
    let noteURL: String
    /// What was typed into a note that could not be saved, shown again with its problem.
    var noteText = ""
    var noteProblem = ""
    let decideURL: String
    let decisionKey = UUID().uuidString
    /// Decisions come back here: the flash and its Undo show on this page.
    let back: String
    /// Where this page leads: back to its list, previous, next.
    var queue: QueueLinks
    var claim = ClaimBadge.hidden
    /// A decision on the report waiting to be sent: shown instead of the decision forms.
    var queued = QueuedDecisionNote.none
    let mark: QueueStandingMark

    init(layout: LayoutModel, report: MirrorReport, library: MirrorLibrary?, others: [MirrorReport], notes: [ReportNote], targets: QueueTargets, now: Date) {
        self.layout = layout
        id = report.id
        let name = LibraryText.displayName(report.libraryName)
        heading = "Report on \(name)"
        reason = report.reason.label
        reasonValue = report.reason.rawValue
        details = report.details.isEmpty ? "(no details given)" : report.details
        evidenceURL = report.photoUrl
        hasEvidence = !report.photoUrl.isEmpty
        reporter = report.reporterUsername ?? "anonymous (no account)"
        hasReporter = report.reporterId != nil
        age = TimeText.age(of: report.createdAt, now: now)
        createdAt = TimeText.iso(report.createdAt)
        createdUTC = TimeText.utc(report.createdAt)
        createdText = TeamClock.stamp(report.createdAt)
        status = report.status.rawValue
        isOpen = report.status == .open
        statusSentence =
            switch report.status {
            case .open: "Open: waiting for a decision."
            case .resolved: "Resolved: it has left the queue. Reopen it to decide again."
            case .dismissed: "Dismissed: it has left the queue. Reopen it to decide again."
            }
        libraryName = name
        isUnnamed = LibraryText.isBlank(report.libraryName)
        libraryPlace = LibraryText.place(address: report.libraryAddress, city: report.libraryCity, country: report.libraryCountry)
        libraryStatus = (library?.status ?? report.libraryStatus).rawValue
        libraryURL = SiteURL.library(report.librarySlug).path
        libraryPhotoURL = library?.photoUrl ?? ""
        hasLibraryPhoto = !libraryPhotoURL.isEmpty
        self.others = others.map { OtherReport($0, now: now) }
        hasOthers = !others.isEmpty
        // "0 other reports" over "No other reports…" said it twice: with none, the heading names the section.
        othersHeading = others.isEmpty ? "Other reports on this library" : "\(CountText.of(others.count, "other report", "other reports")) on this library"
        self.notes = notes.map { Note($0, now: now) }
        hasNotes = !notes.isEmpty
        noteURL = SiteURL.reportNote(report.id).path
        decideURL = SiteURL.reportDecide(report.id).path
        back = SiteURL.report(report.id).path
        queue = QueueLinks(queue: ReportQueueContext(ListQuery(query: nil)), previous: nil, next: nil, here: back)
        mark = isOpen ? QueueStandingMark(.reports, createdAt: report.createdAt, targets: targets, now: now) : .none
    }

    var noteProblemShown: Bool { !noteProblem.isEmpty }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "id": id
        case "heading": heading
        case "reason": reason
        case "reasonValue": reasonValue
        case "details": details
        case "hasEvidence": hasEvidence
        case "evidenceURL": evidenceURL
        case "reporter": reporter
        case "hasReporter": hasReporter
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "createdText": createdText
        case "status": status
        case "isOpen": isOpen
        case "statusSentence": statusSentence
        case "libraryName": libraryName
        case "isUnnamed": isUnnamed
        case "libraryPlace": libraryPlace
        case "libraryStatus": libraryStatus
        case "libraryURL": libraryURL
        case "libraryPhotoURL": libraryPhotoURL
        case "hasLibraryPhoto": hasLibraryPhoto
        case "others": others
        case "hasOthers": hasOthers
        case "othersHeading": othersHeading
        case "notes": notes
        case "hasNotes": hasNotes
        case "noteURL": noteURL
        case "noteText": noteText
        case "noteProblem": noteProblem
        case "hasNoteProblem": noteProblemShown
        case "noteMaxLength": ReportNote.maxLength
        case "decideURL": decideURL
        case "decisionKey": decisionKey
        case "back": back
        case "queue": queue
        case "claim": claim
        case "queued": queued
        case "isQueued": queued.isShown
        case "mark": mark
        case "reporterHistory": reporterHistory
        case "submitterHistory": submitterHistory
        default: nil
        }
    }
}

/// The note form of a report's page (the CSRF field is checked by the middleware).
struct ReportNoteForm: Decodable, Sendable {
    var note: String?
    /// The page's form key (`ReportDetailPage.decisionKey`): the same form sent twice keeps one note.
    var key: String?
}
