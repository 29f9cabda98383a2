import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// What reaches the console before any page does: odd addresses, static files, HEAD.
@Suite("Addresses, static files and HEAD", .timeLimit(.minutes(3)))
struct HTTPEdgeTests {
    @Test(
        "dot segments and control characters in a path answer the console's 400 or 404 page, never a 500",
        arguments: [
            ("/static/../Package.swift", 400), ("/static/%2e%2e/x", 400), ("/..", 400), ("/static/%2E%2E/%2E%2E/Package.swift", 400),
            ("/static/console.js%00.html", 400), ("/static/console.css%0a", 400), ("/static/nope.css", 404), ("/static/", 404),
            ("/static/console.css/", 404), ("/static/Console.CSS", 404),
        ])
    func oddPaths(path: String, status: Int) async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // act
            let page = try await browser.get(path)

            // check: the normal error page, with a reason, not the unexpected-problem page
            #expect(page.status.code == status, "\(page)")
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.contains(#"<main"#))
            #expect(!page.contains("Something went wrong"))
            #expect(page.headers[.cacheControl] == "no-store", "an error page is not cached")
            if status == 400 {
                #expect(page.contains("control character") || page.contains("folder step"), "says what was wrong: \(page)")
            }
        }
    }

    @Test("each static file is served with the type we chose for it, validators and caching; an unchanged one answers 304")
    func staticFiles() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            for (name, type) in [("console.css", "text/css; charset=utf-8"), ("console.js", "text/javascript; charset=utf-8"), ("icon.svg", "image/svg+xml")] {
                // act
                let file = try await browser.get("/static/\(name)")

                // check
                #expect(file.status == .ok)
                #expect(file.headers[.contentType] == type)
                let onDisk = try String(contentsOfFile: RepositoryPaths.publicFiles + "/" + name, encoding: .utf8)
                #expect(file.html == onDisk)
                #expect(file.headers[.contentLength] == String(onDisk.utf8.count))
                #expect(file.headers[.cacheControl] == "public, max-age=3600")
                #expect(file.headers[.xContentTypeOptions] == "nosniff")
                let tag = try #require(file.headers[.eTag])
                let modified = try #require(file.headers[.lastModified])
                #expect(modified.hasSuffix(" GMT"))

                let byTag = try await browser.get("/static/\(name)", headers: [.ifNoneMatch: tag])
                #expect(byTag.status == .notModified)
                #expect(byTag.html.isEmpty)
                #expect(byTag.headers[.eTag] == tag)
                let byDate = try await browser.get("/static/\(name)", headers: [.ifModifiedSince: modified])
                #expect(byDate.status == .notModified)
                let changed = try await browser.get("/static/\(name)", headers: [.ifNoneMatch: "\"other\""])
                #expect(changed.status == .ok)
            }
        }
    }

    @Test("only files of a type we know, directly in the public directory, are served; a name never picks its type")
    func onlyKnownStaticFiles() async throws {
        // setup: a public directory with files the console must not serve
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let publicFiles = directory.url.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: publicFiles.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for name in ["style.css", "page.html", "notes", "data.json", "sub/inner.css"] {
            try Data("<script>alert(1)</script>".utf8).write(to: publicFiles.appendingPathComponent(name))
        }
        var configuration = ConsoleFixture.configuration(backendURL: try #require(URL(string: "http://127.0.0.1:1/api/v1/")), directory: directory)
        configuration.publicDirectory = publicFiles.path
        let app = try await buildConsoleApplication(configuration: configuration, logger: ConsoleFixture.quietLogger)

        try await app.test(.router) { client in
            // act
            let css = try await client.execute(uri: "/static/style.css", method: .get)
            let refused = [
                try await client.execute(uri: "/static/page.html", method: .get), try await client.execute(uri: "/static/notes", method: .get),
                try await client.execute(uri: "/static/data.json", method: .get), try await client.execute(uri: "/static/sub/inner.css", method: .get),
                try await client.execute(uri: "/static/sub%2Finner.css", method: .get),
            ]

            // check
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            for response in refused {
                #expect(response.status == .notFound)
                #expect(!String(buffer: response.body).contains("<script>alert(1)"))
            }
        }
    }

    @Test("NUL and other control characters in a query answer the 400 page before any controller runs; a tab is fine")
    func controlCharactersInQuery() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()

            for path in ["/libraries?q=a%00b", "/reports?status=open%1B", "/libraries?q%00=x", "/sign-in?next=/%0d%0aX", "/libraries?q=a%7Fb"] {
                // act
                let page = try await browser.get(path)

                // check
                #expect(page.status == .badRequest, "\(path): \(page)")
                #expect(page.contains("control character"), "\(path) says what was wrong")
            }
            let tab = try await browser.get("/libraries?q=a%09b")
            #expect(tab.status == .ok, "\(tab)")
        }
    }

    @Test("an HTTP/1.0 request is answered as HTTP/1.0 and its connection closed after the answer; HTTP/1.1 stays open")
    func http10Closes() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, _ in
            // setup
            let port = try #require(browser.client.port)
            // act
            let old = try await RawHTTPExchange.untilClose(Array("GET /sign-in HTTP/1.0\r\nHost: localhost\r\n\r\n".utf8), port: port, limit: .seconds(5))
            let current = try await RawHTTPExchange.untilClose(Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8), port: port, limit: .seconds(2))
            // check
            #expect(old.closed, "the server closed the 1.0 connection after answering")
            #expect(old.text.hasPrefix("HTTP/1.0 200"), "\(old.text.prefix(80))")
            #expect(old.text.lowercased().contains("connection: close"))
            #expect(!old.text.lowercased().contains("transfer-encoding"), "a 1.0 body is delimited by the close")
            #expect(old.text.contains("</html>"), "the whole page arrived")
            #expect(current.text.hasPrefix("HTTP/1.1 200") && !current.closed, "1.1 keeps its connection for the next request")
        }
    }

    @Test("HEAD on the audit export sends nothing and so records no export; GET records one")
    func headOnExportIsNotAnExport() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            func exports() async throws -> Int { try await store.auditEntries(limit: 100).filter { $0.action == AuditEntry.exportAction }.count }

            // act
            let head = try await browser.head("/audit/export?format=csv")
            let afterHead = try await exports()
            let get = try await browser.get("/audit/export?format=csv")

            // check
            #expect(head.status == .ok)
            #expect(head.html.isEmpty)
            #expect(afterHead == 0, "a HEAD is not an export")
            #expect(get.status == .ok)
            await #expect(try exports() == 1)
        }
    }

    @Test(
        "HEAD answers like GET, status and headers, without a body",
        arguments: ["/", "/libraries", "/audit", "/sign-in", "/static/console.css", "/static/icon.svg", "/healthz", "/nowhere", "/static/nope.js"])
    func head(path: String) async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()

            // act
            let get = try await browser.get(path)
            let head = try await browser.head(path)

            // check
            #expect(head.status == get.status, "\(path): HEAD \(head.status), GET \(get.status)")
            #expect(head.html.isEmpty)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(head.headers[.cacheControl] == get.headers[.cacheControl])
            #expect(head.headers[.contentSecurityPolicy] == get.headers[.contentSecurityPolicy])
            let length = try #require(head.headers[.contentLength], "\(path): HEAD says how long GET's body is")
            #expect((Int(length) ?? 0 > 0) == !get.html.isEmpty, "\(path): \(length)")
            if ["/static/console.css", "/static/icon.svg", "/healthz"].contains(path) {
                #expect(head.headers[.contentLength] == get.headers[.contentLength])
                #expect(head.headers[.eTag] == get.headers[.eTag])
            }
        }
    }

    @Test("a HEAD without a session is sent to sign in, as a GET is")
    func headSignedOut() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // act
            let get = try await browser.get("/libraries?status=pending")
            let head = try await browser.head("/libraries?status=pending")

            // check
            #expect(head.status == get.status)
            #expect(head.location == get.location, "HEAD \(head.location ?? "-"), GET \(get.location ?? "-")")
        }
    }

    @Test("a method no page offers answers a page with a 4xx status that says what happened, never the 500 page")
    func unexpectedMethods() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()

            for (method, path) in [(HTTPRequest.Method.put, "/libraries"), (.delete, "/audit/1"), (.patch, "/"), (.get, "/libraries/some-slug/decide")] {
                // act
                let page = try await browser.request(path, method: method)

                // check
                #expect((400..<500).contains(page.status.code), "\(method) \(path): \(page.status)")
                #expect(!page.contains("Something went wrong"), "\(method) \(path)")
                #expect(page.contains("<title>"), "\(method) \(path) answers a page")
            }
        }
    }
}
