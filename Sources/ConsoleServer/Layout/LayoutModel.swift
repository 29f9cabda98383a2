import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// What every page's frame shows: who is signed in, the queue counts, navigation,
/// the flash message and any banner about the backend.
///
/// Every name the layout looks up answers with a value, never `nil`: swift-mustache looks a
/// missing name up the context stack, so a `nil` here would find the page's field of the
/// same name (a bulk confirmation's `count` once showed as every navigation badge).
struct LayoutModel: MustacheParent {
    struct NavItem: MustacheParent {
        let label: String
        let href: String
        let current: Bool
        let count: Int?
        /// Which queue the count is of (`library`, `report`, `photo`): open pages keep it live; "" for none.
        var countKind = ""

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "href": href
            case "current": current
            case "hasCount": count != nil
            case "count": count ?? 0
            case "countKind": countKind
            default: nil
            }
        }
    }

    // Every page renders the layout: answer lookups directly rather than through reflection.
    func child(named key: String) -> Any? {
        switch key {
        case "title": title
        case "username": username ?? ""
        case "csrf": csrf ?? ""
        case "hasFlash": flash != nil
        case "flash": flash ?? ""
        case "hasUndo": undo != nil
        case "undo": undo ?? UndoOffer.none
        case "hasBanner": banner != nil
        case "banner": banner ?? ""
        case "hasMessages": flash != nil || banner != nil || notice != nil
        case "hasNotice": notice != nil
        case "notice": notice ?? ""
        case "fillsIn": fillsIn
        case "hasFreshness": freshness != nil
        case "freshness": freshness ?? ""
        case "nav": nav
        case "signedIn": signedIn
        case "liveAfter": liveAfter
        case "version": version
        case "pendingActions": pendingActions
        case "hasPendingActions": hasPendingActions
        case "pendingSummary": pendingSummary
        case "hasSessionEnd": sessionEnd != nil
        case "sessionEndsIn": sessionEnd.map { max(0, Int($0.endsAt.timeIntervalSince($0.now))) } ?? 0
        case "sessionEndsISO": sessionEnd.map { TimeText.iso($0.endsAt) } ?? ""
        case "sessionEndsText": sessionEnd.map { TeamClock.shortStamp($0.endsAt, now: $0.now) } ?? ""
        case "pendingHasProblems": pendingSummary.hasProblems
        case "homeURL": SiteURL.dashboard.path
        case "signOutURL": SiteURL.signOut.path
        case "devicesURL": SiteURL.devices.path
        case "hasOnCall": onCall != nil
        case "onCallText": onCall?.text ?? ""
        case "onCallIsYou": onCall?.isViewerOnCall ?? false
        case "onCallNeedsRotation": onCall?.needsRotation ?? false
        case "onCallURL": SiteURL.onCall.path
        case "stylesheetURL": SiteURL.staticFile("console.css").path
        case "scriptURL": SiteURL.staticFile("console.js").path
        case "iconURL": SiteURL.staticFile("icon.svg").path
        default: nil
        }
    }

    let title: String
    let username: String?
    let csrf: String?
    let flash: String?
    /// The Undo beside the flash (a report's resolution or dismissal just made).
    var undo: UndoOffer?
    var banner: String?
    /// About the mirrored data (still loading, older than its goal); not a backend problem.
    var notice: String?
    /// The page was made before the mirror's first reads: with script it fills in by itself once they are done.
    var fillsIn = false
    var freshness: String?
    let nav: [NavItem]
    let signedIn: Bool
    /// Where the page's event stream starts ("" when signed out): nothing between the page and its stream is missed.
    var liveAfter = ""
    let version = ConsoleVersion.current
    let pendingActions: [PendingActionItem]
    let hasPendingActions: Bool
    /// The panel's one line; a decision of the last 15 minutes that failed or met a conflict
    /// opens the panel by itself (`pendingHasProblems`).
    let pendingSummary: PendingSummary
    /// When the session ends if nothing more happens, and when the page was made: the footer
    /// says it, and the script warns a few minutes before. `nil` when signed out.
    var sessionEnd: (endsAt: Date, now: Date)?
    /// The header's on-call line; `nil` when signed out.
    let onCall: OnCallHeadline?

    /// One decision still on its way (or just failed), as the Pending actions panel shows it:
    /// in words, the library by name with a link, times relative to now.
    struct PendingActionItem: MustacheParent {
        /// `waiting`, `sending`, `parked`, `failed` or `conflict`: the badge's colour.
        let state: String
        let stateLabel: String
        /// "Approve", "Reject photo of", "Resolve report on".
        let verb: String
        /// The library's own name, isolated in the page (`<bdi>`) so a right-to-left name does not
        /// carry the English words after it along; then " in <city>" or "".
        let name: String
        let inCity: String
        let href: String
        /// "sends in 4 min", "next try in 3 min" (only after a failure), "sending now", "3 min ago".
        let when: String
        let message: String
        /// Not yet being sent: its author may still take it back.
        let canCancel: Bool
        let cancelURL: String

        init(_ action: ModerationAction, target: DecisionTargetName?, now: Date) {
            canCancel = [.queued, .waiting, .parked].contains(action.state) && action.unknownOutcomes == 0
            cancelURL = SiteURL.decisionCancel(action.id ?? 0).path
            switch action.state {
            case .applied, .failed: state = action.state == .failed ? "failed" : "applied"
            case .conflict: state = "conflict"
            case .cancelled: state = "cancelled"
            case .parked: state = "parked"
            case .waiting: state = "waiting"
            case .queued, .sending: state = "sending"
            }
            stateLabel =
                switch action.state {
                case .applied: "Applied"
                case .failed: "Not applied"
                case .conflict: "Not sent"
                case .cancelled: "Cancelled"
                case .parked: "Held"
                case .waiting: "Waiting"
                case .queued where action.nextAttemptAt > now: "Waiting"
                case .queued, .sending: "Sending"
                }
            verb = Self.verb(kind: action.targetKind, wanted: action.statusWanted)
            if let target {
                name = LibraryText.displayName(target.name)
                inCity = target.city.isEmpty ? "" : " in \(target.city)"
                href = SiteURL.library(target.librarySlug).path
            } else {
                inCity = ""
                switch action.targetKind {
                case .library: name = action.targetKey; href = SiteURL.library(action.targetKey).path
                case .report: name = "report #\(action.targetKey)"; href = SiteURL.reports.path
                case .photo: name = "photo #\(action.targetKey)"; href = SiteURL.photos.path
                }
            }
            let triedBefore = action.attempts > 0 || action.localFailures > 0
            switch action.state {
            case .applied, .failed, .conflict, .cancelled: when = TimeText.age(of: action.updatedAt, now: now)
            case .parked: when = "sends once you are signed in"
            case .waiting where action.nextAttemptAt > now, .queued where action.nextAttemptAt > now:
                when = "\(triedBefore ? "next try" : "sends") \(Self.relative(action.nextAttemptAt, now: now))"
            case .queued, .sending, .waiting: when = "sending now"
            }
            // The runner's message ends with "next try <UTC time>." for the log; `when` says it relative to now.
            message = Self.withoutNextTry(action.outcomeMessage ?? "")
        }

        /// The decision in words, as the panel's lines begin.
        static func verb(kind: ModerationAction.TargetKind, wanted: ItemStatus) -> String {
            switch (kind, wanted) {
            case (.library, .approved): "Approve"
            case (.library, .rejected): "Reject"
            case (.library, .pending), (.photo, .pending): "Return to pending"
            case (.photo, .approved): "Use the photo proposed for"
            case (.photo, .rejected): "Reject the photo proposed for"
            case (.report, .resolved): "Resolve the report on"
            case (.report, .dismissed): "Dismiss the report on"
            case (.report, .open): "Reopen the report on"
            case (_, let status): "Set to \(status.rawValue):"
            }
        }

        /// `text` without its closing "next try <time>" clause ("…slow down; next try 2026-… UTC." → "…slow down.").
        static func withoutNextTry(_ text: String) -> String {
            guard let found = text.range(of: "next try", options: .caseInsensitive) else { return text }
            let kept = text[..<found.lowerBound].trimmingCharacters(in: CharacterSet(charactersIn: ";,. ").union(.whitespaces))
            return kept.isEmpty ? "" : kept + "."
        }

        /// "in 40 s", "in 4 min", "in 2 h".
        static func relative(_ date: Date, now: Date) -> String {
            let seconds = max(0, Int(date.timeIntervalSince(now).rounded(.up)))
            switch seconds {
            case ..<60: return "in \(seconds) s"
            case ...3_600: return "in \((seconds + 59) / 60) min"
            default:
                let minutes = (seconds % 3_600) / 60
                return "in \(seconds / 3_600) h" + (minutes == 0 ? "" : " \(minutes) min")
            }
        }

        func child(named key: String) -> Any? {
            switch key {
            case "state": state
            case "stateLabel": stateLabel
            case "verb": verb
            case "name": name
            case "inCity": inCity
            case "href": href
            case "when": when
            case "message": message
            case "hasMessage": !message.isEmpty
            case "canCancel": canCancel
            case "cancelURL": cancelURL
            default: nil
            }
        }
    }

    enum Area: String {
        case dashboard, libraries, reports, photos, audit, outbox, statistics, onCall
    }

    /// The frame for the request's staff member (or the signed-out frame). Without a
    /// `summary` of its own the page shows the counts the session middleware read.
    init(context: ConsoleRequestContext, title: String, active: Area?, summary: ModerationSummary?, status: PageStatus? = nil) {
        self.init(
            title: title, session: context.session.map { (username: $0.username, csrf: $0.csrfToken) }, flash: context.flash,
            pendingActions: context.pendingActions, pendingActionTargets: context.pendingActionTargets, active: active,
            summary: summary ?? context.navigationCounts, banner: status?.banner, notice: status?.notice(),
            freshness: status?.freshness, onCall: context.onCall)
        if context.session != nil, let endsAt = context.sessionEndsAt { sessionEnd = (endsAt, Date()) }
        if context.session != nil, let after = context.liveAfter { liveAfter = String(after) }
        undo = context.flash == nil ? nil : context.undo
        fillsIn = status?.mirrorLoading ?? false
    }

    /// The frame from plain values: `session` is nil when nobody is signed in.
    init(
        title: String, session: (username: String, csrf: String)?, flash: String?, pendingActions: [ModerationAction],
        pendingActionTargets: [String: DecisionTargetName] = [:], now: Date = Date(), active: Area?,
        summary: ModerationSummary?, banner: String? = nil, notice: String? = nil, freshness: String? = nil, onCall: OnCallHeadline? = nil
    ) {
        self.title = title
        self.username = session?.username
        self.csrf = session?.csrf
        self.flash = flash
        self.signedIn = session != nil
        self.banner = banner
        self.notice = notice
        self.freshness = freshness
        self.onCall = session == nil ? nil : onCall
        self.pendingActions = pendingActions.map { action in
            PendingActionItem(action, target: pendingActionTargets[DecisionTargetName.key(action.targetKind, action.targetKey)], now: now)
        }
        self.hasPendingActions = !pendingActions.isEmpty
        pendingSummary = PendingSummary(pendingActions, now: now)
        guard session != nil else {
            nav = []
            return
        }
        nav = [
            NavItem(label: "Dashboard", href: SiteURL.dashboard.path, current: active == .dashboard, count: nil),
            NavItem(
                label: "Libraries", href: SiteURL.libraries.path, current: active == .libraries, count: summary?.pendingLibrariesCount, countKind: "library"),
            NavItem(label: "Reports", href: SiteURL.reports.path, current: active == .reports, count: summary?.openReportsCount, countKind: "report"),
            NavItem(label: "Photos", href: SiteURL.photos.path, current: active == .photos, count: summary?.pendingPhotosCount, countKind: "photo"),
            NavItem(label: "Audit", href: SiteURL.audit.path, current: active == .audit, count: nil),
            NavItem(label: "Outbox", href: SiteURL.outbox.path, current: active == .outbox, count: nil),
            NavItem(label: "Statistics", href: SiteURL.statistics.path, current: active == .statistics, count: nil),
            NavItem(label: "On call", href: SiteURL.onCall.path, current: active == .onCall, count: nil),
        ]
    }
}
