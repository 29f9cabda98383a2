import Foundation
import Hummingbird

/// The cookie of a browser that signed in here before: a random value (the database keeps its
/// hash) that lets this browser's sign-ins spend the share of Book Corners' sign-in limit that
/// strangers cannot. Replaced by a new one at every sign-in, so a copy works once.
struct RememberedBrowserCookie: Sendable {
    static let baseName = "bc_known"
    /// How long a browser is remembered after its last sign-in.
    static let lifetime: TimeInterval = 180 * 24 * 3_600

    let secure: Bool

    var name: String { secure ? "__Host-" + Self.baseName : Self.baseName }

    func value(in request: Request) -> String? {
        request.cookies[name]?.value
    }

    func issue(_ value: String) -> Cookie {
        Cookie(name: name, value: value, maxAge: Int(Self.lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}
