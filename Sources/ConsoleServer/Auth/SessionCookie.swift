import Foundation
import Hummingbird

/// The session cookie: an opaque random value; the database keeps only its hash.
struct SessionCookie: Sendable {
    static let name = "bc_session"
    /// The sign-in form's CSRF token lives here until there is a session to bind it to.
    static let signInCSRFName = "bc_signin"

    let secure: Bool

    func issue(_ value: String, maxAge: Int) -> Cookie {
        Cookie(name: Self.name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func clear() -> Cookie {
        Cookie(name: Self.name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func signInCSRF(_ value: String) -> Cookie {
        Cookie(name: Self.signInCSRFName, value: value, maxAge: 3_600, path: "/sign-in", secure: secure, httpOnly: true, sameSite: .strict)
    }
}
