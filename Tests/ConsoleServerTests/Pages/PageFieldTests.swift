import HTTPTypes
import Testing

/// The page helper tests read forms with: it must find the field of the form it was pointed at.
@Suite("Test support: reading a form field from a page")
struct PageFieldTests {
    static let html = """
        <form action="/libraries/a/decide"><input type="hidden" name="key" value="key-a"></form>
        <form action="/libraries/b/decide"><input type="hidden" name="key" value="key-b"></form>
        """

    @Test("a field is read from after its marker, not from an earlier form")
    func afterMarker() {
        // setup
        let page = Page(status: .ok, headers: [:], html: Self.html)
        // act
        let value = page.field("key", after: "/libraries/b/decide")
        // check
        #expect(value == "key-b")
    }

    @Test("a marker missing from the page fails the test instead of searching the whole page")
    func missingMarker() {
        // setup
        let page = Page(status: .ok, headers: [:], html: Self.html)
        // act and check: the helper records the failure itself, naming the missing marker
        withKnownIssue {
            #expect(page.field("key", after: "/libraries/c/decide") == nil)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("/libraries/c/decide") }
        }
    }
}
