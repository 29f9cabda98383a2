import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Queue rows written from kept HTML (`KeptFragments`) are never stale: after each change the
/// live queue knows of, the list seen again shows the change on the row it was kept for.
@Suite("Kept rows: a queue row written from kept HTML shows every change at once", .timeLimit(.minutes(3)))
struct KeptRowTests {
    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    /// The list seen twice (the second view is written from kept rows), and `slug`'s row on it.
    private func row(_ slug: String, _ browser: Browser) async throws -> String {
        _ = try await browser.get("/libraries")
        let list = try await browser.get("/libraries")
        #expect(list.status == .ok)
        return list.item(containing: "id=\"library-\(slug)\"")
    }

    /// Posts as the list's own form does (its token and key) to `path`, with `fields`.
    private func post(_ browser: Browser, _ path: String, _ fields: [(String, String)] = []) async throws {
        let list = try await browser.get("/libraries")
        let key = list.html.firstMatch(of: #/name="key" value="([^"]+)"/#).map { String($0.1) } ?? ""
        let answer = try await browser.post(path, form: [("csrf", list.csrfToken ?? ""), ("key", key), ("back", "/libraries")] + fields)
        #expect(answer.status == .seeOther, "\(path): \(answer)")
    }

    private func audit(_ now: Date) -> AuditEntry {
        AuditEntry(
            recordedAt: now, actorId: 3, actorUsername: "staff", action: "concernSettings.update", targetKind: "concernSettings", targetId: "reasons",
            targetSlug: "", targetName: "Reasons to look", statusBefore: "", statusAfter: "", reason: "Suspect words changed", outcome: .succeeded,
            backendStatus: nil, requestId: "", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
    }

    @Test("a claim seen by a colleague, a release, a mirror change, a reason's settings and a decision each show on the row seen before them")
    func everyChangeShows() async throws {
        let renderer = RendererBox()
        // Every view rendered: a page copy (`RecentPages`) would answer the second view instead.
        try await ConsoleFixture.withConsole(renderer: { try await renderer.load() }, configure: { $0.recentPageLifetime = 0 }) { browser, _, directory in
            // setup: the list seen, its rows kept
            try await browser.signIn()
            let maria = Browser(client: browser.client)
            #expect(try await maria.signIn("maria", password: SeedAccounts.demoStaffPassword).status == .seeOther)
            let list = try await browser.get("/libraries")
            let slug = try #require(list.html.matches(of: #/formaction="/libraries/([^"/]+)/claim"/#).first.map { String($0.1) })
            let kept = try #require(await renderer.rendered).keptRowCount
            #expect(kept >= list.html.matches(of: #/<tr data-row/#).count, "every row of the list was kept: \(kept)")
            let before = try await row(slug, browser)
            #expect(before.contains("formaction=\"/libraries/\(slug)/claim\""), "\(before)")
            let mariaBefore = try await row(slug, maria)

            // act, check: a claim, on the claimant's list and on a colleague's
            try await post(browser, "/libraries/\(slug)/claim")
            let claimed = try await row(slug, browser)
            #expect(claimed.contains("<strong>You are reviewing</strong>") && claimed.contains("formaction=\"/libraries/\(slug)/release\""), "\(claimed)")
            let seenByMaria = try await row(slug, maria)
            #expect(seenByMaria.contains(#"<strong class="claim-holder">staff</strong> is reviewing"#), "\(seenByMaria)")
            #expect(!seenByMaria.contains("You are reviewing"))

            // act, check: its release
            try await post(browser, "/libraries/\(slug)/release")
            #expect(try await row(slug, browser) == before, "the row is as it was before the claim")
            #expect(try await row(slug, maria) == mariaBefore)

            // act, check: the mirror learns a new name, with a word no setting names yet
            let store = try store(directory)
            var library = try #require(try await store.mirroredLibrary(slug: slug))
            let word = "keptrowword"
            library.name += " " + word
            try await store.upsertMirror(libraries: [library])
            let renamed = try await row(slug, browser)
            #expect(renamed.contains(word) && !renamed.contains("suspect word: \(word)"), "\(renamed)")

            // act, check: the reasons' settings gain the word, then drop it
            let settings = try await store.concernSettings()
            var suspicious = settings
            suspicious.suspectWords.append(word)
            #expect(try await store.setConcernSettings(suspicious, expected: settings, audit: audit(Date()), now: Date()))
            let flagged = try await row(slug, browser)
            #expect(flagged.contains("suspect word: \(word)"), "\(flagged)")
            #expect(try await store.setConcernSettings(settings, expected: suspicious, audit: audit(Date()), now: Date()))
            #expect(try await row(slug, browser) == renamed, "the row is as it was before the settings changed")

            // act, check: a decision from the row
            try await post(browser, "/libraries/\(slug)/decide", [("quick", "pending")])
            let decided = try await row(slug, browser)
            #expect(decided.contains("class=\"decided\"") && !decided.contains("/claim\""), "\(decided)")
        }
    }
}

/// The console's renderer, kept for the test to look into.
private actor RendererBox {
    private(set) var rendered: PageRenderer?

    func load() async throws -> PageRenderer {
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        rendered = renderer
        return renderer
    }
}
