import Foundation
import TestSupport

/// Signing in and posting forms over plain HTTP, for tests of the real binary (no browser).
enum RawForms {
    /// A form body, every value percent-encoded.
    static func body(_ fields: [(String, String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return Array(fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&").utf8)
    }

    /// The `name=value` part of each `Set-Cookie`.
    static func cookies(_ answer: RawAnswer) -> [String] {
        answer.headers.filter { $0.0 == "set-cookie" }.map { String($0.1.split(separator: ";")[0]) }
    }

    /// The value of the first hidden field `name` in `html`.
    static func field(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// Signs in through the form at `base`; answers the session cookie (`bc_session=…`).
    static func signIn(base: String, login: String, password: String) async throws -> String? {
        let page = try await rawHTTP(.GET, base + "/sign-in")
        let answer = try await rawHTTP(
            .POST, base + "/sign-in",
            headers: [("Cookie", cookies(page).joined(separator: "; ")), ("Content-Type", "application/x-www-form-urlencoded")],
            body: body([("csrf", field("csrf", in: page.text) ?? ""), ("login", login), ("password", password)]))
        return cookies(answer).first { $0.hasPrefix("bc_session=") }
    }

    /// Approves the library `slug` from its page at `base`, signed in as `session`, as the
    /// page's Approve button sends it; answers the console's answer.
    static func approve(slug: String, base: String, session: String) async throws -> RawAnswer {
        let page = try await rawHTTP(.GET, base + "/libraries/\(slug)", headers: [("Cookie", session)])
        return try await rawHTTP(
            .POST, base + "/libraries/\(slug)/decide",
            headers: [("Cookie", session), ("Content-Type", "application/x-www-form-urlencoded")],
            body: body([("csrf", field("csrf", in: page.text) ?? ""), ("key", UUID().uuidString), ("seen", "pending"), ("decision", "approve")]))
    }
}
