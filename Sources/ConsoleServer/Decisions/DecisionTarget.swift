import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary

/// What the backend says about a decision's target right before it is sent.
struct DecisionTarget: Sendable {
    let kind: ModerationAction.TargetKind
    /// The library's, report's or photo's own id.
    let itemID: Int
    let libraryID: Int
    let slug: String
    let name: String
    let city: String
    /// `nil` when the backend shows a status this console does not know: then it is no
    /// status anyone saw, and a decision on it is a conflict.
    let status: ItemStatus?
    /// The status as the backend spelled it, for messages and the audit log.
    let statusText: String
    let createdAt: Date
    /// Who submitted or reported it; `nil` for imported data.
    let submitterID: Int?
    /// Their username, when the backend names them.
    let submitterUsername: String?
    /// The answer as the mirror keeps it; `nil` when its status is one the console does not know.
    let mirrorRecord: MirrorRecord?

    var nameInCity: String { LibraryText.nameInCity(name, city: city) }

    init(_ library: ModerationLibrary) {
        kind = .library
        itemID = library.id
        libraryID = library.id
        slug = library.slug
        name = library.name
        city = library.city
        status = library.moderationStatus.map(ItemStatus.init)
        statusText = library.status
        createdAt = library.createdAt
        submitterID = library.createdBy?.id
        submitterUsername = library.createdBy?.username
        mirrorRecord = (try? MirrorLibrary(library, confirmedAt: Date())).map(MirrorRecord.library)
    }

    init(_ report: ModerationReport) {
        kind = .report
        itemID = report.id
        libraryID = report.library.id
        slug = report.library.slug
        name = report.library.name
        city = report.library.city
        status = report.moderationStatus.map(ItemStatus.init)
        statusText = report.status
        createdAt = report.createdAt
        submitterID = report.createdBy?.id
        submitterUsername = report.createdBy?.username
        mirrorRecord = (try? MirrorReport(report, confirmedAt: Date())).map(MirrorRecord.report)
    }

    init(_ photo: ModerationPhoto) {
        kind = .photo
        itemID = photo.id
        libraryID = photo.library.id
        slug = photo.library.slug
        name = photo.library.name
        city = photo.library.city
        status = photo.moderationStatus.map(ItemStatus.init)
        statusText = photo.status
        createdAt = photo.createdAt
        submitterID = photo.createdBy?.id
        submitterUsername = photo.createdBy?.username
        mirrorRecord = (try? MirrorPhoto(photo, confirmedAt: Date())).map(MirrorRecord.photo)
    }
}

/// A backend answer in the mirror's shape, whichever kind of item it is.
enum MirrorRecord: Sendable {
    case library(MirrorLibrary)
    case report(MirrorReport)
    case photo(MirrorPhoto)

    /// Stores it as the sync would: a status change no applied console decision explains is
    /// audited as made outside the console.
    func store(in store: ModerationStore) async throws {
        switch self {
        case .library(let row): try await store.upsertMirror(libraries: [row])
        case .report(let row): try await store.upsertMirror(reports: [row])
        case .photo(let row): try await store.upsertMirror(photos: [row])
        }
    }
}

/// The words of a decision: what staff chose, as the audit log names it.
enum DecisionVerb {
    static func auditAction(kind: ModerationAction.TargetKind, statusAfter: ItemStatus) -> String {
        switch (kind, statusAfter) {
        case (.library, .approved), (.photo, .approved): "\(kind.rawValue).approve"
        case (.library, .rejected), (.photo, .rejected): "\(kind.rawValue).reject"
        case (.library, .pending), (.photo, .pending): "\(kind.rawValue).returnToPending"
        case (.report, .resolved): "report.resolve"
        case (.report, .dismissed): "report.dismiss"
        case (.report, .open): "report.reopen"
        // Forms only offer a kind its own statuses (`Decision.allowed(for:)`).
        case (.library, _), (.photo, _), (.report, _): "\(kind.rawValue).set.\(statusAfter.rawValue)"
        }
    }
}
