import Foundation
import Testing

@testable import ModerationStore

@Suite("Canonical JSON")
struct CanonicalJSONTests {
    private func foundation(_ value: String) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test("strings are written byte for byte as JSONEncoder writes them, so old hashes still verify")
    func matchesJSONEncoder() throws {
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += [
            "", "a/b", "<script>alert('x')</script>", "\"quoted\" \\ back", "Ünïcödé", "مكتبة", "\u{202E}rtl", "📚🏳️‍🌈", "\u{7F}\u{80}\u{2028}\u{2029}",
            "tab\tnew\nline",
        ]
        for sample in samples {
            #expect(CanonicalJSON.string(sample) == (try foundation(sample)), "\(sample.unicodeScalars.map { $0.value })")
        }
    }

    @Test("stored times keep whole milliseconds in GRDB's format")
    func storedTime() {
        let date = Date(timeIntervalSince1970: 1_795_000_000.123_999)
        #expect(StoredTime.string(date) == "2026-11-18 11:06:40.123")
        #expect(StoredTime.truncated(date).timeIntervalSince1970 == 1_795_000_000.123)
    }
}
