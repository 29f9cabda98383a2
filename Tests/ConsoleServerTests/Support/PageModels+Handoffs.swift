@testable import ConsoleServer
import Foundation
import ModerationStore

/// Fixed hand-off models for the snapshot tests, the hostile string in every text people or
/// the public wrote.
extension PageModels {
    static func handoff(dismissed: Bool = false) -> ShiftHandoff {
        let endsAt = now
        let digest = HandoffDigest(
            asOf: endsAt.addingTimeInterval(30), timeZone: "Europe/Rome",
            decisionsByKind: [.init(key: "library.approve", count: 3), .init(key: "report.resolve", count: 1)],
            decisionsByPerson: [.init(key: hostile, count: 3), .init(key: "staff", count: 1)],
            queues: [
                .init(queue: .libraries, waiting: 4, overdue: 1, targetMinutes: 2_880, oldest: [
                    .init(label: hostile, detail: "Florence, IT", librarySlug: "slug-\"1\"", createdAt: endsAt.addingTimeInterval(-3 * 86_400), overdue: true),
                    .init(label: "Second", detail: hostile, librarySlug: "slug-2", createdAt: endsAt.addingTimeInterval(-3_600), overdue: false),
                ]),
                .init(queue: .reports, waiting: 0, overdue: 0, targetMinutes: 1_440, oldest: []),
            ],
            alerts: [
                .init(queue: .libraries, openedAt: endsAt.addingTimeInterval(-86_400), acknowledgedBy: hostile,
                      acknowledgedAt: endsAt.addingTimeInterval(-86_000), escalated: false, closedAt: nil),
                .init(queue: .reports, openedAt: endsAt.addingTimeInterval(-2 * 86_400), acknowledgedBy: nil, acknowledgedAt: nil,
                      escalated: true, closedAt: endsAt.addingTimeInterval(-90_000)),
            ],
            outsideChanges: [.init(auditEntryID: 17, label: hostile, change: "pending → approved", recordedAt: endsAt.addingTimeInterval(-7_200))],
            outsideChangeCount: 3,
            note: .init(author: "staff", text: hostile, writtenAt: endsAt.addingTimeInterval(-3_600)))
        return ShiftHandoff(
            shiftIndex: 6, startsAt: endsAt.addingTimeInterval(-7 * 86_400), endsAt: endsAt, outgoing: StaffMember(id: 3, username: "staff"),
            incoming: StaffMember(id: 4, username: "maria"), digest: digest, builtAt: endsAt.addingTimeInterval(30),
            dismissedAt: dismissed ? endsAt.addingTimeInterval(3_600) : nil, dismissedBy: dismissed ? "maria" : nil)
    }

    static func handoffModels() -> [(template: String, model: Any)] {
        let handoff = handoff()
        let followUp = HandoffNote(
            id: 1, shiftIndex: 6, kind: .followUp, author: StaffMember(id: 3, username: "staff"), text: hostile, writtenAt: now.addingTimeInterval(600))
        return [
            ("handoffs", HandoffsPage(
                layout: layout("Hand-offs", active: nil),
                current: HandoffsPage.Current(
                    shift: 7, onCall: "staff", handoffAt: "2026-11-25 09:00", incoming: "maria", canWriteNote: true, noteText: hostile,
                    noteAuthor: "staff", noteWritten: "2026-11-19 10:00", hasNote: true, noteURL: "/on-call/handoffs/note"),
                timeZone: "Europe/Rome", rows: [HandoffsPage.Row(handoff), HandoffsPage.Row(Self.handoff(dismissed: true))], problem: hostile)),
            ("handoff", HandoffPage(
                layout: layout("Hand-off of shift 6", active: nil), handoff: handoff, followUps: [followUp], viewerID: 3, followUpText: hostile,
                problem: hostile)),
            ("handoff-digest", HandoffDigestView(handoff.digest)),
        ]
    }

    static func handoffPanel() -> HandoffPanel {
        HandoffPanel(
            received: .init(
                from: "staff", shift: 6, period: "2026-11-11 12:06 – 2026-11-18 12:06", digestSummary: "4 decisions, 4 waiting (1 overdue)",
                noteText: hostile, hasNote: true, followUpCount: 1, hasFollowUps: true, href: "/on-call/handoffs/6",
                dismissURL: "/on-call/handoffs/6/dismiss"),
            noteLink: .init(shift: 7, hasNote: false, href: "/on-call/handoffs"))
    }
}
