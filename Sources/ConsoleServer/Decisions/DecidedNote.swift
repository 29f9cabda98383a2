import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// "Rejected by maria 3 d ago: Not a book-sharing library.": who made an item what it is
/// now, when, and why, from the audit log (or, for a decision it never saw, the mirror's
/// rejection reason alone). Views of decided items show it instead of a waiting time.
struct DecidedNote: Sendable, Hashable, MustacheParent {
    let isShown: Bool
    /// "Rejected by maria", "Approved at Book Corners (outside the console)", "Rejected".
    let text: String
    let hasTime: Bool
    let timeISO: String
    let timeUTC: String
    /// The same instant on the team's clock, as the page shows it.
    let timeText: String
    let age: String
    let reason: String
    let hasReason: Bool

    static let none = DecidedNote(isShown: false, text: "", time: nil, reason: "", now: Date())

    private init(isShown: Bool, text: String, time: Date?, reason: String, now: Date) {
        self.isShown = isShown
        self.text = text
        hasTime = time != nil
        timeISO = time.map(TimeText.iso) ?? ""
        timeUTC = time.map(TimeText.utc) ?? ""
        timeText = time.map(TeamClock.stamp) ?? ""
        age = time.map { TimeText.age(of: $0, now: now) } ?? ""
        self.reason = reason
        hasReason = !reason.isEmpty
    }

    /// The note for an item in `status` (not waiting), from its latest audited change when
    /// that change led to `status`; else from what the mirror says alone.
    init(status: ItemStatus, entry: AuditEntry?, mirroredReason: String, now: Date) {
        let verb = Self.verb(status)
        guard let entry, entry.statusAfter == status.rawValue else {
            self.init(isShown: true, text: verb, time: nil, reason: status == .rejected ? mirroredReason : "", now: now)
            return
        }
        let who = entry.outcome == .observed ? "\(verb) at Book Corners (outside the console)" : "\(verb) by \(entry.actorUsername)"
        let reason = entry.reason.isEmpty && status == .rejected ? mirroredReason : entry.reason
        self.init(isShown: true, text: who, time: entry.recordedAt, reason: status == .rejected ? reason : "", now: now)
    }

    static func verb(_ status: ItemStatus) -> String {
        switch status {
        case .approved: "Approved"
        case .rejected: "Rejected"
        case .pending: "Returned to pending"
        case .resolved: "Resolved"
        case .dismissed: "Dismissed"
        case .open: "Reopened"
        }
    }

    /// One line for a confirmation page: "Rejected by maria on 2026-11-22 05:45 CET (3 d ago), with the reason: …".
    var sentence: String {
        var line = text
        if hasTime { line += " on \(timeText) (\(age))" }
        // A reason ends as its author wrote it: no full stop after its closing quote.
        return hasReason ? line + ", with the reason: “\(reason)”" : line + "."
    }

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": isShown
        case "text": text
        case "hasTime": hasTime
        case "timeISO": timeISO
        case "timeUTC": timeUTC
        case "timeText": timeText
        case "age": age
        case "reason": reason
        case "hasReason": hasReason
        case "sentence": sentence
        default: nil
        }
    }
}
