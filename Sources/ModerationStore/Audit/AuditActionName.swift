/// What people call each action the audit log records: `library.approve` is "Library approved",
/// `session.signIn` "Signed in". Stored entries, exports and filters' addresses keep the machine
/// name; only what a page shows changes.
public enum AuditActionName {
    /// Every action the console records, by machine name, in words.
    static let names: [String: String] = [
        "library.approve": "Library approved",
        "library.reject": "Library rejected",
        "library.returnToPending": "Library returned to pending",
        "photo.approve": "Photo approved",
        "photo.reject": "Photo rejected",
        "photo.returnToPending": "Photo returned to pending",
        "report.resolve": "Report resolved",
        "report.dismiss": "Report dismissed",
        "report.reopen": "Report reopened",
        "report.note": "Note on a report",
        "decision.cancel": "Decision cancelled before it was sent",
        "claim.takeOver": "Review taken over",
        "session.signIn": "Signed in",
        "session.signOut": "Signed out",
        "session.end": "Session ended",
        "rotation.update": "On-call rotation changed",
        "teamClock.update": "Team clock changed",
        "override.add": "On-call override added",
        "override.remove": "On-call override removed",
        "queueTarget.update": "Queue target changed",
        "alert.acknowledge": "Alert acknowledged",
        "handoff.note": "Hand-off note written",
        "handoff.followUp": "Hand-off follow-up marked",
        "handoff.dismiss": "Hand-off digest dismissed",
        "calendar.regenerate": "Calendar feed address made",
        "calendar.revoke": "Calendar feed address stopped",
        "device.add": "Device added",
        "device.remove": "Device removed",
        "outbox.retry": "Push tried again",
        "outbox.send": "Held push sent",
        "outbox.discard": "Push discarded",
        "concernSettings.update": "Reasons to look changed",
        "audit.export": "Audit log exported",
        "audit.prune": "Old audit entries archived",
        "audit.reanchor": "Audit chain re-anchored",
        "audit.keyed": "Audit chain keyed",
    ]

    /// `action` in words; one the console does not know (written by a newer version, say) in
    /// words made from its parts: `library.set.closed` → "Library set closed".
    public static func of(_ action: String) -> String {
        if let name = names[action] { return name }
        if action.hasPrefix(AuditEntry.observedActionPrefix) { return observed(String(action.dropFirst(AuditEntry.observedActionPrefix.count))) }
        let words = action.split(separator: ".").flatMap { camelWords(String($0)) }
        guard let first = words.first else { return "Unnamed action" }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + words.dropFirst()).joined(separator: " ")
    }

    /// What an entry's target kind is called: `outbox` is "Push", `queueAlert` "Queue alert".
    static let kinds: [String: String] = [
        "library": "Library", "report": "Report", "photo": "Photo", "outbox": "Push", "oncall": "On call", "auditLog": "Audit log",
        "concernSettings": "Reasons to look", "device": "Device", "handoff": "Hand-off", "handoffNote": "Hand-off note", "queue": "Queue",
        "queueAlert": "Queue alert", "session": "Session",
    ]

    /// `kind` (an entry's `targetKind`) in words; an unknown one in words made from its parts.
    public static func kind(_ kind: String) -> String {
        if let name = kinds[kind] { return name }
        let words = camelWords(kind)
        guard let first = words.first else { return "" }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + words.dropFirst()).joined(separator: " ")
    }

    /// A change seen at Book Corners, `library.approved` → "Library approved outside the console".
    private static func observed(_ change: String) -> String {
        let parts = change.split(separator: ".").map(String.init)
        guard parts.count == 2 else { return of(change) + " outside the console" }
        let kind = parts[0].prefix(1).uppercased() + parts[0].dropFirst()
        let happened =
            switch parts[1] {
            case "pending": "returned to pending"
            case "open": "reopened"
            default: parts[1]
            }
        return "\(kind) \(happened) outside the console"
    }

    /// "returnToPending" → ["return", "to", "pending"].
    private static func camelWords(_ part: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in part {
            if character.isUppercase, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(contentsOf: character.lowercased())
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
