import BookCornersAPI
import Foundation
import Sandbox
import TestSupport
import Testing

@Suite("Sandbox: moderation queues and decisions", .timeLimit(.minutes(3)))
struct SandboxModerationTests {
    @Test("the pending queue has the seeded submissions, newest first, with the list's caching header")
    func pendingQueue() async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken()
            let answer = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?status=pending&page_size=50", token: token)
            #expect(answer.status == 200)
            #expect(answer.header("cache-control") == "public, max-age=300, s-maxage=300")
            let body = try #require(try answer.jsonObject())
            let pagination = try #require(body["pagination"] as? [String: Any])
            #expect((pagination["total"] as? Int ?? 0) >= 50)
            let items = try #require(body["items"] as? [[String: Any]])
            let dates = items.compactMap { ($0["created_at"] as? String).flatMap(BackendTimestamp.parse) }
            #expect(dates.count == items.count)
            #expect(dates == dates.sorted(by: >))
            #expect(items.allSatisfy { $0["status"] as? String == "pending" })
        }
    }

    @Test("a page past the end answers the last page, with pagination.page set to it")
    func pagePastTheEnd() async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken()
            let answer = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page=99&page_size=20", token: token)
            let pagination = try #require(try answer.jsonObject()?["pagination"] as? [String: Any])
            #expect(answer.status == 200)
            #expect(pagination["page"] as? Int == pagination["total_pages"] as? Int)
            #expect(pagination["has_next"] as? Bool == false)
        }
    }

    @Test("filters: text, country, source and the status filter narrow the list")
    func filters() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = try await signedIn(client)
                let berlin = try await client.libraries(.init(status: .all, text: "berlin"), page: try Page(size: 50), credentials: credentials)
                #expect(!berlin.items.isEmpty)
                #expect(berlin.items.allSatisfy { "\($0.name) \($0.address) \($0.city)".lowercased().contains("berlin") })
                let japan = try await client.libraries(.init(status: .all, country: "JP"), page: try Page(size: 50), credentials: credentials)
                #expect(!japan.items.isEmpty && japan.items.allSatisfy { $0.country == "JP" })
                let osm = try await client.libraries(.init(status: .approved, source: "street"), page: try Page(size: 50), credentials: credentials)
                #expect(!osm.items.isEmpty && osm.items.allSatisfy { $0.source == "OpenStreetMap" && $0.status == "approved" })
                let rejected = try await client.libraries(.init(status: .rejected), page: try Page(size: 50), credentials: credentials)
                #expect(!rejected.items.isEmpty && rejected.items.allSatisfy { $0.status == "rejected" })
                let damaged = try await client.reports(status: .all, reason: .only(.damaged), page: try Page(size: 50), credentials: credentials)
                #expect(!damaged.items.isEmpty && damaged.items.allSatisfy { $0.reason == "damaged" })
                let pendingPhotos = try await client.photos(status: .pending, page: try Page(size: 50), credentials: credentials)
                #expect(!pendingPhotos.items.isEmpty && pendingPhotos.items.allSatisfy { $0.status == "pending" })
            }
        }
    }

    @Test("approving a library publishes it; rejecting keeps the reason; both survive a restart")
    func decisionsPersist() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.path("sandbox.sqlite")
        let (approvedSlug, rejectedSlug) = try await SandboxFixture.run(databasePath: database) { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = try await signedIn(client)
                let pending = try await sandbox.pendingLibraries(token: await credentials.accessToken).items
                let first = try #require(pending.first { !$0.name.isEmpty && !$0.photoUrl.isEmpty })
                let second = try #require(pending.last)
                let approved = try await client.setLibraryStatus(slug: first.slug, to: .approved, credentials: credentials)
                #expect(approved.status == "approved")
                let rejected = try await client.setLibraryStatus(
                    slug: second.slug, to: .rejected, rejectionReason: "Duplicate submission.", credentials: credentials)
                #expect(rejected.rejectionReason == "Duplicate submission.")
                let nearby = try await sandbox.publicLibraries(near: first.lat, first.lng, radiusKm: 1)
                #expect(nearby.items.first?.slug == first.slug, "the approved library is public and nearest to itself")
                return (first.slug, second.slug)
            }
        }
        try await SandboxFixture.run(databasePath: database) { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = try await signedIn(client)
                #expect(try await client.library(slug: approvedSlug, credentials: credentials).status == "approved")
                let rejected = try await client.library(slug: rejectedSlug, credentials: credentials)
                #expect(rejected.status == "rejected" && rejected.rejectionReason == "Duplicate submission.")
            }
        }
    }

    @Test("approving a community photo makes it its library's photo; resolving a report sticks")
    func photoAndReportSideEffects() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = try await signedIn(client)
                let photo = try #require(try await client.photos(status: .pending, page: .first(), credentials: credentials).items.first)
                let approved = try await client.setPhotoStatus(id: photo.id, to: .approved, credentials: credentials)
                #expect(approved.status == "approved")
                let library = try await client.library(slug: photo.library.slug, credentials: credentials)
                #expect(library.photoUrl == photo.photoUrl)
                #expect(library.thumbnailUrl == photo.thumbnailUrl)

                let report = try #require(try await client.reports(status: .open, page: .first(), credentials: credentials).items.first)
                #expect(try await client.setReportStatus(id: report.id, to: .resolved, credentials: credentials).status == "resolved")
                let open = try await client.reports(status: .open, page: try Page(size: 50), credentials: credentials).items
                #expect(!open.contains { $0.id == report.id })
            }
        }
    }

    @Test("the summary counts what waits")
    func summary() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = try await signedIn(client)
                let summary = try await client.summary(credentials)
                #expect(summary.pendingLibrariesCount >= 50)
                #expect(summary.totalPending == summary.pendingLibrariesCount + summary.openReportsCount + summary.pendingPhotosCount)
                #expect(summary.totalUsers >= 23)
            }
        }
    }

    @Test("every photo and thumbnail URL serves a distinct PNG")
    func mediaServed() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = try await signedIn(client)
                let items = try await sandbox.pendingLibraries(token: await credentials.accessToken, size: 10).items.filter { !$0.photoUrl.isEmpty }
                var seen = Set<Data>()
                for item in items.prefix(4) {
                    for url in [item.photoUrl, item.thumbnailUrl] {
                        let path = try #require(URL(string: url)).path
                        let answer = try await sandbox.raw(.GET, path)
                        #expect(answer.status == 200)
                        #expect(answer.header("content-type") == "image/png")
                        #expect(answer.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
                        seen.insert(answer.body)
                    }
                }
                #expect(seen.count == min(items.count, 4) * 2)
                #expect(try await sandbox.raw(.GET, "/media/libraries/photos/not-there.png").status == 404)
            }
        }
    }

    private func signedIn(_ client: BackendClient) async throws -> StaffCredentials {
        let tokens = try await client.signIn(username: SeedAccounts.demoStaffUsername, password: SeedAccounts.demoStaffPassword)
        return StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
    }
}
