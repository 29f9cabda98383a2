import Foundation
import GRDB

/// The account a sign-in resolved to, as the backend told us.
public struct SignInAccount: Sendable, Equatable {
    public let id: Int
    public let username: String
    public let email: String

    public init(id: Int, username: String, email: String) {
        self.id = id
        self.username = username
        self.email = email
    }

    /// What attempts for this account are counted under, whichever name was typed.
    public var key: String { "account:\(id)" }
}

/// Whether a sign-in attempt may go to the backend.
public enum SignInAdmission: Sendable, Equatable {
    /// Recorded (as a failure until settled); settle it with this id.
    case admitted(attemptID: Int64)
    /// Too many recent failures for this account from this address: refused until then.
    case locked(until: Date)
    /// Too many recent failures from this address, whatever was typed: refused until then.
    case addressLocked(until: Date)
}

/// How an admitted attempt ended.
public enum SignInSettlement: Sendable, Equatable {
    /// Staff signed in: their failures from that address are wiped.
    case succeeded(SignInAccount)
    /// A wrong password, or an account that may not sign in (known when the backend said who it is).
    case failed(SignInAccount?)
    /// The backend never judged the password (down, rate-limited): the attempt does not count.
    case void
}

/// A sign-in attempt's life: recorded `pending` before the backend is asked, then `settled`.
enum SignInAttemptState: String {
    case pending, settled
}

public enum SignInAttemptError: Error, Equatable {
    /// The attempt was already settled or removed (a second settlement, or pruned meanwhile).
    case notPending(Int64)
}

extension ModerationStore {
    /// Counts recent failures for the account behind `login` (its username and e-mail count
    /// together once we have seen it sign in) from one address, and all recent failures from
    /// that address (so trying many names, once each, is refused too), and, in the same
    /// transaction, records this attempt as a failure unless it is refused. Parallel attempts
    /// therefore see each other.
    public func admitSignInAttempt(
        login: String, clientAddress: String, now: Date, maxFailures: Int, window: TimeInterval, maxFailuresPerAddress: Int = .max
    ) async throws -> SignInAdmission {
        try await writer.write { db in
            let fromAddress = try Date.fetchAll(
                db,
                sql: """
                    SELECT attemptedAt FROM signInAttempt
                    WHERE clientAddress = ? AND succeeded = 0 AND attemptedAt > ?
                    ORDER BY attemptedAt
                    """,
                arguments: [clientAddress, now.addingTimeInterval(-window)])
            if fromAddress.count >= maxFailuresPerAddress {
                // Open again once enough of them have aged out of the window.
                let freeing = fromAddress[fromAddress.count - maxFailuresPerAddress]
                return .addressLocked(until: freeing.addingTimeInterval(window))
            }
            let key = try Self.attemptKey(db, login: login)
            let failures = try Date.fetchAll(
                db,
                sql: """
                    SELECT attemptedAt FROM signInAttempt
                    WHERE login = ? AND clientAddress = ? AND succeeded = 0 AND attemptedAt > ?
                    ORDER BY attemptedAt
                    """,
                arguments: [key, clientAddress, now.addingTimeInterval(-window)])
            if failures.count >= maxFailures, let last = failures.last, last.addingTimeInterval(window) > now {
                return .locked(until: last.addingTimeInterval(window))
            }
            try db.execute(
                sql: "INSERT INTO signInAttempt (login, clientAddress, attemptedAt, succeeded, state) VALUES (?, ?, ?, 0, ?)",
                arguments: [key, clientAddress, now, SignInAttemptState.pending.rawValue])
            return .admitted(attemptID: db.lastInsertedRowID)
        }
    }

    /// Settles an admitted attempt. When the backend told us the account, the attempt is
    /// re-keyed to it and its username and e-mail become aliases of it.
    public func settleSignInAttempt(_ attemptID: Int64, as settlement: SignInSettlement) async throws {
        try await writer.write { db in
            let pending = SignInAttemptState.pending.rawValue
            switch settlement {
            case .void:
                try db.execute(sql: "DELETE FROM signInAttempt WHERE id = ? AND state = ?", arguments: [attemptID, pending])
            case .failed(let account):
                let key = try account.map { try Self.remember($0, db) }
                try db.execute(
                    sql: "UPDATE signInAttempt SET state = ?, login = COALESCE(?, login) WHERE id = ? AND state = ?",
                    arguments: [SignInAttemptState.settled.rawValue, key, attemptID, pending])
            case .succeeded(let account):
                let key = try Self.remember(account, db)
                try db.execute(
                    sql: "UPDATE signInAttempt SET state = ?, succeeded = 1, login = ? WHERE id = ? AND state = ?",
                    arguments: [SignInAttemptState.settled.rawValue, key, attemptID, pending])
                guard db.changesCount == 1 else { throw SignInAttemptError.notPending(attemptID) }
                // A success wipes the slate for that account and address, under every name it had.
                let clientAddress = try String.fetchOne(db, sql: "SELECT clientAddress FROM signInAttempt WHERE id = ?", arguments: [attemptID])
                try db.execute(
                    sql: "DELETE FROM signInAttempt WHERE login IN (?, ?, ?) AND clientAddress = ? AND succeeded = 0 AND state = ?",
                    arguments: [key, account.username.lowercased(), account.email.lowercased(), clientAddress, SignInAttemptState.settled.rawValue])
                return
            }
            guard db.changesCount == 1 else { throw SignInAttemptError.notPending(attemptID) }
        }
    }

    /// Removes attempts older than `before`: they no longer count towards any lockout.
    @discardableResult
    public func deleteSignInAttempts(before: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM signInAttempt WHERE attemptedAt < ?", arguments: [before])
            return db.changesCount
        }
    }

    /// The key attempts are counted under: the account an alias names, else the lowered login.
    static func attemptKey(_ db: Database, login: String) throws -> String {
        let lowered = login.lowercased()
        return try String.fetchOne(db, sql: "SELECT accountKey FROM signInAlias WHERE login = ?", arguments: [lowered]) ?? lowered
    }

    private static func remember(_ account: SignInAccount, _ db: Database) throws -> String {
        for login in [account.username, account.email] where !login.isEmpty {
            try db.execute(
                sql: "INSERT INTO signInAlias (login, accountKey) VALUES (?, ?) ON CONFLICT(login) DO UPDATE SET accountKey = excluded.accountKey",
                arguments: [login.lowercased(), account.key])
        }
        return account.key
    }
}
