import Foundation
import ModerationStore
import Testing

@Suite("ModerationStore: sessions, sign-in attempts, sealed tokens")
struct ModerationStoreTests {
    private func withStore(_ body: (ModerationStore, URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path), directory)
    }

    private func session(id: String, lastSeen: Date, expires: Date) -> StaffSession {
        StaffSession(
            id: id, staffId: 2, username: "staff", email: "staff@example.com", csrfToken: "csrf", sealedAccessToken: Data([1]),
            sealedRefreshToken: Data([2]), clientAddress: "127.0.0.1", userAgent: "test", createdAt: lastSeen, lastSeenAt: lastSeen,
            expiresAt: expires, flash: nil)
    }

    @Test("a session is stored, touched, flashed once, and deleted")
    func sessionLifecycle() throws {
        try withStore { store, _ in
            let now = Date()
            try store.insert(session(id: "abc", lastSeen: now, expires: now.addingTimeInterval(3_600)))
            try store.setFlash("Saved.", sessionID: "abc")
            #expect(try store.touchSession(id: "abc", at: now.addingTimeInterval(5), consumeFlash: true) == "Saved.")
            #expect(try store.touchSession(id: "abc", at: now.addingTimeInterval(6), consumeFlash: true) == nil, "a flash shows once")
            #expect(try store.session(id: "abc")?.lastSeenAt.timeIntervalSince(now) ?? 0 >= 5.99, "stored to the millisecond")
            try store.deleteSession(id: "abc")
            #expect(try store.session(id: "abc") == nil)
        }
    }

    @Test("expired sessions, idle or past their end, are removed; live ones stay")
    func expiry() throws {
        try withStore { store, _ in
            let now = Date()
            try store.insert(session(id: "idle", lastSeen: now.addingTimeInterval(-3_600), expires: now.addingTimeInterval(3_600)))
            try store.insert(session(id: "ended", lastSeen: now, expires: now.addingTimeInterval(-1)))
            try store.insert(session(id: "live", lastSeen: now, expires: now.addingTimeInterval(3_600)))
            #expect(try store.deleteExpiredSessions(now: now, idleTimeout: 1_800) == 2)
            #expect(try store.session(id: "live") != nil)
        }
    }

    @Test("failed sign-ins are counted per account and address; a success clears them")
    func signInAttempts() throws {
        try withStore { store, _ in
            let now = Date()
            for offset in 0..<3 {
                try store.recordSignInAttempt(login: "Staff", clientAddress: "10.0.0.1", at: now.addingTimeInterval(Double(offset)), succeeded: false)
            }
            try store.recordSignInAttempt(login: "staff", clientAddress: "10.0.0.2", at: now, succeeded: false)
            #expect(try store.failedSignIns(login: "STAFF", clientAddress: "10.0.0.1", since: now.addingTimeInterval(-60)).count == 3)
            #expect(try store.failedSignIns(login: "staff", clientAddress: "10.0.0.1", since: now.addingTimeInterval(1.5)).count == 1)
            try store.recordSignInAttempt(login: "staff", clientAddress: "10.0.0.1", at: now.addingTimeInterval(10), succeeded: true)
            #expect(try store.failedSignIns(login: "staff", clientAddress: "10.0.0.1", since: now.addingTimeInterval(-60)).isEmpty)
            #expect(try store.failedSignIns(login: "staff", clientAddress: "10.0.0.2", since: now.addingTimeInterval(-60)).count == 1)
        }
    }

    @Test("tokens seal and open; another key or a flipped byte cannot open them")
    func sealing() throws {
        try withStore { _, directory in
            let keyFile = directory.appendingPathComponent("console.key").path
            let sealer = try TokenSealer.load(base64Key: nil, keyFile: keyFile)
            let sealed = try sealer.seal("eyJ.secret.token")
            #expect(!String(decoding: sealed, as: UTF8.self).contains("secret"))
            #expect(try sealer.open(sealed) == "eyJ.secret.token")
            #expect(try TokenSealer.load(base64Key: nil, keyFile: keyFile).open(sealed) == "eyJ.secret.token", "the key file is reused")
            let other = try TokenSealer(key: Data(repeating: 7, count: 32))
            #expect(throws: (any Error).self) { try other.open(sealed) }
            var tampered = sealed
            tampered[tampered.count - 1] ^= 0xFF
            #expect(throws: (any Error).self) { try sealer.open(tampered) }
            #expect(throws: TokenSealerError.badKeyLength(3)) { try TokenSealer(key: Data([1, 2, 3])) }
            #expect(throws: TokenSealerError.badBase64) { try TokenSealer.load(base64Key: "not base64!", keyFile: keyFile) }
        }
    }
}
