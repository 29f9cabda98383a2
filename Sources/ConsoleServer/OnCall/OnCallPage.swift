import Foundation
import ModerationStore

/// The On call page: now and next, four weeks, overrides, the rotation and the viewer's calendar feed.
struct OnCallPage {
    struct Turn {
        let who: String
        let isViewer: Bool
        let when: String
        let relative: String
    }

    struct OverrideRow {
        let who: String
        let from: String
        let to: String
        let note: String
        let hasNote: Bool
        let addedBy: String
        let removeURL: String
    }

    /// A past hand-off, linking to its digest.
    struct HandoffLine {
        let text: String
        let href: String
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
    let hasOverrideProblem: Bool
    let rotationMembers: String
    let rotationShiftDays: String
    let rotationHandoff: String
    let rotationTimeZone: String
    let rotationStartDate: String
    let rotationProblem: String
    let hasRotationProblem: Bool
    let hasFeed: Bool
    let feedCreated: String
    let newFeedURL: String
    let hasNewFeedURL: Bool
    let rotationURL = SiteURL.onCallRotation.path
    let overridesURL = SiteURL.onCallOverrides.path
    let feedURL = SiteURL.onCallCalendarFeed.path
}
