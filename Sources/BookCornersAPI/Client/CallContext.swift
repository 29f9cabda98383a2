import Foundation
import ModerationVocabulary

/// Per-call facts that travel to the backend as headers and into our logs.
public struct CallContext: Sendable {
    /// Sent as `X-Request-ID` and logged with the call.
    public var requestID: String
    /// The staff member's address, sent as `X-Forwarded-For` (only with
    /// `--forward-staff-address`); `nil` to leave it out.
    public var forwardedFor: String?
    /// The share of the console's budget the call's reads spend.
    public var budget: CallBudget

    public init(requestID: String = UUID().uuidString, forwardedFor: String? = nil, budget: CallBudget = .standard) {
        self.requestID = requestID
        self.forwardedFor = forwardedFor
        self.budget = budget
    }
}

/// Search filters of the public library list.
public struct LibrarySearch: Sendable {
    /// A point and radius: only libraries within it, nearest first.
    public struct Near: Sendable {
        public var lat: Double
        public var lng: Double
        /// 1...100 km.
        public var radiusKm: Int

        public init(lat: Double, lng: Double, radiusKm: Int) {
            self.lat = lat
            self.lng = lng
            self.radiusKm = radiusKm
        }
    }

    public var text: String?
    public var search: String?
    public var city: String?
    public var country: String?
    public var postalCode: String?
    public var hasPhoto: Bool?
    public var near: Near?

    public init(
        text: String? = nil, search: String? = nil, city: String? = nil, country: String? = nil,
        postalCode: String? = nil, hasPhoto: Bool? = nil, near: Near? = nil
    ) {
        self.text = text
        self.search = search
        self.city = city
        self.country = country
        self.postalCode = postalCode
        self.hasPhoto = hasPhoto
        self.near = near
    }
}

/// Filters of the moderation library list.
public struct LibraryFilter: Sendable, Hashable {
    public var status: StatusFilter
    /// Matches name, address or city; at most 200 characters.
    public var text: String?
    /// ISO 3166-1 alpha-2.
    public var country: String?
    public var source: String?

    public init(status: StatusFilter = .pending, text: String? = nil, country: String? = nil, source: String? = nil) {
        self.status = status
        self.text = text
        self.country = country
        self.source = source
    }
}
