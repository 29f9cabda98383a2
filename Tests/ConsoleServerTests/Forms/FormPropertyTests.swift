import BookCornersAPI
import Foundation
import ModerationVocabulary
import PropertyBased
import PropertySupport
import Testing

@testable import ConsoleServer

/// Property checks of form and query parsing: whatever a browser encodes comes back as
/// typed, and a garbled body is refused as unreadable, never anything else.
@Suite("Forms and queries: decoded as sent (property checks)")
struct FormPropertyTests {
    private static var decoder: FormBodyDecoder { FormBodyDecoder() }

    /// A form with a field sent once and a field sent any number of times (a checkbox list).
    private struct Probe: Decodable {
        let one: String?
        let many: RepeatedField?
    }

    /// Percent-encodes all but RFC 3986's unreserved characters; a space becomes `+` when
    /// `plus` (as browsers send forms) and `%20` otherwise.
    private static func encoded(_ text: String, plus: Bool) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~ ")
        let escaped = text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        // alphanumerics takes in non-ASCII letters: escape what is left outside ASCII too.
        var result = ""
        for scalar in escaped.unicodeScalars {
            if scalar == " " {
                result += plus ? "+" : "%20"
            } else if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                result += String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
            }
        }
        return result
    }

    @Test("a sign-in form's fields decode to what was typed, spaces sent as + or %20, login trimmed")
    func signInFields() async throws {
        await propertyCheck(count: 300, input: HostileText.text(), HostileText.text(), HostileText.text(), Gen.bool) { login, password, next, plus in
            // setup
            let body = [("csrf", "t0k"), ("login", login), ("password", password), ("next", next)]
                .map { "\($0.0)=\(Self.encoded($0.1, plus: plus))" }.joined(separator: "&")

            // act
            let form = try Self.decoder.decode(SignInForm.self, from: body)

            // check
            // Control characters (but tab, LF, CR) arrive made visible: what is stored is what is hashed.
            #expect(form.login == ControlCharacters.escaped(login).trimmingCharacters(in: .whitespacesAndNewlines), "\(body)")
            #expect(form.password == ControlCharacters.escaped(password), "\(body)")
            #expect(form.next == ControlCharacters.escaped(next), "\(body)")
            #expect(form.csrf == "t0k")
        }
    }

    @Test("a field sent once stays one value; a ticked list sent any number of times keeps its values in order")
    func repeatedFields() async throws {
        await propertyCheck(count: 300, input: HostileText.text(), HostileText.text().array(of: 0...6), Gen.bool) { one, many, plus in
            // setup: the single field between the ticked rows, as a form may place it
            var pairs = many.map { "many=\(Self.encoded($0, plus: plus))" }
            pairs.insert("one=\(Self.encoded(one, plus: plus))", at: pairs.count / 2)
            let body = pairs.joined(separator: "&")

            // act
            let probe = try Self.decoder.decode(Probe.self, from: body)

            // check
            #expect(probe.one == ControlCharacters.escaped(one), "\(body)")
            #expect(probe.many?.values == (many.isEmpty ? nil : many.map(ControlCharacters.escaped)), "\(body)")
        }
    }

    /// Pieces of bodies that go wrong: bad escapes, brackets, empty names, stray separators.
    private static let junk = Gen<String?>.element(
        of: [
            "csrf", "item", "one", "many", "=", "=", "&", "&", "%", "%2", "%zz", "%ff", "%C3", "%C3%A9", "[", "]", "[]", "[0]", "%5B",
            "+", " ", "a", "\u{0}", "\r\n", "é", "📚",
        ] as [String]
    ).map { $0 ?? "" }

    @Test("any body is either decoded or refused as unreadable: no other error, no crash")
    func garbledBodies() async throws {
        await propertyCheck(count: 1_000, input: Gen.frequency((3, Self.junk), (1, HostileText.piece)).array(of: 0...16)) { pieces in
            // setup
            let body = pieces.joined()

            // act
            let outcomes: [FormError?] = [
                Self.refusal { try Self.decoder.decode(CSRFForm.self, from: body) },
                Self.refusal { try Self.decoder.decode(Probe.self, from: body) },
                Self.refusal { try Self.decoder.decode(BulkSelectionForm.self, from: body) },
                Self.refusal { try Self.decoder.decode(DecisionForm.self, from: body) },
            ]

            // check
            for outcome in outcomes {
                #expect(outcome == nil || outcome == .unreadable, "\(body.debugDescription): \(String(describing: outcome))")
            }
        }
    }

    // Not "%ff": Hummingbird decodes bytes that are not UTF-8 as U+FFFD, as browsers do.
    @Test("a body with a badly encoded value or a name sent twice that the form reads once is refused as unreadable")
    func garbledIsRefused() async throws {
        await propertyCheck(count: 200, input: HostileText.text(), Gen<String?>.element(of: ["%", "%z", "%zz", "%G0", "%4"] as [String])) { value, bad in
            // setup
            let encoded = Self.encoded(value, plus: true)
            let broken = "one=\(encoded)\(bad ?? "%")"
            let twice = "one=\(encoded)&one=\(encoded)"

            // act & check
            #expect(Self.refusal { try Self.decoder.decode(Probe.self, from: broken) } == .unreadable, "\(broken)")
            #expect(Self.refusal { try Self.decoder.decode(Probe.self, from: twice) } == .unreadable, "\(twice)")
        }
    }

    /// The `FormError` `attempt` throws; nil when it decodes. Any other error fails the test.
    private static func refusal<T>(_ attempt: () throws -> T) -> FormError? {
        do {
            _ = try attempt()
            return nil
        } catch let error as FormError {
            return error
        } catch {
            Issue.record("not a FormError: \(error)")
            return nil
        }
    }

    // MARK: Queries

    /// Foundation's `removingPercentEncoding` (which `FormQuery` and route values use) drops a
    /// byte-order mark (U+FEFF) that starts the text. Left as it is: a query or a slug that
    /// starts with one is no address the console writes or a person types, and nothing is
    /// decided on it. Those values are left out of the round trips below.
    private static func startsWithByteOrderMark(_ text: String) -> Bool { text.unicodeScalars.first == "\u{FEFF}" }

    @Test("a query the console writes (SiteURL) reads back (FormQuery) as the same names and values, in order")
    func queryRoundTrips() async throws {
        let item = zip(HostileText.text(pieces: 1...4), HostileText.text().optional)
        await propertyCheck(count: 300, input: item.array(of: 0...6)) { items in
            let items = items.filter { !Self.startsWithByteOrderMark($0.0) && !Self.startsWithByteOrderMark($0.1 ?? "") }

            // act
            let href = SiteURL.audit.path(query: items.map { (name: $0.0, value: $0.1) })
            let query = href.firstIndex(of: "?").map { String(href[href.index(after: $0)...]) }
            let parameters = FormQuery.parameters(query)

            // check
            let written = items.compactMap { name, value in value.map { (name, $0) } }
            #expect(parameters.map(\.name) == written.map(\.0), "\(href)")
            #expect(parameters.map(\.value) == written.map(\.1), "\(href)")
            #expect(query == nil || !written.isEmpty, "no ? without an item")
        }
    }

    @Test("a query from a browser's GET form, spaces as +, reads back as typed; the list filters trim and bound it")
    func browserQuery() async throws {
        await propertyCheck(count: 300, input: HostileText.text().filter { !Self.startsWithByteOrderMark($0) }, Gen.int(in: 1...50)) { typed, limit in
            // setup
            let query = "status=pending&q=\(Self.encoded(typed, plus: true))&order=oldest"

            // act
            let parameters = FormQuery.dictionary(query)
            let list = ListQuery(query: query)

            // check
            #expect(parameters["q"] == typed, "\(query)")
            #expect(parameters["status"] == "pending" && parameters["order"] == "oldest")
            let trimmed = typed.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(list.text("q", maxLength: limit) == (trimmed.isEmpty ? nil : String(trimmed.prefix(limit))))
        }
    }

    @Test("any query string is read without a crash: one parameter per non-empty &-separated piece, broken escapes kept as written")
    func anyQuery() async throws {
        await propertyCheck(count: 1_000, input: Gen.frequency((3, Self.junk), (1, HostileText.piece)).array(of: 0...16)) { pieces in
            // setup
            let query = pieces.joined()

            // act
            let parameters = FormQuery.parameters(query)
            let list = ListQuery(query: query)

            // check
            // Counted by bytes, as the form encoding defines it: a "&" after a joining scalar still separates.
            #expect(parameters.count == query.utf8.split(separator: UInt8(ascii: "&")).count, "\(query.debugDescription)")
            #expect(list.page.number >= 1)
        }
    }

    @Test("regression: a & or = right after a joining scalar (U+0600) still separates parameters")
    func separatorAfterJoiningScalar() {
        // act
        let parameters = FormQuery.parameters("q=\u{600}&page=2&x\u{600}=y")

        // check
        #expect(parameters.map(\.name) == ["q", "page", "x\u{600}"])
        #expect(parameters.map(\.value) == ["\u{600}", "2", "y"])
        #expect(ListQuery(query: "q=\u{600}&page=2").page.number == 2)
    }

    @Test("an address segment (SiteURL.encoded) holds only unreserved characters and %XX, and decodes back to the value")
    func pathSegments() async throws {
        await propertyCheck(count: 500, input: HostileText.text().filter { !Self.startsWithByteOrderMark($0) }) { value in
            // act
            let segment = SiteURL.encoded(value)
            let path = SiteURL.library(value).path

            // check
            #expect(segment.removingPercentEncoding == value)
            #expect(segment.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~%".unicodeScalars.contains($0)) })
            #expect(path == "/libraries/" + segment, "one segment, whatever the slug")
        }
    }
}
