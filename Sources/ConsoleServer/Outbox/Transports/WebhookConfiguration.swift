import Foundation

/// Where the webhook transport posts, and the secret it signs with.
public struct WebhookConfiguration: Sendable {
    /// The shortest secret accepted: 32 bytes, HMAC-SHA256's own key size.
    public static let minimumSecretBytes = 32

    public let url: URL
    public let secret: Data
    /// The most one request may take, connecting included.
    public let timeout: Duration

    /// Checks the URL and secret as given; `secret` exactly as it will be used.
    public init(url text: String, secret: Data, timeout: Duration = .seconds(10)) throws(WebhookConfigurationError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw .unsupportedURL(text) }
        guard !secret.isEmpty else { throw .emptySecret }
        guard secret.count >= Self.minimumSecretBytes else { throw .secretTooShort(secret.count) }
        guard timeout > .zero else { throw .timeoutNotPositive }
        self.url = url
        self.secret = secret
        self.timeout = timeout
    }

    /// The secret from `secretFile` when given (it must be mode 0600 or stricter, like the
    /// console's token key; one trailing line break is ignored), else from `secretText`
    /// (an environment variable's value).
    public init(url: String, secretFile: String?, secretText: String?, timeout: Duration = .seconds(10)) throws(WebhookConfigurationError) {
        let secret: Data
        if let secretFile {
            secret = try Self.readSecret(at: secretFile)
        } else if let secretText {
            secret = Data(secretText.utf8)
        } else {
            throw .missingSecret
        }
        try self.init(url: url, secret: secret, timeout: timeout)
    }

    private static func readSecret(at path: String) throws(WebhookConfigurationError) -> Data {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { throw .cannotReadSecretFile(path) }
        // Whoever can read the secret can sign messages the receiver will believe came from us.
        let mode = (try? manager.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
        guard mode & 0o077 == 0 else { throw .secretFileTooOpen(path, mode: mode) }
        guard var contents = manager.contents(atPath: path) else { throw .cannotReadSecretFile(path) }
        // `echo secret > file` adds a line break nobody means as part of the secret.
        if contents.last == 0x0A { contents.removeLast() }
        if contents.last == 0x0D { contents.removeLast() }
        return contents
    }
}

/// Why the webhook cannot be configured, and what to do about it.
public enum WebhookConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsupportedURL(String)
    case missingSecret
    case emptySecret
    case secretTooShort(Int)
    case cannotReadSecretFile(String)
    /// Group or others may read or write the secret file.
    case secretFileTooOpen(String, mode: Int)
    case timeoutNotPositive

    public var description: String {
        switch self {
        case .unsupportedURL(let text):
            "The webhook URL '\(text)' is not an http:// or https:// address with a host; give one like https://hooks.example.org/book-corners."
        case .missingSecret:
            "The webhook needs a signing secret: give --outbox-webhook-secret-file or set CONSOLE_OUTBOX_WEBHOOK_SECRET."
        case .emptySecret:
            "The webhook signing secret is empty; put at least \(WebhookConfiguration.minimumSecretBytes) random bytes in it (e.g. `openssl rand -hex 32`)."
        case .secretTooShort(let count):
            "The webhook signing secret is \(count) bytes; it must be at least \(WebhookConfiguration.minimumSecretBytes) (e.g. `openssl rand -hex 32`)."
        case .cannotReadSecretFile(let path):
            "Cannot read the webhook secret file at \(path); check that it exists and its owner."
        case .secretFileTooOpen(let path, let mode):
            "The webhook secret file \(path) is readable by other users (mode \(String(mode, radix: 8))). Run `chmod 600 \(path)` and start the console again."
        case .timeoutNotPositive:
            "The webhook timeout must be more than zero seconds."
        }
    }
}
