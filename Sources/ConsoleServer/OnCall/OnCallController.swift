import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary

/// The On call page: who is on call now and next, four weeks of the schedule, overrides, the
/// rotation's settings and the viewer's private calendar feed. Every change is audited with it.
struct OnCallController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    /// The console's address as browsers see it, for the calendar feed's link; `nil`: the request's own.
    let publicURL: URL?
    /// Builds the hand-off a rotation change makes when it moves who is on call now.
    let handoffs: HandoffService

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.onCall.pattern) { request, context in
            try await page(request: request, context: context)
        }
        router.post(SiteURL.Route.onCallRotation.pattern, use: saveRotation)
        router.post(SiteURL.Route.onCallClock.pattern, use: saveTeamClock)
        router.post(SiteURL.Route.onCallOverrides.pattern, use: addOverride)
        router.post(SiteURL.Route.onCallOverrideRemove.pattern, use: removeOverride)
        router.post(SiteURL.Route.onCallCalendarFeed.pattern, use: regenerateFeed)
        router.post(SiteURL.Route.onCallCalendarFeedRevoke.pattern, use: revokeFeed)
    }

    /// What the forms on the page hold when one comes back with a problem.
    private struct Draft {
        var rotation: RotationForm?
        var rotationProblem: String?
        /// The rotation's list after an Add, Up, Down or Remove: shown, not yet saved.
        var rotationNames: [String]?
        var rotationNotice: String?
        var override: OverrideForm?
        var overrideProblem: String?
        var newFeedURL: String?
        var teamClockZone: String?
        var teamClockProblem: String?
        var rotationMove: RotationMove?
    }

    private func page(request: Request, context: ConsoleRequestContext, draft: Draft = Draft()) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let now = Date()
        let schedule = try await store.onCallSchedule(since: now)
        let staff = try await store.staffMembers()
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        let clock = schedule.map { TeamClock.current.on($0.rotation.timeZone) }
        let (current, next) = schedule?.nowAndNext(at: now) ?? (nil, nil)
        func turn(_ turn: OnCallSchedule.Turn?, until: Bool) -> OnCallPage.Turn {
            guard let turn, let clock else { return OnCallPage.Turn(who: "", isViewer: false, when: "", relative: "") }
            let instant = until ? turn.endsAt : turn.startsAt
            return OnCallPage.Turn(
                who: turn.member.id == session.staffId ? "You (\(turn.member.username))" : turn.member.username,
                isViewer: turn.member.id == session.staffId, when: (until ? "until " : "from ") + clock.dayAndTime(instant, now: now),
                relative: OnCallTimeText.from(now, to: instant))
        }
        let rotation = schedule?.rotation
        let overrides = schedule?.overrides.filter { $0.endsAt > now } ?? []
        let feedCreated = try await store.calendarFeedCreatedAt(staffId: session.staffId)
        let rotationForm = draft.rotation
        let overrideForm = draft.override
        let overdue = try await store.activeQueueAlerts()
        let handoffs = try await store.shiftHandoffs(limit: 3)
        var page = await OnCallPage(
            layout: LayoutModel(context: context, title: "On call", active: .onCall, summary: summary),
            subnav: OnCallSubnav.links(current: .schedule), targets: AlertsPage.targets(try store.queueTargets()),
            alertsSummary: overdue.isEmpty
                ? "No queue is past its target now."
                : "Overdue now: "
                    + overdue.map { "\($0.queue.label) (\($0.state == .acknowledged ? "acknowledged" : "not acknowledged"))" }
                    .joined(separator: ", ") + ".",
            handoffs: handoffs.map { handoff in
                OnCallPage.HandoffLine(
                    text: HandoffPage.title(of: handoff) + ": " + CountText.of(handoff.digest.decisionCount, "decision", "decisions"),
                    href: SiteURL.onCallHandoff(handoff.id).path)
            },
            hasHandoffs: !handoffs.isEmpty, hasRotation: schedule != nil,
            rotationSummary: rotation.map { rotation in
                let length = rotation.shiftDays == 1 ? "One-day shifts" : "\(rotation.shiftDays)-day shifts"
                let clock = TeamClock.current.on(rotation.timeZone)
                return "\(length), handing off at \(clock.time(rotation.handoff)) \(clock.clockName) (\(rotation.timeZone.identifier)), "
                    + "from \(rotation.startDate): \(rotation.members.map(\.username).joined(separator: " → "))."
            } ?? "",
            clockName: clock?.clockName ?? "", hasNow: current != nil, now: turn(current, until: true), hasNext: next != nil,
            next: turn(next, until: false), weekdays: OnCallCalendar.weekdayNames,
            weeks: schedule.map { OnCallCalendar(schedule: $0, viewerID: session.staffId, now: now).weeks } ?? [],
            overrides: overrides.map { cover in
                OnCallPage.OverrideRow(
                    who: cover.staff.username, from: clock?.dayAndTime(cover.startsAt, now: now) ?? "", to: clock?.dayAndTime(cover.endsAt, now: now) ?? "",
                    note: cover.note, hasNote: !cover.note.isEmpty, addedBy: cover.createdBy, removeURL: SiteURL.onCallOverrideRemove(cover.id).path)
            },
            hasOverrides: !overrides.isEmpty,
            staffOptions: staff.map {
                FilterOption(value: $0.username, label: $0.username, selected: $0.username == (overrideForm?.staff ?? session.username))
            },
            overrideStartsAt: overrideForm?.startsAt ?? "", overrideEndsAt: overrideForm?.endsAt ?? "", overrideNote: overrideForm?.note ?? "",
            overrideProblem: draft.overrideProblem ?? "", hasOverrideProblem: draft.overrideProblem != nil,
            rotationPicker: RotationPicker(
                names: draft.rotationNames ?? rotation?.members.map(\.username) ?? [session.username], known: staff.map(\.username),
                typed: draft.rotationProblem == nil ? "" : (rotationForm?.addUsername ?? ""), notice: draft.rotationNotice ?? ""),
            rotationShiftDays: rotationForm?.shiftDays ?? rotation.map { String($0.shiftDays) } ?? "7",
            rotationHandoff: rotationForm?.handoff ?? TeamClock.current.time(rotation?.handoff ?? LocalTime(hour: 9, minute: 0)),
            rotationTimeZone: rotationForm?.timeZone ?? rotation?.timeZone.identifier ?? TeamClock.current.zone.identifier,
            rotationStartDate: rotationForm?.startDate ?? rotation?.startDate.description ?? LocalDate(now, in: .gmt).description,
            rotationProblem: draft.rotationProblem ?? "", hasRotationProblem: draft.rotationProblem != nil,
            hasFeed: feedCreated != nil, feedCreated: TeamTime(feedCreated),
            teamClock: TeamClockPanel(choice: try await store.teamClock(), typedZone: draft.teamClockZone, problem: draft.teamClockProblem, now: now),
            newFeedURL: draft.newFeedURL ?? "", hasNewFeedURL: draft.newFeedURL != nil)
        page.stoppedFeeds = try await store.stoppedCalendarFeeds().map(IdleCalendarFeeds.line)
        page.rotationMove = draft.rotationMove
        let problem = draft.rotationProblem != nil || draft.overrideProblem != nil || draft.teamClockProblem != nil
        return try renderer.render(page, with: "oncall", status: problem ? .badRequest : .ok).response(from: request, context: context)
    }

    @Sendable func saveRotation(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: RotationForm.self, context: context)
        let staff = try await store.staffMembers()
        // Add, Up, Down and Remove change the list on the page only; Save rotation stores it.
        let edited: [String]?
        do {
            edited = try form.edited(staff: staff)
        } catch {
            return try await page(
                request: request, context: context,
                draft: Draft(
                    rotation: form, rotationProblem: error.description + " Nothing was changed.", rotationNames: form.names))
        }
        if let edited {
            return try await page(
                request: request, context: context,
                draft: Draft(
                    rotation: form, rotationNames: edited, rotationNotice: "Not saved yet: the rotation changes when you press Save rotation."))
        }
        let rotation: Rotation
        do {
            rotation = try form.rotation(staff: staff)
        } catch {
            return try await page(
                request: request, context: context,
                draft: Draft(
                    rotation: form, rotationProblem: error.description + " Nothing was changed.", rotationNames: form.names))
        }
        let before = try await store.rotation()
        let now = Date()
        let schedule = try await store.onCallSchedule(since: now.addingTimeInterval(-Double(Rotation.maxShiftDays + 1) * 86_400), now: now)
        let move = RotationMove.saving(rotation, over: schedule, at: now)
        let confirmed = form.edit == "confirm"
        if let move, !confirmed || form.handOverFrom != String(move.outgoing.member.id) || form.handOverTo != move.incoming.map({ String($0.member.id) }) ?? ""
        {
            // Nothing is saved until the person has read who is on call once it is; a confirmation
            // of another move (the schedule changed meanwhile) asks again with the new words.
            let note = try await store.pendingHandoffNote(authorID: move.outgoing.member.id) != nil
            let words = RotationMove(
                outgoing: move.outgoing, incoming: move.incoming, viewerID: session.staffId, outgoingHasNote: note,
                clock: TeamClock.current.on(rotation.timeZone), now: now)
            return try await page(
                request: request, context: context,
                draft: Draft(
                    rotation: form, rotationNames: form.names,
                    rotationNotice: confirmed ? "Who is on call changed since that page: read what saving does now." : nil, rotationMove: words))
        }
        let entry = audit.staffEntry(
            "rotation.update", targetKind: "oncall", targetId: "1", targetName: "rotation",
            statusBefore: before.map(Self.describe) ?? "", statusAfter: Self.describe(rotation), context: context,
            userAgent: request.userAgent)
        let handedOver: ShiftHandoff?
        do {
            handedOver = try await handoffs.changeRotation(
                rotation, replacing: before, handingOver: move.flatMap { move in move.incoming.map { (outgoing: move.outgoing, incoming: $0.member) } },
                audit: entry,
                at: now)
        } catch let error as RotationError {
            return try await page(
                request: request, context: context,
                draft: Draft(rotation: form, rotationProblem: error.description + " Nothing was changed.", rotationNames: form.names))
        }
        var flash = "Rotation saved: \(Self.describe(rotation))."
        if let handedOver {
            let incoming = handedOver.incoming.id == session.staffId ? "You are" : "\(handedOver.incoming.username) is"
            let note = handedOver.digest.note == nil ? "" : ", with the note for the next person"
            flash += " \(incoming) on call now: the hand-off from \(handedOver.outgoing.username) is built\(note)."
        }
        try await sessions.flash(flash, sessionID: session.id)
        return .redirect(to: SiteURL.onCall.path, type: .normal)
    }

    /// Saves the team's clock: 24- or 12-hour, and its zone while no rotation has one (the
    /// rotation's zone is changed with the rotation). Every page reads it from the next request.
    @Sendable func saveTeamClock(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: TeamClockForm.self, context: context)
        func refused(_ problem: String) async throws -> Response {
            try await page(request: request, context: context, draft: Draft(teamClockZone: form.timeZone, teamClockProblem: problem + " Nothing was changed."))
        }
        let before = try await store.teamClockSetting()
        let choice = try await store.teamClock()
        guard let hours = form.hours, hours == "24" || hours == "12" else { return try await refused("Choose 24-hour or 12-hour.") }
        var setting = TeamClockSetting(chosenZone: before.chosenZone, twelveHour: hours == "12")
        if !choice.zoneIsRotations, let typed = form.timeZone {
            do {
                setting.chosenZone = try RotationForm.zone(typed)
            } catch {
                return try await refused(error.description)
            }
        }
        let zoneAfter = choice.zoneIsRotations ? choice.zone : (setting.chosenZone ?? .current)
        let entry = audit.staffEntry(
            "teamClock.update", targetKind: "oncall", targetId: "1", targetName: "team clock",
            statusBefore: "\(before.hoursText), \(choice.zone.identifier)", statusAfter: "\(setting.hoursText), \(zoneAfter.identifier)",
            context: context, userAgent: request.userAgent)
        try await store.saveTeamClockSetting(setting, audit: entry, now: Date())
        let clock = OnCallTimeText(zone: zoneAfter, twelveHour: setting.twelveHour)
        try await sessions.flash(
            "Team clock saved: \(setting.hoursText), \(clock.clockName). Times now read like \(clock.stamp(Date())).", sessionID: session.id)
        return .redirect(to: SiteURL.onCall.path + "#team-clock", type: .normal)
    }

    @Sendable func addOverride(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: OverrideForm.self, context: context)
        func problem(_ text: String) async throws -> Response {
            try await page(request: request, context: context, draft: Draft(override: form, overrideProblem: text + " Nothing was added."))
        }
        guard let rotation = try await store.rotation() else { return try await problem("Set up the rotation first: an override covers part of it.") }
        guard let username = form.staff, let member = try await store.staffMember(username: username) else {
            return try await problem("Choose who covers from the list of staff.")
        }
        if let skipped = OverrideForm.skipped(form.startsAt, in: rotation.timeZone) ?? OverrideForm.skipped(form.endsAt, in: rotation.timeZone) {
            return try await problem(
                "\(skipped) does not happen in \(rotation.timeZone.identifier): the clocks go forward that night. Give a time after the change.")
        }
        guard let startsAt = OverrideForm.instant(form.startsAt, in: rotation.timeZone), let endsAt = OverrideForm.instant(form.endsAt, in: rotation.timeZone)
        else {
            return try await problem("Give the start and the end as a date and a time, such as 2026-11-24 09:00.")
        }
        let note = TypedText.withLineFeeds(form.note ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard note.count <= OverrideForm.noteLimit else {
            return try await problem("The note is \(note.count) characters; keep it to \(OverrideForm.noteLimit).")
        }
        let clock = TeamClock.current.on(rotation.timeZone)
        let span = "\(clock.dayAndTime(startsAt)) – \(clock.dayAndTime(endsAt))"
        let entry = audit.staffEntry(
            "override.add", targetKind: "oncall", targetId: "", targetName: "\(member.username) covers \(span)", statusAfter: note,
            context: context, userAgent: request.userAgent)
        let added: Int64?
        do {
            added = try await store.addOverride(
                staff: member, startsAt: startsAt, endsAt: endsAt, note: note, audit: entry, now: Date(), formKey: DecisionForm.idempotencyKey(form.key))
        } catch let error as RotationError {
            return try await problem(error.description)
        }
        guard added != nil else {
            try await sessions.flash("This override was already added (the form was sent twice); it is listed once.", sessionID: session.id)
            return .redirect(to: SiteURL.onCall.path, type: .normal)
        }
        try await sessions.flash("\(member.username) covers \(span).", sessionID: session.id)
        return .redirect(to: SiteURL.onCall.path, type: .normal)
    }

    @Sendable func removeOverride(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let text = SiteURL.Route.onCallOverrideRemove.value(in: context.parameters), let id = Int64(text) else { throw ConsoleError.notFound }
        let flash: String
        if let cover = try await store.override(id: id) {
            let clock = await TeamClock.current.on(try store.rotation()?.timeZone ?? .gmt)
            let span = "\(clock.dayAndTime(cover.startsAt)) – \(clock.dayAndTime(cover.endsAt))"
            let entry = audit.staffEntry(
                "override.remove", targetKind: "oncall", targetId: String(id), targetName: "\(cover.staff.username) covers \(span)",
                statusBefore: cover.note, context: context, userAgent: request.userAgent)
            do {
                try await store.removeOverride(id: id, audit: entry)
                flash = "Removed: \(cover.staff.username) no longer covers \(span)."
            } catch RotationError.noSuchOverride {
                flash = RotationError.noSuchOverride.description
            }
        } else {
            flash = RotationError.noSuchOverride.description
        }
        try await sessions.flash(flash, sessionID: session.id)
        return .redirect(to: SiteURL.onCall.path, type: .normal)
    }

    /// A new secret feed address for the viewer, shown once on the page that answers.
    @Sendable func regenerateFeed(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        _ = try await request.decodeForm(as: CalendarFeedForm.self, context: context)
        let entry = audit.staffEntry(
            "calendar.regenerate", targetKind: "oncall", targetId: String(session.staffId), targetName: "calendar feed of \(session.username)",
            context: context, userAgent: request.userAgent)
        try await store.recordStaffMember(StaffMember(id: session.staffId, username: session.username), signedInAt: nil)
        let token = try await store.regenerateCalendarFeed(staffId: session.staffId, audit: entry, now: Date())
        let origin =
            publicURL.map { $0.absoluteString.hasSuffix("/") ? String($0.absoluteString.dropLast()) : $0.absoluteString }
            ?? "http://\(request.head.authority ?? "localhost")"
        var response = try await page(
            request: request, context: context, draft: Draft(newFeedURL: origin + SiteURL.calendarFeed(token + CalendarFeedController.suffix).path))
        // The secret is on this page only: never kept by a cache.
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// Stops the viewer's feed address at once (their own only); a new one can be made any time.
    @Sendable func revokeFeed(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        _ = try await request.decodeForm(as: CalendarFeedForm.self, context: context)
        let entry = audit.staffEntry(
            AuditEntry.calendarFeedRevokeAction, targetKind: "oncall", targetId: String(session.staffId),
            targetName: "calendar feed of \(session.username)", context: context, userAgent: request.userAgent)
        let revoked = try await store.revokeCalendarFeed(staffId: session.staffId, audit: entry)
        try await sessions.flash(
            revoked
                ? "Your calendar feed address no longer works: a calendar app that reads it gets nothing from now on. Make a new one whenever you want your shifts there again."
                : "You have no calendar feed address, so there was nothing to stop.",
            sessionID: session.id)
        return .redirect(to: SiteURL.onCall.path, type: .normal)
    }

    static func describe(_ rotation: Rotation) -> String {
        "\(rotation.members.map(\.username).joined(separator: ", ")); \(rotation.shiftDays) d shifts at \(rotation.handoff) \(rotation.timeZone.identifier) from \(rotation.startDate)"
    }
}

/// The calendar feed form carries nothing but its CSRF token.
struct CalendarFeedForm: Decodable, Sendable {}
