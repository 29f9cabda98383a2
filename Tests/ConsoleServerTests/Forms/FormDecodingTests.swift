import BookCornersAPI
import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

/// Each form type decodes what its page sends, and refuses what it must with the words staff read.
@Suite("Forms: decoded into types, refused in words")
struct FormDecodingTests {
    private let decoder = FormBodyDecoder()

    /// A body as a browser encodes it.
    private func body(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }.joined(separator: "&")
    }

    private func decision(_ fields: [(String, String)], for kind: ModerationAction.TargetKind = .library) throws -> DecisionForm.Intent {
        try decoder.decode(DecisionForm.self, from: body(fields)).validated(for: kind)
    }

    /// The error `attempt` throws, for checking its case and its words together.
    private func refusal<T>(_ attempt: () throws -> T) -> FormError? {
        do {
            _ = try attempt()
            return nil
        } catch {
            return error as? FormError
        }
    }

    @Test(
        "the rotation's members split on the line breaks browsers send (CR LF), bare LF or CR, and commas",
        arguments: [
            "staff\r\nmaria\r\njonas", "staff\nmaria\njonas", "staff\rmaria\rjonas", "staff, maria,jonas", " staff \r\n\r\nmaria\r\n jonas\r\n",
        ])
    func rotationMembers(members: String) throws {
        let staff = [StaffMember(id: 1, username: "staff"), StaffMember(id: 2, username: "maria"), StaffMember(id: 3, username: "jonas")]
        let form = try decoder.decode(
            RotationForm.self,
            from: body([
                ("members", members), ("shiftDays", "7"), ("handoff", "18:00"), ("timeZone", "Europe/Rome"), ("startDate", "2026-11-23"),
            ]))
        #expect(try form.rotation(staff: staff).members.map(\.username) == ["staff", "maria", "jonas"])
    }

    // MARK: One decision

    @Test("a detail page's approval decodes to a decision to record, with the status seen and the key")
    func approval() throws {
        // act
        let intent = try decision([("csrf", "t"), ("key", "k1"), ("seen", "pending"), ("decision", "approve")])
        // check
        #expect(intent == .record(.approve, seen: .pending, key: "k1", reason: "", reportReason: nil))
    }

    @Test("a report card keeps the report's reason; an unknown reason is dropped, not refused")
    func reportReason() throws {
        // act
        let known = try decision([("key", "k"), ("seen", "open"), ("decision", "resolve"), ("report_reason", "incorrect_info")], for: .report)
        let unknown = try decision([("key", "k"), ("seen", "open"), ("decision", "dismiss"), ("report_reason", "gossip")], for: .report)
        // check
        #expect(known == .record(.resolve, seen: .open, key: "k", reason: "", reportReason: .incorrectInfo))
        #expect(unknown == .record(.dismiss, seen: .open, key: "k", reason: "", reportReason: nil))
    }

    @Test("a decision the item does not take is refused with the ones it does")
    func unknownDecision() {
        // act
        let library = refusal { try decision([("key", "k"), ("seen", "pending"), ("decision", "frobnicate")]) }
        let photo = refusal { try decision([("key", "k"), ("seen", "pending"), ("decision", "pending")], for: .photo) }
        let report = refusal { try decision([("key", "k"), ("seen", "open"), ("decision", "approve")], for: .report) }
        let none = refusal { try decision([("key", "k"), ("seen", "pending")]) }
        // check
        #expect(library?.message == "Choose one of: approve, pending, reject.")
        #expect(photo?.message == "Choose one of: approve, reject.")
        #expect(report?.message == "Choose one of: dismiss, reopen, resolve.")
        #expect(none == library)
    }

    @Test("a status seen that is missing or not one the item can have, and a missing or overlong key, are refused")
    func statusSeenAndKey() {
        // act
        let noSeen = refusal { try decision([("key", "k"), ("decision", "approve")]) }
        let reportStatusOnLibrary = refusal { try decision([("key", "k"), ("seen", "open"), ("decision", "approve")]) }
        let noKey = refusal { try decision([("seen", "pending"), ("decision", "approve")]) }
        let longKey = refusal { try decision([("key", String(repeating: "k", count: 101)), ("seen", "pending"), ("decision", "approve")]) }
        // check
        #expect(noSeen == .statusSeenMissing && reportStatusOnLibrary == .statusSeenMissing)
        #expect(noSeen?.message == "The form did not say which status you saw. Reload the page and decide again.")
        #expect(noKey == .keyMissing && longKey == .keyMissing)
        #expect(noKey?.message == "The form is missing its key. Reload the page and decide again.")
    }

    @Test("a rejection is confirmed first, with the fields as sent; confirmed, it is recorded")
    func rejection() throws {
        // setup
        let fields = [("key", "k"), ("seen", "pending"), ("decision", "reject"), ("reason", "  Not a library.  ")]
        // act
        let first = try decision(fields)
        let confirmed = try decision(fields + [("confirmed", "1")])
        let withoutSeen = try decision([("decision", "reject"), ("reason_preset", "Duplicate.")])
        // check
        #expect(first == .confirmRejection(seen: "pending", key: "k", reason: "Not a library."))
        #expect(confirmed == .record(.reject, seen: .pending, key: "k", reason: "Not a library.", reportReason: nil))
        #expect(withoutSeen == .confirmRejection(seen: "", key: "", reason: "Duplicate."), "the preset counts when nothing is typed")
    }

    @Test("a rejection without a reason, or with more than 2000 characters of one, is refused")
    func rejectionReason() {
        // act
        let missing = refusal { try decision([("key", "k"), ("seen", "pending"), ("decision", "reject"), ("reason", "   ")]) }
        let long = refusal {
            try decision([("key", "k"), ("seen", "pending"), ("decision", "reject"), ("reason", String(repeating: "x", count: 2001))])
        }
        // check
        #expect(missing?.message == "A rejection needs a reason: the submitter reads it. Pick one or write your own.")
        #expect(long?.message == "The reason is 2001 characters; Book Corners accepts at most 2000. Shorten it and try again.")
    }

    @Test("a list row's one-click approval comes with the whole list form, ticked rows included")
    func quickApproval() throws {
        // setup: what the browser sends when a row's Approve is clicked with two rows ticked
        let list = [
            ("csrf", "t"), ("key", "list-key"), ("back", "/libraries?q=x"), ("decision", "approve"), ("reason_preset", ""),
            ("item", "a|pending|A"), ("item", "b|pending|B"),
        ]
        // act
        let intent = try decision(list + [("quick", "pending")])
        let noKey = refusal { try decision([("quick", "pending")]) }
        let badStatus = refusal { try decision([("key", "list-key"), ("quick", "banana")]) }
        let form = try decoder.decode(DecisionForm.self, from: body(list + [("quick", "pending")]))
        // check
        #expect(intent == .quickApproval(seen: .pending, listKey: "list-key"))
        #expect(form.back == "/libraries?q=x")
        #expect(noKey?.message == "The list form is missing its key. Reload the page and decide again.")
        #expect(badStatus == .statusSeenMissing)
    }

    // MARK: Bodies that are not our forms

    @Test("a field a form has once, sent twice, and garbled escapes or names make the form unreadable")
    func unreadable() {
        // act
        let bodies = [
            "key=k&seen=pending&decision=approve&decision=pending",
            "key=k&seen=pending&decision=%zz",
            "key=k&seen=pending&decision[=approve",
            "key=k&seen=pending&decision=approve&decision[]=reject",
        ]
        // check
        for text in bodies {
            #expect(refusal { try decoder.decode(DecisionForm.self, from: text) } == .unreadable, "\(text)")
        }
        #expect(
            FormError.unreadable.message
                == "The form arrived garbled (a field was repeated or badly encoded), so nothing was done. Go back, reload the page and try again.")
    }

    @Test("only application/x-www-form-urlencoded bodies are forms")
    func contentType() {
        // check
        #expect(FormBodyDecoder.isForm("application/x-www-form-urlencoded"))
        #expect(FormBodyDecoder.isForm("Application/X-WWW-Form-URLEncoded; charset=UTF-8"))
        #expect(!FormBodyDecoder.isForm("application/json"))
        #expect(!FormBodyDecoder.isForm("multipart/form-data; boundary=x"))
        #expect(!FormBodyDecoder.isForm(nil))
    }

    // MARK: Bulk

    @Test("the bulk form decodes its ticked rows, typed, one or many; rows that name no library are left out")
    func bulkSelection() throws {
        // act
        let many = try decoder.decode(
            BulkSelectionForm.self,
            from: body([
                ("csrf", "t"), ("decision", "approve"), ("item", "corner-1|pending|Corner <One>"), ("item", "bad slug|pending|X"),
                ("item", "corner-2|banana|Y"), ("item", "corner-3|pending|"),
            ])
        ).validated()
        let one = try decoder.decode(BulkSelectionForm.self, from: body([("decision", "reject"), ("reason_preset", "Duplicate."), ("item", "c|pending|C")]))
            .validated()
        let onlyItem = try #require(BulkItem(field: "c|pending|C"))
        // check
        #expect(many.items.map(\.slug) == ["corner-1", "corner-3"])
        #expect(many.items.map(\.seen) == [.pending, .pending])
        #expect(many.items.first?.name == "Corner <One>")
        #expect(many.items.last?.name == LibraryText.unnamed)
        #expect(many.decision == .approve && many.reason.isEmpty)
        #expect(one == BulkSelectionForm.Selection(items: [onlyItem], decision: .reject, reason: "Duplicate."))
    }

    @Test("the bulk form refuses no rows, more than 50, no decision, a rejection without a reason, and a decided row")
    func bulkSelectionRefusals() {
        // setup
        let fiftyOne = (1...51).map { ("item", "c\($0)|pending|C") }
        func selection(_ fields: [(String, String)]) throws -> BulkSelectionForm.Selection {
            try decoder.decode(BulkSelectionForm.self, from: body(fields)).validated()
        }
        // act
        let none = refusal { try selection([("decision", "approve"), ("item", "no|such|status")]) }
        let tooMany = refusal { try selection([("decision", "approve")] + fiftyOne) }
        let noDecision = refusal { try selection([("decision", "pending"), ("item", "c|pending|C")]) }
        let noReason = refusal { try selection([("decision", "reject"), ("item", "c|pending|C")]) }
        let decided = refusal { try selection([("decision", "approve"), ("item", "c|pending|C"), ("item", "d|rejected|D")]) }
        // check
        #expect(none?.message == "Select at least one library first.")
        #expect(tooMany?.message == "Select at most 50 libraries at once.")
        #expect(noDecision?.message == "Choose approve or reject for the selected libraries.")
        #expect(noReason == .reasonRequired)
        #expect(decided == .onlyWaitingLibraries)
    }

    @Test("the bulk confirmation decodes with its key, and refuses no rows, no key and no decision")
    func bulkConfirmation() throws {
        // setup
        func confirmation(_ fields: [(String, String)]) throws -> BulkConfirmationForm.Confirmation {
            try decoder.decode(BulkConfirmationForm.self, from: body(fields)).validated()
        }
        // act
        let good = try confirmation([("key", "page-key"), ("decision", "reject"), ("reason", "Gone."), ("item", "a|pending|A"), ("item", "b|approved|B")])
        let noItems = refusal { try confirmation([("key", "page-key"), ("decision", "approve")]) }
        let noKey = refusal { try confirmation([("decision", "approve"), ("item", "a|pending|A")]) }
        let noDecision = refusal { try confirmation([("key", "page-key"), ("decision", "frobnicate"), ("item", "a|pending|A")]) }
        // check
        #expect(good.key == "page-key" && good.decision == .reject && good.reason == "Gone.")
        #expect(good.items.map(\.slug) == ["a", "b"] && good.items.map(\.seen) == [.pending, .approved])
        #expect(noItems?.message == "Select at least one library first.")
        #expect(noKey?.message == "The confirmation form is incomplete; start again from the list.")
        #expect(noDecision?.message == "Choose approve or reject.")
    }

    // MARK: Sign-in and the CSRF token

    @Test("the sign-in form trims the login, keeps the token and next, and refuses missing credentials")
    func signIn() throws {
        // act
        let form = try decoder.decode(SignInForm.self, from: body([("csrf", "t"), ("login", "  staff \n"), ("password", " secret "), ("next", "/reports")]))
        let noPassword = refusal { try decoder.decode(SignInForm.self, from: body([("csrf", "t"), ("login", "staff")])).validated() }
        let blankLogin = refusal { try decoder.decode(SignInForm.self, from: body([("login", "   "), ("password", "p")])).validated() }
        // check
        #expect(try form.validated() == SignInForm.Credentials(login: "staff", password: " secret "))
        #expect(form.csrf == "t" && form.next == "/reports")
        #expect(noPassword?.message == "Enter your Book Corners username or e-mail and your password.")
        #expect(blankLogin == .credentialsMissing)
    }

    @Test("the CSRF token is read from any of the console's forms, ticked rows and all")
    func csrf() throws {
        // act
        let bulk = try decoder.decode(CSRFForm.self, from: body([("csrf", "token+/="), ("item", "a|pending|A"), ("item", "b|pending|B")]))
        let none = try decoder.decode(CSRFForm.self, from: "")
        // check
        #expect(bulk.csrf == "token+/=")
        #expect(none.csrf == nil)
    }
}
