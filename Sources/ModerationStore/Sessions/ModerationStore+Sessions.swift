import Foundation
import GRDB

extension ModerationStore {
    public func insert(_ session: StaffSession) throws {
        try writer.write { db in try session.insert(db) }
    }

    /// The staff member's most recently active live session, if any.
    public func latestSession(staffId: Int, now: Date) throws -> StaffSession? {
        try writer.read { db in
            try StaffSession
                .filter(StaffSession.Columns.staffId == staffId && StaffSession.Columns.expiresAt > now)
                .order(StaffSession.Columns.lastSeenAt.desc)
                .fetchOne(db)
        }
    }

    public func session(id: String) throws -> StaffSession? {
        try writer.read { db in try StaffSession.fetchOne(db, key: id) }
    }

    /// Records activity; answers the flash message, which is consumed.
    @discardableResult
    public func touchSession(id: String, at now: Date, consumeFlash: Bool) throws -> String? {
        try writer.write { db in
            guard var session = try StaffSession.fetchOne(db, key: id) else { return nil }
            let flash = consumeFlash ? session.flash : nil
            session.lastSeenAt = now
            if consumeFlash { session.flash = nil }
            try session.update(db)
            return flash
        }
    }

    public func setFlash(_ message: String, sessionID: String) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE session SET flash = ? WHERE id = ?", arguments: [message, sessionID])
        }
    }

    public func updateSealedAccessToken(_ sealed: Data, sessionID: String) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE session SET sealedAccessToken = ? WHERE id = ?", arguments: [sealed, sessionID])
        }
    }

    public func deleteSession(id: String) throws {
        _ = try writer.write { db in try StaffSession.deleteOne(db, key: id) }
    }

    /// Removes sessions idle longer than `idleTimeout` or past their absolute end.
    @discardableResult
    public func deleteExpiredSessions(now: Date, idleTimeout: TimeInterval) throws -> Int {
        try writer.write { db in
            try StaffSession
                .filter(StaffSession.Columns.expiresAt <= now || StaffSession.Columns.lastSeenAt <= now.addingTimeInterval(-idleTimeout))
                .deleteAll(db)
        }
    }

    // MARK: Sign-in attempts

    public func recordSignInAttempt(login: String, clientAddress: String, at now: Date, succeeded: Bool) throws {
        try writer.write { db in
            var attempt = SignInAttempt(
                id: nil, login: login.lowercased(), clientAddress: clientAddress, attemptedAt: now, succeeded: succeeded)
            try attempt.insert(db)
            if succeeded {
                // A success wipes the slate for that account and address.
                try SignInAttempt
                    .filter(SignInAttempt.Columns.login == login.lowercased() && SignInAttempt.Columns.clientAddress == clientAddress)
                    .filter(SignInAttempt.Columns.succeeded == false)
                    .deleteAll(db)
            }
        }
    }

    /// Failed attempts for one account from one address since `since`, oldest first.
    public func failedSignIns(login: String, clientAddress: String, since: Date) throws -> [Date] {
        try writer.read { db in
            try Date.fetchAll(
                db,
                SignInAttempt
                    .select(SignInAttempt.Columns.attemptedAt)
                    .filter(SignInAttempt.Columns.login == login.lowercased())
                    .filter(SignInAttempt.Columns.clientAddress == clientAddress)
                    .filter(SignInAttempt.Columns.succeeded == false)
                    .filter(SignInAttempt.Columns.attemptedAt > since)
                    .order(SignInAttempt.Columns.attemptedAt))
        }
    }
}
