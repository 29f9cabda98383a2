import Foundation
import ModerationStore
import Testing

@Suite("ModerationStore: sessions, sign-in attempts, sealed tokens")
struct ModerationStoreTests {
    private func withStore(_ body: (ModerationStore, URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path), directory)
    }

    private func session(id: String, lastSeen: Date, expires: Date) -> StaffSession {
        StaffSession(
            id: id, staffId: 2, username: "staff", email: "staff@example.com", csrfToken: "csrf", sealedAccessToken: Data([1]),
            sealedRefreshToken: Data([2]), clientAddress: "127.0.0.1", userAgent: "test", createdAt: lastSeen, lastSeenAt: lastSeen,
            expiresAt: expires, flash: nil)
    }

    @Test("a session is stored, touched, its shown flash consumed (a newer one kept), and deleted")
    func sessionLifecycle() async throws {
        try await withStore { store, _ in
            let now = Date()
            try await store.insert(session(id: "abc", lastSeen: now, expires: now.addingTimeInterval(3_600)))
            try await store.setFlash("Saved.", sessionID: "abc")
            try await store.touchSession(id: "abc", at: now.addingTimeInterval(5), consumingFlash: "Older, already replaced.")
            #expect(try await store.session(id: "abc")?.flash == "Saved.", "a flash the page did not show stays")
            try await store.touchSession(id: "abc", at: now.addingTimeInterval(6), consumingFlash: "Saved.")
            #expect(try await store.session(id: "abc")?.flash == nil, "a flash shows once")
            try await store.touchSession(id: "abc", at: now.addingTimeInterval(2), consumingFlash: nil)
            #expect(try await store.session(id: "abc")?.lastSeenAt.timeIntervalSince(now) ?? 0 >= 5.99, "stored to the millisecond, never moved back")
            try await store.deleteSession(id: "abc")
            #expect(try await store.session(id: "abc") == nil)
        }
    }

    @Test("expired sessions, idle or past their end, are removed; live ones stay")
    func expiry() async throws {
        try await withStore { store, _ in
            let now = Date()
            try await store.insert(session(id: "idle", lastSeen: now.addingTimeInterval(-3_600), expires: now.addingTimeInterval(3_600)))
            try await store.insert(session(id: "ended", lastSeen: now, expires: now.addingTimeInterval(-1)))
            try await store.insert(session(id: "live", lastSeen: now, expires: now.addingTimeInterval(3_600)))
            #expect(try await store.deleteExpiredSessions(now: now, idleTimeout: 1_800).sorted() == ["ended", "idle"])
            #expect(try await store.session(id: "live") != nil)
        }
    }

    /// The end of a lockout (stored to the millisecond, so compared with a tolerance).
    private func lockedUntil(_ admission: SignInAdmission) -> Date? {
        if case .locked(let until) = admission { until } else { nil }
    }

    @Test("an attempt is recorded before the backend is asked: the sixth of six parallel attempts is locked out")
    func attemptsRecordedFirst() async throws {
        try await withStore { store, _ in
            // setup
            let now = Date()
            // act: five admitted and still pending, as parallel requests would be
            var admissions: [SignInAdmission] = []
            for offset in 0..<6 {
                await admissions.append(
                    try store.admitSignInAttempt(
                        login: "Staff", clientAddress: "10.0.0.1", now: now.addingTimeInterval(Double(offset)), maxFailures: 5, window: 900))
            }
            // check
            #expect(admissions.prefix(5).allSatisfy { if case .admitted = $0 { true } else { false } })
            #expect(lockedUntil(admissions[5]).map { abs($0.timeIntervalSince(now.addingTimeInterval(4 + 900))) < 0.01 } == true)
            #expect(try await store.failedSignInCount(login: "staff", clientAddress: "10.0.0.2", since: now.addingTimeInterval(-60)) == 0)
        }
    }

    @Test("once an account has signed in, its username and e-mail count together; a success clears both")
    func attemptsKeyedByAccount() async throws {
        try await withStore { store, _ in
            // setup: a success teaches the store that "staff" and "staff@example.com" are account 2
            let now = Date()
            let account = SignInAccount(id: 2, username: "staff", email: "Staff@Example.com")
            guard
                case .admitted(let first) = try await store.admitSignInAttempt(
                    login: "staff", clientAddress: "10.0.0.1", now: now, maxFailures: 5, window: 900)
            else { Issue.record("first attempt refused"); return }
            try await store.settleSignInAttempt(first, as: .succeeded(account))
            // act: three wrong passwords by name, two by e-mail
            for (offset, login) in ["staff", "STAFF", "staff", "staff@example.com", "staff@EXAMPLE.com"].enumerated() {
                guard
                    case .admitted(let id) = try await store.admitSignInAttempt(
                        login: login, clientAddress: "10.0.0.1", now: now.addingTimeInterval(Double(offset + 1)), maxFailures: 5, window: 900)
                else { Issue.record("attempt \(offset) refused"); return }
                try await store.settleSignInAttempt(id, as: .failed(nil))
            }
            // check
            #expect(try await store.failedSignInCount(login: "staff", clientAddress: "10.0.0.1", since: now) == 5)
            let sixth = try await store.admitSignInAttempt(
                login: "staff@example.com", clientAddress: "10.0.0.1", now: now.addingTimeInterval(10), maxFailures: 5, window: 900)
            #expect(lockedUntil(sixth).map { abs($0.timeIntervalSince(now.addingTimeInterval(5 + 900))) < 0.01 } == true)
            await #expect(throws: SignInAttemptError.notPending(first)) { try await store.settleSignInAttempt(first, as: .void) }
        }
    }

    @Test("an attempt the backend never judged does not count; old attempts are pruned")
    func voidAndPrune() async throws {
        try await withStore { store, _ in
            // setup
            let now = Date()
            guard
                case .admitted(let unjudged) = try await store.admitSignInAttempt(
                    login: "staff", clientAddress: "10.0.0.1", now: now, maxFailures: 5, window: 900)
            else { Issue.record("refused"); return }
            // act
            try await store.settleSignInAttempt(unjudged, as: .void)
            _ = try await store.admitSignInAttempt(login: "old", clientAddress: "10.0.0.1", now: now.addingTimeInterval(-7_200), maxFailures: 5, window: 900)
            _ = try await store.admitSignInAttempt(login: "new", clientAddress: "10.0.0.1", now: now, maxFailures: 5, window: 900)
            // check
            #expect(try await store.failedSignInCount(login: "staff", clientAddress: "10.0.0.1", since: now.addingTimeInterval(-60)) == 0)
            #expect(try await store.deleteSignInAttempts(before: now.addingTimeInterval(-3_600)) == 1)
            #expect(try await store.failedSignInCount(login: "new", clientAddress: "10.0.0.1", since: now.addingTimeInterval(-60)) == 1)
        }
    }

    @Test("a key file that group or others can read is refused, with the command that fixes it")
    func keyFileMode() async throws {
        try await withStore { _, directory in
            // setup
            let keyFile = directory.appendingPathComponent("console.key").path
            _ = try TokenSealer.load(base64Key: nil, keyFile: keyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile)
            // act
            let error = #expect(throws: TokenSealerError.self) { try TokenSealer.load(base64Key: nil, keyFile: keyFile) }
            // check
            #expect(error == .keyFileTooOpen(keyFile, mode: 0o644))
            #expect(error?.description.contains("chmod 600 \(keyFile)") == true)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
            _ = try TokenSealer.load(base64Key: nil, keyFile: keyFile)
        }
    }

    @Test("tokens seal and open; another key or a flipped byte cannot open them")
    func sealing() async throws {
        try await withStore { _, directory in
            let keyFile = directory.appendingPathComponent("console.key").path
            let sealer = try TokenSealer.load(base64Key: nil, keyFile: keyFile)
            let sealed = try sealer.seal("eyJ.secret.token")
            #expect(!String(decoding: sealed, as: UTF8.self).contains("secret"))
            #expect(try sealer.open(sealed) == "eyJ.secret.token")
            #expect(try TokenSealer.load(base64Key: nil, keyFile: keyFile).open(sealed) == "eyJ.secret.token", "the key file is reused")
            let other = try TokenSealer(key: Data(repeating: 7, count: 32))
            #expect(throws: TokenSealerError.cannotOpen) { try other.open(sealed) }
            var tampered = sealed
            tampered[tampered.count - 1] ^= 0xFF
            #expect(throws: TokenSealerError.cannotOpen) { try sealer.open(tampered) }
            #expect(throws: TokenSealerError.badKeyLength(3)) { try TokenSealer(key: Data([1, 2, 3])) }
            #expect(throws: TokenSealerError.badBase64) { try TokenSealer.load(base64Key: "not base64!", keyFile: keyFile) }
        }
    }
}
