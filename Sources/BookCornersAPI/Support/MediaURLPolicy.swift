import Foundation

/// Which photo and thumbnail addresses from Book Corners the console puts into `<img src>`
/// and `<a href>`: only http(s) URLs on the backend's own origin or on an origin the operator
/// configured (a CDN). Anything else (`javascript:`, `data:`, a protocol-relative `//host`, an
/// off-site tracker) becomes "", which every page shows as "no photo": the Content-Security-
/// Policy would stop a script, but not a click on an off-site link.
public struct MediaURLPolicy: Sendable, Equatable {
    /// The backend's origin, against which relative paths resolve.
    public let origin: MediaOrigin
    /// Every origin an image may come from, the backend's first.
    public let allowedOrigins: [MediaOrigin]

    /// `extraOrigins` are further `scheme://host[:port]` texts; ones that are not http(s) origins are ignored.
    public init(backendOrigin: URL, extraOrigins: [String] = []) {
        let origin = MediaOrigin(backendOrigin) ?? MediaOrigin(scheme: "https", host: "invalid.invalid", port: nil)
        self.origin = origin
        var allowed = [origin]
        for text in extraOrigins {
            guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)), let extra = MediaOrigin(url), !allowed.contains(extra) else { continue }
            allowed.append(extra)
        }
        self.allowedOrigins = allowed
    }

    /// The absolute address to show for `path`, or "" when there is none or it is not allowed.
    public func accepted(_ path: String) -> String {
        guard !path.isEmpty,
            // A backslash reads as a slash to browsers (`/\evil.example` is `//evil.example`), and
            // spaces or control characters have no business in an address the backend made.
            !path.unicodeScalars.contains(where: { $0 == "\\" || $0.value <= 0x20 || $0.value == 0x7F || !$0.isASCII })
        else { return "" }
        let url: URL?
        if let absolute = URL(string: path), absolute.scheme != nil {
            url = absolute
        } else {
            url = URL(string: path, relativeTo: origin.url)?.absoluteURL
        }
        guard let url, url.user == nil, url.password == nil, let found = MediaOrigin(url), allowedOrigins.contains(found) else { return "" }
        return url.absoluteString
    }

    /// The allowed origins as a Content-Security-Policy source list.
    public var sourceList: String { allowedOrigins.map(\.text).joined(separator: " ") }
}

/// A `scheme://host[:port]` that images may come from: http or https only.
public struct MediaOrigin: Sendable, Equatable {
    public let scheme: String
    public let host: String
    /// nil for the scheme's default port.
    public let port: Int?

    init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        let defaultPort = scheme == "https" ? 443 : 80
        self.port = url.port.flatMap { $0 == defaultPort ? nil : $0 }
    }

    /// `scheme://host[:port]`.
    public var text: String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(port.map { ":\($0)" } ?? "")"
    }

    var url: URL? { URL(string: text + "/") }
}
