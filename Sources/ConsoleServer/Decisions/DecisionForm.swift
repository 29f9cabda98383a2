import BookCornersAPI
import ModerationStore
import ModerationVocabulary

/// The form of one decision on one library, report or photo: an item page's buttons, a report
/// or photo card, the reject confirmation (`confirmed=1`), or a library list row's one-click
/// approval (`quick=<status seen>`, sent with the list's bulk form).
struct DecisionForm: Decodable, Sendable {
    /// What a form asks for, once its fields check out.
    enum Intent: Sendable, Equatable {
        /// A list row's one-click approval; the list form's key and the slug make its key.
        case quickApproval(seen: LibraryStatus, listKey: String)
        /// A rejection to show before it is recorded; `seen` and `key` go back into the
        /// confirmation form as they came.
        case confirmRejection(seen: String, key: String, reason: String)
        /// A decision to record now.
        case record(Decision, seen: ItemStatus, key: String, reason: String, reportReason: ReportReason?)

        /// Whether the controller records a decision now (rather than showing a confirmation first).
        var recordsNow: Bool {
            if case .confirmRejection = self { return false }
            return true
        }
    }

    var decision: String?
    var seen: String?
    var key: String?
    /// Where to return afterwards, as sent: the controller makes it safe.
    var back: String?
    var quick: String?
    var confirmed: String?
    var reason: String?
    var reasonPreset: String?
    var reportReason: String?
    /// `1` when the moderator was told someone else is reviewing the item and decides anyway.
    var anyway: String?
    /// The list a library's page was opened from (its query string): after the decision the
    /// next library of that list opens. Absent: back to `back`.
    var queue: String?
    /// A list row's one-click approval posts the list's bulk form: its ticked rows come back with the list.
    var item: RepeatedField?

    private enum CodingKeys: String, CodingKey {
        case decision, seen, key, back, quick, confirmed, reason, anyway, queue, item
        case reasonPreset = "reason_preset"
        case reportReason = "report_reason"
    }

    static let maxKeyLength = 100

    /// The fields as they came, to post again unchanged from the decide-anyway page (which adds `anyway=1`).
    var resentFields: [HiddenField] {
        let fields: [(String, String?)] = [
            ("decision", decision), ("seen", seen), ("key", key), ("back", back), ("quick", quick), ("confirmed", confirmed),
            ("reason", reason), ("reason_preset", reasonPreset), ("report_reason", reportReason), ("queue", queue),
        ]
        return fields.compactMap { name, value in value.map { HiddenField(name: name, value: $0) } }
    }

    /// What the form asks of an item of `kind`, or the first thing wrong with it.
    func validated(for kind: ModerationAction.TargetKind) throws(FormError) -> Intent {
        if kind == .library, let quick {
            guard let listKey = Self.idempotencyKey(key) else { throw .listKeyMissing }
            guard let seen = LibraryStatus(rawValue: quick) else { throw .statusSeenMissing }
            return .quickApproval(seen: seen, listKey: listKey)
        }
        let allowed = Decision.allowed(for: kind)
        guard let decision = decision.flatMap(Decision.init(rawValue:)), allowed.contains(decision) else {
            throw .unknownDecision(allowed: allowed)
        }
        // Libraries and photos carry a reason when rejected: the submitter reads it (for a
        // photo only in the console's own push and audit entry: Book Corners keeps none).
        let reason =
            kind == .library || kind == .photo
            ? try DecisionReason.text(typed: reason, preset: reasonPreset, required: decision == .reject) : ""
        if kind == .library, decision == .reject, confirmed != "1" {
            return .confirmRejection(seen: seen ?? "", key: key ?? "", reason: reason)
        }
        guard let seen = seen.flatMap(ItemStatus.init(rawValue:)), kind.statuses.contains(seen) else { throw .statusSeenMissing }
        guard let key = Self.idempotencyKey(key) else { throw .keyMissing }
        // Only kept to find the report again; an unknown value is dropped, not refused.
        let reportReason = kind == .report ? reportReason.flatMap(ReportReason.init(rawValue:)) : nil
        return .record(decision, seen: seen, key: key, reason: reason, reportReason: reportReason)
    }

    /// An idempotency key as the form must carry it: present, at most `maxKeyLength` characters.
    static func idempotencyKey(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.count <= maxKeyLength else { return nil }
        return text
    }
}
