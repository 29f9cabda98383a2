import Crypto
import Foundation
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("APNs provider token: ES256 JWT, reused 50 minutes, renewed at most every 20")
struct APNsProviderTokenTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private struct Header: Decodable, Equatable {
        let alg: String
        let kid: String
    }

    private struct Claims: Decodable, Equatable {
        let iss: String
        let iat: Int
    }

    /// The three parts of a JWT, decoded, after checking its signature with `publicKey`.
    private static func decode(_ jwt: String, verifyingWith publicKey: P256.Signing.PublicKey) throws -> (Header, Claims) {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(!jwt.contains("="), "base64url without padding")
        let header = try JSONDecoder().decode(Header.self, from: try #require(Base64URL.decode(parts[0])))
        let claims = try JSONDecoder().decode(Claims.self, from: try #require(Base64URL.decode(parts[1])))
        let signatureBytes = try #require(Base64URL.decode(parts[2]))
        #expect(signatureBytes.count == 64, "ES256 signatures are raw r||s")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        return (header, claims)
    }

    private static func makeToken(clock: MovableWallClock) -> (APNsProviderToken, P256.Signing.PublicKey) {
        let key = P256.Signing.PrivateKey()
        return (APNsProviderToken(key: key, keyID: "ABC123DEFG", teamID: "TEAM456XYZ", now: { clock.now }), key.publicKey)
    }

    @Test("the JWT carries alg, kid, iss and iat and verifies with the public key")
    func verifies() throws {
        // setup
        let clock = MovableWallClock(Self.start)
        let (token, publicKey) = Self.makeToken(clock: clock)

        // act
        let jwt = try token.current()

        // check
        let (header, claims) = try Self.decode(jwt, verifyingWith: publicKey)
        #expect(header == Header(alg: "ES256", kid: "ABC123DEFG"))
        #expect(claims == Claims(iss: "TEAM456XYZ", iat: Int(Self.start.timeIntervalSince1970)))
        #expect(
            !P256.Signing.PrivateKey().publicKey.isValidSignature(
                try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(jwt.split(separator: ".")[2]))),
                for: Data(jwt.split(separator: ".").prefix(2).joined(separator: ".").utf8)), "another key does not verify it")
    }

    @Test("the same JWT is reused within 50 minutes and a new one made after")
    func reuse() throws {
        // setup
        let clock = MovableWallClock(Self.start)
        let (token, publicKey) = Self.makeToken(clock: clock)
        let first = try token.current()

        // act
        clock.advance(by: 49 * 60 + 59)
        let stillFirst = try token.current()
        clock.advance(by: 1)
        let second = try token.current()

        // check
        #expect(stillFirst == first)
        #expect(second != first)
        #expect(try Self.decode(second, verifyingWith: publicKey).1.iat == Int(Self.start.timeIntervalSince1970) + 50 * 60)
    }

    @Test("ExpiredProviderToken on a token at least 20 minutes old renews it")
    func renewal() throws {
        // setup
        let clock = MovableWallClock(Self.start)
        let (token, publicKey) = Self.makeToken(clock: clock)
        let rejected = try token.current()
        clock.advance(by: 20 * 60)

        // act
        let renewed = try token.renew(after: rejected)

        // check
        #expect(renewed != rejected)
        #expect(try token.current() == renewed)
        #expect(try Self.decode(renewed, verifyingWith: publicKey).1.iat == Int(Self.start.timeIntervalSince1970) + 20 * 60)
    }

    @Test("never two renewals within 20 minutes, and a stale rejection gets the current token")
    func noSecondRenewal() throws {
        // setup
        let clock = MovableWallClock(Self.start)
        let (token, _) = Self.makeToken(clock: clock)
        let original = try token.current()
        clock.advance(by: 25 * 60)
        let renewed = try token.renew(after: original)

        // act
        clock.advance(by: 19 * 60)
        let tooSoon = try token.renew(after: renewed)
        let stale = try token.renew(after: original)
        clock.advance(by: 60)
        let allowed = try token.renew(after: renewed)

        // check
        #expect(renewed != original)
        #expect(tooSoon == renewed, "19 minutes after the last renewal: kept")
        #expect(stale == renewed, "another push already renewed it")
        #expect(allowed != renewed, "20 minutes after: renewed")
    }

    @Test("a token young enough is not renewed on ExpiredProviderToken (APNs' clock or a second answer)")
    func youngTokenKept() throws {
        // setup
        let clock = MovableWallClock(Self.start)
        let (token, _) = Self.makeToken(clock: clock)
        let first = try token.current()
        clock.advance(by: 5 * 60)

        // act
        let kept = try token.renew(after: first)

        // check
        #expect(kept == first)
    }

    @Test("a .p8 written by APNsDemoKey loads back and signs JWTs its public key verifies")
    func p8RoundTrip() throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let demo = try APNsDemoKey.create(at: directory.path("AuthKey.p8"))
        let configuration = APNsConfiguration(keyPath: demo.keyPath, keyID: demo.keyID, teamID: demo.teamID, topic: "org.bookcorners.app")

        // act
        let key = try configuration.loadSigningKey()
        let jwt = try APNsProviderToken(key: key, keyID: demo.keyID, teamID: demo.teamID).current()

        // check
        let text = try String(contentsOfFile: demo.keyPath, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN PRIVATE KEY-----"), "PKCS#8, as Apple's .p8 files")
        let permissions = try FileManager.default.attributesOfItem(atPath: demo.keyPath)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let (header, claims) = try Self.decode(jwt, verifyingWith: try demo.publicKey())
        #expect(header.kid == demo.keyID)
        #expect(claims.iss == demo.teamID)
    }

    @Test("a missing or invalid key file is refused with its path and what to do")
    func keyErrors() throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let garbage = directory.path("garbage.p8")
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: garbage))
        func configuration(_ path: String) -> APNsConfiguration {
            APNsConfiguration(keyPath: path, keyID: "K", teamID: "T", topic: "org.bookcorners.app")
        }

        // act / check
        #expect(throws: APNsConfigurationError.keyMissing(path: directory.path("none.p8"))) {
            try configuration(directory.path("none.p8")).loadSigningKey()
        }
        #expect(throws: APNsConfigurationError.keyInvalid(path: garbage)) { try configuration(garbage).loadSigningKey() }
        #expect(APNsConfigurationError.keyInvalid(path: garbage).description.contains(garbage))
    }
}
