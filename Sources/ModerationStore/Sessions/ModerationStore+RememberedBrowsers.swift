import Foundation
import GRDB

/// A browser that signed in here before, as the database keeps it (the cookie's hash only).
public struct RememberedBrowser: Sendable, Equatable {
    public let tokenHash: String
    /// What sign-in attempts for its account are keyed by (`SignInAccount.key`), or a sign-in
    /// link's lowered username until its first sign-in.
    public let accountKey: String
    public let username: String
    public let expiresAt: Date
}

public enum RememberedBrowserError: Error, Equatable {
    /// The sign-in link was opened already (or has just lapsed).
    case alreadySpent
}

extension ModerationStore {
    /// Wrong passwords from one remembered browser before it is forgotten (it is then a stranger's).
    public static let rememberedBrowserFailureLimit = 5

    /// Remembers a browser by its cookie's hash, for `accountKey`, until `expiresAt`; `replacing`
    /// (the cookie it came with) is forgotten in the same transaction, so a cookie works once.
    /// Throws `RememberedBrowserError.alreadySpent` when `spending` (a sign-in link) was no
    /// longer there: another opening of it was first.
    public func rememberBrowser(
        tokenHash: String, accountKey: String, username: String, now: Date, expiresAt: Date, replacing: String? = nil, spending: String? = nil
    ) async throws {
        try await writer.write { db in
            if let replacing { try db.execute(sql: "DELETE FROM rememberedBrowser WHERE tokenHash = ?", arguments: [replacing]) }
            if let spending {
                try db.execute(sql: "DELETE FROM rememberedBrowser WHERE tokenHash = ? AND expiresAt > ?", arguments: [spending, now])
                guard db.changesCount == 1 else { throw RememberedBrowserError.alreadySpent }
            }
            try db.execute(
                sql: "INSERT INTO rememberedBrowser (tokenHash, accountKey, username, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [tokenHash, accountKey, username, now, expiresAt])
        }
    }

    /// The browser whose cookie hashes to `tokenHash`, when it is remembered for the account
    /// `login` names (by its username or e-mail once seen, else by the lowered login) and unexpired.
    public func rememberedBrowser(tokenHash: String, login: String, now: Date) async throws -> RememberedBrowser? {
        try await writer.read { db in
            let key = try Self.attemptKey(db, login: login)
            let row = try Row.fetchOne(
                db,
                sql: "SELECT tokenHash, accountKey, username, expiresAt FROM rememberedBrowser WHERE tokenHash = ? AND accountKey IN (?, ?) AND expiresAt > ?",
                arguments: [tokenHash, key, login.lowercased(), now])
            return row.map { RememberedBrowser(tokenHash: $0["tokenHash"], accountKey: $0["accountKey"], username: $0["username"], expiresAt: $0["expiresAt"]) }
        }
    }

    /// The unexpired remembered browser (or issued sign-in link) whose token hashes to `tokenHash`.
    public func rememberedBrowser(tokenHash: String, now: Date) async throws -> RememberedBrowser? {
        try await writer.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT tokenHash, accountKey, username, expiresAt FROM rememberedBrowser WHERE tokenHash = ? AND expiresAt > ?",
                arguments: [tokenHash, now])
            return row.map { RememberedBrowser(tokenHash: $0["tokenHash"], accountKey: $0["accountKey"], username: $0["username"], expiresAt: $0["expiresAt"]) }
        }
    }

    /// A wrong password came with a remembered browser's cookie: after
    /// `rememberedBrowserFailureLimit` of them it is forgotten. Answers whether it still is remembered.
    @discardableResult
    public func noteRememberedBrowserFailure(tokenHash: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "UPDATE rememberedBrowser SET failures = failures + 1 WHERE tokenHash = ?", arguments: [tokenHash])
            try db.execute(
                sql: "DELETE FROM rememberedBrowser WHERE tokenHash = ? AND failures >= ?", arguments: [tokenHash, Self.rememberedBrowserFailureLimit])
            return db.changesCount == 0
        }
    }

    /// Forgets every browser remembered for the account (no longer staff), and any expired one.
    public func forgetRememberedBrowsers(accountID: Int, username: String, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "DELETE FROM rememberedBrowser WHERE accountKey IN (?, ?) OR expiresAt <= ?",
                arguments: ["account:\(accountID)", username.lowercased(), now])
        }
    }
}
