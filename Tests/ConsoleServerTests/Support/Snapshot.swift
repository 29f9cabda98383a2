import Foundation
import Testing

/// Rendered pages compared with stored files in `Tests/ConsoleServerTests/Snapshots/<name>.html`,
/// so a template or model change shows as a readable diff. `RECORD_SNAPSHOTS=1` rewrites the
/// files (and fails the test, saying so, so a recording never passes silently).
enum Snapshot {
    static let directory = RepositoryPaths.root.appendingPathComponent("Tests/ConsoleServerTests/Snapshots")
    static var isRecording: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" }

    /// Forms carry a fresh idempotency key per render; the snapshot keeps one fixed key instead.
    static func normalised(_ html: String) -> String {
        html.replacingOccurrences(
            of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", with: "00000000-0000-0000-0000-000000000000",
            options: .regularExpression)
    }

    /// Records an issue unless `html` matches the stored snapshot `name`.
    static func expect(_ html: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let actual = normalised(html)
        let file = directory.appendingPathComponent("\(name).html")
        let stored = try? String(contentsOf: file, encoding: .utf8)
        if isRecording || stored == nil {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("Recorded snapshot \(name).html; check it in and run again without RECORD_SNAPSHOTS.", sourceLocation: sourceLocation)
            return
        }
        guard let stored, stored != actual else { return }
        Issue.record("\(name).html differs from the rendered page:\n\(difference(expected: stored, actual: actual))", sourceLocation: sourceLocation)
    }

    /// The first differing lines, numbered, at most `limit` of them.
    static func difference(expected: String, actual: String, limit: Int = 6) -> String {
        let old = expected.components(separatedBy: "\n")
        let new = actual.components(separatedBy: "\n")
        var lines: [String] = []
        for index in 0..<max(old.count, new.count) where lines.count < limit * 2 {
            let before = index < old.count ? old[index] : "(no line)"
            let after = index < new.count ? new[index] : "(no line)"
            guard before != after else { continue }
            lines.append("line \(index + 1) expected: \(before)")
            lines.append("line \(index + 1) rendered: \(after)")
        }
        return lines.joined(separator: "\n")
    }
}
