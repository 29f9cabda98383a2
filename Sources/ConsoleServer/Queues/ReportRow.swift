import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// One report as the queue shows it.
struct ReportRow: MustacheParent {
    let id: Int
    let libraryName: String
    let librarySlug: String
    let libraryPlace: String
    let reason: String
    /// The reason as the backend spells it: the decision form sends it so the report is found again quickly.
    let reasonValue: String
    let details: String
    let photoURL: String
    let hasPhoto: Bool
    let reporter: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let status: String
    let isOpen: Bool
    let decisionKey = UUID().uuidString
    let libraryURL: String
    /// The report's own page.
    /// The report's page, with the list it was opened from (for previous and next).
    var reportURL: String
    let decideURL: String
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// A decision on it waiting to be sent: shown instead of the decision buttons.
    var queued = QueuedDecisionNote.none
    /// An open report past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark

    init(_ report: MirrorReport, targets: QueueTargets, now: Date) {
        id = report.id
        libraryURL = SiteURL.library(report.librarySlug).path
        reportURL = SiteURL.report(report.id).path
        decideURL = SiteURL.reportDecide(report.id).path
        libraryName = LibraryText.displayName(report.libraryName)
        librarySlug = report.librarySlug
        libraryPlace = LibraryText.place(address: report.libraryAddress, city: report.libraryCity, country: report.libraryCountry)
        reason = report.reason.label
        reasonValue = report.reason.rawValue
        details = report.details.isEmpty ? "(no details given)" : report.details
        photoURL = report.photoUrl
        hasPhoto = !report.photoUrl.isEmpty
        reporter = report.reporterUsername ?? "anonymous"
        age = TimeText.age(of: report.createdAt, now: now)
        createdAt = TimeText.iso(report.createdAt)
        createdUTC = TimeText.utc(report.createdAt)
        status = report.status.rawValue
        isOpen = report.status == .open
        mark = isOpen ? QueueStandingMark(.reports, createdAt: report.createdAt, targets: targets, now: now) : .none
    }

    init(_ report: ModerationReport, now: Date) {
        mark = .none
        id = report.id
        libraryURL = SiteURL.library(report.library.slug).path
        reportURL = SiteURL.report(report.id).path
        decideURL = SiteURL.reportDecide(report.id).path
        libraryName = LibraryText.displayName(report.library.name)
        librarySlug = report.library.slug
        libraryPlace = LibraryText.place(address: report.library.address, city: report.library.city, country: report.library.country)
        reason = ReportReason(rawValue: report.reason)?.label ?? report.reason
        reasonValue = report.reason
        details = report.details.isEmpty ? "(no details given)" : report.details
        photoURL = report.photoUrl
        hasPhoto = !report.photoUrl.isEmpty
        reporter = report.createdBy?.username ?? "anonymous"
        age = TimeText.age(of: report.createdAt, now: now)
        createdAt = TimeText.iso(report.createdAt)
        createdUTC = TimeText.utc(report.createdAt)
        status = report.status
        isOpen = report.moderationStatus == .open
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "libraryName": libraryName
        case "librarySlug": librarySlug
        case "libraryPlace": libraryPlace
        case "reason": reason
        case "reasonValue": reasonValue
        case "details": details
        case "photoURL": photoURL
        case "hasPhoto": hasPhoto
        case "reporter": reporter
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "status": status
        case "isOpen": isOpen
        case "decisionKey": decisionKey
        case "libraryURL": libraryURL
        case "reportURL": reportURL
        case "decideURL": decideURL
        case "claim": claim
        case "queued": queued
        case "isQueued": queued.isShown
        case "mark": mark
        default: nil
        }
    }
}
