import Foundation

/// A stored hand-off as Markdown, for `console oncall digest`: times in the rotation's zone,
/// text staff or the public wrote escaped so it cannot turn into markup.
public struct HandoffMarkdown: Sendable {
    public let handoff: ShiftHandoff
    public let followUps: [HandoffNote]

    public init(handoff: ShiftHandoff, followUps: [HandoffNote]) {
        self.handoff = handoff
        self.followUps = followUps
    }

    public func text() -> String {
        let digest = handoff.digest
        let zone = TimeZone(identifier: digest.timeZone) ?? .gmt
        func time(_ date: Date) -> String { ZonedTimeText.text(date, in: zone) }
        var lines: [String] = []
        lines.append(
            "# Hand-off \(handoff.id): \(Self.escaped(handoff.outgoing.username)) to \(Self.escaped(handoff.incoming.username)), \(time(handoff.endsAt))")
        lines.append("")
        lines.append(
            "\(Self.escaped(handoff.outgoing.username)) → \(Self.escaped(handoff.incoming.username)), "
                + "\(time(handoff.startsAt)) – \(time(handoff.endsAt)) (\(digest.timeZone))")
        if let dismissed = handoff.dismissedAt {
            lines.append("")
            lines.append("Dismissed by \(Self.escaped(handoff.dismissedBy ?? "")) at \(time(dismissed)).")
        }

        lines += ["", "## Decisions (\(digest.decisionCount))", ""]
        if digest.decisionsByKind.isEmpty {
            lines.append("No decisions in this shift.")
        } else {
            lines += ["| Kind | Decisions |", "|---|---:|"]
            lines += digest.decisionsByKind.map { "| \(Self.escaped(HandoffDigest.label(forAction: $0.key, count: $0.count))) | \($0.count) |" }
            lines += ["", "| Staff member | Decisions |", "|---|---:|"]
            lines += digest.decisionsByPerson.map { "| \(Self.escaped($0.key)) | \($0.count) |" }
        }

        if let queues = digest.queues {
            lines += ["", "## Waiting (\(digest.waitingCount), \(digest.overdueCount) overdue)", ""]
            for queue in queues {
                lines.append(
                    "### \(queue.queue.label): \(queue.waiting) waiting, \(queue.overdue) overdue (target \(ZonedTimeText.duration(minutes: queue.targetMinutes)))"
                )
                lines.append("")
                if queue.oldest.isEmpty { lines.append("Nothing waiting.") }
                for item in queue.oldest {
                    let detail = item.detail.isEmpty ? "" : " — \(Self.escaped(item.detail))"
                    let overdue = item.overdue ? " **overdue**" : ""
                    lines.append("- \(Self.escaped(item.label))\(detail), waiting \(ZonedTimeText.age(from: item.createdAt, to: digest.asOf))\(overdue)")
                }
                lines.append("")
            }
            lines.removeLast()
        } else {
            lines += ["", "## Waiting", "", "Not known: the console had not read Book Corners' queues yet."]
        }

        lines += ["", "## Alerts (\(digest.alerts.count))", ""]
        if digest.alerts.isEmpty { lines.append("No alerts in this shift.") }
        for alert in digest.alerts {
            var parts = ["\(alert.queue.label), opened \(time(alert.openedAt))"]
            if let by = alert.acknowledgedBy, let at = alert.acknowledgedAt {
                parts.append("acknowledged by \(Self.escaped(by)) at \(time(at))")
            } else {
                parts.append("**not acknowledged**")
            }
            if alert.escalated { parts.append("escalated") }
            parts.append(alert.closedAt.map { "closed \(time($0))" } ?? "still open")
            lines.append("- " + parts.joined(separator: ", "))
        }

        lines += ["", "## Changed outside the console (\(digest.outsideChangeCount))", ""]
        if digest.outsideChanges.isEmpty { lines.append("Nothing seen.") }
        for change in digest.outsideChanges {
            lines.append(
                "- \(Self.escaped(change.label)): \(Self.escaped(change.change)), seen \(time(change.recordedAt)) (audit entry \(change.auditEntryID))")
        }
        if digest.outsideChangeCount > digest.outsideChanges.count {
            lines.append("- … and \(digest.outsideChangeCount - digest.outsideChanges.count) more (see the audit log)")
        }

        lines += ["", "## Note", ""]
        if let note = digest.note {
            lines += Self.quoted(note.text)
            lines += ["", "— \(Self.escaped(note.author)), \(time(note.writtenAt))"]
        } else {
            lines.append("No note.")
        }
        if !followUps.isEmpty {
            lines += ["", "## Follow-ups"]
            for followUp in followUps {
                lines.append("")
                lines += Self.quoted(followUp.text)
                lines += ["", "— \(Self.escaped(followUp.author.username)), \(time(followUp.writtenAt))"]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text with Markdown's special characters backslash-escaped, on one line.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\", "`", "*", "_", "[", "]", "<", ">", "|", "~":
                result.append("\\")
                result.append(character)
            case "\n", "\r", "\r\n":
                result.append(" ")
            default:
                result.append(character)
            }
        }
        return result
    }

    /// A block quote, line by line, each line escaped (a leading `#`, `-` or `+` too: no
    /// heading or list starts inside it).
    static func quoted(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let line = escaped(String(line).trimmingCharacters(in: .whitespaces))
            guard let first = line.first else { return ">" }
            return "#-+".contains(first) ? "> \\" + line : "> " + line
        }
    }
}
