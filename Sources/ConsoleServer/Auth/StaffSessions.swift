import BookCornersAPI
import Foundation
import Logging
import ModerationStore

/// Creates, finds and ends staff sessions, and hands out each session's backend
/// credentials (one `StaffCredentials` per session, so concurrent requests share refreshes).
actor StaffSessions {
    private let store: ModerationStore
    private let sealer: TokenSealer
    /// How long a session lives without a request; pages warn before it runs out.
    let idleTimeout: TimeInterval
    private let lifetime: TimeInterval
    private let logger: Logger
    private var credentials: [String: StaffCredentials] = [:]
    /// Sessions as last read from the database, by cookie value, and when: a page view within
    /// `cacheLifetime` of the last read needs no read of its own. Every write to a session in
    /// this process (sign-out, flash, touch, revocation, pruning) drops its copy first.
    private var recentlyRead: [String: (session: StaffSession, readAt: Date)] = [:]
    /// Touches being written in the background, by session id: when, and the flash the view
    /// that started it showed. Until one lands, the stored `lastSeenAt` and flash are stale.
    private var touching: [String: (at: Date, shownFlash: String?)] = [:]
    /// Bumped before and after every write to a session in this process: a read that waited
    /// for the database while one happened may be stale, so it is neither kept nor trusted.
    private var sessionWrites = 0
    /// How long a session read serves page views. Another console process on the same
    /// database may end a session; this process then honours that within this time.
    let cacheLifetime: TimeInterval

    init(store: ModerationStore, sealer: TokenSealer, idleTimeout: TimeInterval, lifetime: TimeInterval, logger: Logger, cacheLifetime: TimeInterval = 2) {
        self.store = store
        self.sealer = sealer
        self.idleTimeout = idleTimeout
        self.lifetime = lifetime
        self.logger = logger
        self.cacheLifetime = cacheLifetime
    }

    /// Starts a session; answers the cookie value (a new one on every sign-in).
    func start(
        account: Account, tokens: TokenPair, clientAddress: String, userAgent: String, now: Date = Date()
    ) async throws -> (cookie: String, session: StaffSession) {
        let cookie = RandomToken.make()
        // Never outlive the refresh token: after it, the backend would refuse us anyway.
        let refreshEnd = JWTExpiry.date(of: tokens.refresh) ?? now.addingTimeInterval(lifetime)
        let session = StaffSession(
            id: RandomToken.digest(cookie), staffId: account.id, username: account.username, email: account.email,
            csrfToken: RandomToken.make(), sealedAccessToken: try sealer.seal(tokens.access),
            sealedRefreshToken: try sealer.seal(tokens.refresh), clientAddress: clientAddress, userAgent: String(userAgent.prefix(300)),
            createdAt: now, lastSeenAt: now, expiresAt: min(now.addingTimeInterval(lifetime), refreshEnd), flash: nil)
        try await store.insert(session)
        return (cookie, session)
    }

    enum Lookup {
        case none
        /// The session was found and has just ended by time; `staffId` is whose it was.
        case expired(staffId: Int)
        /// The console ended the session for `reason` (its owner is no longer staff).
        case ended(staffId: Int, because: SessionEnding)
        /// `endsAt`: when the session ends if nothing more happens (idle timeout or its absolute end).
        case active(StaffSession, flash: String?, endsAt: Date)
    }

    /// The live session for a cookie value; expired ones are removed unless `endingExpired` is
    /// false (a page's background stream must leave that to the moderator's own next request,
    /// which keeps the decision it carries for the session's owner).
    func lookup(cookie: String, now: Date = Date(), endingExpired: Bool = true) async throws -> Lookup {
        guard let session = try await session(cookie: cookie, now: now) else {
            guard let ended = try await store.endedSession(id: RandomToken.digest(cookie)), let reason = SessionEnding(rawValue: ended.reason) else {
                return .none
            }
            return .ended(staffId: ended.staffId, because: reason)
        }
        let id = session.id
        let pending = touching[id]
        var lastSeen = max(session.lastSeenAt, pending?.at ?? .distantPast)
        // Checked on every request, cached copy or not: the times are the stored ones.
        if session.expiresAt <= now || now.timeIntervalSince(lastSeen) > idleTimeout {
            if endingExpired { try await end(sessionID: id) }
            return .expired(staffId: session.staffId)
        }
        var flash = session.flash
        if let pending {
            // The view that started the touch showed it.
            if flash == pending.shownFlash { flash = nil }
        } else if session.flash != nil || now.timeIntervalSince(session.lastSeenAt) > 60 {
            // Writing on every request would serialise page views on the database; a minute is
            // enough. The page never waits for it: another process may hold the write lock.
            touching[id] = (now, session.flash)
            lastSeen = now
            Task { await self.writeTouch(sessionID: id, at: now, shownFlash: session.flash) }
        }
        return .active(session, flash: flash, endsAt: min(session.expiresAt, lastSeen.addingTimeInterval(idleTimeout)))
    }

    /// Stores a touch started by `lookup`, then lets the next view read the session anew.
    private func writeTouch(sessionID id: String, at now: Date, shownFlash: String?) async {
        do {
            try await store.touchSession(id: id, at: now, consumingFlash: shownFlash)
        } catch {
            logger.warning("session activity not stored", metadata: ["error": "\(error)"])
        }
        forget(sessionID: id)
        touching[id] = nil
    }

    /// The stored session, from the copy read within `cacheLifetime` when there is one (keyed
    /// by the cookie itself, so a view served from it does not even hash the cookie).
    private func session(cookie: String, now: Date) async throws -> StaffSession? {
        if let copy = recentlyRead[cookie], now.timeIntervalSince(copy.readAt) < cacheLifetime, now >= copy.readAt {
            return copy.session
        }
        let id = RandomToken.digest(cookie)
        // A sign-out or touch landing while the read waited reads again; never settled, it is not kept.
        guard let session = try await settledRead({ try await store.session(id: id) }) else { return try await store.session(id: id) }
        if recentlyRead.count > 10_000 { recentlyRead.removeAll() }
        recentlyRead[cookie] = session.map { ($0, now) }
        return session
    }

    /// Drops the in-memory copy of one session, before anything writes to it.
    private func forget(sessionID: String) {
        sessionWrites += 1
        recentlyRead = recentlyRead.filter { $0.value.session.id != sessionID }
    }

    func end(sessionID: String) async throws {
        credentials[sessionID] = nil
        forget(sessionID: sessionID)
        try await store.deleteSession(id: sessionID)
        forget(sessionID: sessionID)
    }

    /// Ends every session of one staff member (no longer staff: none of them may go on).
    /// Ends every session of `staffId`; with `feedRevocation`, their calendar feed too (see `ModerationStore.deleteSessions`).
    /// Answers how many sessions ended.
    @discardableResult
    func endAll(staffId: Int, revokingCalendarFeed feedRevocation: AuditEntry? = nil, because reason: SessionEnding? = nil) async throws -> Int {
        sessionWrites += 1
        let ended = try await store.deleteSessions(staffId: staffId, revokingCalendarFeed: feedRevocation, because: reason?.rawValue)
        for id in ended { credentials[id] = nil }
        sessionWrites += 1
        // A copy the delete did not name (it raced a sign-in) must not outlive it either.
        recentlyRead = recentlyRead.filter { $0.value.session.staffId != staffId }
        return ended.count
    }

    /// Deletes expired sessions and drops their decrypted tokens; answers how many ended.
    @discardableResult
    func pruneExpired(now: Date = Date()) async throws -> Int {
        sessionWrites += 1
        let ended = try await store.deleteExpiredSessions(now: now, idleTimeout: idleTimeout)
        sessionWrites += 1
        for id in ended { credentials[id] = nil }
        let endedIDs = Set(ended)
        recentlyRead = recentlyRead.filter { !endedIDs.contains($0.value.session.id) }
        return ended.count
    }

    func flash(_ message: String, sessionID: String) async throws {
        forget(sessionID: sessionID)
        try await store.setFlash(message, sessionID: sessionID)
        forget(sessionID: sessionID)
    }

    /// Whether the session is still live (not ended, not past its idle or absolute limit), without
    /// counting as activity: a page left open does not keep its session alive.
    func isLive(sessionID: String, now: Date = Date()) async throws -> Bool {
        guard let session = try await store.session(id: sessionID) else { return false }
        let lastSeen = max(session.lastSeenAt, touching[sessionID]?.at ?? .distantPast)
        return session.expiresAt > now && now.timeIntervalSince(lastSeen) <= idleTimeout
    }

    /// Credentials of the staff member's latest live session, for work done on their behalf
    /// after their request ended (the action runner); `nil` when they have none.
    func credentials(forStaff staffId: Int, now: Date = Date()) async throws -> StaffCredentials? {
        guard let found = try await settledRead({ try await store.latestSession(staffId: staffId, now: now) }), let session = found,
            now.timeIntervalSince(session.lastSeenAt) <= idleTimeout
        else { return nil }
        return try credentials(for: session)
    }

    /// Credentials of the most recently active live session but those in `excluding` (whose
    /// tokens the backend refused), for reads done on nobody's request (the mirror); `nil` when nobody is signed in.
    func credentialsOfMostRecentSession(excluding refused: Set<String>, now: Date = Date()) async throws -> (sessionID: String, credentials: StaffCredentials)?
    {
        guard
            let sessions = try await settledRead({
                try await store.recentSessions(now: now, activeSince: now.addingTimeInterval(-idleTimeout), limit: refused.count + 5)
            })
        else { return nil }
        for session in sessions where !refused.contains(session.id) {
            // Tokens sealed with another key are skipped: the next session may do.
            if let made = try? credentials(for: session) { return (session.id, made) }
        }
        return nil
    }

    /// What `read` found, when no write to a session in this process landed while it waited
    /// (at most three tries, else nil): the actor takes other calls meanwhile, and a sign-out
    /// must not be undone by decrypting the tokens of the session it just ended.
    private func settledRead<Value>(_ read: () async throws -> Value) async throws -> Value? {
        for _ in 0..<3 {
            let writesBefore = sessionWrites
            let value = try await read()
            if sessionWrites == writesBefore { return value }
        }
        return nil
    }

    /// The backend credentials of a session; a refreshed access token is sealed and stored.
    func credentials(for session: StaffSession) throws -> StaffCredentials {
        if let existing = credentials[session.id] { return existing }
        let store = store
        let sealer = sealer
        let logger = logger
        let sessionID = session.id
        let accessToken: String
        let refreshToken: String
        do {
            accessToken = try sealer.open(session.sealedAccessToken)
            refreshToken = try sealer.open(session.sealedRefreshToken)
        } catch {
            // Sealed with another key (the key was replaced) or damaged: nobody can use them again.
            logger.warning("stored backend tokens cannot be opened", metadata: ["actor": "\(session.username)"])
            throw SessionCredentialsError.unreadable
        }
        let made = StaffCredentials(accessToken: accessToken, refreshToken: refreshToken) { token in
            do {
                try await store.updateSealedAccessToken(try sealer.seal(token), sessionID: sessionID)
            } catch {
                logger.error("could not store a refreshed access token", metadata: ["error": "\(error)"])
            }
        }
        credentials[session.id] = made
        return made
    }
}

/// A session's stored backend tokens cannot be decrypted with the current key.
enum SessionCredentialsError: Error {
    case unreadable
}

/// Reads the `exp` claim of a JWT without checking it (the backend checks; we only plan).
enum JWTExpiry {
    static func date(of token: String) -> Date? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONDecoder().decode(Claims.self, from: data)
        else { return nil }
        return Date(timeIntervalSince1970: claims.exp)
    }

    private struct Claims: Decodable {
        let exp: Double
    }
}
