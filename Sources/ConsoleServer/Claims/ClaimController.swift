import Foundation
import Hummingbird
import ModerationStore

/// "I'm reviewing this": claims, releases and take-overs of one library, report or photo, from
/// its row or its page. Claims warn colleagues; they never block a decision.
struct ClaimController {
    let store: ModerationStore
    let sessions: StaffSessions
    let renderer: PageRenderer
    let audit: StaffAuditWriter
    /// How long a claim lasts unless its holder decides or releases it first.
    let duration: TimeInterval

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        for kind in ModerationAction.TargetKind.allCases {
            router.post(ClaimRoute.claim.route(for: kind).pattern) { request, context in
                try await claim(kind, request: request, context: context)
            }
            router.post(ClaimRoute.release.route(for: kind).pattern) { request, context in
                try await release(kind, request: request, context: context)
            }
            router.post(ClaimRoute.takeOver.route(for: kind).pattern) { request, context in
                try await takeOver(kind, request: request, context: context)
            }
        }
    }

    private func claim(_ kind: ModerationAction.TargetKind, request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let (session, target) = try signedInTarget(kind, .claim, context)
        let form = try await request.decodeForm(as: ClaimForm.self, context: context)
        let now = Date()
        // Only what waits can be claimed: a list seen before a decision, or an address typed by hand, must not claim the rest.
        if let refusal = try await notClaimable(target) {
            try await sessions.flash(refusal, sessionID: session.id)
            return .redirect(to: back(form, target), type: .normal)
        }
        let message =
            switch try await store.claim(target, holderId: session.staffId, holderUsername: session.username, now: now, duration: duration) {
            case .claimed(let claim):
                "You are reviewing \(await ItemText.name(target, store: store)) for the next \(claim.minutesLeft(at: now)) min: others see it. Deciding or Release ends it."
            case .heldByOther(let claim, let minutesLeft):
                "\(claim.holderUsername) is already reviewing \(await ItemText.name(target, store: store)) (\(minutesLeft) min left), so it is not yours. Take it over… if you must."
            }
        try await sessions.flash(message, sessionID: session.id)
        return .redirect(to: back(form, target), type: .normal)
    }

    private func release(_ kind: ModerationAction.TargetKind, request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let (session, target) = try signedInTarget(kind, .release, context)
        let form = try await request.decodeForm(as: ClaimForm.self, context: context)
        let message: String
        do {
            try await store.releaseClaim(target, holderId: session.staffId, holderUsername: session.username, now: Date())
            message = "You are no longer reviewing \(await ItemText.name(target, store: store)): anyone may claim it."
        } catch ClaimStoreError.notHeld(let current) {
            message = await notYours(target, current: current, viewerId: session.staffId)
        }
        try await sessions.flash(message, sessionID: session.id)
        return .redirect(to: back(form, target), type: .normal)
    }

    /// Without `confirmed=1`: the confirmation page. With it: the take-over, audited.
    private func takeOver(_ kind: ModerationAction.TargetKind, request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let (session, target) = try signedInTarget(kind, .takeOver, context)
        let form = try await request.decodeForm(as: ClaimForm.self, context: context)
        let back = back(form, target)
        let now = Date()
        let current = try await store.activeClaim(target, now: now)
        guard let current, let currentID = current.id, current.holderId != session.staffId else {
            try await sessions.flash(
                current == nil
                    ? "Nobody is reviewing \(ItemText.name(target, store: store)) now: claim it with “I'm reviewing this”."
                    : "You are already reviewing \(ItemText.name(target, store: store)).",
                sessionID: session.id)
            return .redirect(to: back, type: .normal)
        }
        guard form.confirmed == "1" else {
            let page = TakeOverPage(
                layout: LayoutModel(context: context, title: "Take over?", active: Self.area(kind), summary: nil),
                holder: current.holderUsername, timeLeft: "\(current.minutesLeft(at: now)) min left", item: await ItemText.name(target, store: store),
                claimID: String(currentID), takeOverURL: SiteURL.claimTakeOver(target).path, back: back)
            return try renderer.render(page, with: "take-over-confirm").response(from: request, context: context)
        }
        // Only the claim the confirmation showed: if it changed meanwhile, the person decides again.
        guard form.claim == String(currentID) else {
            try await sessions.flash(
                "\(current.holderUsername) is reviewing \(ItemText.name(target, store: store)) now (the claim changed since you asked). Nothing was taken over; try again if you still want it.",
                sessionID: session.id)
            return .redirect(to: back, type: .normal)
        }
        let entry = await audit.staffEntry(
            "claim.takeOver", targetKind: kind.rawValue, targetId: target.key, targetName: ItemText.name(target, store: store),
            statusBefore: "reviewed by \(current.holderUsername)", statusAfter: "reviewed by \(session.username)", context: context,
            userAgent: request.userAgent)
        let message: String
        do {
            let claim = try await store.takeOverClaim(
                currentID, target: target, holderId: session.staffId, holderUsername: session.username, now: now, duration: duration, audit: entry)
            message =
                "You took over \(await ItemText.name(target, store: store)) from \(current.holderUsername) (\(claim.minutesLeft(at: now)) min): they now see that you are reviewing it."
        } catch ClaimStoreError.notHeld(let now) {
            message = await notYours(target, current: now) + " Nothing was taken over."
        }
        try await sessions.flash(message, sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }

    // MARK: Input and words

    private func signedInTarget(
        _ kind: ModerationAction.TargetKind, _ action: ClaimRoute, _ context: ConsoleRequestContext
    ) throws -> (StaffSession, ItemClaim.Target) {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let key = action.route(for: kind).value(in: context.parameters) else { throw ConsoleError.notFound }
        // Only a real id or slug can name an item.
        switch kind {
        case .library: guard ItemReference.isSlug(key) else { throw ConsoleError.notFound }
        case .report, .photo: guard ItemReference.id(key) != nil else { throw ConsoleError.notFound }
        }
        return (session, ItemClaim.Target(kind: kind, key: key))
    }

    /// Where to return: the form's page, else the item's own page or its queue; on a list, at
    /// the item's row (without script the browser would otherwise open the list at its top).
    private func back(_ form: ClaimForm, _ target: ItemClaim.Target) -> String {
        let fallback =
            switch target.kind {
            case .library: SiteURL.library(target.key).path
            case .report: SiteURL.reports.path
            case .photo: SiteURL.photos.path
            }
        let back = SafeRedirect.path(form.back ?? fallback)
        guard target.kind == .library else { return DecisionController.atRow(target.kind, key: target.key, in: back) }
        return form.draft.url(returningTo: back, atRow: target.key)
    }

    /// Why a claim the viewer acted on is not theirs: who holds the item now, and, for a Release
    /// (`viewerId`, the one releasing), how their own claim ended and when. Without `viewerId`
    /// (a take-over), the claim the viewer meant to take ended or changed since they asked.
    private func notYours(_ target: ItemClaim.Target, current: ItemClaim?, viewerId: Int? = nil) async -> String {
        let item = await ItemText.name(target, store: store)
        let now = Date()
        guard let viewerId else {
            guard let current else { return "Nobody is reviewing \(item) now: the claim ended since you asked." }
            return "\(current.holderUsername) is reviewing \(item) now."
        }
        let latest = (try? await store.claims(on: target))?.first { $0.holderId == viewerId }
        let own = latest.flatMap { Self.ending(of: $0, now: now) }
        let ago = own.map { TimeText.age(of: $0.at, now: now) } ?? ""
        guard let current else {
            switch own?.state {
            case .expired: return "You were no longer reviewing \(item): your claim expired \(ago)."
            case .decided: return "You were no longer reviewing \(item): a decision ended your claim \(ago)."
            case .released: return "You were no longer reviewing \(item): you had let it go \(ago)."
            case .takenOver:
                return "You were no longer reviewing \(item): \(latest?.endedBy ?? "someone") took it over \(ago), and is no longer reviewing it either."
            case .active: return "You were no longer reviewing \(item): your claim had ended \(ago)."
            case nil: return "You were not reviewing \(item), and nobody is: there was nothing to release."
            }
        }
        let holder = current.holderUsername
        switch own?.state {
        case .takenOver where latest?.endedBy == holder: return "\(holder) is reviewing \(item) now: they took it over from you \(ago)."
        case .takenOver: return "\(holder) is reviewing \(item) now: your claim was taken over \(ago)."
        case .expired: return "\(holder) is reviewing \(item) now: your claim expired \(ago), and they claimed it after."
        case .released: return "\(holder) is reviewing \(item) now: you had let it go \(ago), and they claimed it after."
        case .decided: return "\(holder) is reviewing \(item) now: a decision ended your claim \(ago), and they claimed it after."
        case .active, nil: return "You are not reviewing \(item): \(holder) is."
        }
    }

    /// Why `target` cannot be claimed, in words: the mirror does not know it, or it no longer
    /// waits for a decision; `nil` when it waits.
    private func notClaimable(_ target: ItemClaim.Target) async throws -> String? {
        let status: String?
        let waiting: Bool
        switch target.kind {
        case .library:
            let library = try await store.mirroredLibrary(slug: target.key)
            (status, waiting) = (library?.status.rawValue, library?.status == .pending)
        case .report:
            let id = ItemReference.id(target.key)
            let report = if let id { try await store.mirroredReport(id: id) } else { MirrorReport?.none }
            (status, waiting) = (report?.status.rawValue, report?.status == .open)
        case .photo:
            let id = ItemReference.id(target.key)
            let photo = if let id { try await store.mirroredPhotos(ids: [id]).first } else { MirrorPhoto?.none }
            (status, waiting) = (photo?.status.rawValue, photo?.status == .pending)
        }
        guard let status else { return "There is no \(ItemText.name(target)) in the console's copy of Book Corners: nothing was claimed." }
        guard waiting else { return "\(await ItemText.name(target, store: store)) is \(status) already: nothing waits for review, so nothing was claimed." }
        return nil
    }

    /// How and when `claim` ended: a claim still marked active past its end expired then (claims
    /// are marked expired only when someone next claims); `nil` while it still runs.
    private static func ending(of claim: ItemClaim, now: Date) -> (state: ItemClaim.State, at: Date)? {
        switch claim.state {
        case .active: claim.expiresAt <= now ? (.expired, claim.expiresAt) : nil
        default: (claim.state, claim.endedAt ?? claim.expiresAt)
        }
    }

    private static func area(_ kind: ModerationAction.TargetKind) -> LayoutModel.Area {
        switch kind {
        case .library: .libraries
        case .report: .reports
        case .photo: .photos
        }
    }
}
