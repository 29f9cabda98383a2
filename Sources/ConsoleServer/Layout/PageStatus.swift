import BookCornersAPI
import Foundation
import ModerationStore

/// How fresh a page's mirrored data is, and whether Book Corners still answers the mirror.
struct PageStatus {
    private(set) var oldestFetch: Date?
    /// Something the page needed is not in the mirror yet (first start, nobody signed in).
    private(set) var mirrorLoading = false
    /// How old the page's data may be before the page says so (30 s for queue pages).
    var freshnessGoal: TimeInterval?
    /// When Book Corners last answered the mirror, if it has been silent past the grace period.
    private(set) var backendSilentSince: Date?
    /// When Book Corners last answered the mirror, whatever it read.
    private(set) var lastAnsweredAt: Date?

    /// A silence shorter than this is one failed read among good ones: not worth a banner.
    static let silenceGrace: TimeInterval = 10
    /// How often the mirror reads every waiting item again (`ReadPlanner.Policy.pendingItemInterval`).
    static let rereadInterval = ReadPlanner.Policy().pendingItemInterval

    /// Says the page shows mirrored data confirmed at `confirmedAt`; `nil`: not mirrored yet.
    mutating func mirrored(confirmedAt: Date?) {
        guard let confirmedAt else {
            mirrorLoading = true
            return
        }
        if oldestFetch.map({ confirmedAt < $0 }) ?? true { oldestFetch = confirmedAt }
    }

    /// Takes the mirror's health: a backend silent for longer than the grace period becomes
    /// the banner, naming its last answer (or the first unanswered read, if it never answered).
    mutating func mirrorHealth(_ health: MirrorHealth?, now: Date = Date()) {
        lastAnsweredAt = health?.lastAnsweredAt
        guard let since = health?.unansweredSince, now.timeIntervalSince(since) >= Self.silenceGrace else { return }
        backendSilentSince = health?.lastAnsweredAt ?? since
    }

    /// Says the page found mirrored rows to show: it is not "still loading", even when
    /// something else it reads (the summary) has not arrived yet.
    mutating func showsMirroredRows() {
        mirrorLoading = false
    }

    /// What the layout's banner says: the backend's silence, if any.
    var banner: String? {
        backendSilentSince.map {
            "Book Corners has not answered since \(TeamClock.stamp($0)). The console keeps trying: "
                + "pages show what it said last, and decisions wait and are sent once it answers."
        }
    }

    var freshness: String? {
        oldestFetch.map { "Data from Book Corners, as of \(TimeText.age(of: $0))" }
    }

    /// Not a backend problem, but what the staff member should know about the data shown.
    func notice(now: Date = Date()) -> String? {
        if mirrorLoading {
            return "The console is still loading Book Corners' data… This page fills in as soon as the first reads are done: reload in a few seconds."
        }
        // The silence banner already says why the data is old.
        guard backendSilentSince == nil, let goal = freshnessGoal, let oldestFetch, now.timeIntervalSince(oldestFetch) > goal else {
            return nil
        }
        // A list's deeper rows are read again every two minutes, its first page within the goal:
        // while the mirror answers on that schedule, rows confirmed within it are as fresh as the
        // backend's budget allows, and a warning on every first view would teach people to ignore it.
        let answering = lastAnsweredAt.map { now.timeIntervalSince($0) <= goal } ?? false
        if answering, now.timeIntervalSince(oldestFetch) <= goal + Self.rereadInterval { return nil }
        return "This page's data is older than \(Int(goal)) s (confirmed \(TimeText.age(of: oldestFetch, now: now))): "
            + "what you see may have changed since. Decisions are still checked against Book Corners before they are sent."
    }
}
