import Foundation

/// The sign-in form. Its token is checked against the sign-in cookie before its credentials.
struct SignInForm: Decodable, Sendable {
    /// A login and password worth asking the backend about.
    struct Credentials: Sendable, Equatable {
        let login: String
        let password: String
    }

    /// The username or e-mail as typed, trimmed, and cut to the longest an e-mail can be.
    let login: String
    let password: String
    /// Where to go once signed in, as sent: the controller makes it safe.
    let next: String?
    let csrf: String?
    /// The key of a decision form kept when the session ended: shown again once signed in.
    let kept: String?

    private enum CodingKeys: String, CodingKey {
        case login, password, next, csrf, kept
    }

    init(login: String, password: String, next: String? = nil, csrf: String? = nil, kept: String? = nil) {
        self.kept = kept.flatMap(KeptFormKey.valid)
        self.login = String(login.trimmingCharacters(in: .whitespacesAndNewlines).prefix(254))
        self.password = String(password.prefix(1024))
        self.next = next
        self.csrf = csrf
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            login: try container.decodeIfPresent(String.self, forKey: .login) ?? "",
            password: try container.decodeIfPresent(String.self, forKey: .password) ?? "",
            next: try container.decodeIfPresent(String.self, forKey: .next),
            csrf: try container.decodeIfPresent(String.self, forKey: .csrf),
            kept: try container.decodeIfPresent(String.self, forKey: .kept))
    }

    func validated() throws(FormError) -> Credentials {
        guard !login.isEmpty, !password.isEmpty else { throw .credentialsMissing }
        return Credentials(login: login, password: password)
    }
}

/// The key of a kept decision form as an address may carry it: what `RandomToken.make()`
/// writes (URL-safe base64, at most 100 characters), nothing else.
enum KeptFormKey {
    static func valid(_ text: String) -> String? {
        guard !text.isEmpty, text.count <= 100,
            text.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "_" })
        else { return nil }
        return text
    }
}
