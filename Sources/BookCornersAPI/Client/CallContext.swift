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

    /// The same call facts, its reads spending `budget`.
    public func under(_ budget: CallBudget) -> CallContext {
        var context = self
        context.budget = budget
        return context
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
