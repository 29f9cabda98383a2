import Foundation
import ModerationVocabulary

/// What the mirror knows around one library, for the reasons it may need a look: its nearest
/// neighbours and what its submitter has sent before.
public struct LibraryEvidence: Sendable, Equatable {
    /// Another approved or pending library near this one.
    public struct Neighbour: Sendable, Equatable {
        public var id: Int
        public var slug: String
        public var name: String
        public var status: LibraryStatus
        public var metres: Double

        public init(id: Int, slug: String, name: String, status: LibraryStatus, metres: Double) {
            self.id = id
            self.slug = slug
            self.name = name
            self.status = status
            self.metres = metres
        }
    }

    /// The submitter's libraries in the mirror, this one included.
    public struct SubmitterRecord: Sendable, Equatable {
        public var submitted: Int
        public var approved: Int
        public var rejected: Int
        /// The reason of their latest rejected submission; "" when none has one.
        public var lastRejectionReason: String

        public init(submitted: Int, approved: Int, rejected: Int, lastRejectionReason: String) {
            self.submitted = submitted
            self.approved = approved
            self.rejected = rejected
            self.lastRejectionReason = lastRejectionReason
        }
    }

    /// The nearest approved or pending library within `neighbourhoodMetres`.
    public var nearest: Neighbour?
    /// The nearest one within `neighbourhoodMetres` whose name is this one's (normalised).
    public var namesakeNearby: Neighbour?
    /// `nil` for an imported library, which has no submitter.
    public var submitter: SubmitterRecord?
    /// The submitter's other libraries sent within the hour around this one (half an hour either side).
    public var sameHourSubmissions: Int
    /// Another of the submitter's libraries has exactly these coordinates.
    public var repeatsOwnCoordinates: Bool

    /// How far around a library neighbours are looked for.
    public static let neighbourhoodMetres = 200.0

    public init(
        nearest: Neighbour? = nil, namesakeNearby: Neighbour? = nil, submitter: SubmitterRecord? = nil, sameHourSubmissions: Int = 0,
        repeatsOwnCoordinates: Bool = false
    ) {
        self.nearest = nearest
        self.namesakeNearby = namesakeNearby
        self.submitter = submitter
        self.sameHourSubmissions = sameHourSubmissions
        self.repeatsOwnCoordinates = repeatsOwnCoordinates
    }
}
