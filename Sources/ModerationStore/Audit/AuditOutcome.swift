/// What came of what an audit entry records: a closed set. Why (a sign-in's wrong
/// credentials, a session's expiry) is the entry's `outcomeDetail`.
public enum AuditOutcome: String, Codable, Sendable, CaseIterable {
    /// A decision Book Corners applied.
    case applied
    /// A decision not sent: someone else had changed the item first.
    case conflict
    /// A decision Book Corners refused, or a sign-in with wrong credentials.
    case failed
    /// A sign-in, sign-out, export or prune that happened.
    case succeeded
    /// A sign-in of an account that is not staff.
    case refused
    /// A session the console ended by itself; the detail says why.
    case ended
    /// A change the mirror saw at Book Corners that no decision of the console explains;
    /// the detail says in which window it happened (`ObservedWindow`).
    case observed

    /// An outcome as stored: the raw value, or, in entries written before outcomes were a
    /// closed set, the outcome with its explanation in one text ("failed (wrong credentials)",
    /// or a session's ending "expired"). `legacyText` is that stored text when it is not a
    /// bare outcome: it is what the entry's hash covers.
    static func decode(
        stored: String, detail: String, action: String
    )
        -> (outcome: AuditOutcome, detail: String, legacyText: String?)
    {
        if action == AuditEntry.sessionEndAction, stored != AuditOutcome.ended.rawValue {
            return (.ended, stored, stored)
        }
        if let outcome = AuditOutcome(rawValue: stored) { return (outcome, detail, nil) }
        if let open = stored.firstIndex(of: " "), stored.hasSuffix(")"),
            let outcome = AuditOutcome(rawValue: String(stored[..<open])),
            stored[stored.index(after: open)...].hasPrefix("(")
        {
            let explanation = stored[stored.index(open, offsetBy: 2)..<stored.index(before: stored.endIndex)]
            return (outcome, String(explanation), stored)
        }
        // Not something the console ever wrote (an altered row or export): kept as it is,
        // so the hash check reports the change.
        return (.failed, stored, stored)
    }

    /// SQL matching entries of this outcome, those written before the closed set included
    /// (every session ending is `ended`, whatever word it was stored with).
    func sqlCondition() -> (sql: String, arguments: [String]) {
        if self == .ended { return ("(outcome = ? OR action = ?)", [rawValue, AuditEntry.sessionEndAction]) }
        return ("((outcome = ? OR outcome LIKE ?) AND action <> ?)", [rawValue, rawValue + " (%", AuditEntry.sessionEndAction])
    }
}
