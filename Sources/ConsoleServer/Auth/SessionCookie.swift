import Foundation
import Hummingbird

/// The session cookie: an opaque random value; the database keeps only its hash.
/// Behind TLS its name carries the `__Host-` prefix, which browsers accept only on a
/// `Secure`, host-only, `Path=/` cookie, so no sibling subdomain can set or shadow it.
struct SessionCookie: Sendable {
    static let baseName = "bc_session"
    /// The sign-in form's CSRF token lives here until there is a session to bind it to.
    static let signInCSRFName = "bc_signin"

    let secure: Bool

    /// The session cookie's name as this console sets and reads it.
    var name: String { secure ? "__Host-" + Self.baseName : Self.baseName }

    /// The sign-in token cookie's name (`Path=/sign-in`, so `__Secure-` rather than `__Host-`).
    var signInCSRFName: String { secure ? "__Secure-" + Self.signInCSRFName : Self.signInCSRFName }

    /// The session cookie's value in a request, if any.
    func value(in request: Request) -> String? {
        request.cookies[name]?.value
    }

    /// The sign-in token cookie's value in a request, if any.
    func signInCSRFValue(in request: Request) -> String? {
        request.cookies[signInCSRFName]?.value
    }

    func issue(_ value: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func clear() -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    func signInCSRF(_ value: String) -> Cookie {
        Cookie(name: signInCSRFName, value: value, maxAge: 3_600, path: SiteURL.signIn.path, secure: secure, httpOnly: true, sameSite: .strict)
    }
}
