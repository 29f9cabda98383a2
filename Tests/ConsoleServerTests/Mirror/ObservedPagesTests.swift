import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// Changes made outside the console on the pages: the audit page's filter, the statistics'
/// own series and the dashboard's list. The entries are made as the sync makes them: two
/// mirror reads of one library, its status changed in between.
@Suite("Pages: changes made outside the console", .timeLimit(.minutes(3)))
struct ObservedPagesTests {
    private func library(status: LibraryStatus, confirmed: Date) -> MirrorLibrary {
        MirrorLibrary(
            // An id the sandbox does not use: the console's mirror already holds the sandbox's libraries.
            id: 900_041, slug: "little-library-41", name: "Little <Library> 41", description: "", address: "Via Roma 1", city: "Florence",
            country: "IT", postalCode: "50100", lat: 43.77, lng: 11.25, photoUrl: "", thumbnailUrl: "", status: status,
            rejectionReason: "", submitterId: nil, submitterUsername: nil, createdAt: confirmed.addingTimeInterval(-2 * 86_400),
            lastConfirmedAt: confirmed)
    }

    /// One library approved outside the console an hour ago, and one decision of the console's own.
    private func record(in store: ModerationStore) async throws {
        let read = Date().addingTimeInterval(-3_600)
        try await store.upsertMirror(libraries: [library(status: .pending, confirmed: read)], at: read)
        try await store.upsertMirror(libraries: [library(status: .approved, confirmed: read.addingTimeInterval(60))], at: read.addingTimeInterval(61))
        try await store.appendAudit(
            AuditEntry(
                recordedAt: Date(), actorId: 2, actorUsername: "staff", action: "library.approve", targetKind: "library", targetId: "7",
                targetSlug: "s7", targetName: "Own decision", statusBefore: "pending", statusAfter: "approved", reason: "", outcome: .applied,
                backendStatus: 200, requestId: "r", clientAddress: "127.0.0.1", userAgent: "t", itemCreatedAt: Date().addingTimeInterval(-86_400),
                actionId: nil))
    }

    @Test("the audit page filters them with the option “outside the console”; the dashboard lists the last 24 hours'")
    func auditPageAndDashboard() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            try await record(in: try ModerationStore(path: directory.path("console.sqlite")))
            // act
            let all = try await browser.get("/audit")
            let observed = try await browser.get("/audit?outcome=observed")
            let dashboard = try await browser.get("/")
            // check
            #expect(all.contains(#"<option value="observed">outside the console</option>"#))
            #expect(observed.contains(#"<option value="observed" selected>outside the console</option>"#))
            #expect(
                observed.contains("Library approved outside the console") && !observed.contains(">observed.library.approved")
                    && !observed.contains("Own decision"))
            #expect(observed.contains("1 matching entry."))
            #expect(dashboard.contains("Changed outside the console"))
            #expect(dashboard.contains("library Little &lt;Library&gt; 41") && dashboard.contains("pending → approved"))
            #expect(!dashboard.contains("Own decision"))
        }
    }

    @Test("statistics count them as their own series “outside the console”, timed at the middle of their window, and say so")
    func statistics() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            try await record(in: try ModerationStore(path: directory.path("console.sqlite")))
            // act
            let page = try await browser.get("/statistics?days=30")
            let staff = try await browser.get("/statistics/data/staff?days=30")
            let perDay = try await browser.get("/statistics/data/decisions?days=30")
            // check
            #expect(page.contains("2 decisions in the last 30 days: 1 library approved, 1 change made outside the console."))
            #expect(page.contains("timed at the middle of the window in which they happened"))
            #expect(staff.html.contains("outside the console,1\r\n") && staff.html.contains("staff,1\r\n"))
            #expect(
                perDay.html.hasPrefix(
                    "Day,Libraries approved,Libraries rejected,Reports resolved,Reports dismissed,Photos approved,Photos rejected,Outside the console,Total\r\n"
                ))
        }
    }
}
