import Foundation
import PropertySupport

@testable import ConsoleServer

/// One made-up request: its bytes, and whether it is a HEAD (whose answer has no body).
struct FuzzRequest: Sendable {
    let bytes: [UInt8]
    let isHead: Bool
    /// Whether its head or body is left unfinished on purpose (the server must time it out).
    let unfinished: Bool
    /// The request line, for reports.
    let summary: String
}

/// Makes random requests against the console: odd methods, its real routes filled with junk,
/// garbage headers, cookies and form bodies, with and without a real session and CSRF token.
/// Request `index` depends only on the seed and the index, whatever order they are sent in.
struct FuzzRequestMaker: Sendable {
    let seed: UInt64
    let port: Int
    /// A signed-in session's `Cookie` pair, and the CSRF token of its forms.
    let sessionCookie: String
    let csrf: String
    /// Real item names and ids, so some junk lands on real pages.
    let slugs: [String]

    private static let methods = [
        "GET", "GET", "GET", "GET", "POST", "POST", "POST", "POST", "HEAD", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE",
        "CONNECT", "PROPFIND", "get", "Post", "G\u{0}T", "GET GET", "", "BREW", String(repeating: "X", count: 300), "M-SEARCH", "QUERY",
    ]
    private static let segmentJunk = [
        "1", "42", "0", "-1", "99999999999999999999", "1.5", "1e9", "%00", "%zz", "%", "%2F", "%2f..%2f", "..", ".", "%2e%2e", "%2E",
        "a%20b", "a+b", "<script>", "%3Cscript%3E", "'", "\"", "%22", "%C3%A9", "%C3", "%FF%FE", "é", "📚", "\u{600}", "%0d%0aX-Injected:%201",
        "~", "_", "", "null", "undefined", "NaN", "library-1", "a;b", "a,b", "a=b", "a?b", "a#b", "@", "*",
    ]
    private static let queryJunk = [
        "q=", "q=%zz", "q=a+b", "q=%00", "page=-1", "page=0", "page=99999999999999999999", "page=abc", "page_size=1000000",
        "status=%3Cb%3E", "order=sideways", "days=-5", "days=100000", "days=1e3", "from=2026-13-45", "to=0000-00-00", "from=2026-11-01&to=2025-01-01",
        "outcome=%27", "staff=%C3", "country=XYZ", "country=%F0%9F%93%9A", "next=//evil.example", "next=https://evil.example/", "format=xls",
        "format=csv", "format=ndjson", "format=spreadsheet-csv", "kind=", "a[b][c][d]=1", "=", "&&&", "%", "q=" + String(repeating: "a", count: 4_000),
    ]
    private static let fieldNames = [
        "csrf", "key", "seen", "decision", "reason", "reason_preset", "item", "quick", "confirmed", "login", "password", "next", "back",
        "note", "report_reason", "target", "kept", "shift", "text", "starts", "ends", "staff", "token", "x[]", "x[0]", "a[b]", "",
    ]
    private static let fieldValues = [
        "approve", "reject", "pending", "approved", "rejected", "open", "resolve", "dismiss", "reopen", "1", "0", "-1", "", "%zz", "%",
        "a+b", "%C3%A9", "%00", "<script>alert(1)</script>", "'--", "\u{1F4DA}", "x|pending|X", "a|b|c|d", "corner|banana|", "2026-11-01",
        "2026-11-01T10:00", String(repeating: "r", count: 2_100), "staff", "demo-staff", "/", "//evil.example", "http://evil.example",
    ]

    func request(_ index: Int) -> FuzzRequest {
        var rng = SeededGenerator(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        // Two in five requests are well-formed but for their address and form: signed in, so
        // the junk reaches the pages' own code rather than stopping at the HTTP parser.
        let tame = Int.random(in: 0..<5, using: &rng) < 2
        let method = (tame ? ["GET", "GET", "POST", "POST", "HEAD"] : Self.methods).randomElement(using: &rng) ?? "GET"
        let target = self.target(&rng)
        let version = tame ? "HTTP/1.1" : pick(&rng, [(40, "HTTP/1.1"), (3, "HTTP/1.0"), (1, "HTTP/2.0"), (1, "HTTP/9.9"), (1, "HTTP/1.1 extra"), (1, "")])
        let (body, contentType) = self.body(&rng, method: method)
        var headers: [String] = []
        headers += tame ? ["Host: 127.0.0.1:\(port)"] : host(&rng)
        headers += tame ? ["Cookie: \(target.hasPrefix(SiteURL.signOut.path) ? "bc_session=forged" : sessionCookie)"] : cookie(&rng, path: target)
        if let origin = pick(&rng, [(4, nil), (4, "http://127.0.0.1:\(port)"), (1, "http://evil.example"), (1, "null"), (1, "%")]) {
            headers.append("Origin: \(origin)")
        }
        if let contentType { headers.append("Content-Type: \(contentType)") }
        if !tame { headers += garbageHeaders(&rng) }
        let (framing, framedBody, unfinished) = tame ? (["Content-Length: \(body.count)"], body, false) : frame(&rng, body: body)
        headers += framing
        if let connection = pick(&rng, [(6, nil), (3, "close"), (1, "keep-alive"), (1, "Upgrade"), (1, "garbage, close")]) {
            headers.append("Connection: \(connection)")
        }
        headers.shuffle(using: &rng)
        let line = version.isEmpty ? "\(method) \(target)" : "\(method) \(target) \(version)"
        // A head cut off before its blank line: the server must time it out.
        let cutHead = !tame && !unfinished && Int.random(in: 0..<100, using: &rng) < 2
        var bytes = Array((line + "\r\n" + headers.joined(separator: "\r\n") + (cutHead ? "\r\n" : "\r\n\r\n")).utf8)
        if !cutHead { bytes += framedBody }
        return FuzzRequest(
            bytes: bytes, isHead: method == "HEAD", unfinished: unfinished || cutHead, summary: String("\(method) \(target) \(version)".prefix(160)))
    }

    // MARK: Parts

    private func target(_ rng: inout SeededGenerator) -> String {
        let route = SiteURL.Route.allCases.randomElement(using: &rng) ?? .dashboard
        let segments = route.rawValue.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix(":") else { return String(segment) }
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3: return slugs.randomElement(using: &rng) ?? "1"
            case 3: return String(repeating: "a", count: Int.random(in: 200...9_000, using: &rng))
            default: return Self.segmentJunk.randomElement(using: &rng) ?? ""
            }
        }
        var path = segments.joined(separator: "/")
        switch Int.random(in: 0..<30, using: &rng) {
        case 0: path += "/"
        case 1: path = "/" + path
        case 2: path += "/../../etc/passwd"
        case 3: path = "*"
        case 4: path = "http://127.0.0.1:\(port)" + path
        case 5: path = String(path.dropFirst())
        case 6: path += "/" + (Self.segmentJunk.randomElement(using: &rng) ?? "")
        case 7: path = path.uppercased()
        case 8: path += "#fragment"
        default: break
        }
        if Bool.random(using: &rng) {
            let count = Int.random(in: 1...4, using: &rng)
            path += "?" + (0..<count).map { _ in Self.queryJunk.randomElement(using: &rng) ?? "" }.joined(separator: "&")
        }
        return path
    }

    private func host(_ rng: inout SeededGenerator) -> [String] {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return []
        case 1: return ["Host: 127.0.0.1:\(port)", "Host: evil.example"]
        case 2: return ["Host: "]
        case 3: return ["Host: \u{1}\u{7F}ä"]
        case 4: return ["Host: " + String(repeating: "h", count: 5_000)]
        default: return ["Host: 127.0.0.1:\(port)"]
        }
    }

    private func cookie(_ rng: inout SeededGenerator, path: String) -> [String] {
        // Signing out with the real token would end the session the rest of the run uses.
        let session = path.hasPrefix(SiteURL.signOut.path) ? "bc_session=forged" : sessionCookie
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<3: return []
        case 3..<6: return ["Cookie: \(session)"]
        case 6: return ["Cookie: \(session); bc_session=forged; =; ;;; a=\"b"]
        case 7: return ["Cookie: bc_session=" + String(repeating: "A", count: Int.random(in: 1...6_000, using: &rng))]
        case 8: return ["Cookie: bc_session=%zz%00; bc_signin=\u{1}", "Cookie: \(session)"]
        default: return ["Cookie: " + (Self.fieldValues.randomElement(using: &rng) ?? "")]
        }
    }

    private func body(_ rng: inout SeededGenerator, method: String) -> (body: [UInt8], contentType: String?) {
        guard method != "GET" && method != "HEAD" || Int.random(in: 0..<10, using: &rng) == 0 else { return ([], nil) }
        let contentType = pick(
            &rng,
            [
                (8, "application/x-www-form-urlencoded"), (2, "application/x-www-form-urlencoded; charset=UTF-8"), (1, "application/json"),
                (1, "multipart/form-data; boundary=x"), (1, "text/plain"), (1, "\u{1}"), (2, nil),
            ])
        var fields: [String] = []
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: fields.append("csrf=\(csrf)")
        case 1: fields.append("csrf=" + (Self.fieldValues.randomElement(using: &rng) ?? ""))
        default: break
        }
        for _ in 0..<Int.random(in: 0...8, using: &rng) {
            let name = Self.fieldNames.randomElement(using: &rng) ?? ""
            let value = Bool.random(using: &rng) ? (slugs.randomElement(using: &rng) ?? "") : (Self.fieldValues.randomElement(using: &rng) ?? "")
            fields.append(Int.random(in: 0..<20, using: &rng) == 0 ? name : "\(name)=\(value)")
        }
        fields.shuffle(using: &rng)
        var body = Array(fields.joined(separator: "&").utf8)
        switch Int.random(in: 0..<25, using: &rng) {
        case 0: body += (0..<Int.random(in: 1...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        case 1: body += Array(repeating: UInt8(ascii: "a"), count: 70 * 1024)  // over the console's 64 KiB form limit
        case 2: body = Array("{\"csrf\": \"\(csrf)\"}".utf8)
        case 3: body = Array(String(repeating: "a[", count: 500).utf8) + Array("=1".utf8)
        default: break
        }
        return (body, contentType)
    }

    /// How the body is framed: a right or wrong `Content-Length`, chunked or garbled
    /// `Transfer-Encoding`, or both; `unfinished` when the server must wait for bytes that never come.
    private func frame(_ rng: inout SeededGenerator, body: [UInt8]) -> (headers: [String], body: [UInt8], unfinished: Bool) {
        switch Int.random(in: 0..<40, using: &rng) {
        case 0: return (["Content-Length: 99999999999"], body, true)
        case 1: return (["Content-Length: \(body.count + 10)"], body, true)
        case 2: return (["Content-Length: -1"], body, false)
        case 3: return (["Content-Length: abc"], body, false)
        case 4: return (["Content-Length: \(body.count)", "Content-Length: \(body.count + 1)"], body, false)
        case 5: return (["Content-Length: \(max(body.count - 3, 0))"], body, false)
        case 6, 7: return (["Transfer-Encoding: chunked"], Self.chunked(body), false)
        case 8: return (["Transfer-Encoding: gzip, chunked"], Self.chunked(body), false)
        case 9: return (["Transfer-Encoding: garbage"], body, false)
        case 10: return (["Transfer-Encoding: chunked", "Content-Length: \(body.count)"], Self.chunked(body), false)
        case 11: return (["Transfer-Encoding: chunked"], Array("zz\r\n".utf8) + body, false)
        case 12: return (["Content-Length: 99999999999999999999999"], body, false)
        default: return (body.isEmpty && Bool.random(using: &rng) ? [] : ["Content-Length: \(body.count)"], body, false)
        }
    }

    private static func chunked(_ body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = body[...]
        while !rest.isEmpty {
            let piece = rest.prefix(1_000)
            bytes += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
            rest = rest.dropFirst(piece.count)
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }

    private func garbageHeaders(_ rng: inout SeededGenerator) -> [String] {
        let candidates = [
            "X-Forwarded-For: 1.2.3.4, <script>", "X-Forwarded-For: ::::::", "Forwarded: for=\"[::1\"", "If-None-Match: \"\u{1}\"",
            "If-Modified-Since: yesterday", "Range: bytes=-1-2", "Accept-Encoding: gzip;q=NaN", "Accept: */*;q=2", "Expect: 100-continue",
            "Expect: 999-magic", "X-Empty:", "NoColonHere", " leading-space: x", "Bad Name: x", "X-Fold: a\r\n folded",
            "X-Long: " + String(repeating: "v", count: 9_000),
            "Upgrade: h2c", "HTTP2-Settings: AAAA", "Authorization: Bearer \u{7F}", "Referer: javascript:alert(1)", "User-Agent: =HYPERLINK(\"x\")",
            "X-Request-Id: \u{1B}[31m", "Cache-Control: no-cache, no-cache, max-age=-1",
        ]
        return (0..<Int.random(in: 0...3, using: &rng)).compactMap { _ in candidates.randomElement(using: &rng) }
    }

    /// One of `choices`, each as likely as its weight.
    private func pick<T>(_ rng: inout SeededGenerator, _ choices: [(Int, T)]) -> T {
        var roll = Int.random(in: 0..<choices.reduce(0) { $0 + $1.0 }, using: &rng)
        for (weight, choice) in choices {
            if roll < weight { return choice }
            roll -= weight
        }
        return choices[choices.count - 1].1
    }
}
