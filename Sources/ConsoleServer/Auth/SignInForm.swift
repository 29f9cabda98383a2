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

    private enum CodingKeys: String, CodingKey {
        case login, password, next, csrf
    }

    init(login: String, password: String, next: String? = nil, csrf: String? = nil) {
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
            csrf: try container.decodeIfPresent(String.self, forKey: .csrf))
    }

    func validated() throws(FormError) -> Credentials {
        guard !login.isEmpty, !password.isEmpty else { throw .credentialsMissing }
        return Credentials(login: login, password: password)
    }
}
