import ModerationVocabulary
import Testing

/// Stored reasons are matched to a library by this hash, across processes and releases: a
/// changed value would make every stored reason stale at once.
@Suite("Stable hash of fields")
struct StableHashTests {
    @Test("FNV-1a over each field's length, a unit separator and its UTF-8 bytes, as an independent implementation computes it")
    func knownValues() {
        // Expected values from a few lines of Python, not from this code.
        #expect(StableHash.of([]) == "cbf29ce484222325")
        #expect(StableHash.of(["a"]) == "45b71018185f4c08")
        #expect(StableHash.of(["Bücherei am Eck", "", " 52.5"]) == "7de175cc9393f0ae")
    }

    @Test("fields never run together: [ab, c] and [a, bc] differ")
    func fieldsStayApart() {
        #expect(StableHash.of(["ab", "c"]) == "14d496aa06143d86")
        #expect(StableHash.of(["a", "bc"]) == "b333bab21b93fc70")
    }
}
