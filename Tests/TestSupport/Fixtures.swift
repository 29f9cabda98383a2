import Foundation

/// The recorded answers of the real backend, in `Tests/Fixtures` (copied from the shared
/// fixtures; `INDEX.md` there says which call produced each).
public enum Fixtures {
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    public static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The fixture's parsed JSON.
    public static func json(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(name), options: [.fragmentsAllowed])
    }

    /// The raw response headers recorded with the fixture, as lower-cased name → value.
    public static func headers(_ name: String) throws -> [String: String] {
        let base = (name as NSString).deletingPathExtension
        let text = try String(contentsOf: directory.appendingPathComponent("headers/\(base).txt"), encoding: .utf8)
        var headers: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}
