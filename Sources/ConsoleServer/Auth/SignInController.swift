import BookCornersAPI
import Foundation
import Hummingbird
import Logging
import ModerationStore
import ModerationVocabulary
import Mustache

/// Sign-in and sign-out. Only accounts the backend calls staff get a session.
struct SignInController {
    let store: ModerationStore
    let client: BackendClient
    let sessions: StaffSessions
    let statusCheck: StaffStatusCheck
    /// Ends what else goes with being staff when a sign-in finds someone no longer is.
    let removal: StaffRemoval
    let throttle: SignInThrottle
    let cookie: SessionCookie
    let runner: ActionRunner
    let audit: StaffAuditWriter
    let renderer: PageRenderer
    /// Whether the signing-in person's address goes to the backend as `X-Forwarded-For`.
    let forwardClientAddress: Bool

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.signIn.pattern, use: show)
        router.post(SiteURL.Route.signIn.pattern, use: signIn)
        router.get(SiteURL.Route.signInLink.pattern, use: openLink)
    }

    func addSignedInRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.post(SiteURL.Route.signOut.pattern, use: signOut)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let kept = request.uri.queryParameters["kept"].map(String.init).flatMap(KeptFormKey.valid)
        if context.session != nil {
            return .redirect(
                to: kept.map { SiteURL.unsentWork($0).path } ?? SafeRedirect.path(request.uri.queryParameters["next"].map(String.init)), type: .normal)
        }
        let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { first, _ in first })
        // Signing out lands here: say that it worked.
        var message = SessionEnding(query: query)?.message ?? (query[Self.signedOutParameter] != nil ? "You have signed out." : nil)
        var keptKey: String?
        if query[UnsentWork.formNotSentParameter] != nil {
            let back = query["next"].map { SafeRedirect.path($0) }.flatMap { $0 == SiteURL.dashboard.path ? nil : $0 }
            message =
                "You were not signed in (your session had ended, or you signed out in another tab or window), so the form you sent was not saved."
                + (back.map {
                    " Sign in to go back to \(TypedText.isolated($0)); what you typed there comes back if this browser kept it (it keeps it when scripts run), otherwise type it again."
                }
                    ?? " Sign in, then open that page again: what you typed could not be kept.")
        }
        if query[UnsentWork.notSavedParameter] != nil {
            message = "Your session had ended, so the decision you sent was not saved. Sign in and make it again."
        }
        // Said plainly: what was not sent, and that it waits, filled in, for the sign-in.
        if let kept, let form = try await store.keptForm(id: RandomToken.digest(kept), now: Date()) {
            message = "\(await UnsentWork(store: store).summary(of: form)): your session had ended. Sign in, and it is shown to you again, filled in, to send."
            keptKey = kept
        }
        return try page(
            context: context, request: request, login: "", next: request.uri.queryParameters["next"].map(String.init), kept: keptKey,
            message: message, isError: false, status: .ok)
    }

    @Sendable func signIn(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        let form = try await request.decodeForm(as: SignInForm.self, context: context)
        let next = form.next
        guard let cookieToken = cookie.signInCSRFValue(in: request), let formToken = form.csrf,
            RandomToken.equal(cookieToken, formToken)
        else {
            return try page(
                context: context, request: request, login: form.login, next: next, kept: form.kept,
                message: "The sign-in form had expired. Please try again.", isError: true, status: .forbidden)
        }
        let credentials: SignInForm.Credentials
        do {
            credentials = try form.validated()
        } catch {
            // Said on the sign-in page itself, next to the fields to fill in.
            return try page(
                context: context, request: request, login: form.login, next: next, kept: form.kept,
                message: error.message, isError: true, status: .badRequest)
        }
        let login = credentials.login
        let password = credentials.password
        let address = context.clientAddress
        let userAgent = request.userAgent
        // A browser that signed in here before for this account: its sign-in spends the share
        // strangers cannot, and other addresses' failures do not lock it out.
        let knownHash = rememberedCookie.value(in: request).map(RandomToken.digest)
        var remembered: RememberedBrowser?
        if let knownHash { remembered = try await store.rememberedBrowser(tokenHash: knownHash, login: login, now: Date()) }
        // Recorded before the backend is asked, so parallel guesses see each other.
        let attemptID: Int64
        switch try await throttle.admit(login: login, clientAddress: address, remembered: remembered != nil) {
        case .locked(let wait):
            return try page(
                context: context, request: request, login: login, next: next, kept: form.kept,
                message: "Too many failed sign-ins for this account from your address. Sign-in is paused for \(Self.minutes(wait)); try again then.",
                isError: true, status: .tooManyRequests)
        case .addressLocked(let wait):
            return try page(
                context: context, request: request, login: login, next: next, kept: form.kept,
                message:
                    "Too many failed sign-ins from your address, whatever the account. Sign-in from here is paused for \(Self.minutes(wait)); try again then.",
                isError: true, status: .tooManyRequests)
        case .admitted(let id):
            attemptID = id
        }
        let outcome: Result<(TokenPair, Account), BackendError>
        do {
            outcome = .success(
                try await authenticate(
                    login: login, password: password,
                    context: context.callContext(forwardClientAddress: forwardClientAddress).under(
                        BackendBudget.signInCall(remembered: remembered != nil, addressGroup: IPAddress.group(of: address)))))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success((let tokens, let account)) where account.isStaff:
            try await throttle.settle(attemptID, as: .succeeded(account.signInAccount))
            let (cookieValue, session) = try await sessions.start(
                account: account, tokens: tokens, clientAddress: address, userAgent: userAgent)
            // Sign-in has just asked auth/me: the next re-check can wait a full interval.
            await statusCheck.recordStaff(account.id)
            context.logger.info("signed in", metadata: ["actor": "\(account.username)"])
            await audit.auditSession(
                "session.signIn", outcome: .succeeded, actorId: account.id, username: account.username, context: context, userAgent: userAgent)
            // The rotation and alerts name staff the console knows; a failure here must not stop the sign-in.
            do {
                try await store.recordStaffMember(StaffMember(id: account.id, username: account.username), signedInAt: Date())
            } catch {
                context.logger.error("staff member not recorded", metadata: ["error": "\(error)"])
            }
            // Decisions parked for lack of a session can go now.
            try await store.unpark(actorId: account.id, now: Date())
            runner.nudge()
            var response = Response.redirect(to: form.kept.map { SiteURL.unsentWork($0).path } ?? SafeRedirect.path(next), type: .normal)
            response.setCookie(cookie.issue(cookieValue, maxAge: max(60, Int(session.expiresAt.timeIntervalSinceNow))))
            // Remembered from now on (a new cookie each time: the one it came with is spent).
            let known = RandomToken.make()
            try await store.rememberBrowser(
                tokenHash: RandomToken.digest(known), accountKey: account.signInAccount.key, username: account.username, now: Date(),
                expiresAt: Date().addingTimeInterval(RememberedBrowserCookie.lifetime), replacing: knownHash)
            response.setCookie(rememberedCookie.issue(known))
            return response
        case .success((_, let account)):
            try await throttle.settle(attemptID, as: .failed(account.signInAccount))
            context.logger.notice("non-staff sign-in refused", metadata: ["login": "\(login)"])
            await audit.auditSession(
                "session.signIn", outcome: .refused, detail: "not staff", actorId: account.id, username: account.username, context: context,
                userAgent: userAgent)
            // Someone who was staff and is no longer: their calendar feed (and any session left) ends
            // now, as the periodic re-check would end them, even if they never open a page again.
            try await sessions.endAll(
                staffId: account.id,
                revokingCalendarFeed: audit.calendarFeedEndedEntry(
                    staffId: account.id, username: account.username, because: SessionEnding.notStaff.rawValue, context: context, userAgent: userAgent),
                because: .notStaff)
            // The rest of what ends with being staff: remembered browsers, decisions not yet sent.
            try await removal.remove(staffId: account.id, username: account.username, noticedBy: context.requestID)
            return try page(
                context: context, request: request, login: login, next: next, kept: form.kept,
                message: BackendError.notStaff.staffMessage, isError: true, status: .forbidden)
        case .failure(.invalidCredentials):
            try await throttle.settle(attemptID, as: .failed(nil))
            if let remembered { try await store.noteRememberedBrowserFailure(tokenHash: remembered.tokenHash) }
            await audit.auditSession(
                "session.signIn", outcome: .failed, detail: "wrong credentials", actorId: nil, username: login, context: context, userAgent: userAgent)
            return try page(
                context: context, request: request, login: login, next: next, kept: form.kept,
                message: BackendError.invalidCredentials.staffMessage, isError: true, status: .unauthorized)
        case .failure(.rateLimited(let seconds)):
            try await throttle.settle(attemptID, as: .void)
            return try page(
                context: context, request: request, login: login, next: next, kept: form.kept,
                message: Self.signInsSpentMessage(wait: seconds, remembered: remembered != nil), isError: true, status: .tooManyRequests)
        case .failure(let error):
            try await throttle.settle(attemptID, as: .void)
            // The console itself is well and says on its form why sign-in could not finish. A 5xx here
            // would report Book Corners' outage as the console's (metrics, the soak's check, a proxy's
            // error page); the backend's state shows in its own metrics and in /readyz.
            return try page(
                context: context, request: request, login: login, next: next, kept: form.kept,
                message: error.staffMessage, isError: true, status: .ok)
        }
    }

    /// A sign-in link an operator issued: the browser is remembered for its username from now
    /// on (the link itself is spent), and the sign-in form follows, the username filled in.
    @Sendable func openLink(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        let now = Date()
        guard let link = try await store.rememberedBrowser(tokenHash: RandomToken.digest(token), now: now) else {
            return try linkSpentPage(request: request, context: context)
        }
        let known = RandomToken.make()
        do {
            // Spent in the same transaction that remembers the browser: two openings at once, one wins.
            try await store.rememberBrowser(
                tokenHash: RandomToken.digest(known), accountKey: link.accountKey, username: link.username, now: now,
                expiresAt: now.addingTimeInterval(RememberedBrowserCookie.lifetime), spending: link.tokenHash)
        } catch RememberedBrowserError.alreadySpent {
            return try linkSpentPage(request: request, context: context)
        }
        context.logger.info("sign-in link opened", metadata: ["login": "\(link.username)"])
        var response = try page(
            context: context, request: request, login: link.username, next: nil,
            message: "This browser is now known to the console for \(link.username): sign in with your Book Corners password.", isError: false,
            status: .ok)
        response.setCookie(rememberedCookie.issue(known))
        return response
    }

    /// A sign-in link opened after it was spent or lapsed.
    private func linkSpentPage(request: Request, context: ConsoleRequestContext) throws -> Response {
        try page(
            context: context, request: request, login: "", next: nil,
            message: "This sign-in link has been used already or has expired. Ask whoever runs the console for a new one.", isError: true,
            status: .notFound)
    }

    /// Signs in at the backend and asks who the account is.
    private func authenticate(login: String, password: String, context: CallContext) async throws(BackendError) -> (TokenPair, Account) {
        let tokens = try await client.signIn(username: login, password: password, context: context)
        let account = try await client.me(StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh), context: context)
        return (tokens, account)
    }

    @Sendable func signOut(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        if let session = context.session {
            try await sessions.end(sessionID: session.id)
            context.logger.info("signed out", metadata: ["actor": "\(session.username)"])
            await audit.auditSession(
                "session.signOut", outcome: .succeeded, actorId: session.staffId, username: session.username, context: context, userAgent: request.userAgent)
        }
        var response = Response.redirect(to: SiteURL.signIn.path(query: [(Self.signedOutParameter, "1")]), type: .normal)
        response.setCookie(cookie.clear())
        return response
    }

    /// Why a sign-in was not even tried: Book Corners counts the whole console as one client,
    /// and someone else's failed attempts spent what it allows.
    static func signInsSpentMessage(wait seconds: Int, remembered: Bool) -> String {
        let then = "Try again in \(BackendError.duration(seconds))."
        guard !remembered else {
            return
                "Book Corners is refusing sign-ins from the console for a while: failed attempts from elsewhere are using up Book Corners' sign-in limit, even the part kept for browsers that signed in here before. \(then)"
        }
        return
            "Sign-in is busy: failed attempts from elsewhere are using up Book Corners' sign-in limit, which the whole console shares. \(then) Browsers that have signed in here before have places kept for them; signing in here for the first time, you can ask whoever runs the console for a sign-in link, which works at once."
    }

    /// The remembered-browser cookie, as secure as the session's.
    private var rememberedCookie: RememberedBrowserCookie { RememberedBrowserCookie(secure: cookie.secure) }

    /// A lockout's wait in whole minutes, at least one ("3 min").
    private static func minutes(_ wait: TimeInterval) -> String {
        "\(max(1, Int((wait / 60).rounded(.up)))) min"
    }

    /// `/sign-in?signed_out=1`: where Sign out leads, so the page can say it worked.
    static let signedOutParameter = "signed_out"

    private func page(
        context: ConsoleRequestContext, request: Request, login: String, next: String?, kept: String? = nil, message: String?, isError: Bool,
        status: HTTPResponse.Status
    ) throws -> Response {
        let token = RandomToken.make()
        let model = SignInPage(
            layout: LayoutModel(context: context, title: "Sign in", active: nil, summary: nil),
            login: login, next: SafeRedirect.path(next), signInToken: token, message: message, isError: isError, kept: kept ?? "")
        var response = try renderer.render(model, with: "sign-in", status: status).response(from: request, context: context)
        response.setCookie(cookie.signInCSRF(token))
        return response
    }
}
