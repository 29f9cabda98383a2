import Testing

@testable import ConsoleServer

/// Which addresses the console refuses before any controller sees them.
@Suite("Request addresses: what is refused and why")
struct RequestTargetProblemTests {
    @Test(
        "control characters, raw or %-escaped, in the path or the query",
        arguments: [
            ("/libraries", "q=a%00b"), ("/static/console.js%00.html", ""), ("/x%0D%0A", ""), ("/libraries", "q%1f=x"), ("/libraries", "q=%7f"), ("/a\u{1}", ""),
        ])
    func controlCharacters(path: String, query: String) {
        #expect(RequestTargetProblem(path: path, query: query) == .controlCharacter)
    }

    @Test("dot segments, however they are spelled", arguments: ["/..", "/static/../Package.swift", "/static/%2e%2E/x", "/./libraries", "/static/%2E"])
    func dotSegments(path: String) {
        #expect(RequestTargetProblem(path: path, query: "") == .dotSegment)
    }

    @Test(
        "ordinary addresses pass: tabs, non-ASCII text, dots inside names, broken escapes left to the pages",
        arguments: [
            ("/libraries", "q=a%09b"), ("/libraries", "q=caf%C3%A9+%E6%9B%B8"), ("/static/console.css", ""), ("/libraries/a..b", ""),
            ("/libraries", "q=100%"), ("/libraries", "q=%zz"), ("/", ""),
        ])
    func ordinary(path: String, query: String) {
        #expect(RequestTargetProblem(path: path, query: query) == nil)
    }
}
