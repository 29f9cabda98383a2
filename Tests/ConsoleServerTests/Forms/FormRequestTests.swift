import Foundation
import GRDB
import Sandbox
import TestSupport
import Testing

/// The decoding boundary seen from a browser: a form that cannot be read or does not check out
/// gets the one 400 page, saying what was wrong, and nothing is recorded or sent.
@Suite("Forms: malformed forms get the 400 page and record nothing", .timeLimit(.minutes(3)))
struct FormRequestTests {
    private func recorded(_ directory: TemporaryDirectory, _ sql: String) throws -> Int {
        let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
        return try database.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    private func pendingSlug(_ sandbox: SandboxFixture) async throws -> String {
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=1", token: try await sandbox.accessToken()).jsonObject()
        return try #require(((list?["items"] as? [[String: Any]])?.first?["slug"]) as? String)
    }

    @Test("an unknown decision, a repeated field, a bulk confirmation without items and a JSON body are each refused in words")
    func malformedForms() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup
            try await browser.signIn()
            let slug = try await pendingSlug(sandbox)
            let page = try await browser.get("/libraries/\(slug)")
            let csrf = try #require(page.csrfToken)
            let decide = "/libraries/\(slug)/decide"

            // act
            let unknown = try await browser.post(decide, form: [("csrf", csrf), ("key", "k1"), ("seen", "pending"), ("decision", "frobnicate")])
            let repeated = try await browser.post(
                decide,
                form: [
                    ("csrf", csrf), ("key", "k2"), ("seen", "pending"), ("decision", "approve"), ("decision", "pending"),
                ])
            let noItems = try await browser.post("/libraries/bulk/confirm", form: [("csrf", csrf), ("key", "k3"), ("decision", "approve")])
            let json = try await browser.post(
                decide, body: #"{"csrf": "\#(csrf)", "key": "k4", "seen": "pending", "decision": "approve"}"#, contentType: "application/json")

            // check
            let expected = [
                (unknown, "Choose one of: approve, pending, reject."),
                (repeated, "The form arrived garbled (a field was repeated or badly encoded), so nothing was done."),
                (noItems, "Select at least one library first."),
                (json, "The console only reads forms sent from its own pages, and this request did not carry one."),
            ]
            for (answer, message) in expected {
                #expect(answer.status == .badRequest, "\(answer)")
                #expect(answer.contains("<h1>That did not work</h1>") && answer.contains(message), "\(answer)")
            }
            #expect(try recorded(directory, "SELECT COUNT(*) FROM action") == 0, "no decision was recorded")
            #expect(try recorded(directory, "SELECT COUNT(*) FROM auditEntry WHERE targetKind != 'session'") == 0)
            let status = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: try await sandbox.accessToken()).jsonObject()?["status"]
            #expect(status as? String == "pending", "nothing was sent")
        }
    }
}
