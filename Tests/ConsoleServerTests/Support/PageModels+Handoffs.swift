import Foundation
import ModerationStore

@testable import ConsoleServer

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
                .init(
                    queue: .libraries, waiting: 4, overdue: 1, targetMinutes: 2_880,
                    oldest: [
                        .init(
                            label: hostile, detail: "Florence, IT", librarySlug: "slug-\"1\"", createdAt: endsAt.addingTimeInterval(-3 * 86_400), overdue: true),
                        .init(label: "Second", detail: hostile, librarySlug: "slug-2", createdAt: endsAt.addingTimeInterval(-3_600), overdue: false),
                    ]),
                .init(queue: .reports, waiting: 0, overdue: 0, targetMinutes: 1_440, oldest: []),
            ],
            alerts: [
                .init(
                    queue: .libraries, openedAt: endsAt.addingTimeInterval(-86_400), acknowledgedBy: hostile,
                    acknowledgedAt: endsAt.addingTimeInterval(-86_000), escalated: false, closedAt: nil),
                .init(
                    queue: .reports, openedAt: endsAt.addingTimeInterval(-2 * 86_400), acknowledgedBy: nil, acknowledgedAt: nil,
                    escalated: true, closedAt: endsAt.addingTimeInterval(-90_000)),
            ],
            outsideChanges: [.init(auditEntryID: 17, label: hostile, change: "pending → approved", recordedAt: endsAt.addingTimeInterval(-7_200))],
            outsideChangeCount: 3,
            note: .init(author: "staff", text: hostile, writtenAt: endsAt.addingTimeInterval(-3_600)))
        return ShiftHandoff(
            id: 6, startsAt: endsAt.addingTimeInterval(-7 * 86_400), endsAt: endsAt, outgoing: StaffMember(id: 3, username: "staff"),
            incoming: StaffMember(id: 4, username: "maria"), digest: digest, builtAt: endsAt.addingTimeInterval(30),
            dismissedAt: dismissed ? endsAt.addingTimeInterval(3_600) : nil, dismissedBy: dismissed ? "maria" : nil)
    }

    static func handoffModels() -> [(template: String, model: Any)] {
        let handoff = handoff()
        let followUp = HandoffNote(
            id: 1, handoffID: 6, kind: .followUp, author: StaffMember(id: 3, username: "staff"), text: hostile, writtenAt: now.addingTimeInterval(600))
        return [
            (
                "handoffs",
                HandoffsPage(
                    layout: layout("Hand-offs", active: nil),
                    current: handoffsCurrent(canWriteNote: true), timeZone: "Rome time, Europe/Rome", ownNote: nil,
                    rows: [HandoffsPage.Row(handoff), HandoffsPage.Row(Self.handoff(dismissed: true))], problem: hostile, keptText: hostile)
            ),
            (
                "handoff",
                HandoffPage(
                    layout: layout(HandoffPage.title(of: handoff), active: nil), handoff: handoff, followUps: [followUp], viewerID: 3, followUpText: hostile,
                    problem: hostile)
            ),
            ("partials/handoff-digest", HandoffDigestView(handoff.digest)),
        ]
    }

    /// maria is on call until Wed 25 Nov 09:00, when staff takes over; `canWriteNote`: the viewer is maria.
    static func handoffsCurrent(canWriteNote: Bool) -> HandoffsPage.Current {
        HandoffsPage.Current(
            onCall: "maria", hasOnCall: true, handoffAt: "Wed 25 Nov 09:00", handoffStamp: "1795593600", incoming: "staff", hasNext: true,
            canWriteNote: canWriteNote, noteText: hostile, noteAuthor: "maria", noteWritten: "Thu 19 Nov 10:00", hasNote: true,
            noteURL: "/on-call/handoffs/note")
    }

    /// The Hand-offs page for staff, not on call, whose note was refused and who has a note not handed over.
    static func handoffsNotOnCall() -> HandoffsPage {
        HandoffsPage(
            layout: layout("Hand-offs", active: nil), current: handoffsCurrent(canWriteNote: false), timeZone: "Rome time, Europe/Rome",
            ownNote: hostile, rows: [], problem: hostile, keptText: hostile)
    }

    static func handoffPanel() -> HandoffPanel {
        HandoffPanel(
            received: .init(
                from: "staff", period: "2026-11-11 12:06 – 2026-11-18 12:06", digestSummary: "4 decisions, 4 waiting (1 overdue)",
                noteText: hostile, hasNote: true, followUpCount: 1, hasFollowUps: true, href: "/on-call/handoffs/6",
                dismissURL: "/on-call/handoffs/6/dismiss"),
            noteLink: .init(incoming: "maria", handoffAt: "at Wed 25 Nov 09:00", hasNext: true, hasNote: false, href: "/on-call/handoffs"))
    }
}
