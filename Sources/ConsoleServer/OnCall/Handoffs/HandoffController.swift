import Foundation
import Hummingbird
import ModerationStore

/// The Hand-offs pages: the note for the coming hand-off, past hand-offs with their digests,
/// follow-ups and dismissal. Every change is stored with its audit entry in one transaction.
struct HandoffController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: SessionManager
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

    private func list(request: Request, context: ConsoleRequestContext, problem: String? = nil, noteText: String? = nil) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let now = Date()
        var current: HandoffsPage.Current?
        var zone = "UTC"
        if let schedule = try await store.onCallSchedule(since: now), let shift = schedule.rotation.shiftIndex(at: now) {
            let rotationZone = schedule.rotation.timeZone
            zone = rotationZone.identifier
            let handoffAt = schedule.shift(shift).endsAt
            let onCall = schedule.member(at: now)
            let note = try await store.handoffNote(shiftIndex: shift)
            current = HandoffsPage.Current(
                shift: shift, onCall: onCall?.username ?? "nobody", handoffAt: ZonedTimeText.text(handoffAt, in: rotationZone),
                incoming: schedule.member(at: handoffAt)?.username ?? "nobody", canWriteNote: onCall?.id == session.staffId,
                noteText: noteText ?? note?.text ?? "", noteAuthor: note?.author.username ?? "",
                noteWritten: note.map { ZonedTimeText.text($0.writtenAt, in: rotationZone) } ?? "", hasNote: note != nil,
                noteURL: SiteURL.onCallHandoffNote.path)
        }
        let page = await HandoffsPage(
            layout: LayoutModel(context: context, title: "Hand-offs", active: .onCall, summary: try MirrorPageData.navigationCounts(store)), current: current, timeZone: zone,
            rows: try store.shiftHandoffs(limit: Self.listed).map(HandoffsPage.Row.init), problem: problem)
        var response = try renderer.render(page, with: "handoffs").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    private func show(request: Request, context: ConsoleRequestContext, problem: String? = nil, followUpText: String = "") async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let handoff = try await requestedHandoff(context)
        let page = HandoffPage(
            layout: LayoutModel(context: context, title: "Hand-off of shift \(handoff.shiftIndex)", active: .onCall, summary: try await MirrorPageData.navigationCounts(store)),
            handoff: handoff, followUps: try await store.handoffFollowUps(shiftIndex: handoff.shiftIndex), viewerID: session.staffId,
            followUpText: followUpText, problem: problem)
        var response = try renderer.render(page, with: "handoff").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    // MARK: Changes

    /// The person on call writes or edits the note for the coming hand-off.
    @Sendable func saveNote(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: HandoffNoteForm.self, context: context)
        let text = form.text ?? ""
        let now = Date()
        guard let shift = form.shift.flatMap({ Int($0) }) else { throw ConsoleError.badInput("The note form names no shift: reload the page and try again.") }
        guard let schedule = try await store.onCallSchedule(since: now), schedule.rotation.shiftIndex(at: now) == shift else {
            try await sessions.flash(HandoffError.alreadyHandedOver.description, sessionID: session.id)
            return .redirect(to: SiteURL.onCallHandoffs.path, type: .normal)
        }
        guard schedule.member(at: now)?.id == session.staffId else {
            try await sessions.flash("Only the person on call now writes the note for the next person.", sessionID: session.id)
            return .redirect(to: SiteURL.onCallHandoffs.path, type: .normal)
        }
        let entry = audit.staffEntry(
            "handoff.note", targetKind: "handoff", targetId: String(shift), targetName: "hand-off of shift \(shift)", context: context,
            userAgent: request.userAgent)
        do {
            try await store.saveHandoffNote(
                shiftIndex: shift, author: StaffMember(id: session.staffId, username: session.username), text: text, audit: entry, now: now)
        } catch let error as HandoffError {
            switch error {
            case .emptyNote, .noteTooLong:
                return try await list(request: request, context: context, problem: error.description, noteText: text)
            default:
                try await sessions.flash(error.description, sessionID: session.id)
                return .redirect(to: SiteURL.onCallHandoffs.path, type: .normal)
            }
        }
        try await sessions.flash("Note saved: it goes with the hand-off digest.", sessionID: session.id)
        return .redirect(to: SiteURL.onCallHandoffs.path, type: .normal)
    }

    /// The outgoing person adds a follow-up after the hand-off.
    @Sendable func addFollowUp(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let handoff = try await requestedHandoff(context)
        let form = try await request.decodeForm(as: HandoffFollowUpForm.self, context: context)
        let text = form.text ?? ""
        let back = SiteURL.onCallHandoff(handoff.shiftIndex).path
        let entry = audit.staffEntry(
            "handoff.followUp", targetKind: "handoff", targetId: String(handoff.shiftIndex), targetName: "hand-off of shift \(handoff.shiftIndex)",
            context: context, userAgent: request.userAgent)
        do {
            try await store.addHandoffFollowUp(
                shiftIndex: handoff.shiftIndex, author: StaffMember(id: session.staffId, username: session.username), text: text, audit: entry,
                now: Date())
        } catch let error as HandoffError {
            switch error {
            case .emptyNote, .noteTooLong:
                return try await show(request: request, context: context, problem: error.description, followUpText: text)
            default:
                try await sessions.flash(error.description, sessionID: session.id)
                return .redirect(to: back, type: .normal)
            }
        }
        try await sessions.flash("Follow-up added.", sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }

    /// The incoming person takes the hand-off off their dashboard.
    @Sendable func dismiss(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let handoff = try await requestedHandoff(context)
        let form = try await request.decodeForm(as: HandoffDismissForm.self, context: context)
        let back = form.from == "dashboard" ? SiteURL.dashboard.path : SiteURL.onCallHandoff(handoff.shiftIndex).path
        let entry = audit.staffEntry(
            "handoff.dismiss", targetKind: "handoff", targetId: String(handoff.shiftIndex), targetName: "hand-off of shift \(handoff.shiftIndex)",
            statusBefore: ShiftHandoff.State.shown.rawValue, statusAfter: ShiftHandoff.State.dismissed.rawValue, context: context,
            userAgent: request.userAgent)
        let flash: String
        do {
            try await store.dismissHandoff(
                shiftIndex: handoff.shiftIndex, by: StaffMember(id: session.staffId, username: session.username), audit: entry, now: Date())
            flash = "Hand-off dismissed: it stays on the Hand-offs page."
        } catch let error as HandoffError {
            flash = error.description
        }
        try await sessions.flash(flash, sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }

    private func requestedHandoff(_ context: ConsoleRequestContext) async throws -> ShiftHandoff {
        guard let text = SiteURL.Route.onCallHandoff.value(in: context.parameters), text.count <= 9,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let shift = Int(text), shift >= 0, let handoff = try await store.shiftHandoff(shift)
        else { throw ConsoleError.notFound }
        return handoff
    }
}
