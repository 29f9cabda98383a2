import Foundation
import GRDB

@testable import ModerationStore

extension ModerationStore {
    /// Failed attempts (pending ones included) counted under `login`'s key from one address
    /// since `since`: what the lockout counts, read for the tests (the console itself only
    /// admits and settles attempts).
    func failedSignInCount(login: String, clientAddress: String, since: Date) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM signInAttempt WHERE login = ? AND clientAddress = ? AND succeeded = 0 AND attemptedAt > ?",
                arguments: [try Self.attemptKey(db, login: login), clientAddress, since]) ?? 0
        }
    }
}
