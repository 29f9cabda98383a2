import BookCornersAPI
import Foundation
import ModerationStore
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

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "href": href
            case "current": current
            case "hasCount": count != nil
            case "count": count ?? 0
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
        case "hasFreshness": freshness != nil
        case "freshness": freshness ?? ""
        case "nav": nav
        case "signedIn": signedIn
        case "version": version
        case "pendingActions": pendingActions
        case "hasPendingActions": hasPendingActions
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
    var freshness: String?
    let nav: [NavItem]
    let signedIn: Bool
    let version = ConsoleVersion.current
    let pendingActions: [PendingActionItem]
    let hasPendingActions: Bool
    /// The header's on-call line; `nil` when signed out.
    let onCall: OnCallHeadline?

    /// One decision still on its way, as the Pending actions panel shows it.
    struct PendingActionItem: MustacheParent {
        let summary: String
        let state: String
        let message: String

        func child(named key: String) -> Any? {
            switch key {
            case "summary": summary
            case "state": state
            case "message": message
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
            pendingActions: context.pendingActions, active: active, summary: summary ?? context.navigationCounts, banner: status?.banner, notice: status?.notice(),
            freshness: status?.freshness, onCall: context.onCall)
        undo = context.flash == nil ? nil : context.undo
    }

    /// The frame from plain values: `session` is nil when nobody is signed in.
    init(
        title: String, session: (username: String, csrf: String)?, flash: String?, pendingActions: [ModerationAction], active: Area?,
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
            PendingActionItem(
                summary: "\(DecisionVerb.auditAction(kind: action.targetKind, statusAfter: action.statusWanted)) \(action.targetKey)",
                state: action.state.isFinal || action.state == .parked || action.state == .waiting ? action.state.rawValue : "sending",
                message: action.outcomeMessage ?? "Next try \(TimeText.utc(action.nextAttemptAt)).")
        }
        self.hasPendingActions = !pendingActions.isEmpty
        guard session != nil else {
            nav = []
            return
        }
        nav = [
            NavItem(label: "Dashboard", href: SiteURL.dashboard.path, current: active == .dashboard, count: nil),
            NavItem(label: "Libraries", href: SiteURL.libraries.path, current: active == .libraries, count: summary?.pendingLibrariesCount),
            NavItem(label: "Reports", href: SiteURL.reports.path, current: active == .reports, count: summary?.openReportsCount),
            NavItem(label: "Photos", href: SiteURL.photos.path, current: active == .photos, count: summary?.pendingPhotosCount),
            NavItem(label: "Audit", href: SiteURL.audit.path, current: active == .audit, count: nil),
            NavItem(label: "Outbox", href: SiteURL.outbox.path, current: active == .outbox, count: nil),
            NavItem(label: "Statistics", href: SiteURL.statistics.path, current: active == .statistics, count: nil),
            NavItem(label: "On call", href: SiteURL.onCall.path, current: active == .onCall, count: nil),
        ]
    }
}
