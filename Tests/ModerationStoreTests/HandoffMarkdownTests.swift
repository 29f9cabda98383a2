import Foundation
import ModerationStore
import Testing

/// `console oncall digest` prints this: every section, times in the rotation's zone, what
/// people wrote escaped so it stays text.
@Suite struct HandoffMarkdownTests {
    private let endsAt = Date(timeIntervalSince1970: 1_794_211_200)  // 2026-11-09 08:00 UTC, 09:00 in Rome

    private func handoff(note: String?, dismissed: Bool = false) -> ShiftHandoff {
        let digest = HandoffDigest(
            asOf: endsAt.addingTimeInterval(30), timeZone: "Europe/Rome",
            decisionsByKind: [.init(key: "library.approve", count: 3), .init(key: "report.resolve", count: 1)],
            decisionsByPerson: [.init(key: "alice", count: 3), .init(key: "b*ob_", count: 1)],
            queues: [
                .init(
                    queue: .libraries, waiting: 4, overdue: 1, targetMinutes: 2_880,
                    oldest: [
                        .init(
                            label: "Corner [Books]", detail: "Florence, IT", librarySlug: "corner-books",
                            createdAt: endsAt.addingTimeInterval(-3 * 86_400 - 2 * 3_600), overdue: true)
                    ]),
                .init(queue: .reports, waiting: 0, overdue: 0, targetMinutes: 1_440, oldest: []),
            ],
            alerts: [
                .init(
                    queue: .libraries, openedAt: endsAt.addingTimeInterval(-86_400), acknowledgedBy: "alice",
                    acknowledgedAt: endsAt.addingTimeInterval(-86_400 + 600), escalated: false, closedAt: nil),
                .init(
                    queue: .reports, openedAt: endsAt.addingTimeInterval(-2 * 86_400), acknowledgedBy: nil, acknowledgedAt: nil,
                    escalated: true, closedAt: endsAt.addingTimeInterval(-86_400 - 3_600)),
            ],
            outsideChanges: [.init(auditEntryID: 17, label: "library Via <Roma>", change: "pending → approved", recordedAt: endsAt.addingTimeInterval(-7_200))],
            outsideChangeCount: 3,
            note: note.map { .init(author: "alice", text: $0, writtenAt: endsAt.addingTimeInterval(-3_600)) })
        return ShiftHandoff(
            id: 6, startsAt: endsAt.addingTimeInterval(-7 * 86_400), endsAt: endsAt, outgoing: StaffMember(id: 1, username: "alice"),
            incoming: StaffMember(id: 2, username: "bob"), digest: digest, builtAt: endsAt.addingTimeInterval(30),
            dismissedAt: dismissed ? endsAt.addingTimeInterval(3_600) : nil, dismissedBy: dismissed ? "bob" : nil)
    }

    @Test("a digest prints every section in order, with local times, and people's text escaped")
    func fullDigest() {
        // setup
        let followUp = HandoffNote(
            id: 1, handoffID: 6, kind: .followUp, author: StaffMember(id: 1, username: "alice"), text: "Done: **all** of it",
            writtenAt: endsAt.addingTimeInterval(1_800))
        // act
        let text = HandoffMarkdown(handoff: handoff(note: "# Not a heading\nLine <two> | pipes", dismissed: true), followUps: [followUp]).text()
        // check
        #expect(
            text == """
                # Hand-off 6: alice to bob, 2026-11-09 09:00

                alice → bob, 2026-11-02 09:00 – 2026-11-09 09:00 (Europe/Rome)

                Dismissed by bob at 2026-11-09 10:00.

                ## Decisions (4)

                | Kind | Decisions |
                |---|---:|
                | libraries approved | 3 |
                | report resolved | 1 |

                | Staff member | Decisions |
                |---|---:|
                | alice | 3 |
                | b\\*ob\\_ | 1 |

                ## Waiting (4, 1 overdue)

                ### Library submissions: 4 waiting, 1 overdue (target 2 d)

                - Corner \\[Books\\] — Florence, IT, waiting 3 d 2 h **overdue**

                ### Reports: 0 waiting, 0 overdue (target 1 d)

                Nothing waiting.

                ## Alerts (2)

                - Library submissions, opened 2026-11-08 09:00, acknowledged by alice at 2026-11-08 09:10, still open
                - Reports, opened 2026-11-07 09:00, **not acknowledged**, escalated, closed 2026-11-08 08:00

                ## Changed outside the console (3)

                - library Via \\<Roma\\>: pending → approved, seen 2026-11-09 07:00 (audit entry 17)
                - … and 2 more (see the audit log)

                ## Note

                > \\# Not a heading
                > Line \\<two\\> \\| pipes

                — alice, 2026-11-09 08:00

                ## Follow-ups

                > Done: \\*\\*all\\*\\* of it

                — alice, 2026-11-09 09:30

                """)
    }

    @Test("a quiet shift says so in each section")
    func quietShift() {
        // setup
        var quiet = handoff(note: nil)
        quiet.digest.decisionsByKind = []
        quiet.digest.decisionsByPerson = []
        quiet.digest.queues = nil
        quiet.digest.alerts = []
        quiet.digest.outsideChanges = []
        quiet.digest.outsideChangeCount = 0
        // act
        let text = HandoffMarkdown(handoff: quiet, followUps: []).text()
        // check
        #expect(text.contains("## Decisions (0)\n\nNo decisions in this shift.\n"))
        #expect(text.contains("## Waiting\n\nNot known: the console had not read Book Corners' queues yet.\n"))
        #expect(text.contains("## Alerts (0)\n\nNo alerts in this shift.\n"))
        #expect(text.contains("## Changed outside the console (0)\n\nNothing seen.\n"))
        #expect(text.hasSuffix("## Note\n\nNo note.\n"))
        #expect(!text.contains("Dismissed") && !text.contains("Follow-ups"))
    }
}
