import Foundation
import ModerationStore
import Mustache

/// The On call page: now and next, four weeks, overrides, the rotation and the viewer's calendar feed.
struct OnCallPage: MustacheParent {
    struct Turn: MustacheParent {
        let who: String
        let isViewer: Bool
        let when: String
        let relative: String

        func child(named key: String) -> Any? {
            switch key {
            case "who": who
            case "isViewer": isViewer
            case "when": when
            case "relative": relative
            default: nil
            }
        }
    }

    struct OverrideRow: MustacheParent {
        let who: String
        let from: String
        let to: String
        let note: String
        let hasNote: Bool
        let addedBy: String
        let removeURL: String

        func child(named key: String) -> Any? {
            switch key {
            case "who": who
            case "from": from
            case "to": to
            case "note": note
            case "hasNote": hasNote
            case "addedBy": addedBy
            case "removeURL": removeURL
            default: nil
            }
        }
    }

    /// A past hand-off, linking to its digest.
    struct HandoffLine: MustacheParent {
        let text: String
        let href: String

        func child(named key: String) -> Any? {
            switch key {
            case "text": text
            case "href": href
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let subnav: [OnCallSubnav]
    /// The queue targets, the alerts under way and the last hand-offs, each page of the area in brief.
    let targets: [AlertsPage.Target]
    let alertsSummary: String
    let handoffs: [HandoffLine]
    let hasHandoffs: Bool
    let alertsURL = SiteURL.onCallAlerts.path
    let handoffsURL = SiteURL.onCallHandoffs.path
    let hasRotation: Bool
    let rotationSummary: String
    let clockName: String
    let hasNow: Bool
    let now: Turn
    let hasNext: Bool
    let next: Turn
    let weekdays: [String]
    let weeks: [OnCallCalendar.Week]
    let overrides: [OverrideRow]
    let hasOverrides: Bool
    let staffOptions: [FilterOption]
    let overrideStartsAt: String
    let overrideEndsAt: String
    let overrideNote: String
    let overrideProblem: String
    /// A fresh key per rendered override form: sending it twice adds one override.
    let overrideKey = UUID().uuidString
    let hasOverrideProblem: Bool
    let rotationPicker: RotationPicker
    let rotationShiftDays: String
    let rotationHandoff: String
    let rotationTimeZone: String
    let rotationStartDate: String
    let rotationProblem: String
    let hasRotationProblem: Bool
    /// Saving the rotation as typed moves who is on call now: said, and confirmed, before it is saved.
    var rotationMove: RotationMove?
    let inputs = TimeInputs(twelveHour: TeamClock.current.twelveHour)
    let hasFeed: Bool
    let feedCreated: TeamTime
    let teamClock: TeamClockPanel
    let newFeedURL: String
    let hasNewFeedURL: Bool
    /// Colleagues' feeds stopped because they had not signed in for a while, in words.
    var stoppedFeeds: [String] = []
    let rotationURL = SiteURL.onCallRotation.path
    let overridesURL = SiteURL.onCallOverrides.path
    let feedURL = SiteURL.onCallCalendarFeed.path
    let feedRevokeURL = SiteURL.onCallCalendarFeedRevoke.path

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "subnav": subnav
        case "targets": targets
        case "alertsSummary": alertsSummary
        case "handoffs": handoffs
        case "hasHandoffs": hasHandoffs
        case "alertsURL": alertsURL
        case "handoffsURL": handoffsURL
        case "hasRotation": hasRotation
        case "rotationSummary": rotationSummary
        case "clockName": clockName
        case "hasNow": hasNow
        case "now": now
        case "hasNext": hasNext
        case "next": next
        case "weekdays": weekdays
        case "weeks": weeks
        case "overrides": overrides
        case "hasOverrides": hasOverrides
        case "staffOptions": staffOptions
        case "overrideStartsAt": overrideStartsAt
        case "overrideEndsAt": overrideEndsAt
        case "overrideNote": overrideNote
        case "overrideProblem": overrideProblem
        case "overrideKey": overrideKey
        case "hasOverrideProblem": hasOverrideProblem
        case "rotationPicker": rotationPicker
        case "rotationShiftDays": rotationShiftDays
        case "rotationHandoff": rotationHandoff
        case "rotationTimeZone": rotationTimeZone
        case "rotationStartDate": rotationStartDate
        case "rotationProblem": rotationProblem
        case "hasRotationProblem": hasRotationProblem
        case "rotationMove": rotationMove
        case "hasRotationMove": rotationMove != nil
        case "inputs": inputs
        case "hasFeed": hasFeed
        case "stoppedFeeds": stoppedFeeds
        case "hasStoppedFeeds": !stoppedFeeds.isEmpty
        case "feedCreated": feedCreated
        case "teamClock": teamClock
        case "newFeedURL": newFeedURL
        case "hasNewFeedURL": hasNewFeedURL
        case "feedRevokeURL": feedRevokeURL
        case "rotationURL": rotationURL
        case "overridesURL": overridesURL
        case "feedURL": feedURL
        default: nil
        }
    }
}
