import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// A library's detail page, with possible duplicates nearby.
struct LibraryDetailPage: MustacheParent {
    struct Field: MustacheParent {
        let label: String
        let value: String
        /// Shown on hover: the exact UTC instant of a time; "" for other fields.
        let title: String

        init(label: String, value: String, title: String = "") {
            self.label = label
            self.value = value.isEmpty ? "—" : value
            self.title = title
        }

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "value": value
            case "title": title
            case "hasTitle": !title.isEmpty
            default: nil
            }
        }
    }

    struct Duplicate: MustacheParent {
        let name: String
        let slug: String
        let place: String
        let distance: String
        /// Within the duplicate distance of the reasons' settings (50 m unless staff changed it).
        let isClose: Bool
        /// Its name is this library's (normalised).
        let isSameName: Bool
        let status: String
        let libraryURL: String
        /// Its photo, to compare side by side with the submission's; "" when it has none.
        var photoURL = ""
        /// "3 d ago": when it was submitted.
        var age = ""
        /// "possible duplicate" or "likely duplicate": its flag when close, by the settings' distances.
        var closeFlag = ""
        /// Within the strong duplicate distance: a strong reason, and the warning says "likely".
        var isStrong = false

        func child(named key: String) -> Any? {
            switch key {
            case "closeFlag": closeFlag
            case "name": name
            case "slug": slug
            case "place": place
            case "distance": distance
            case "isClose": isClose
            case "isSameName": isSameName
            case "status": status
            case "libraryURL": libraryURL
            case "photoURL": photoURL
            case "hasPhoto": !photoURL.isEmpty
            case "age": age
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let loaded: Bool
    let name: String
    let isUnnamed: Bool
    let slug: String
    /// Where this page leads: back to its list, previous, next.
    var queue = QueueLinks.none
    /// Where this library's decision forms post; "" when the library could not be loaded.
    let decideURL: String
    let photoURL: String?
    let status: String
    /// The backend's `rejection_reason`; "" when there is none.
    let rejectionReason: String
    /// Rejected now, with a reason to show as the current decision.
    let isRejectedWithReason: Bool
    /// Not rejected now, but still carrying the reason of an earlier rejection: the backend
    /// keeps it when a library leaves `rejected`, so it must not read as the current state.
    let wasRejectedBefore: Bool
    let description: String
    /// Who reads a rejection's reason: its submitter, or nobody for an imported library.
    let reasonReader: String
    private(set) var fields: [Field]
    let coordinates: String
    let mapURL: String
    /// Approved or pending libraries within the duplicate distance, or with the same name within the same-name distance: to compare.
    let duplicates: [Duplicate]
    /// Others with this name in the city, farther away: context, not a reason on their own.
    let namesakes: [Duplicate]
    let duplicatesChecked: Bool
    let hasDuplicates: Bool
    let hasCloseDuplicate: Bool
    /// The "Possible duplicate" warning: only while the library waits for a decision (an
    /// approved or rejected one has had its comparison; the candidates are still listed).
    let warnsOfDuplicate: Bool
    /// The warning's distances, from the reasons' settings ("50 m", "200 m").
    private(set) var closeWithin = Distance.text(Double(ConcernSettings.defaults.duplicateMetres))
    private(set) var sameNameWithin = Distance.text(Double(ConcernSettings.defaults.sameNameMetres))
    private(set) var strongWithin = Distance.text(Double(ConcernSettings.defaults.strongDuplicateMetres))
    /// A candidate within the strong distance: the warning says "likely duplicate", as the reason is strong.
    private(set) var hasStrongDuplicate = false
    /// The submission's own place and age, for its side of the comparison.
    let place: String
    let age: String
    /// A fresh idempotency key per rendered form: posting the same form twice records one decision.
    let decisionKey = UUID().uuidString
    /// The common reasons, the duplicate one naming the library it duplicates when there is one.
    private(set) var presetReasons = DecisionController.presetReasons
    /// The rejection form as it was sent when it needs fixing: the error beside its field, what was typed kept.
    var rejection = RejectionFormState.empty
    private(set) var canApprove: Bool
    private(set) var canReject: Bool
    private(set) var canReturnToPending: Bool
    /// Approving is a reversal of a rejection here: the button says it asks first.
    let approveReverses: Bool
    /// A decision recorded but not yet sent: shown instead of the decision forms.
    private(set) var queued = QueuedDecisionNote.none
    /// Decisions held because their authors are no longer staff, in words (not on their way:
    /// the forms stay, for a colleague to decide again).
    var heldDecisions: [String] = []
    /// Who made it what it is now, when and why (not for a waiting library).
    var decided = DecidedNote.none
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// Pending past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark
    /// Why it needs a look (`LibraryConcerns`), strong reasons first; shown while it waits.
    var concerns: [LibraryConcern] = []
    /// Said with the reasons until the mirror has read every library once (`LibraryConcerns.incompleteText`).
    var reasonsIncomplete = ""
    /// "When it was approved, it had these reasons: …" on a decided library; "" otherwise.
    private(set) var decidedConcerns = ""
    /// Every library within 500 m, drawn.
    var neighbourhood = NeighbourhoodMap.none
    /// The submitter's earlier libraries, photos and reports and how each ended.
    var submitterHistory = ContributorHistoryView.none

    init(layout: LayoutModel, library: ModerationLibrary, duplicates others: [MirrorLibrary], settings: ConcernSettings, targets: QueueTargets, now: Date) {
        self.layout = layout
        loaded = true
        name = LibraryText.displayName(library.name)
        isUnnamed = LibraryText.isBlank(library.name)
        slug = library.slug
        decideURL = SiteURL.libraryDecide(library.slug).path
        photoURL = library.photoUrl.isEmpty ? nil : library.photoUrl
        status = library.status
        rejectionReason = library.rejectionReason
        let current = library.moderationStatus
        isRejectedWithReason = current == .rejected && !library.rejectionReason.isEmpty
        wasRejectedBefore = current != .rejected && !library.rejectionReason.isEmpty
        description = library.description.isEmpty ? "(none)" : library.description
        reasonReader =
            library.createdBy.map { "its submitter, \($0.username), reads it" }
            ?? "nobody is told: it was imported and has no submitter; the reason is kept with the library"
        func optional(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        fields = [
            Field(label: "Address", value: library.address.isEmpty ? "(none given)" : library.address),
            Field(label: "City", value: library.city), Field(label: "Country", value: library.country),
            Field(label: "Postal code", value: library.postalCode),
            Field(label: "Submitted by", value: library.createdBy?.username ?? "imported (no submitter)"),
            Field(
                label: "Submitted", value: "\(TeamClock.stamp(library.createdAt)) (\(TimeText.age(of: library.createdAt, now: now)))",
                title: TimeText.utc(library.createdAt)),
            Field(label: "Source", value: library.source), Field(label: "Operator", value: library._operator),
            Field(label: "Brand", value: library.brand), Field(label: "Website", value: library.website),
            Field(label: "Contact", value: library.contact),
            Field(label: "Wheelchair accessible", value: library.wheelchairAccessible.isEmpty ? "unknown" : library.wheelchairAccessible),
            Field(label: "Capacity", value: library.capacity.map { CountText.of($0, "book", "books") } ?? "unknown"),
            Field(label: "Indoor", value: optional(library.isIndoor)), Field(label: "Lit at night", value: optional(library.isLit)),
            Field(label: "Slug", value: library.slug), Field(label: "Backend id", value: String(library.id)),
        ]
        coordinates = String(format: "%.6f, %.6f", library.lat, library.lng)
        mapURL = String(format: "https://www.openstreetmap.org/?mlat=%.6f&mlon=%.6f#map=19/%.6f/%.6f", library.lat, library.lng, library.lat, library.lng)
        duplicatesChecked = true
        let key = LibraryNameKey.normalize(library.name)
        let candidates = others.filter { $0.id != library.id }.map { other in
            let metres = GreatCircle.metres(library.lat, library.lng, other.lat, other.lng)
            var duplicate = Duplicate(
                name: LibraryText.displayName(other.name), slug: other.slug,
                place: LibraryText.place(address: other.address, city: other.city, country: other.country),
                distance: Distance.text(metres), isClose: settings.isNearDuplicate(metres: metres),
                isSameName: !key.isEmpty && other.normalizedName == key, status: other.status.rawValue,
                libraryURL: SiteURL.library(other.slug).path)
            duplicate.photoURL = other.photoUrl.isEmpty ? other.thumbnailUrl : other.photoUrl
            duplicate.isStrong = settings.isStrongDuplicate(metres: metres)
            duplicate.closeFlag = LibraryConcern.duplicateName(duplicate.isStrong ? .strong : .worthALook)
            duplicate.age = TimeText.age(of: other.createdAt, now: now)
            return (duplicate, metres)
        }
        // A generic name ("Little Library Box") is shared across a city: only a namesake close by is worth comparing.
        let comparable = { (candidate: (Duplicate, Double)) in
            candidate.0.isClose || settings.isNearNamesake(metres: candidate.1)
        }
        duplicates = candidates.filter(comparable).map(\.0)
        namesakes = candidates.filter { !comparable($0) }.map(\.0)
        hasDuplicates = !duplicates.isEmpty
        hasCloseDuplicate = duplicates.contains { $0.isClose }
        warnsOfDuplicate = hasDuplicates && current == .pending
        closeWithin = Distance.text(Double(settings.duplicateMetres))
        strongWithin = Distance.text(Double(settings.strongDuplicateMetres))
        hasStrongDuplicate = duplicates.contains { $0.isStrong }
        sameNameWithin = Distance.text(Double(settings.sameNameMetres))
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
        age = TimeText.age(of: library.createdAt, now: now)
        // A status this console does not know is shown, never decided on.
        canApprove = current.map { $0 != .approved } ?? false
        canReject = current.map { $0 != .rejected } ?? false
        canReturnToPending = current.map { $0 != .pending } ?? false
        approveReverses = current == .rejected
        mark = current == .pending ? QueueStandingMark(.libraries, createdAt: library.createdAt, targets: targets, now: now) : .none
    }

    /// The page when the library could not be loaded at all (backend down or limiting).
    static func unavailable(layout: LayoutModel) -> LibraryDetailPage {
        LibraryDetailPage(layout: layout)
    }

    private init(layout: LayoutModel) {
        self.layout = layout
        loaded = false
        name = "Library"
        isUnnamed = false
        slug = ""
        decideURL = ""
        photoURL = nil
        status = ""
        rejectionReason = ""
        isRejectedWithReason = false
        wasRejectedBefore = false
        description = ""
        reasonReader = ""
        fields = []
        coordinates = ""
        mapURL = ""
        duplicates = []
        namesakes = []
        duplicatesChecked = false
        hasDuplicates = false
        hasCloseDuplicate = false
        warnsOfDuplicate = false
        place = ""
        age = ""
        canApprove = false
        canReject = false
        canReturnToPending = false
        approveReverses = false
        mark = .none
    }

    /// Says which reasons a decided library had when it left the queue (as recorded then), so a
    /// decision made despite a strong reason shows it; nothing while it waits or when none was recorded.
    mutating func showsDecidedConcerns(_ recorded: [DecidedLibraryConcern]) {
        guard status != LibraryStatus.pending.rawValue, let outcome = recorded.first?.outcome else { return }
        let named = recorded.map { concern in
            let label = LibraryConcern.Kind(rawValue: concern.kind)?.label ?? concern.kind
            return "\(label) (\(concern.strength == LibraryConcern.Strength.strong.rawValue ? "strong" : "worth a look"))"
        }
        let left = outcome == "gone" ? "When it left the queue" : "When it was \(outcome)"
        decidedConcerns = "\(left), it had these reasons to look: \(named.joined(separator: ", "))."
    }

    /// Adds the submitter's record beside their name: "12 submitted · 9 approved · 3 rejected,
    /// last rejected: “Private garden”" (the mirror's libraries, this one included).
    mutating func showsSubmitter(_ record: LibraryEvidence.SubmitterRecord?) {
        guard let record, let at = fields.firstIndex(where: { $0.label == "Submitted by" }) else { return }
        var line = "\(record.submitted) submitted · \(record.approved) approved · \(record.rejected) rejected"
        if !record.lastRejectionReason.isEmpty { line += ", last rejected: “\(record.lastRejectionReason)”" }
        fields.insert(Field(label: "Their submissions", value: line), at: at + 1)
    }

    /// Names the library this one duplicates in the duplicate preset (its submitter reads it).
    mutating func namesDuplicate(inReason reason: String) {
        presetReasons = [reason] + DecisionController.presetReasons.dropFirst()
        rejection = RejectionFormState(error: "", typedReason: "", chosenPreset: "", presets: presetReasons)
    }

    /// A decision on its way: no decision form until it is sent.
    mutating func queuedDecision(_ note: QueuedDecisionNote) {
        queued = note
        canApprove = false
        canReject = false
        canReturnToPending = false
        claim = .hidden
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "loaded": loaded
        case "name": name
        case "isUnnamed": isUnnamed
        case "slug": slug
        case "queue": queue
        case "decideURL": decideURL
        case "photoURL": photoURL
        case "status": status
        case "rejectionReason": rejectionReason
        case "isRejectedWithReason": isRejectedWithReason
        case "wasRejectedBefore": wasRejectedBefore
        case "description": description
        case "reasonReader": reasonReader
        case "fields": fields
        case "coordinates": coordinates
        case "mapURL": mapURL
        case "duplicates": duplicates
        case "namesakes": namesakes
        case "hasNamesakes": !namesakes.isEmpty
        case "concerns": concerns
        case "decidedConcerns": decidedConcerns
        case "hasDecidedConcerns": !decidedConcerns.isEmpty
        case "hasConcerns": !concerns.isEmpty
        case "reasonsIncomplete": reasonsIncomplete
        case "hasReasonsIncomplete": !reasonsIncomplete.isEmpty
        // The reasons are for the decision: a decided library's page no longer raises them.
        case "concernsShown": loaded && status == LibraryStatus.pending.rawValue
        case "duplicatesChecked": duplicatesChecked
        case "hasDuplicates": hasDuplicates
        case "hasCloseDuplicate": hasCloseDuplicate
        case "warnsOfDuplicate": warnsOfDuplicate
        case "closeWithin": closeWithin
        case "strongWithin": strongWithin
        case "hasStrongDuplicate": hasStrongDuplicate
        case "sameNameWithin": sameNameWithin
        case "place": place
        case "age": age
        case "hasPhoto": photoURL != nil
        case "decisionKey": decisionKey
        case "presetReasons": presetReasons
        case "canApprove": canApprove
        case "canReject": canReject
        case "canReturnToPending": canReturnToPending
        case "approveReverses": approveReverses
        case "rejection": rejection
        case "queued": queued
        case "isQueued": queued.isShown
        case "decided": decided
        case "claim": claim
        case "heldDecisions": heldDecisions
        case "hasHeldDecisions": !heldDecisions.isEmpty
        case "mark": mark
        case "neighbourhood": neighbourhood
        case "submitterHistory": submitterHistory
        default: nil
        }
    }
}
