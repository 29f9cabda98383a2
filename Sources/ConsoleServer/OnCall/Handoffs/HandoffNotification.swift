import ModerationStore

/// The `shift.handoff` push the incoming person gets.
enum HandoffNotification {
    /// The longest stretch of the note a push carries; the digest has it whole.
    static let noteExcerptLength = 200

    static func push(for handoff: ShiftHandoff) -> PushNotification {
        PushNotification(
            title: "Your on-call shift has begun", body: body(for: handoff), type: .shiftHandoff, ids: ["handoff": Int(handoff.id)])
    }

    /// "alice handed over: 14 decisions, 9 waiting (2 overdue). Note: …"
    static func body(for handoff: ShiftHandoff) -> String {
        let digest = handoff.digest
        var text = "\(handoff.outgoing.username) handed over: \(CountText.of(digest.decisionCount, "decision", "decisions"))"
        if digest.queues != nil { text += ", \(digest.waitingCount) waiting (\(digest.overdueCount) overdue)" }
        text += "."
        if let note = digest.note {
            let flat = note.text.split(whereSeparator: \.isNewline).joined(separator: " ")
            text += " Note: " + (flat.count > noteExcerptLength ? String(flat.prefix(noteExcerptLength)) + "…" : flat)
        }
        return text
    }
}
