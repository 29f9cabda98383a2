import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// A proposed photo and the photo it would replace.
struct PhotoCard: MustacheParent {
    let id: Int
    let proposedURL: String
    let currentURL: String
    let hasCurrentPhoto: Bool
    let caption: String
    let submitter: String
    /// Someone sent it (a push can tell them); an anonymous photo's rejection tells nobody.
    let hasSubmitter: Bool
    let libraryName: String
    let librarySlug: String
    let libraryPlace: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let status: String
    private(set) var isPending: Bool
    /// A decision recorded but not yet sent: shown instead of the decision forms.
    private(set) var queued = QueuedDecisionNote.none
    let decisionKey = UUID().uuidString
    let libraryURL: String
    let decideURL: String
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// The reject form: its reason presets, and the error and typed text when it is shown again.
    var rejection = RejectionFormState(error: "", typedReason: "", chosenPreset: "", presets: DecisionController.photoPresetReasons)
    /// A pending photo past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark
    /// Who decided a decided photo, when and why ("Rejected by staff 45 s ago" and the reason);
    /// the status alone for a decision the console did not see. Hidden on a waiting photo.
    var decidedNote = DecidedNote.none
    /// Approved, and no photo of its library approved after it: the library's photo now. The one
    /// it replaced is gone from Book Corners, so there is nothing to compare it with.
    var isLibraryPhoto = false

    init(_ photo: MirrorPhoto, currentPhotoURL: String?, targets: QueueTargets, now: Date) {
        id = photo.id
        libraryURL = SiteURL.library(photo.librarySlug).path
        decideURL = SiteURL.photoDecide(photo.id).path
        proposedURL = photo.photoUrl
        currentURL = currentPhotoURL ?? ""
        hasCurrentPhoto = !currentURL.isEmpty
        caption = photo.caption.isEmpty ? "(no caption)" : photo.caption
        submitter = photo.submitterUsername ?? "anonymous"
        hasSubmitter = photo.submitterId != nil
        libraryName = LibraryText.displayName(photo.libraryName)
        librarySlug = photo.librarySlug
        libraryPlace = LibraryText.place(city: photo.libraryCity, country: photo.libraryCountry)
        age = TimeText.age(of: photo.createdAt, now: now)
        createdAt = TimeText.iso(photo.createdAt)
        createdUTC = TimeText.utc(photo.createdAt)
        status = photo.status.rawValue
        isPending = photo.status == .pending
        mark = isPending ? QueueStandingMark(.photos, createdAt: photo.createdAt, targets: targets, now: now) : .none
    }

    init(_ photo: ModerationPhoto, currentPhotoURL: String?, now: Date) {
        mark = .none
        id = photo.id
        libraryURL = SiteURL.library(photo.library.slug).path
        decideURL = SiteURL.photoDecide(photo.id).path
        proposedURL = photo.photoUrl
        currentURL = currentPhotoURL ?? ""
        hasCurrentPhoto = !currentURL.isEmpty
        caption = photo.caption.isEmpty ? "(no caption)" : photo.caption
        submitter = photo.createdBy?.username ?? "anonymous"
        hasSubmitter = photo.createdBy != nil
        libraryName = LibraryText.displayName(photo.library.name)
        librarySlug = photo.library.slug
        libraryPlace = LibraryText.place(city: photo.library.city, country: photo.library.country)
        age = TimeText.age(of: photo.createdAt, now: now)
        createdAt = TimeText.iso(photo.createdAt)
        createdUTC = TimeText.utc(photo.createdAt)
        status = photo.status
        isPending = photo.moderationStatus == .pending
    }

    /// A decision on its way: its note instead of Use and Reject until it is sent.
    mutating func queuedDecision(_ note: QueuedDecisionNote) {
        queued = note
        isPending = false
        claim = .hidden
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "proposedURL": proposedURL
        case "currentURL": currentURL
        case "hasCurrentPhoto": hasCurrentPhoto
        case "replacedCurrent": isLibraryPhoto
        case "caption": caption
        case "submitter": submitter
        case "hasSubmitter": hasSubmitter
        case "libraryName": libraryName
        case "librarySlug": librarySlug
        case "libraryPlace": libraryPlace
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "status": status
        case "isPending": isPending
        case "decisionKey": decisionKey
        case "libraryURL": libraryURL
        case "viewerURL": SiteURL.photo(id).path
        case "decideURL": decideURL
        case "claim": claim
        case "mark": mark
        case "rejection": rejection
        case "queued": queued
        case "decidedNote": decidedNote
        default: nil
        }
    }
}
