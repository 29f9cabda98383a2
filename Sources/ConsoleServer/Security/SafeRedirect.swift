import Foundation

/// `?next=` may only lead to a local path: never another host, never a scheme, never a
/// sign-in or sign-out loop, and never longer than a path the console makes.
enum SafeRedirect {
    /// Longer than any address the console links to (a list's filters included).
    static let maxLength = 2_048

    static func path(_ candidate: String?) -> String {
        guard let candidate, candidate.utf8.count <= maxLength, candidate.hasPrefix("/"), !candidate.hasPrefix("//"), !candidate.hasPrefix("/\\"),
            !candidate.contains("\\"), !candidate.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
            let components = URLComponents(string: candidate), components.scheme == nil, components.host == nil,
            !candidate.hasPrefix(SiteURL.signIn.path), !candidate.hasPrefix(SiteURL.signOut.path)
        else { return SiteURL.dashboard.path }
        return candidate
    }
}
