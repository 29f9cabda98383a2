import Foundation
import TestSupport
import Testing

/// A fixture's status, headers and body, for comparing a sandbox answer with it.
struct RecordedAnswer {
    let name: String
    let status: Int
    let headers: [String: String]
    let body: Data

    init(_ name: String) throws {
        self.name = name
        headers = try Fixtures.headers(name)
        let base = (name as NSString).deletingPathExtension
        let text = try String(contentsOf: Fixtures.directory.appendingPathComponent("headers/\(base).txt"), encoding: .utf8)
        // "HTTP/1.1 422 Unprocessable Entity"
        let statusLine = text.split(whereSeparator: \.isNewline).first?.split(separator: " ") ?? []
        status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
        body = try Fixtures.data(name)
    }

    /// The same status and Content-Type, and a JSON body equal value for value (key order and
    /// spacing aside).
    func expectSame(as answer: RawAnswer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(answer.status == status, "\(name): status", sourceLocation: sourceLocation)
        #expect(answer.header("content-type") == headers["content-type"], "\(name): content-type", sourceLocation: sourceLocation)
        let expected = try JSONSerialization.jsonObject(with: body) as? NSDictionary
        let actual = try JSONSerialization.jsonObject(with: answer.body) as? NSDictionary
        #expect(expected != nil, "\(name) is a JSON object", sourceLocation: sourceLocation)
        #expect(actual == expected, "\(name): body \(answer.text)", sourceLocation: sourceLocation)
    }

    /// The same keys and JSON kinds, values aside.
    func expectSameShape(as answer: RawAnswer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let differences = try JSONShape(json: answer.body).differences(from: JSONShape(json: body))
        #expect(differences.isEmpty, "\(name): \(differences)", sourceLocation: sourceLocation)
    }
}
