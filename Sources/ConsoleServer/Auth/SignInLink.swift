import Foundation
import ModerationStore

/// A sign-in link an operator issues (`console staff sign-in-link jonas`) for someone signing
/// in here for the first time, or from a new browser, while strangers' failed guesses keep the
/// sign-ins open to everyone spent: opening it makes that browser remembered for the username,
/// so its sign-in draws on the kept share. It grants nothing by itself (the password is still
/// Book Corners' to check), works once, and lapses after `lifetime`.
public enum SignInLink {
    /// How long an issued link can be opened.
    public static let lifetime: TimeInterval = 48 * 3_600

    /// Stores a new link's hash for `username`; answers its path (`/sign-in/link/…`).
    public static func issue(for username: String, store: ModerationStore, now: Date = Date()) async throws -> String {
        let token = RandomToken.make()
        let login = username.trimmingCharacters(in: .whitespaces).lowercased()
        try await store.rememberBrowser(
            tokenHash: RandomToken.digest(token), accountKey: login, username: login, now: now, expiresAt: now.addingTimeInterval(lifetime))
        return SiteURL.signInLink(token).path
    }
}
