import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// What one person sent before, beside the item in front of the moderator: each earlier
/// library, photo and report with how it ended, who decided it, when and why (the mirror and
/// the audit log), newest first. On a library's page for its submitter; on a report's page for
/// the library's submitter and for the reporter.
struct ContributorHistoryView: MustacheParent {
    /// One earlier item.
    struct Item: MustacheParent {
        /// "Library", "Photo", "Report".
        let kind: String
        let name: String
        let url: String
        let status: String
        /// The status as a type, for choosing what to show; `status` is its word on the page.
        fileprivate let itemStatus: ItemStatus
        /// "Rejected by maria 3 d ago" and the reason; the status alone when the console saw no decision.
        let decided: DecidedNote
        let age: String
        let createdAt: String
        let createdUTC: String
        fileprivate let sortDate: Date

        func child(named key: String) -> Any? {
            switch key {
            case "kind": kind
            case "name": name
            case "url": url
            case "status": status
            case "decided": decided
            case "age": age
            case "createdAt": createdAt
            case "createdUTC": createdUTC
            default: nil
            }
        }
    }

    /// Items shown at most, all kinds together.
    static let shownAtMost = 12

    /// "Also from yuki", "Also from priya, who reported this".
    let heading: String
    let items: [Item]
    /// "12 of 25 shown: every rejected one, then the newest." when some are left out; "" otherwise.
    private(set) var shownNote = ""
    /// How many of each kind the person sent, by how each ended; "" with nothing.
    private(set) var summary = ""
    /// "Nothing else from yuki in the console's copy of Book Corners."
    let empty: String
    /// Said until the mirror has read every library, report and photo once: older items may be missing.
    var incomplete = ""

    /// Not shown (no account behind the item).
    static let none = ContributorHistoryView(heading: "", items: [], empty: "")

    private init(heading: String, items: [Item], empty: String) {
        self.heading = heading
        self.items = items
        self.empty = empty
    }

    /// The history of `username` from `history`, with the audit's latest decision per item.
    init(heading: String, username: String, history: ContributorHistory, decisions: Decisions, now: Date) {
        let libraries = history.libraries.map { library in
            Item(
                kind: "Library", name: LibraryText.displayName(library.name), url: SiteURL.library(library.slug).path, status: library.status.rawValue,
                itemStatus: ItemStatus(library.status),
                decided: library.status == .pending
                    ? .none
                    : DecidedNote(
                        status: ItemStatus(library.status), entry: decisions.libraries[String(library.id)], mirroredReason: library.rejectionReason,
                        now: now),
                age: TimeText.age(of: library.createdAt, now: now), createdAt: TimeText.iso(library.createdAt),
                createdUTC: TimeText.utc(library.createdAt), sortDate: library.createdAt)
        }
        let photos = history.photos.map { photo in
            Item(
                kind: "Photo", name: "for " + LibraryText.displayName(photo.libraryName), url: SiteURL.photo(photo.id).path, status: photo.status.rawValue,
                itemStatus: ItemStatus(photo.status),
                decided: photo.status == .pending
                    ? .none : DecidedNote(status: ItemStatus(photo.status), entry: decisions.photos[String(photo.id)], mirroredReason: "", now: now),
                age: TimeText.age(of: photo.createdAt, now: now), createdAt: TimeText.iso(photo.createdAt), createdUTC: TimeText.utc(photo.createdAt),
                sortDate: photo.createdAt)
        }
        let reports = history.reports.map { report in
            Item(
                kind: "Report", name: "\(report.reason.label) on " + LibraryText.displayName(report.libraryName), url: SiteURL.report(report.id).path,
                status: report.status.rawValue, itemStatus: ItemStatus(report.status),
                decided: report.status == .open
                    ? .none : DecidedNote(status: ItemStatus(report.status), entry: decisions.reports[String(report.id)], mirroredReason: "", now: now),
                age: TimeText.age(of: report.createdAt, now: now), createdAt: TimeText.iso(report.createdAt),
                createdUTC: TimeText.utc(report.createdAt), sortDate: report.createdAt)
        }
        self.heading = heading
        // A rejection says most about a contributor: every one stays (up to the limit), the newest of the rest fill it.
        let read = (libraries + photos + reports).sorted { $0.sortDate > $1.sortDate }
        let rejected = read.filter { $0.itemStatus == .rejected }.prefix(Self.shownAtMost)
        let others = read.filter { $0.itemStatus != .rejected }.prefix(Self.shownAtMost - rejected.count)
        items = (rejected + others).sorted { $0.sortDate > $1.sortDate }
        // The counts are of everything the mirror holds, not only of what was read to be shown.
        let counts = [history.libraryCounts, history.photoCounts, history.reportCounts]
        let total = counts.map { $0.values.reduce(0, +) }.reduce(0, +)
        let rejectedInAll = (history.libraryCounts[ItemStatus.rejected.rawValue] ?? 0) + (history.photoCounts[ItemStatus.rejected.rawValue] ?? 0)
        if items.count < total {
            let kept =
                rejectedInAll == 0 ? "the newest" : rejected.count == rejectedInAll ? "every rejected one, then the newest" : "the newest rejected ones"
            shownNote = "\(items.count) of \(total) shown: \(kept)."
        }
        summary = Self.summary(history)
        empty = "Nothing else from \(username) in the console's copy of Book Corners."
    }

    /// "24 libraries: 17 approved, 2 rejected, 5 waiting · 1 photo: 1 approved · 3 reports: 2 resolved, 1 open", kinds with none left out.
    private static func summary(_ history: ContributorHistory) -> String {
        func part(_ counts: [String: Int], _ noun: (singular: String, plural: String), _ statuses: [(key: String, label: String)]) -> String? {
            let total = counts.values.reduce(0, +)
            guard total > 0 else { return nil }
            let each = statuses.compactMap { status in counts[status.key].flatMap { $0 > 0 ? "\($0) \(status.label)" : nil } }
            return CountText.of(total, noun.singular, noun.plural) + ": " + each.joined(separator: ", ")
        }
        let decided = [("approved", "approved"), ("rejected", "rejected"), ("pending", "waiting")]
        return [
            part(history.libraryCounts, ("library", "libraries"), decided), part(history.photoCounts, ("photo", "photos"), decided),
            part(history.reportCounts, ("report", "reports"), [("resolved", "resolved"), ("dismissed", "dismissed"), ("open", "open")]),
        ].compactMap { $0 }.joined(separator: " · ")
    }

    /// The audit's latest decision on each item of a history, by kind and id.
    struct Decisions {
        var libraries: [String: AuditEntry] = [:]
        var photos: [String: AuditEntry] = [:]
        var reports: [String: AuditEntry] = [:]
    }

    /// The history of account `id` (`username`) from the mirror and the audit log, leaving out the item on the page.
    static func load(
        heading: String, accountId id: Int, username: String, excludingLibrary: Int? = nil, excludingReport: Int? = nil, store: ModerationStore,
        now: Date
    ) async throws -> ContributorHistoryView {
        let history = try await store.contributorHistory(accountId: id, excludingLibrary: excludingLibrary, excludingReport: excludingReport)
        var decisions = Decisions()
        decisions.libraries = try await store.latestDecisions(kind: .library, targetIds: history.libraries.map { String($0.id) })
        decisions.photos = try await store.latestDecisions(kind: .photo, targetIds: history.photos.map { String($0.id) })
        decisions.reports = try await store.latestDecisions(kind: .report, targetIds: history.reports.map { String($0.id) })
        var view = ContributorHistoryView(heading: heading, username: username, history: history, decisions: decisions, now: now)
        for scope in [MirrorScope.libraryList, .reportList, .photoList] where try await store.mirrorScopeState(scope).lastPassCompletedAt == nil {
            view.incomplete = Self.incompleteText
            break
        }
        return view
    }

    static let incompleteText = "History incomplete: the console has not yet read all of Book Corners once, so older items may be missing."

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": !heading.isEmpty
        case "heading": heading
        case "items": items
        case "hasItems": !items.isEmpty
        case "empty": empty
        case "incomplete": incomplete
        case "isIncomplete": !incomplete.isEmpty
        case "shownNote": shownNote
        case "summary": summary
        case "hasSummary": !summary.isEmpty
        case "isCut": !shownNote.isEmpty
        default: nil
        }
    }
}
