import Foundation
import Hummingbird
import ModerationStore

/// The Hand-offs pages: the note for the coming hand-off, past hand-offs with their digests,
/// follow-ups and dismissal. Every change is stored with its audit entry in one transaction.
struct HandoffController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    /// How many past hand-offs the list shows.
    static let listed = 50

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.onCallHandoffs.pattern) { request, context in
            try await list(request: request, context: context)
        }
        router.get(SiteURL.Route.onCallHandoff.pattern) { request, context in
            try await show(request: request, context: context)
        }
        router.post(SiteURL.Route.onCallHandoffNote.pattern, use: saveNote)
        router.post(SiteURL.Route.onCallHandoffFollowUp.pattern, use: addFollowUp)
        router.post(SiteURL.Route.onCallHandoffDismiss.pattern, use: dismiss)
    }

    // MARK: Pages

    private func list(request: Request, context: ConsoleRequestContext, problem: String? = nil, typedText: String? = nil) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let now = Date()
        let schedule = try await store.onCallSchedule(since: now.addingTimeInterval(-HandoffNoteWriter.grace))
        var current: HandoffsPage.Current?
        var zone = "UTC"
        var ownNote: HandoffNote?
        if let schedule {
            let clock = TeamClock.current.on(schedule.rotation.timeZone)
            zone = "\(clock.clockName), \(schedule.rotation.timeZone.identifier)"
            // The same question the header asks: who is on call now, and who next from when.
            let (onCall, next) = schedule.nowAndNext(at: now)
            let canWrite = try await HandoffNoteWriter.standing(session.staffId, schedule: schedule, now: now, store: store) != nil
            // The note shown is the writer's: the viewer's when the form is theirs, else the person on call's.
            let writer = canWrite ? session.staffId : onCall?.member.id
            var note: HandoffNote?
            if let writer { note = try await store.pendingHandoffNote(authorID: writer) }
            current = HandoffsPage.Current(
                onCall: onCall?.member.username ?? "", hasOnCall: onCall != nil, handoffAt: next.map { clock.dayAndTime($0.startsAt, now: now) } ?? "",
                handoffStamp: next.map { String(Int($0.startsAt.timeIntervalSince1970)) } ?? "", incoming: next?.member.username ?? "",
                hasNext: next != nil, canWriteNote: canWrite,
                // Text a refusal kept goes back in the viewer's own form, never under someone else's name.
                noteText: (canWrite ? typedText : nil) ?? note?.text ?? "", noteAuthor: note?.author.username ?? "",
                noteWritten: note.map { clock.dayAndTime($0.writtenAt, now: now) } ?? "", hasNote: note != nil, noteURL: SiteURL.onCallHandoffNote.path)
            // Someone not on call may still have a note waiting for their next hand-off.
            if !canWrite { ownNote = try await store.pendingHandoffNote(authorID: session.staffId) }
        }
        let page = await HandoffsPage(
            layout: LayoutModel(context: context, title: "Hand-offs", active: .onCall, summary: try MirrorPageData.navigationCounts(store)),
            current: current, timeZone: zone, ownNote: ownNote?.text, rows: try store.shiftHandoffs(limit: Self.listed).map(HandoffsPage.Row.init),
            problem: problem, keptText: typedText ?? "")
        var response = try renderer.render(page, with: "handoffs").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    private func show(
        request: Request, context: ConsoleRequestContext, handoff given: ShiftHandoff? = nil, problem: String? = nil, followUpText: String = ""
    ) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let handoff = if let given { given } else { try await requestedHandoff(context) }
        let page = HandoffPage(
            layout: LayoutModel(
                context: context, title: HandoffPage.title(of: handoff), active: .onCall, summary: try await MirrorPageData.navigationCounts(store)),
            handoff: handoff, followUps: try await store.handoffFollowUps(handoffID: handoff.id), viewerID: session.staffId,
            followUpText: followUpText, problem: problem)
        var response = try renderer.render(page, with: "handoff").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    // MARK: Changes

    /// The person on call writes or edits the note for the next person; it goes with their next hand-off.
    @Sendable func saveNote(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: HandoffNoteForm.self, context: context)
        let text = form.text ?? ""
        let now = Date()
        let author = StaffMember(id: session.staffId, username: session.username)
        let schedule = try await store.onCallSchedule(since: now.addingTimeInterval(-HandoffNoteWriter.grace))
        guard let standing = try await HandoffNoteWriter.standing(session.staffId, schedule: schedule, now: now, store: store) else {
            return try await refuseLateNote(request: request, context: context, text: text, form: form, schedule: schedule, now: now)
        }
        let next = schedule?.nextHandoff(after: now)
        let entry = audit.staffEntry(
            "handoff.note", targetKind: "handoffNote", targetId: String(session.staffId),
            targetName: next.map { "note for \($0.incoming.member.username)" } ?? "note for the next person", context: context,
            userAgent: request.userAgent)
        do {
            try await store.savePendingHandoffNote(
                author: author, text: text, audit: entry, now: now, handoffNotBuiltAt: standing.handoffNotBuiltAt)
        } catch HandoffError.handedOverMeanwhile {
            return try await refuseLateNote(request: request, context: context, text: text, form: form, schedule: schedule, now: now)
        } catch let error as HandoffError {
            return try await list(request: request, context: context, problem: error.description, typedText: text)
        }
        let whom = next.map { " for \($0.incoming.member.username)" } ?? ""
        try await sessions.flash("Note saved\(whom): it goes with the digest at your hand-off.", sessionID: session.id)
        return .redirect(to: SiteURL.onCallHandoffs.path, type: .normal)
    }

    /// A note from someone who may not write it now. When their hand-off happened while they
    /// wrote, its page opens with the text in the follow-up form; otherwise the list says who
    /// is on call. The text is kept either way.
    private func refuseLateNote(
        request: Request, context: ConsoleRequestContext, text: String, form: HandoffNoteForm, schedule: OnCallSchedule?, now: Date
    ) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let promised = form.handoffAt.flatMap(TimeInterval.init).flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil }
        let since = promised?.addingTimeInterval(-1) ?? now.addingTimeInterval(-HandoffService.backfillLimit)
        if let handoff = try await store.latestHandoff(outgoingID: session.staffId, since: since) {
            let clock = TeamClock.current
            return try await show(
                request: request, context: context, handoff: handoff,
                problem: "Your hand-off to \(handoff.incoming.username) happened at \(clock.dayAndTime(handoff.endsAt)), before this note was "
                    + "saved, so it did not go with the digest. Your text is below: add it as a follow-up.",
                followUpText: text)
        }
        let onCall = schedule?.member(at: now)?.username
        let problem =
            "Only the person on call writes the note for the next person"
            + (onCall.map { ", and \($0) is on call now" } ?? ", and nobody is on call now") + ". Your text is below, not saved."
        return try await list(request: request, context: context, problem: problem, typedText: text)
    }

    /// The outgoing person adds a follow-up after the hand-off.
    @Sendable func addFollowUp(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let handoff = try await requestedHandoff(context)
        let form = try await request.decodeForm(as: HandoffFollowUpForm.self, context: context)
        let text = form.text ?? ""
        let entry = audit.staffEntry(
            "handoff.followUp", targetKind: "handoff", targetId: String(handoff.id), targetName: HandoffPage.title(of: handoff),
            context: context, userAgent: request.userAgent)
        do {
            try await store.addHandoffFollowUp(
                handoffID: handoff.id, author: StaffMember(id: session.staffId, username: session.username), text: text, audit: entry, now: Date())
        } catch let error as HandoffError {
            return try await show(request: request, context: context, handoff: handoff, problem: error.description, followUpText: text)
        }
        try await sessions.flash("Follow-up added.", sessionID: session.id)
        return .redirect(to: SiteURL.onCallHandoff(handoff.id).path, type: .normal)
    }

    /// The incoming person takes the hand-off off their dashboard.
    @Sendable func dismiss(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let handoff = try await requestedHandoff(context)
        let form = try await request.decodeForm(as: HandoffDismissForm.self, context: context)
        let back = form.from == "dashboard" ? SiteURL.dashboard.path : SiteURL.onCallHandoff(handoff.id).path
        let entry = audit.staffEntry(
            "handoff.dismiss", targetKind: "handoff", targetId: String(handoff.id), targetName: HandoffPage.title(of: handoff),
            statusBefore: ShiftHandoff.State.shown.rawValue, statusAfter: ShiftHandoff.State.dismissed.rawValue, context: context,
            userAgent: request.userAgent)
        let flash: String
        do {
            try await store.dismissHandoff(
                id: handoff.id, by: StaffMember(id: session.staffId, username: session.username), audit: entry, now: Date())
            flash = "Hand-off dismissed: it stays on the Hand-offs page."
        } catch let error as HandoffError {
            flash = error.description
        }
        try await sessions.flash(flash, sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }

    private func requestedHandoff(_ context: ConsoleRequestContext) async throws -> ShiftHandoff {
        guard let text = SiteURL.Route.onCallHandoff.value(in: context.parameters), text.count <= 18,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int64(text), let handoff = try await store.shiftHandoff(id: id)
        else { throw ConsoleError.notFound }
        return handoff
    }
}
