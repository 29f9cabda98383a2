import Testing

@testable import ConsoleServer

/// How an address reads beside its city and country when one of them is written right to left.
@Suite("A library's place in mixed scripts")
struct PlaceTextTests {
    @Test("a right-to-left address is isolated, so the city and country keep their order and commas in a left-to-right page")
    func rightToLeftAddress() {
        let place = LibraryText.place(address: "רחוב דיזנגוף 103", city: "Tel Aviv", country: "IL")
        #expect(place == "\u{2068}רחוב דיזנגוף 103\u{2069}, Tel Aviv, IL")
        let arabicCity = LibraryText.place(address: "12 Rue X", city: "الدار البيضاء", country: "MA")
        #expect(arabicCity == "12 Rue X, \u{2068}الدار البيضاء\u{2069}, MA")
    }

    @Test("an override mark typed into an address cannot reverse what follows it; left-to-right places read as typed")
    func overridesAndPlainText() {
        #expect(LibraryText.place(address: "Evil \u{202E}kcab", city: "Rome", country: "IT") == "\u{2068}Evil \u{202E}kcab\u{2069}, Rome, IT")
        #expect(LibraryText.place(address: "Via Roma 1", city: "Florence", country: "IT") == "Via Roma 1, Florence, IT")
        #expect(LibraryText.place(city: "", country: "") == "")
    }
}
