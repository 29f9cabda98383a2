import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// Every control character through every form field that reaches the audit log: what is
/// hashed is what is stored, so one sign-in typed with a NUL cannot break the chain (issue 29).
@Suite("Control characters in forms", .timeLimit(.minutes(3)))
struct ControlCharacterFormTests {
    /// Every C0 control, DEL and every C1 control, in one text.
    static let everyControl = String(
        String.UnicodeScalarView(
            (0x00...0x1F).compactMap(Unicode.Scalar.init)
                + [Unicode.Scalar(0x7F)].compactMap { $0 } + (0x80...0x9F).compactMap(Unicode.Scalar.init)))

    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    /// The chain verifies, and every entry reads back with the hash its stored contents give.
    private func expectIntactChain(_ store: ModerationStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let verdict = try await store.verifyAuditChain()
        guard case .intact = verdict else {
            Issue.record("the audit chain broke: \(verdict)", sourceLocation: sourceLocation)
            return
        }
    }

    @Test("anonymous sign-ins typed with a NUL (alone, inside a name, or every control character) leave the chain intact and the login visible")
    func signInWithNUL() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // act: as curl sends them, the NUL percent-escaped in the body
            for login in ["%00", "evil%00tail", Self.everyControl.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""] {
                let form = try await browser.get("/sign-in")
                let answer = try await browser.post(
                    "/sign-in", body: "csrf=\(form.csrfToken ?? "")&next=%2F&login=\(login)&password=x", contentType: "application/x-www-form-urlencoded")
                #expect(answer.status == .unauthorized, "a wrong password, said as one: \(answer.status)")
                #expect(!answer.html.contains("\u{0}"))
            }
            // check
            let store = try store(directory)
            try await expectIntactChain(store)
            let logins = try await store.auditEntries().filter { $0.action == AuditEntry.signInAction }.map(\.actorUsername)
            #expect(Set(logins).isSuperset(of: ["\u{2400}", "evil\u{2400}tail"]), "\(logins)")
            #expect(logins.allSatisfy { !ControlCharacters.contains(in: $0) })
            // The form keeps a login to 254 characters, as it always did.
            #expect(logins.contains(String(ControlCharacters.escaped(Self.everyControl).prefix(254))), "every control kept, made visible: \(logins)")
        }
    }

    @Test("a rejection reason and a staff note holding every control character are kept whole, made visible, and the chain verifies")
    func reasonAndNote() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup
            try await browser.signIn()
            let token = try await sandbox.accessToken()
            let pending = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=1", token: token).jsonObject()
            let slug = try #require(((pending?["items"] as? [[String: Any]])?.first)?["slug"] as? String)
            let reports = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=open&page_size=1", token: token).jsonObject()
            let reportID = try #require(((reports?["items"] as? [[String: Any]])?.first)?["id"] as? Int)
            let typed = "Not a library.\(Self.everyControl) End."
            let visible = "Not a library.\(ControlCharacters.escaped(Self.everyControl)) End."
            // act
            let page = try await browser.get("/libraries/\(slug)")
            let key = try #require(page.field("key", after: "class=\"reject-form\""))
            let form = [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", typed)]
            let confirm = try await browser.post("/libraries/\(slug)/decide", form: form)
            try await browser.post("/libraries/\(slug)/decide", form: form + [("confirmed", "1")])
            let reportPage = try await browser.get("/reports/\(reportID)")
            let note = try await browser.post("/reports/\(reportID)/note", form: [("csrf", reportPage.csrfToken ?? ""), ("note", typed)])
            // check
            #expect(confirm.status == .ok && confirm.contains("\u{2400}"), "the confirmation shows what will be sent")
            #expect(note.status == .seeOther)
            let store = try store(directory)
            try await expectIntactChain(store)
            let entries = try await store.auditEntries()
            #expect(entries.first { $0.action == "library.reject" }?.reason == visible)
            #expect(entries.first { $0.action == "report.note" }?.reason == visible)
            let library = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token).jsonObject()
            #expect(library?["rejection_reason"] as? String == visible.trimmingCharacters(in: .whitespacesAndNewlines), "Book Corners gets what was recorded")
            let after = try await browser.get("/reports/\(reportID)")
            #expect(after.contains("End."))
        }
    }

    @Test("the form decoder makes each control character visible and leaves other bodies byte for byte", arguments: 0...0x9F)
    func decoderEscapes(code: Int) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let body = "note=" + ((String(scalar) + "x").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let escaped = FormBodyDecoder.escapingControlCharacters(body)
        let decoded = try #require(escaped.dropFirst(5).removingPercentEncoding)
        if ControlCharacters.needsEscaping(scalar) {
            #expect(decoded == ControlCharacters.escaped(String(scalar)) + "x")
            #expect(!ControlCharacters.contains(in: decoded))
        } else {
            #expect(escaped == body, "untouched")
        }
    }
}
