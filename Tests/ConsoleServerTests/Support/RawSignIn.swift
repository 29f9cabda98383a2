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
    /// A sign-in these tests only need as setup is tried twice: under the whole suite's load one
    /// was seen to answer without a session (its words are printed, to find out why).
    /// `attempts: 1` for a sign-in that is itself under test.
    static func signIn(base: String, login: String, password: String, attempts: Int = 2) async throws -> String? {
        for attempt in 1...attempts {
            let page = try await rawHTTP(.GET, base + "/sign-in")
            let answer = try await rawHTTP(
                .POST, base + "/sign-in",
                headers: [("Cookie", cookies(page).joined(separator: "; ")), ("Content-Type", "application/x-www-form-urlencoded")],
                body: body([("csrf", field("csrf", in: page.text) ?? ""), ("login", login), ("password", password)]))
            if let session = cookies(answer).first(where: { $0.hasPrefix("bc_session=") }) { return session }
            let said = answer.text.range(of: "role=\"alert\"").map { String(answer.text[$0.upperBound...].prefix(300)) } ?? ""
            print("sign-in \(attempt) of \(login) at \(base) answered \(answer.status) without a session: \(said)")
            if attempt < attempts { try await Task.sleep(for: .seconds(1)) }
        }
        return nil
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

    /// Posts a decision on an item at `base` as its page's form sends it: `path` is the item's
    /// page (`/libraries/slug`, `/reports/7`, `/photos/7`), `decision` a `Decision` raw value; a
    /// rejection comes already confirmed, with `reason`.
    static func decide(
        _ path: String, decision: String, seen: String, reason: String = "", base: String, session: String
    ) async throws -> RawAnswer {
        let page = try await rawHTTP(.GET, base + "/", headers: [("Cookie", session)])
        var fields = [
            ("csrf", field("csrf", in: page.text) ?? ""), ("key", UUID().uuidString), ("seen", seen), ("decision", decision),
        ]
        if decision == "reject" { fields += [("reason", reason), ("confirmed", "1")] }
        return try await rawHTTP(
            .POST, base + path + "/decide", headers: [("Cookie", session), ("Content-Type", "application/x-www-form-urlencoded")], body: body(fields))
    }
}
