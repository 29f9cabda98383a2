import Foundation
import Hummingbird
import ModerationStore

/// Every address the console answers or links to. Controllers register `Route.pattern`;
/// pages, redirects and cookies use `path`, so a route and its links cannot drift apart, and
/// every value put into an address is percent-encoded in one way.
enum SiteURL: Hashable, Sendable {
    case dashboard
    case healthz
    case readyz
    case signIn
    /// A sign-in link an operator issued (`console staff sign-in-link`): remembers the browser.
    case signInLink(String)
    case signOut
    /// A decision form kept when its session had ended, shown again to send (`KeptForm`).
    case unsentWork(String)
    case unsentWorkDiscard(String)
    case libraries
    case library(String)
    case libraryDecide(String)
    case librariesBulk
    case librariesBulkConfirm
    /// What each reason to look caught in the last 30 days.
    case concernFigures
    /// The reasons' thresholds and suspect words (a form posted from the reasons page).
    case concernSettings
    case reports
    /// One report with its library, the other reports on it and staff notes.
    case report(Int)
    case reportDecide(Int)
    case reportNote(Int)
    case photos
    /// One proposed photo beside the current one, large (side by side or swipe).
    case photo(Int)
    case photoDecide(Int)
    /// "I'm reviewing this", Release and Take over, on one library, report or photo.
    case claim(ItemClaim.Target)
    case claimRelease(ItemClaim.Target)
    case claimTakeOver(ItemClaim.Target)
    case outbox
    case outboxMessage(String)
    case outboxRetry(String)
    case outboxDiscard(String)
    case devices
    case deviceRemove(Int64)
    case audit
    case auditEntry(Int64)
    case auditVerify
    case auditExport
    case auditSummary
    case statistics
    case statisticsData(String)
    /// The stream of changes open pages follow (server-sent events).
    case events
    case staticFile(String)
    // On call: schedule
    case onCall
    case onCallAlerts
    case onCallHandoffs
    case onCallRotation
    /// The team's clock: its zone before any rotation, and 24- or 12-hour.
    case onCallClock
    case onCallOverrides
    case onCallOverrideRemove(Int64)
    case onCallCalendarFeed
    case onCallCalendarFeedRevoke
    case calendarFeed(String)
    // On call: hand-offs
    case onCallHandoff(Int64)
    case onCallHandoffNote
    case onCallHandoffFollowUp(Int64)
    case onCallHandoffDismiss(Int64)
    // On call: alerts
    case onCallTarget
    case onCallAlertAcknowledge(Int64)
    /// Takes back a decision of one's own before it is sent (the Pending actions panel).
    case decisionCancel(Int64)

    /// The shape of an address without its values: what the router matches. Its raw value is
    /// Hummingbird's pattern, `:name` standing for one path segment.
    enum Route: String, CaseIterable, Sendable {
        case dashboard = "/"
        case healthz = "/healthz"
        case readyz = "/readyz"
        case signIn = "/sign-in"
        case signInLink = "/sign-in/link/:token"
        case signOut = "/sign-out"
        case unsentWork = "/unsent/:key"
        case unsentWorkDiscard = "/unsent/:key/discard"
        case libraries = "/libraries"
        // Parameter names agree where routes share a place: the router refuses two names at one segment.
        case library = "/libraries/:slug"
        case libraryDecide = "/libraries/:slug/decide"
        case librariesBulk = "/libraries/bulk"
        case librariesBulkConfirm = "/libraries/bulk/confirm"
        case concernFigures = "/reasons"
        case concernSettings = "/reasons/settings"
        case reports = "/reports"
        case report = "/reports/:id"
        case reportDecide = "/reports/:id/decide"
        case reportNote = "/reports/:id/note"
        case photos = "/photos"
        case photo = "/photos/:id"
        case photoDecide = "/photos/:id/decide"
        case libraryClaim = "/libraries/:slug/claim"
        case libraryRelease = "/libraries/:slug/release"
        case libraryTakeOver = "/libraries/:slug/take-over"
        case reportClaim = "/reports/:id/claim"
        case reportRelease = "/reports/:id/release"
        case reportTakeOver = "/reports/:id/take-over"
        case photoClaim = "/photos/:id/claim"
        case photoRelease = "/photos/:id/release"
        case photoTakeOver = "/photos/:id/take-over"
        case outbox = "/outbox"
        case outboxMessage = "/outbox/:id"
        case outboxRetry = "/outbox/:id/retry"
        case outboxDiscard = "/outbox/:id/discard"
        case devices = "/devices"
        case deviceRemove = "/devices/:id/remove"
        case audit = "/audit"
        case auditEntry = "/audit/:id"
        case auditVerify = "/audit/verify"
        case auditExport = "/audit/export"
        case auditSummary = "/audit/summary"
        case statistics = "/statistics"
        case statisticsData = "/statistics/data/:chart"
        case events = "/events"
        /// Served by `StaticFileMiddleware` from the files read at start-up, not by a route.
        case staticFile = "/static/:name"
        // On call: schedule
        case onCall = "/on-call"
        case onCallAlerts = "/on-call/alerts"
        case onCallHandoffs = "/on-call/handoffs"
        case onCallRotation = "/on-call/rotation"
        case onCallClock = "/on-call/clock"
        case onCallOverrides = "/on-call/overrides"
        case onCallOverrideRemove = "/on-call/overrides/:id/remove"
        case onCallCalendarFeed = "/on-call/calendar-feed"
        case onCallCalendarFeedRevoke = "/on-call/calendar-feed/revoke"
        /// A staff member's shifts as iCalendar; the secret token is the only key (calendar apps send no cookie).
        case calendarFeed = "/calendar/:token"
        // On call: hand-offs
        case onCallHandoff = "/on-call/handoffs/:handoff"
        case onCallHandoffNote = "/on-call/handoffs/note"
        case onCallHandoffFollowUp = "/on-call/handoffs/:handoff/follow-up"
        case onCallHandoffDismiss = "/on-call/handoffs/:handoff/dismiss"
        // On call: alerts
        case onCallTarget = "/on-call/alerts/targets"
        case onCallAlertAcknowledge = "/on-call/alerts/:id/acknowledge"
        case decisionCancel = "/decisions/:id/cancel"

        /// What a controller registers.
        var pattern: RouterPath { RouterPath(rawValue) }

        /// The name of the route's one dynamic segment, if it has one.
        var parameter: String? {
            rawValue.split(separator: "/").first { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
        }

        /// The value of the route's dynamic segment in a matched request, percent-decoded
        /// (the router hands segments over as they came); nil when it cannot be decoded.
        func value(in parameters: Parameters) -> String? {
            guard let parameter, let raw = parameters.get(parameter) else { return nil }
            return raw.removingPercentEncoding
        }
    }

    /// Where static files live: `StaticFileMiddleware` serves what comes after it.
    static var staticFilePrefix: String {
        String(Route.staticFile.rawValue.prefix { $0 != ":" })
    }

    var route: Route {
        switch self {
        case .dashboard: .dashboard
        case .healthz: .healthz
        case .readyz: .readyz
        case .signIn: .signIn
        case .signInLink: .signInLink
        case .signOut: .signOut
        case .unsentWork: .unsentWork
        case .unsentWorkDiscard: .unsentWorkDiscard
        case .libraries: .libraries
        case .library: .library
        case .libraryDecide: .libraryDecide
        case .librariesBulk: .librariesBulk
        case .librariesBulkConfirm: .librariesBulkConfirm
        case .concernFigures: .concernFigures
        case .concernSettings: .concernSettings
        case .reports: .reports
        case .report: .report
        case .reportDecide: .reportDecide
        case .reportNote: .reportNote
        case .photos: .photos
        case .photo: .photo
        case .photoDecide: .photoDecide
        case .claim(let target): ClaimRoute.claim.route(for: target.kind)
        case .claimRelease(let target): ClaimRoute.release.route(for: target.kind)
        case .claimTakeOver(let target): ClaimRoute.takeOver.route(for: target.kind)
        case .outbox: .outbox
        case .outboxMessage: .outboxMessage
        case .outboxRetry: .outboxRetry
        case .outboxDiscard: .outboxDiscard
        case .devices: .devices
        case .deviceRemove: .deviceRemove
        case .audit: .audit
        case .auditEntry: .auditEntry
        case .auditVerify: .auditVerify
        case .auditExport: .auditExport
        case .auditSummary: .auditSummary
        case .statistics: .statistics
        case .statisticsData: .statisticsData
        case .events: .events
        case .staticFile: .staticFile
        // On call: schedule
        case .onCall: .onCall
        case .onCallAlerts: .onCallAlerts
        case .onCallHandoffs: .onCallHandoffs
        case .onCallRotation: .onCallRotation
        case .onCallClock: .onCallClock
        case .onCallOverrides: .onCallOverrides
        case .onCallOverrideRemove: .onCallOverrideRemove
        case .onCallCalendarFeed: .onCallCalendarFeed
        case .onCallCalendarFeedRevoke: .onCallCalendarFeedRevoke
        case .calendarFeed: .calendarFeed
        // On call: hand-offs
        case .onCallHandoff: .onCallHandoff
        case .onCallHandoffNote: .onCallHandoffNote
        case .onCallHandoffFollowUp: .onCallHandoffFollowUp
        case .onCallHandoffDismiss: .onCallHandoffDismiss
        // On call: alerts
        case .onCallTarget: .onCallTarget
        case .onCallAlertAcknowledge: .onCallAlertAcknowledge
        case .decisionCancel: .decisionCancel
        }
    }

    /// The value that fills the route's dynamic segment.
    private var value: String? {
        switch self {
        case .library(let slug), .libraryDecide(let slug): slug
        case .report(let id), .reportDecide(let id), .reportNote(let id), .photo(let id), .photoDecide(let id): String(id)
        case .outboxMessage(let id), .outboxRetry(let id), .outboxDiscard(let id): id
        case .auditEntry(let id), .deviceRemove(let id), .onCallOverrideRemove(let id): String(id)
        case .calendarFeed(let token), .signInLink(let token): token
        case .unsentWork(let key), .unsentWorkDiscard(let key): key
        case .statisticsData(let chart): chart
        case .claim(let target), .claimRelease(let target), .claimTakeOver(let target): target.key
        case .staticFile(let name): name
        // On call: hand-offs
        case .onCallHandoff(let id), .onCallHandoffFollowUp(let id), .onCallHandoffDismiss(let id): String(id)
        // On call: alerts
        case .onCallAlertAcknowledge(let id), .decisionCancel(let id): String(id)
        default: nil
        }
    }

    /// The finished path: the route's pattern with its segment filled in, percent-encoded.
    var path: String {
        // Every route has at most one `:name` segment: the text around it is kept as it is.
        // Found by byte, not by Character: every row of a queue page builds several addresses.
        let pattern = route.rawValue
        guard let value, let colon = pattern.utf8.firstIndex(of: UInt8(ascii: ":")) else { return pattern }
        let end = pattern.utf8[colon...].firstIndex(of: UInt8(ascii: "/")) ?? pattern.utf8.endIndex
        var path = String(pattern[..<colon])
        path += Self.encoded(value)
        path += pattern[end...]
        return path
    }

    /// The path with a query of the items that have a value, in order, each name and value
    /// percent-encoded; no `?` when none has one.
    func path(query items: [(name: String, value: String?)]) -> String {
        path + Self.query(items)
    }

    /// `?` and the items that have a value, as `path(query:)` writes them; "" when none has one.
    static func query(_ items: [(name: String, value: String?)]) -> String {
        let pairs = items.compactMap { name, value in value.map { encoded(name) + "=" + encoded($0) } }
        return pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&")
    }

    /// `text` with every byte but RFC 3986's unreserved characters (letters, digits, `-._~`)
    /// percent-encoded as UTF-8: safe as one path segment and as a query name or value.
    static func encoded(_ text: String) -> String {
        // Most values (slugs, ids, statuses) need no escape: answer them as they are.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
