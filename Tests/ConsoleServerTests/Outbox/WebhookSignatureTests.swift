import ConsoleServer
import Foundation
import TestSupport
import Testing

/// What a receiver's check refuses, and how the webhook's settings are checked at start-up.
@Suite("Webhook signature and configuration")
struct WebhookSignatureTests {
    private let secret = Data("3f9c2a7e1b8d4c6f0a5e9b2d7c1f8a4e6b3d0c9f".utf8)
    private let body = Data(#"{"id":"m-1","version":1}"#.utf8)
    private let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a signature verifies within five minutes either way, and not with another body, secret, or time")
    func verify() throws {
        // setup
        let signer = WebhookSignature(secret: secret)
        let signature = signer.sign(body: body, timestamp: 1_795_000_000)

        // act + check
        try signer.verify(body: body, timestamp: "1795000000", signature: signature, now: now.addingTimeInterval(299))
        try signer.verify(body: body, timestamp: "1795000000", signature: signature, now: now.addingTimeInterval(-299))
        #expect(throws: WebhookSignature.Refusal.tooOld) {
            try signer.verify(body: body, timestamp: "1795000000", signature: signature, now: now.addingTimeInterval(301))
        }
        #expect(throws: WebhookSignature.Refusal.inTheFuture) {
            try signer.verify(body: body, timestamp: "1795000000", signature: signature, now: now.addingTimeInterval(-301))
        }
        #expect(throws: WebhookSignature.Refusal.mismatch) {
            try signer.verify(body: Data(#"{"id":"m-2","version":1}"#.utf8), timestamp: "1795000000", signature: signature, now: now)
        }
        #expect(throws: WebhookSignature.Refusal.mismatch) { try signer.verify(body: body, timestamp: "1795000001", signature: signature, now: now) }
        #expect(throws: WebhookSignature.Refusal.mismatch) {
            try WebhookSignature(secret: Data(repeating: 7, count: 32)).verify(body: body, timestamp: "1795000000", signature: signature, now: now)
        }
        #expect(throws: WebhookSignature.Refusal.malformed) { try signer.verify(body: body, timestamp: "", signature: signature, now: now) }
        #expect(throws: WebhookSignature.Refusal.malformed) { try signer.verify(body: body, timestamp: "1795000000", signature: "v1=zz", now: now) }
    }

    @Test("the signature is hex HMAC-SHA256 over \"<timestamp>.<body>\", as the README tells receivers")
    func knownAnswer() {
        // setup: computed independently with
        // printf '1795000000.{"id":"m-1","version":1}' | openssl dgst -sha256 -hmac 3f9c2a7e1b8d4c6f0a5e9b2d7c1f8a4e6b3d0c9f
        let expected = "v1=60dd0150a6a904bfec59dd5e6d9a2ba54250f1491efdfb85bbd51fc36577f0c1"

        // act
        let signature = WebhookSignature(secret: secret).sign(body: body, timestamp: 1_795_000_000)

        // check
        #expect(signature == expected)
    }

    @Test("the URL must be http or https, the secret at least 32 bytes, and a secret file private to its owner")
    func configuration() throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let open = directory.path("open.secret")
        let closed = directory.path("closed.secret")
        #expect(FileManager.default.createFile(atPath: open, contents: secret, attributes: [.posixPermissions: 0o644]))
        #expect(FileManager.default.createFile(atPath: closed, contents: secret + Data("\n".utf8), attributes: [.posixPermissions: 0o600]))

        // act + check
        #expect(throws: WebhookConfigurationError.unsupportedURL("ftp://hooks.example.org/x")) {
            try WebhookConfiguration(url: "ftp://hooks.example.org/x", secret: secret)
        }
        #expect(throws: WebhookConfigurationError.emptySecret) { try WebhookConfiguration(url: "https://hooks.example.org/x", secret: Data()) }
        #expect(throws: WebhookConfigurationError.secretTooShort(6)) {
            try WebhookConfiguration(url: "https://hooks.example.org/x", secretFile: nil, secretText: "hunter")
        }
        #expect(throws: WebhookConfigurationError.secretFileTooOpen(open, mode: 0o644)) {
            try WebhookConfiguration(url: "https://hooks.example.org/x", secretFile: open, secretText: nil)
        }
        #expect(throws: WebhookConfigurationError.missingSecret) {
            try WebhookConfiguration(url: "https://hooks.example.org/x", secretFile: nil, secretText: nil)
        }
        let fromFile = try WebhookConfiguration(url: "https://hooks.example.org/x", secretFile: closed, secretText: "ignored when a file is given")
        #expect(fromFile.secret == secret, "the line break echo adds is not part of the secret")
        #expect(
            WebhookConfigurationError.secretTooShort(6).description
                == "The webhook signing secret is 6 bytes; it must be at least 32 (e.g. `openssl rand -hex 32`).")
    }
}
