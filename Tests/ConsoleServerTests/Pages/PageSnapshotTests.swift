import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// Fixed page models, one hostile string in each, for the snapshot tests.
enum PageModels {
    static let hostile = #"<script>alert("x")</script> 'quoted' & مكتبة الحي 📚"#
    static let escapedHostile = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;quoted&#39; &amp; مكتبة الحي 📚"
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// The team clock of the audit pages: Rome, so the snapshot shows a zone that is not UTC.
    static let rome = OnCallTimeText(zone: TimeZone(identifier: "Europe/Rome") ?? .gmt)

    static func summary() throws -> ModerationSummary {
        try BackendJSON.decoder().decode(ModerationSummary.self, from: Fixtures.data("moderation_summary.json"))
    }

    static func layout(_ title: String, active: LayoutModel.Area?, summary: ModerationSummary? = nil, signedIn: Bool = true) -> LayoutModel {
        LayoutModel(
            title: title, session: signedIn ? (username: "staff", csrf: "csrf-token") : nil, flash: nil, pendingActions: [], active: active,
            summary: summary, onCall: OnCallHeadline(schedule: schedule, viewerID: 3, now: now))
    }

    /// Week-long shifts in Rome: the hostile name on call now, staff (the viewer, id 3) next, and an override.
    static var schedule: OnCallSchedule {
        let zone = TimeZone(identifier: "Europe/Rome") ?? .gmt
        let members = [StaffMember(id: 9, username: hostile), StaffMember(id: 3, username: "staff")]
        // Rotation's own checks pass for these fixed values.
        guard
            let rotation = try? Rotation(
                members: members, shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: zone, startDate: LocalDate(now, in: zone).adding(days: -2))
        else { preconditionFailure("fixed rotation") }
        let cover = RotationOverride(
            id: 1, staff: StaffMember(id: 3, username: "staff"), startsAt: now.addingTimeInterval(86_400 * 8), endsAt: now.addingTimeInterval(86_400 * 9),
            note: hostile, createdBy: hostile, createdAt: now)
        return OnCallSchedule(rotation: rotation, overrides: [cover])
    }

    /// A recorded list answer's items with `hostile` as the first item's `key` (a top-level or `library.` field).
    static func items<Item: Decodable>(_ fixture: String, as type: Item.Type, hostileIn key: String) throws -> [Item] {
        let object = try #require(try Fixtures.json(fixture) as? [String: Any])
        var items = try #require(object["items"] as? [[String: Any]])
        if key.hasPrefix("library.") {
            var library = try #require(items[0]["library"] as? [String: Any])
            library[String(key.dropFirst(8))] = hostile
            items[0]["library"] = library
        } else {
            items[0][key] = hostile
        }
        let data = try JSONSerialization.data(withJSONObject: items)
        return try BackendJSON.decoder().decode([Item].self, from: data)
    }

    static func pagination(_ fixture: String) throws -> Pagination {
        let object = try #require(try Fixtures.json(fixture) as? [String: Any])
        return try BackendJSON.decoder().decode(Pagination.self, from: JSONSerialization.data(withJSONObject: try #require(object["pagination"])))
    }

    static func auditEntry(_ id: Int64, actor: String = "staff", reason: String = "") -> AuditEntry {
        var entry = AuditEntry(
            recordedAt: now.addingTimeInterval(Double(id) * 60), actorId: 3, actorUsername: actor, action: "library.reject", targetKind: "library",
            targetId: "\(id)", targetSlug: "slug-\(id)", targetName: hostile, statusBefore: "pending", statusAfter: "rejected", reason: reason,
            outcome: .applied, backendStatus: 200, requestId: "req-\(id)", clientAddress: "192.0.2.1", userAgent: hostile,
            itemCreatedAt: now.addingTimeInterval(-86_400), actionId: id)
        entry.id = id
        entry.previousHash = String(repeating: "a", count: 64)
        entry.hash = String(repeating: "b", count: 64)
        return entry
    }

    /// A claim line: the viewer's own (viewer 3), someone else's (a hostile name), or the claim button.
    static func claimBadge(_ index: Int, kind: ModerationAction.TargetKind, key: String, insideForm: Bool = false) -> ClaimBadge {
        let target = ItemClaim.Target(kind: kind, key: key)
        let claim: ItemClaim? =
            switch index {
            case 0: ItemClaim(target: target, holderId: 3, holderUsername: "staff", claimedAt: now.addingTimeInterval(-181), duration: 900)
            case 1: ItemClaim(target: target, holderId: 4, holderUsername: hostile, claimedAt: now.addingTimeInterval(-420), duration: 900)
            default: nil
            }
        return ClaimBadge(claim: claim, target: target, viewerId: 3, isWaiting: true, now: now, back: "/libraries?q=\"x\"", insideForm: insideForm)
    }

    /// Episodes as the alerts page and the dashboard show them: one waiting for the viewer (staff, id 3),
    /// one nobody could be told of, and a closed one that escalated and was acknowledged.
    static func alertRows() -> (active: [AlertEpisodeRow], history: [AlertEpisodeRow]) {
        let open = QueueAlert(
            id: 7, queue: .libraries, state: .open, openedAt: now.addingTimeInterval(-600), overdueCount: 12,
            oldestCreatedAt: now.addingTimeInterval(-(76 * 3_600)), targetMinutes: 48 * 60, lastNotifiedAt: now.addingTimeInterval(-600),
            notifiedStaffId: 3, heldSince: now.addingTimeInterval(-600), firstNotifiedStaffId: 3)
        let untold = QueueAlert(
            id: 8, queue: .photos, state: .open, openedAt: now.addingTimeInterval(-60), overdueCount: 1,
            oldestCreatedAt: now.addingTimeInterval(-(73 * 3_600)), targetMinutes: 72 * 60)
        let closed = QueueAlert(
            id: 5, queue: .reports, state: .closed, openedAt: now.addingTimeInterval(-86_400), closedAt: now.addingTimeInterval(-80_000),
            overdueCount: 2, oldestCreatedAt: now.addingTimeInterval(-200_000), targetMinutes: 24 * 60, acknowledgedById: 4,
            acknowledgedByUsername: hostile, acknowledgedAt: now.addingTimeInterval(-82_000), escalationLevel: 1,
            lastNotifiedAt: now.addingTimeInterval(-84_000), notifiedStaffId: 4, heldSince: now.addingTimeInterval(-84_000), firstNotifiedStaffId: 3)
        let notices: [Int64: [QueueAlertNotice]] = [
            7: [.init(id: 1, alertId: 7, kind: .notice, staffId: 3, staffUsername: "staff", sentAt: now.addingTimeInterval(-600), outboxMessageId: "m1")],
            8: [.init(id: 2, alertId: 8, kind: .notice, staffId: nil, staffUsername: nil, sentAt: now.addingTimeInterval(-60), outboxMessageId: nil)],
            5: [
                .init(id: 3, alertId: 5, kind: .notice, staffId: 3, staffUsername: "staff", sentAt: now.addingTimeInterval(-86_400), outboxMessageId: "m2"),
                .init(id: 4, alertId: 5, kind: .escalation, staffId: 4, staffUsername: hostile, sentAt: now.addingTimeInterval(-84_000), outboxMessageId: "m3"),
            ],
        ]
        let rows = [open, untold, closed].map { AlertEpisodeRow($0, notices: notices[$0.id] ?? [], viewerID: 3, now: now) }
        return (Array(rows.prefix(2)), [rows[1], rows[0], rows[2]])
    }

    static func chart() -> Chart {
        let bars = [(label: hostile, value: 3.0), (label: "Other", value: 1.0)]
        return Chart(
            id: "countries", title: "Top countries", description: hostile,
            svg: { BarChart.svg(id: "countries", title: "Top countries", description: hostile, bars: bars, frame: $0) },
            table: ChartTable(columns: ["Country", "Libraries"], rows: bars.map { [$0.label, SVGWriter.number($0.value)] }),
            csvHref: "/statistics/countries.csv?days=30")
    }

    /// Every page the console renders, by template name, built from fixed data.
    static func all() throws -> [(template: String, model: Any)] {
        let summary = try summary()
        let libraries = try items("moderation_pending_page1.json", as: ModerationLibrary.self, hostileIn: "name")
        let reports = try items("moderation_reports.json", as: ModerationReport.self, hostileIn: "details")
        let photos = try items("moderation_photos.json", as: ModerationPhoto.self, hostileIn: "caption")
        let mirrored = try libraries.map { try MirrorLibrary($0, confirmedAt: now) }
        // Duplicates as the mirror finds them: the hostile-named library itself, under another id, one close and one by name.
        var duplicate = mirrored[0]
        duplicate.id += 1_000
        var sameName = mirrored[1]
        sameName.lat += 1
        // Reasons to look as a page shows them: a strong one with a hostile neighbour's name, and quieter ones.
        let concerns = LibraryConcerns.assess(
            mirrored[0],
            evidence: LibraryEvidence(
                nearest: .init(id: 9, slug: "near", name: Self.hostile, status: .approved, metres: 12),
                submitter: .init(submitted: 1, approved: 0, rejected: 0, lastRejectionReason: "")))
        let options = FilterOption.choices(["pending", hostile], selected: hostile, any: "Any")
        var message = OutboxMessage(
            id: "msg-1", actionId: 4, recipientUserId: 12, eventType: .libraryRejected,
            payload: #"{"aps":{"alert":{"title":"Your library","body":"\#(hostile.replacingOccurrences(of: "\"", with: "\\\""))"}}}"#,
            headers: #"{"apns-push-type":"alert"}"#, createdAt: now)
        message.status = .failed
        message.lastReason = hostile
        let attempt = OutboxAttempt(
            messageId: "msg-1", deviceToken: String(repeating: "ab", count: 32), transport: "apns", httpStatus: 410, outcome: .deviceDisabled,
            reason: hostile, attemptedAt: now)
        var device = Device(userId: 3, token: String(repeating: "cd", count: 32), environment: .sandbox, source: "staff", createdAt: now)
        device.id = 9
        device.active = false
        device.state = .wrongEnvironment
        device.disabledAt = now
        device.disabledReason = hostile
        var held = message
        held.id = "msg-held"
        held.status = .held
        held.lastReason = hostile
        let entry = auditEntry(2, reason: hostile)
        return [
            (
                "layout",
                ErrorPage(
                    layout: {
                        var frame = LayoutModel(
                            title: hostile, session: (username: hostile, csrf: "csrf-token"), flash: hostile,
                            pendingActions: [
                                queuedAction("slug-waiting", actorId: 3, username: "staff"),
                                {
                                    var failed = decidedAction("slug-failed", state: .failed, message: hostile)
                                    failed.updatedAt = now.addingTimeInterval(-300)
                                    return failed
                                }(),
                            ],
                            pendingActionTargets: [
                                DecisionTargetName.key(.library, "slug-waiting"): DecisionTargetName(name: hostile, city: hostile, librarySlug: "slug-waiting")
                            ],
                            now: now, active: .dashboard,
                            summary: summary, banner: hostile, notice: hostile, freshness: "Data from Book Corners, as of 3 s ago")
                        // The flash of a report's dismissal offers its Undo.
                        frame.undo = UndoOffer(
                            url: "/reports/42/decide", seen: "dismissed", decision: "reopen", key: "undo-key", reportReason: "damaged",
                            back: "/reports/42?x=\"y\"",
                            label: "Undo: reopen the report")
                        return frame
                    }(),
                    title: "Layout", message: "Every frame field filled.", requestID: "req-layout")
            ),
            (
                "sign-in",
                SignInPage(
                    layout: layout("Sign in", active: nil, signedIn: false), login: hostile, next: "/audit?x=\"y\"", signInToken: "csrf-token",
                    message: hostile, isError: true)
            ),
            (
                "dashboard",
                DashboardPage(
                    layout: layout("Dashboard", active: .dashboard, summary: summary), summary: DashboardPage.Counts(summary),
                    queues: [
                        DashboardPage.Queue(
                            title: "Libraries", kind: .library, href: "/libraries", total: 17,
                            items: [
                                .init(
                                    item: .init(kind: .library, key: "slug"), label: hostile, detail: hostile, href: "/libraries/slug", age: "3 d ago",
                                    mark: QueueStandingMark(.libraries, createdAt: now.addingTimeInterval(-3 * 86_400), targets: .defaults, now: now)),
                                .init(
                                    item: .init(kind: .library, key: "near"), label: "Near", detail: "", href: "/libraries/near", age: "40 h ago",
                                    mark: QueueStandingMark(.libraries, createdAt: now.addingTimeInterval(-40 * 3_600), targets: .defaults, now: now)),
                            ]),
                        DashboardPage.Queue(title: "Photos", kind: .photo, href: "/photos", total: nil, items: []),
                    ],
                    backendState: "ok", backendStatus: "Book Corners is answering normally.",
                    outside: OutsideChanges(
                        changes: [.init(label: hostile, change: "pending → approved", href: "/audit/7", age: "3 h ago")], count: 1),
                    alerts: alertRows().active, deliveryWarning: hostile, handoff: handoffPanel())
            ),
            (
                "libraries",
                try {
                    var page = LibraryListPage(
                        layout: layout("Libraries", active: .libraries, summary: summary), statusOptions: options, text: hostile, country: "NL",
                        source: "",
                        rows: mirrored.enumerated().map { index, library in
                            var row = LibraryRow(library, concerns: index == 0 ? concerns : [], targets: .defaults, now: now)
                            row.claim = claimBadge(index, kind: .library, key: library.slug, insideForm: true)
                            // The second row was just decided by the viewer, and met a conflict.
                            if index == 1 { row.decided(RowOutcome(decidedAction(library.slug, state: .conflict, message: hostile))) }
                            // The third has someone else's approval waiting to be sent.
                            if index == 2 {
                                row.queuedDecision(QueuedDecisionNote(queuedAction(library.slug, actorId: 9, username: hostile), viewerId: 3, now: now))
                            }
                            return row
                        }, loaded: true,
                        pager: Pager(
                            url: .libraries, filters: [("q", hostile)], pagination: try pagination("moderation_pending_page2_size10.json"), order: .oldest),
                        orderSwitch: OrderSwitch(
                            order: .newest, standard: .oldest, choices: LibraryQueueContext.orders(for: .pending), link: { "/libraries?order=\($0.rawValue)" }))
                    // A filter the address got wrong, said above the list.
                    page.frame.ignoredFilters = ["“\u{2068}\(hostile)\u{2069}” is not a status, so waiting libraries are shown."]
                    page.reasonsIncomplete = LibraryConcerns.incompleteText
                    return page
                }()
            ),
            (
                "library-detail",
                try {
                    var page = LibraryDetailPage(
                        layout: layout("Library", active: .libraries, summary: summary), library: libraries[0], duplicates: [duplicate, sameName],
                        settings: .defaults, targets: .defaults, now: now)
                    page.claim = claimBadge(1, kind: .library, key: libraries[0].slug)
                    page.concerns = concerns
                    page.reasonsIncomplete = LibraryConcerns.incompleteText
                    // The neighbourhood: the hostile-named duplicate on the same spot, and a rejected one 300 m north.
                    var north = mirrored[2]
                    (north.lat, north.lng, north.status) = (mirrored[0].lat + 300 / GreatCircle.metresPerDegree, mirrored[0].lng, .rejected)
                    page.neighbourhood = NeighbourhoodMap(library: mirrored[0], neighbours: [duplicate, north], link: { "/libraries/\($0)" })
                    // The submitter's history: a library rejected outside the console (its mirrored reason), and a photo still waiting.
                    var history = ContributorHistory()
                    var rejected = mirrored[1]
                    (rejected.status, rejected.rejectionReason) = (.rejected, hostile)
                    history.libraries = [rejected]
                    history.photos = [try MirrorPhoto(photos[0], confirmedAt: now)]
                    (history.libraryCounts, history.photoCounts) = (["rejected": 3, "approved": 8], ["pending": 1])
                    page.submitterHistory = ContributorHistoryView(
                        heading: "Also from \(hostile)", username: hostile, history: history, decisions: .init(), now: now)
                    page.submitterHistory.incomplete = ContributorHistoryView.incompleteText
                    page.showsSubmitter(.init(submitted: 12, approved: 9, rejected: 3, lastRejectionReason: Self.hostile))
                    let queue = LibraryQueueContext(ListQuery(query: "status=pending&q=%22%3E%3Cscript%3E&order=newest"))
                    page.queue = QueueLinks(
                        queue: queue, previous: queue.detailPath(slug: "before"), next: nil, here: queue.detailPath(slug: libraries[0].slug))
                    // The rejection form sent back: too long, what was typed kept.
                    page.rejection = RejectionFormState(
                        error: FormError.reasonTooLong(characters: 2_001, limit: 2_000).message, typedReason: hostile,
                        chosenPreset: DecisionController.presetReasons[1], presets: DecisionController.presetReasons)
                    return page
                }()
            ),
            (
                "reports",
                ReportListPage(
                    layout: layout("Reports", active: .reports, summary: summary), statusOptions: options, reasonOptions: options,
                    rows: reports.enumerated().map { index, report in
                        var row = ReportRow(report, now: now)
                        if index == 1 {
                            // A dismissal on its way: said, with no decision left on the row.
                            row.queued = QueuedDecisionNote(queuedAction(String(report.id), actorId: 9, username: hostile), viewerId: 3, now: now)
                        } else {
                            row.claim = claimBadge(index, kind: .report, key: String(report.id))
                        }
                        return row
                    }, loaded: true, pager: nil)
            ),
            (
                "report-detail",
                try {
                    let report = try MirrorReport(reports[0], confirmedAt: now)
                    var other = try MirrorReport(reports[1], confirmedAt: now)
                    other.details = hostile
                    var page = ReportDetailPage(
                        layout: layout("Report", active: .reports, summary: summary), report: report, library: mirrored[0], others: [other],
                        notes: [ReportNote(reportId: report.id, authorId: 4, authorUsername: hostile, text: hostile, writtenAt: now.addingTimeInterval(-600))],
                        targets: .defaults, now: now)
                    page.claim = claimBadge(1, kind: .report, key: String(report.id))
                    let queue = ReportQueueContext(ListQuery(query: "status=open&reason=missing&order=newest"))
                    page.queue = QueueLinks(
                        queue: queue, previous: queue.detailPath(id: 6), next: queue.detailPath(id: 8), here: queue.detailPath(id: report.id))
                    page.noteText = hostile
                    page.noteProblem = ReportNote.Problem.tooLong.description
                    // The reporter's history: one earlier report dismissed in the console; the submitter has nothing earlier.
                    var history = ContributorHistory()
                    history.reports = [other]
                    other.status = .dismissed
                    history.reports = [other]
                    history.reportCounts = ["dismissed": 1]
                    var dismissal = auditEntry(12, actor: hostile, reason: hostile)
                    (dismissal.targetKind, dismissal.statusAfter) = ("report", "dismissed")
                    var decisions = ContributorHistoryView.Decisions()
                    decisions.reports = [String(other.id): dismissal]
                    page.reporterHistory = ContributorHistoryView(
                        heading: "Earlier from \(hostile), who reported this", username: hostile, history: history, decisions: decisions, now: now)
                    page.submitterHistory = ContributorHistoryView(
                        heading: "From \(hostile), who submitted the library", username: hostile, history: ContributorHistory(),
                        decisions: .init(), now: now)
                    return page
                }()
            ),
            (
                "photos",
                PhotoGridPage(
                    layout: layout("Photos", active: .photos, summary: summary), statusOptions: options,
                    cards: photos.enumerated().map { index, fixture in
                        // The fourth was approved: the library's photo now, nothing beside it.
                        var photo = fixture
                        if index == 3 { photo.status = LibraryStatus.approved.rawValue }
                        var card = PhotoCard(photo, currentPhotoURL: index == 0 ? "http://127.0.0.1:1/media/current.jpg" : nil, now: now)
                        card.isLibraryPhoto = index == 3
                        card.claim = claimBadge(index, kind: .photo, key: String(photo.id))
                        if index == 0 {
                            card.rejection = RejectionFormState(
                                error: FormError.reasonRequired.message, typedReason: hostile, chosenPreset: "", presets: DecisionController.photoPresetReasons)
                        }
                        // The second has someone else's decision waiting to be sent.
                        if index == 1 {
                            var action = queuedAction(String(photo.id), actorId: 9, username: hostile)
                            action.targetKind = .photo
                            card.queuedDecision(QueuedDecisionNote(action, viewerId: 3, now: now))
                        }
                        // The third was rejected in the console, with a reason; the fourth outside it (its status alone).
                        if index == 2 {
                            var entry = auditEntry(7, actor: hostile, reason: hostile)
                            entry.targetKind = "photo"
                            card.decidedNote = DecidedNote(status: .rejected, entry: entry, mirroredReason: "", now: now)
                        }
                        if index == 3 { card.decidedNote = DecidedNote(status: .approved, entry: nil, mirroredReason: "", now: now) }
                        return card
                    },
                    loaded: true, pager: nil)
            ),
            (
                "photo-viewer",
                {
                    var card = PhotoCard(photos[0], currentPhotoURL: "http://127.0.0.1:1/media/current.jpg", now: now)
                    card.claim = claimBadge(0, kind: .photo, key: String(photos[0].id))
                    return PhotoViewerPage(layout: layout("Photo", active: .photos, summary: summary), card: card, view: .swipe)
                }()
            ),
            (
                "concern-figures",
                ConcernFiguresPage(
                    layout: layout("Reasons to look", active: .libraries, summary: summary),
                    figures: ["duplicate": ConcernFigures(waiting: 4, decided: 12, rejected: 9), "noPhoto": ConcernFigures(waiting: 2)],
                    settings: ConcernSettings(strongDuplicateMetres: 30, suspectWords: ["casino", hostile]),
                    firstRecorded: now.addingTimeInterval(-86_400 * 3), now: now)
            ),
            (
                "error",
                {
                    // A form refused whole (its script offers back what was typed), with a hostile message.
                    var page = ErrorPage(
                        layout: layout("This form has expired", active: nil), title: "This form has expired", message: hostile, requestID: "req-123")
                    page.formRefused = true
                    return page
                }()
            ),
            (
                "bulk-confirm",
                BulkConfirmPage(
                    layout: layout("Confirm", active: .libraries, summary: summary), decision: "reject", verb: "Reject", count: 3,
                    items: (1...3).map {
                        var item = BulkConfirmPage.Item(
                            slug: "slug-\($0)", seen: "pending", name: hostile, concerns: $0 == 1 ? concerns : [],
                            claimNote: $0 == 2 ? "\(hostile) is reviewing · 8 min left" : "")
                        // The first two as the mirror knows them: their places and photos tell namesakes apart.
                        if $0 < 3 { item.shows(mirrored[$0 - 1]) }
                        return item
                    },
                    heading: BulkConfirmPage.heading(verb: "Reject", count: 3), reason: hostile, isReject: true, key: "key-bulk")
            ),
            (
                "reject-confirm",
                {
                    var page = RejectConfirmPage(
                        layout: layout("Reject", active: .libraries, summary: summary), slug: "slug-\"1\"", seen: "approved", key: "key-reject",
                        reason: hostile, back: "/libraries")
                    var approval = auditEntry(5, actor: hostile)
                    approval.statusAfter = "approved"
                    page.names(mirrored[0])
                    page.describe(mirrored[0], earlier: DecidedNote(status: .approved, entry: approval, mirroredReason: "", now: now))
                    return page
                }()
            ),
            (
                "reverse-confirm",
                ReverseConfirmPage(
                    layout: layout("Confirm", active: .libraries), name: hostile, seen: .rejected, wanted: .approved,
                    earlier: DecidedNote(status: .rejected, entry: auditEntry(6, actor: hostile, reason: hostile), mirroredReason: "", now: now),
                    decideURL: "/libraries/slug-1/decide",
                    fields: [
                        HiddenField(name: "decision", value: "approve"), HiddenField(name: "seen", value: "rejected"), HiddenField(name: "key", value: hostile),
                    ],
                    cancelURL: "/libraries/slug-1")
            ),
            (
                "unsent-work",
                UnsentWorkPage(
                    layout: layout("Send your decision", active: nil),
                    form: try KeptForm(
                        id: "digest", path: "/libraries/slug-1/decide", ownerStaffId: 3,
                        fields: [
                            .init(name: "decision", value: "reject"), .init(name: "seen", value: "pending"), .init(name: "key", value: "k1"),
                            .init(name: "reason", value: hostile), .init(name: "confirmed", value: "1"), .init(name: "back", value: "/libraries?q=\"x\""),
                        ],
                        now: now),
                    key: "kept-key-1", summary: "Your rejection of \(hostile) was not sent")
            ),
            (
                "outbox",
                OutboxPage(
                    layout: layout("Outbox", active: .outbox), statusOptions: options, typeOptions: options,
                    rows: [OutboxRow(message, attempts: 3, now: now, names: [message.recipientUserId: hostile])], isEmpty: false,
                    counts: OutboxMessage.State.allCases.map { OutboxPage.Count(state: $0, count: 2) }, transport: hostile, deliveryOff: false,
                    watchURL: "http://127.0.0.1:8081/apns/pushes?\"x\"",
                    policy: OutboxMessage.EventType.allCases.map { OutboxPage.PolicyRow(type: $0, rule: DeliveryPolicy.standard.rule(for: $0)) },
                    held: [OutboxRow(held, attempts: 1, now: now, names: [held.recipientUserId: hostile])])
            ),
            (
                "outbox-message",
                OutboxMessagePage(
                    layout: layout("Outbox message", active: .outbox),
                    row: OutboxRow(message, attempts: 1, now: now, names: [message.recipientUserId: "maria"]), payload: message.payload,
                    headers: hostile, payloadBytes: message.payload.utf8.count, attempts: [.init(attempt)], hasAttempts: true, canRetry: true,
                    isHeld: false, canDiscard: true, retryURL: "/outbox/msg-1/retry", discardURL: "/outbox/msg-1/discard")
            ),
            (
                "outbox-confirm",
                OutboxConfirmPage(
                    layout: layout("Discard?", active: .outbox), move: .discard, row: OutboxRow(message, attempts: 1, now: now),
                    cancelURL: "/outbox/msg-1")
            ),
            (
                "devices",
                DevicesPage(
                    layout: layout("My devices", active: nil), devices: [.init(device)], isEmpty: false, userID: 3, problem: hostile,
                    hasProblem: true, token: hostile, environments: options)
            ),
            (
                "audit",
                AuditListPage(
                    layout: layout("Audit log", active: .audit), staffOptions: options, actionOptions: options, outcomeOptions: options,
                    q: hostile, from: "2026-11-01", to: "", problems: [hostile], matching: 2,
                    rows: [AuditRow(auditEntry(1), now: now, clock: rome), AuditRow(entry, now: now, clock: rome, city: hostile)], isEmpty: false,
                    clockName: rome.clockName,
                    newerHref: nil, olderHref: "/audit?before=1", newestHref: nil, csvHref: "/audit/export?format=csv",
                    spreadsheetHref: "/audit/export?format=spreadsheet-csv",
                    ndjsonHref: "/audit/export?format=ndjson", summaryHref: "/audit/summary", verifyAction: "/audit/verify",
                    verdict: AuditVerdictText(.broken(entryID: 2, reason: hostile)))
            ),
            (
                "audit-entry",
                AuditEntryPage(
                    layout: layout("Audit entry 2", active: .audit), row: AuditRow(entry, now: now, clock: rome), fields: AuditField.fields(of: entry),
                    item: .init(href: "/libraries/slug-2", label: "Open the library in the console →"), older: AuditRow(auditEntry(1), now: now), newer: nil,
                    hashMatches: false, chainsToOlder: true)
            ),
            (
                "audit-summary",
                AuditSummaryPage(
                    layout: layout("Audit summary", active: .audit), range: hostile, problems: [hostile],
                    summary: AuditSummary([
                        DecisionRecord(
                            recordedAt: now, actorUsername: hostile, action: "library.approve", queue: "library", outcome: .applied, secondsWaited: 7_200),
                        DecisionRecord(
                            recordedAt: now, actorUsername: "staff", action: "report.resolve", queue: "report", outcome: .conflict, secondsWaited: nil),
                        DecisionRecord(
                            recordedAt: now, actorUsername: "staff", action: "library.reject", queue: "library", outcome: .applied, secondsWaited: 60,
                            reason: hostile),
                    ]),
                    csvHref: "/audit/summary?format=csv", backHref: "/audit", generatedAt: "2026-11-22 10:00 UTC", madeBy: hostile,
                    clockName: "Rome time", chain: .intact(entries: 3, head: String(repeating: "ab", count: 32)))
            ),
            (
                "statistics",
                StatisticsPage(
                    layout: layout("Statistics", active: .statistics),
                    periods: [
                        PeriodOption(days: 30, href: "/statistics?days=30", current: true), PeriodOption(days: 90, href: "/statistics?days=90", current: false),
                    ],
                    community: [chart()], hasCommunity: true, moderation: [], waitingNow: [], hasWaiting: false, days: 30)
            ),
            ("partials/chart", chart()),
            (
                "take-over-confirm",
                TakeOverPage(
                    layout: layout("Take over?", active: .reports), holder: hostile, timeLeft: "8 min left", item: "report 42", claimID: "17",
                    takeOverURL: "/reports/42/take-over", back: "/reports?x=\"y\"")
            ),
            (
                "oncall",
                OnCallPage(
                    layout: layout("On call", active: .onCall), subnav: OnCallSubnav.links(current: .schedule),
                    targets: AlertsPage.targets(.defaults), alertsSummary: hostile,
                    handoffs: [.init(text: hostile, href: "/on-call/handoffs/3")], hasHandoffs: true, hasRotation: true,
                    rotationSummary: hostile, clockName: "Rome time", hasNow: true,
                    now: .init(who: hostile, isViewer: false, when: "until Tue 24 Nov 09:00", relative: "in 8 h"), hasNext: true,
                    next: .init(who: "You (staff)", isViewer: true, when: "from Tue 24 Nov 09:00", relative: "in 8 h"),
                    weekdays: OnCallCalendar.weekdayNames, weeks: OnCallCalendar(schedule: schedule, viewerID: 3, now: now).weeks,
                    overrides: [
                        .init(
                            who: "staff", from: "Wed 2 Dec 09:00", to: "Thu 3 Dec 09:00", note: hostile, hasNote: true, addedBy: hostile,
                            removeURL: "/on-call/overrides/1/remove")
                    ],
                    hasOverrides: true, staffOptions: options, overrideStartsAt: hostile, overrideEndsAt: "", overrideNote: hostile,
                    overrideProblem: hostile, hasOverrideProblem: true,
                    rotationPicker: RotationPicker(names: [hostile, "maria"], known: ["staff", "maria", "jonas"], typed: hostile, notice: hostile),
                    rotationShiftDays: "7", rotationHandoff: "09:00",
                    rotationTimeZone: "Europe/Rome", rotationStartDate: "2026-11-23", rotationProblem: hostile, hasRotationProblem: true,
                    rotationMove: RotationMove(
                        outgoing: .init(member: StaffMember(id: 3, username: "staff"), startsAt: Self.now.addingTimeInterval(-3_600), endsAt: Self.now),
                        incoming: .init(member: StaffMember(id: 4, username: hostile), startsAt: Self.now, endsAt: Self.now.addingTimeInterval(86_400)),
                        viewerID: 3, outgoingHasNote: true, clock: Self.rome, now: Self.now),
                    hasFeed: true, feedCreated: TeamTime(Self.now.addingTimeInterval(-86_400)),
                    teamClock: TeamClockPanel(
                        choice: TeamClockChoice(zone: Self.rome.zone, twelveHour: true, zoneIsRotations: false), typedZone: hostile, problem: hostile,
                        now: Self.now), newFeedURL: "http://127.0.0.1:8080/calendar/secret.ics?\"x\"",
                    hasNewFeedURL: true)
            ),
            (
                "decide-anyway",
                DecideAnywayPage(
                    layout: layout("Reject anyway?", active: nil), holder: hostile, verb: "Reject", timeLeft: "8 min left", item: "library slug-1",
                    decideURL: "/libraries/slug-1/decide",
                    fields: [
                        HiddenField(name: "decision", value: "reject"), HiddenField(name: "reason", value: hostile), HiddenField(name: "confirmed", value: "1"),
                    ],
                    cancelURL: "/libraries/slug-1")
            ),
            // On call: alerts
            (
                "on-call-alerts",
                AlertsPage(
                    layout: layout("Alerts & targets", active: .onCall), subnav: OnCallSubnav.links(current: .alerts),
                    targets: AlertsPage.targets(QueueTargets(minutes: [.reports: 36 * 60])), problem: hostile, hasProblem: true,
                    active: alertRows().active, hasActive: true, history: alertRows().history, hasHistory: true,
                    watcher: AlertsPage.watcherText(OnCallWatcherConfiguration()))
            ),
        ] + handoffModels()
    }
}

extension PageModels {
    /// The dashboard with a quiet hand-off, every queue clear, made before the mirror's first reads.
    static func dashboardQuiet() throws -> DashboardPage {
        let summary = try summary()
        return DashboardPage(
            layout: {
                var frame = layout("Dashboard", active: .dashboard, summary: summary)
                frame.notice = hostile
                frame.fillsIn = true
                return frame
            }(),
            summary: DashboardPage.Counts(summary),
            queues: [
                DashboardPage.Queue(title: "Libraries", kind: .library, href: "/libraries", total: 0, items: []),
                DashboardPage.Queue(title: "Reports", kind: .report, href: "/reports", total: 0, items: []),
                DashboardPage.Queue(title: "Photos", kind: .photo, href: "/photos", total: 0, items: []),
            ],
            backendState: "ok", backendStatus: "Book Corners is answering normally.", outside: OutsideChanges(changes: [], count: 0),
            deliveryWarning: nil,
            handoff: HandoffPanel(
                received: .init(
                    from: hostile, period: "2026-11-11 12:06 – 2026-11-18 12:06", digestSummary: "0 decisions", noteText: "", hasNote: false,
                    followUpCount: 0, hasFollowUps: false, href: "/on-call/handoffs/6", dismissURL: "/on-call/handoffs/6/dismiss", isQuiet: true),
                noteLink: nil))
    }
}

@Suite("Page snapshots: every page model rendered with fixed data", .timeLimit(.minutes(3)))
struct PageSnapshotTests {
    @Test("every template the console requires has a fixed model here")
    func everyPageCovered() throws {
        #expect(Set(try PageModels.all().map(\.template)) == Set(PageRenderer.requiredTemplates))
    }

    @Test("each page renders as its stored snapshot, the hostile string escaped", arguments: PageRenderer.requiredTemplates)
    func snapshot(template: String) async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        let model = try #require(try PageModels.all().first { $0.template == template }?.model)
        // "layout" is a parent, not a page: the error page shows its every field.
        let name = template == "layout" ? "error" : template

        // act
        let html = try renderer.render(model, with: name).html

        // check
        // Partials keep their snapshot's plain name ("partials/chart" → chart.html).
        try Snapshot.expect(html, matches: URL(fileURLWithPath: template).lastPathComponent)
        #expect(!html.contains("<script>alert"), "no markup from data")
        #expect(html.contains(PageModels.escapedHostile), "the hostile string, escaped")
    }

    @Test("a quiet hand-off is one line, every queue clear says so with no link, and a page made before the first reads is marked to fill in by itself")
    func dashboardQuiet() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        // act
        let html = try renderer.render(try PageModels.dashboardQuiet(), with: "dashboard").html
        // check
        try Snapshot.expect(html, matches: "dashboard-quiet")
        #expect(html.contains("a quiet shift, no decisions and no note") && !html.contains("handoff-panel"))
        #expect(html.contains("<p class=\"next-step\"><span>Nothing is waiting: every queue is clear.</span></p>"))
        #expect(html.contains("data-fills-in"))
    }

    @Test("the Hand-offs page of someone not on call keeps a refused note's text beside its error, and shows their own note not handed over")
    func handoffsNotOnCall() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        // act
        let html = try renderer.render(PageModels.handoffsNotOnCall(), with: "handoffs").html
        // check
        try Snapshot.expect(html, matches: "handoffs-not-on-call")
        #expect(!html.contains("handoff-note-form"), "no form for someone not on call")
        #expect(html.contains(#"<textarea rows="5" cols="70" readonly>\#(PageModels.escapedHostile)</textarea>"#))
        #expect(html.contains("Your note, not handed over yet"))
    }

    @Test("no navigation link shows the bulk confirmation's selection count")
    func bulkConfirmNavigation() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        let model = try #require(try PageModels.all().first { $0.template == "bulk-confirm" }?.model)

        // act
        let html = try renderer.render(model, with: "bulk-confirm").html

        // check: the three queues carry their own counts (17, 7, 7 in the recorded summary), the others none
        let nav = try #require(
            html.range(of: #"<nav aria-label="Main">"#).flatMap { start in
                html.range(of: "</nav>", range: start.upperBound..<html.endIndex).map { String(html[start.upperBound..<$0.lowerBound]) }
            })
        #expect(nav.contains(#"Libraries <span class="count" data-live-count="library">17</span>"#))
        #expect(nav.contains(#"Reports <span class="count" data-live-count="report">7</span>"#))
        for label in ["Dashboard", "Audit", "Outbox", "Statistics"] {
            #expect(nav.contains(">\(label)</a>"), "\(label) has no badge")
        }
        #expect(!nav.contains(#">3</span>"#))
        #expect(html.contains("Reject 3 libraries"), "the page's own count is still there")
    }

    @Test("an empty mirror's list page says the console is still loading, and claims no empty queue")
    func loadingMirror() async throws {
        // setup: the list as it renders before the mirror's first read (no summary, no rows)
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        var status = PageStatus()
        status.mirrored(confirmedAt: nil)
        let layout = LayoutModel(
            title: "Libraries", session: (username: "staff", csrf: "csrf-token"), flash: nil, pendingActions: [], active: .libraries,
            summary: nil, notice: status.notice())
        let page = LibraryListPage(
            layout: layout, statusOptions: [], text: "", country: "", source: "", rows: [], loaded: false,
            pager: Pager(url: .libraries, filters: [], pagination: .mirrored(BookCornersAPI.Page(clampingNumber: 1, size: 20), total: 0)))

        // act
        let html = try renderer.render(page, with: "libraries").html

        // check
        try Snapshot.expect(html, matches: "libraries-loading")
        #expect(html.contains("The console is still loading Book Corners&#39; data"))
        #expect(!html.contains("No libraries match these filters."))
    }

    @Test("a mismatch prints the first differing lines")
    func readableDifference() {
        // act
        let difference = Snapshot.difference(expected: "a\nb\nc", actual: "a\nB\nc\nd")

        // check
        #expect(difference == "line 2 expected: b\nline 2 rendered: B\nline 4 expected: (no line)\nline 4 rendered: d")
    }

}

/// A decision the viewer made on `slug`, ended in `state`.
/// A decision waiting an hour for Book Corners' limit.
private func queuedAction(_ slug: String, actorId: Int, username: String) -> ModerationAction {
    var action = ModerationAction(
        idempotencyKey: "q-\(slug)", actorId: actorId, actorUsername: username, targetKind: .library, targetKey: slug, statusSeen: .pending,
        statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", now: PageModels.now)
    action.id = 41  // as stored: the panel's Cancel names it
    action.state = .waiting
    action.nextAttemptAt = PageModels.now.addingTimeInterval(3_000)
    return action
}

private func decidedAction(_ slug: String, state: ModerationAction.State, message: String) -> ModerationAction {
    var action = ModerationAction(
        idempotencyKey: "k-\(slug)", actorId: 1, actorUsername: "staff", targetKind: .library, targetKey: slug, statusSeen: .pending,
        statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", now: Date(timeIntervalSince1970: 0))
    action.state = state
    action.outcomeMessage = message
    return action
}
