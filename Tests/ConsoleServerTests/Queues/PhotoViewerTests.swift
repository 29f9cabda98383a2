import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// A proposed photo compared large on the console's own page, from the mirror.
@Suite("The photo viewer", .timeLimit(.minutes(3)))
struct PhotoViewerTests {
    @Test(
        "a card's Compare large opens the console's page with both photos side by side or as a swipe; its forms return to the card; an unknown photo is not found"
    )
    func viewer() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let grid = try await browser.get("/photos")
            let id = try #require(grid.html.firstMatch(of: /id="photo-([0-9]+)"/)?.1)
            #expect(grid.contains(#"href="/photos/\#(id)" class="button-link">Compare large</a>"#))
            let side = try await browser.get("/photos/\(id)")
            #expect(side.status == .ok && side.contains("viewer-2up") && side.contains(#"<strong aria-current="true">Side by side</strong>"#))
            #expect(side.contains(#"<input type="hidden" name="back" value="/photos#photo-\#(id)">"#), "a decision returns to the card")
            #expect(side.contains("Replaces the current photo for good"))
            let swipe = try await browser.get("/photos/\(id)?view=swipe")
            if side.contains(">Swipe</a>") {
                #expect(swipe.contains("data-swipe-range") && swipe.contains("swipe-over"))
            } else {
                #expect(!swipe.contains("data-swipe-range"), "no current photo: nothing to swipe to, side by side instead")
            }
            #expect(try await browser.get("/photos/\(id)?view=%3Cscript%3E").contains("viewer-2up"), "an unknown view is side by side")
            #expect(try await browser.get("/photos/999999999").status == .notFound)
            #expect(try await browser.get("/photos/abc").status == .notFound)
        }
    }
}
