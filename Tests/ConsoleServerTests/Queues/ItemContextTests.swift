import BookCornersAPI
import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// The library page and the photos page show what a decision needs beside the decision:
/// the photo and the candidates side by side next to Approve and Reject, photos at full size.
@Suite("Items in context: the library page and the photos page", .timeLimit(.minutes(3)))
struct ItemContextTests {
    /// The library page of the fixture's first (hostile-named) pending library, with one close and one same-name candidate.
    private func libraryPage(status: String, settings: ConcernSettings = .defaults) throws -> LibraryDetailPage {
        var libraries = try PageModels.items("moderation_pending_page1.json", as: ModerationLibrary.self, hostileIn: "name")
        libraries[0].status = status
        let mirrored = try libraries.map { try MirrorLibrary($0, confirmedAt: PageModels.now) }
        var close = mirrored[0]
        close.id += 1_000
        close.photoUrl = "http://127.0.0.1:1/media/close.jpg"
        return LibraryDetailPage(
            layout: PageModels.layout("Library", active: .libraries), library: libraries[0], duplicates: [close, mirrored[1]],
            settings: settings, targets: .defaults, now: PageModels.now)
    }

    @Test("the duplicate warning names the distances staff set in the reasons' settings, not the defaults")
    func warningFollowsTheSettings() async throws {
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        var settings = ConcernSettings.defaults
        settings.duplicateMetres = 120
        settings.strongDuplicateMetres = 40
        let html = try renderer.render(try libraryPage(status: "pending", settings: settings), with: "library-detail").html
        #expect(html.contains("<strong>Likely duplicate.</strong> An approved or pending library is within 40 m"), "\(html.prefix(4000))")
        #expect(html.contains("(approved or pending libraries within 120 m, or with the same name within 200 m)"))
        #expect(!html.contains("50 m"), "the heading and the warning follow")
        #expect(
            html.contains(#"<span class="flag">likely duplicate</span>"#) || html.contains(#"<span class="flag">possible duplicate</span>"#),
            "the flags use the one name")
    }

    @Test("a pending library: the warning links to the comparison, which sits with the photo beside the decision, above the fields")
    func pendingLibraryLayout() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        // act
        let html = try renderer.render(try libraryPage(status: "pending"), with: "library-detail").html
        // check
        // The close candidate stands on the very spot: within the strong distance, so "likely".
        let warning = try #require(
            html.range(of: #"<p class="warning" role="alert"><strong>Likely duplicate.</strong> An approved or pending library is within 25 m"#))
        let review = try #require(html.range(of: #"<div class="review">"#))
        let compare = try #require(html.range(of: #"id="compare""#))
        let decide = try #require(html.range(of: #"<section class="decide" id="decide""#))
        let fields = try #require(html.range(of: "<h2>Description</h2>"))
        #expect(html[warning.upperBound...].prefix(300).contains(##"<a href="#compare">"##), "the warning leads to the comparison")
        #expect(warning.lowerBound < review.lowerBound && review.lowerBound < compare.lowerBound && compare.lowerBound < decide.lowerBound)
        // A phone reads the evidence (photo, comparison, fields, map) before the decision; a wide screen sets the decision beside it.
        #expect(fields.lowerBound < decide.lowerBound, "the evidence before the decision")
        #expect(html.contains(#"<p class="candidate-label">This library</p>"#), "the library's own side of the comparison")
        #expect(html.contains("close.jpg"), "a candidate's photo, to compare")
        #expect(html.contains(#"class="primary decide-button" data-key="approve">Approve</button>"#))
        #expect(html.contains(#"class="danger decide-button">Reject</button>"#), "Approve and Reject the same size")
        #expect(html.contains(PageModels.escapedHostile) && !html.contains("<script>alert"))
    }

    @Test("a library whose text from Book Corners holds every control character and a bidi override shows each made visible on its page, none raw")
    func controlCharactersOnTheLibraryPage() async throws {
        // setup: the page reads the kept backend record, which holds the text as Book Corners sent it
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        let controls = String(String.UnicodeScalarView((Array(0...0x1F) + [0x7F, 0x85]).compactMap { Unicode.Scalar(UInt32($0)) }))
        var libraries = try PageModels.items("moderation_pending_page1.json", as: ModerationLibrary.self, hostileIn: "description")
        libraries[0].name = "Box\(controls)Name"
        libraries[0].description = "Line\(controls)end"
        libraries[0].address = "Street\(controls)5"
        libraries[0].city = "City\(controls)"
        libraries[0].address = "\u{202E}evil.exe\u{202C} Street\(controls)5"
        let page = LibraryDetailPage(
            layout: PageModels.layout(LibraryText.displayName(libraries[0].name), active: .libraries), library: libraries[0], duplicates: [],
            settings: .defaults, targets: .defaults, now: PageModels.now)
        // act
        let html = try renderer.render(page, with: "library-detail").html
        // check
        let raw = html.unicodeScalars.filter { ControlCharacters.needsEscaping($0) }
        #expect(raw.isEmpty, "raw control characters: \(raw.map { String($0.value, radix: 16) })")
        for visible in ["Box", "Line", "Street", "City"] {
            #expect(html.contains(visible + "␀␁␂"), "\(visible): NUL, SOH and STX as their pictures")
        }
        #expect(html.contains("␛") && html.contains("␡") && html.contains("&lt;U+0085&gt;"), "ESC, DEL and a C1 control shown")
        #expect(html.contains("&lt;U+202E&gt;evil.exe&lt;U+202C&gt; Street"), "a bidi override shown, not obeyed")
    }

    @Test("a library approved despite a strong reason says which reasons it had when it left the queue; a waiting one does not")
    func decidedConcernsShown() async throws {
        // setup: the reasons as the console recorded them when the library left the queue
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let queue = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO decidedLibraryConcern (libraryId, kind, strength, outcome, recordedAt) VALUES
                    (7, 'noPhoto', 'worth-a-look', 'approved', ?), (7, 'duplicate', 'strong', 'approved', ?)
                    """, arguments: [PageModels.now, PageModels.now])
        }
        try queue.close()
        let recorded = try await store.decidedLibraryConcerns(libraryId: 7)
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        var approved = try libraryPage(status: "approved")
        var waiting = try libraryPage(status: "pending")
        // act
        approved.showsDecidedConcerns(recorded)
        waiting.showsDecidedConcerns(recorded)
        let html = try renderer.render(approved, with: "library-detail").html
        // check
        #expect(
            html.contains(
                #"<p class="notice decided-concerns">When it was approved, it had these reasons to look: Duplicate nearby (strong), No photo (worth a look).</p>"#
            ))
        #expect(
            !(try renderer.render(waiting, with: "library-detail").html.contains("decided-concerns")), "a waiting library shows its reasons as they are now")
    }

    @Test("a library already decided shows the candidates but no duplicate warning")
    func decidedLibraryHasNoWarning() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        // act
        let approved = try renderer.render(try libraryPage(status: "approved"), with: "library-detail").html
        let rejected = try renderer.render(try libraryPage(status: "rejected"), with: "library-detail").html
        // check
        for html in [approved, rejected] {
            #expect(!html.contains("Possible duplicate.</strong>") && !html.contains("Likely duplicate.</strong>"))
            #expect(html.contains("within 50 m"), "the comparison is still there")
        }
    }

    @Test("each proposed and current photo opens large on the console's own page; 'no current photo' takes the same box as the photo beside it")
    func photosOpenLarge() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        let model = try #require(try PageModels.all().first { $0.template == "photos" }?.model as? PhotoGridPage)
        let viewer = try #require(try PageModels.all().first { $0.template == "photo-viewer" }?.model as? PhotoViewerPage)
        // act
        let html = try renderer.render(model, with: "photos").html
        let large = try renderer.render(viewer, with: "photo-viewer").html
        // check: the grid's photos lead to the viewer, not to a raw image address
        #expect(!model.cards.isEmpty)
        for card in model.cards {
            #expect(html.contains(#"<a href="/photos/\#(card.id)" class="photo-link""#), "photo \(card.id) opens in the viewer")
            #expect(!html.contains(#"<a href="\#(card.proposedURL.replacingOccurrences(of: "&", with: "&amp;"))""#), "no raw image address")
        }
        #expect(html.contains(#"<div class="no-photo photo-box">no current photo</div>"#))
        // and the viewer shows both, each also as the image alone
        #expect(large.contains(#"<img src="http://127.0.0.1:1/media/current.jpg""#))
        #expect(large.contains(#"src="\#(viewer.card.proposedURL.replacingOccurrences(of: "&", with: "&amp;"))""#))
        let css = try String(contentsOf: URL(fileURLWithPath: RepositoryPaths.publicFiles).appendingPathComponent("console.css"), encoding: .utf8)
        #expect(css.contains(".compare img, .compare .photo-box {") && css.contains("aspect-ratio: 4 / 3"), "one box for both")
    }
}
