import BookCornersAPI
import Foundation
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@Suite("Sandbox: public libraries, distance search and statistics", .timeLimit(.minutes(3)))
struct SandboxPublicTests {
    @Test("distance search answers approved libraries within the radius, nearest first")
    func distanceSearch() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let centre = (lat: 52.52, lng: 13.405)
                let found = try await sandbox.publicLibraries(near: centre.lat, centre.lng, radiusKm: 5)
                #expect(!found.items.isEmpty)
                let distances = found.items.map { haversineKm(centre.lat, centre.lng, $0.lat, $0.lng) }
                #expect(distances.allSatisfy { $0 <= 5.0001 })
                #expect(distances == distances.sorted())
                let wider = try await sandbox.publicLibraries(near: centre.lat, centre.lng, radiusKm: 50)
                #expect(wider.pagination.total >= found.pagination.total)
            }
        }
    }

    @Test("public filters: city, country, search, has_photo; only approved libraries")
    func publicFilters() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let paris = try await sandbox.publicLibraries(["city": "paris"])
                #expect(!paris.items.isEmpty && paris.items.allSatisfy { $0.city == "Paris" })
                let italy = try await sandbox.publicLibraries(["country": "IT", "has_photo": "true"])
                #expect(!italy.items.isEmpty && italy.items.allSatisfy { $0.country == "IT" && !$0.photoUrl.isEmpty })
                let search = try await sandbox.publicLibraries(["search": "Torstrasse"])
                #expect(search.items.allSatisfy { $0.address.contains("Torstrasse") || $0.description.contains("Torstrasse") })
                let all = try await sandbox.publicLibraries()
                let statistics = try await client.statistics()
                #expect(all.pagination.total == statistics.totalApproved)
            }
        }
    }

    @Test("statistics: top 10 countries with names and flags, a cumulative monthly series over 18 months")
    func statistics() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let statistics = try await client.statistics()
                #expect(statistics.topCountries.count == 10)
                #expect(statistics.topCountries.map(\.count) == statistics.topCountries.map(\.count).sorted(by: >))
                let germany = try #require(statistics.topCountries.first { $0.countryCode == "DE" })
                #expect(germany.countryName == "Germany" && germany.flagEmoji == "🇩🇪")
                #expect(statistics.granularity == "monthly")
                #expect(statistics.cumulativeSeries.count >= 17)
                #expect(statistics.cumulativeSeries.last?.cumulativeCount == statistics.totalApproved)
                let counts = statistics.cumulativeSeries.map(\.cumulativeCount)
                #expect(counts == counts.sorted())
                #expect(statistics.cumulativeSeries.allSatisfy { $0.period.hasSuffix("-01") })
                #expect(statistics.totalWithImage <= statistics.totalApproved && statistics.totalWithImage > 0)
            }
        }
    }

    @Test("seed data: realistic enough to moderate")
    func seedData() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let tokens = try await client.signIn(username: "maria", password: SeedAccounts.demoStaffPassword)
                let credentials = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                var pending: [ModerationLibrary] = []
                for number in 1...2 {
                    pending += try await sandbox.pendingLibraries(token: tokens.access, page: number).items
                }
                #expect((55...65).contains(pending.count))
                #expect(pending.contains { $0.name == "<script>alert(1)</script>" })
                #expect(pending.filter { $0.name.isEmpty }.count >= 2)
                #expect(pending.filter { $0.address.isEmpty }.count >= 2)
                #expect(pending.contains { $0.description.count > 1_000 })
                #expect(pending.contains { $0.name.unicodeScalars.contains { $0.value > 0x0590 } }, "a non-Latin script")
                var duplicates = 0
                for library in pending {
                    let near = try await sandbox.publicLibraries(near: library.lat, library.lng, radiusKm: 1)
                    if near.items.contains(where: { haversineKm(library.lat, library.lng, $0.lat, $0.lng) < 0.05 }) { duplicates += 1 }
                }
                #expect(duplicates >= 5, "pending submissions within 50 m of an approved library")
                let all = try await client.libraries(.init(status: .all), page: .first(), credentials: credentials)
                #expect((480...520).contains(all.pagination.total))
                let reports = try await client.reports(status: .all, page: try Page(size: 50), credentials: credentials).items
                #expect(Set(reports.map(\.reason)) == Set(ReportReason.allCases.map(\.rawValue)))
                #expect(Set(reports.map(\.status)) == Set(ReportStatus.allCases.map(\.rawValue)))
                let photos = try await client.photos(status: .all, page: try Page(size: 50), credentials: credentials).items
                #expect(photos.count >= 18 && Set(photos.map(\.status)).count == 3)
                let countries = try await client.statistics().topCountries
                #expect(countries.count == 10)
            }
        }
    }

    @Test("the same seed gives the same data")
    func deterministic() async throws {
        func firstPending() async throws -> [String] {
            try await SandboxFixture.run { sandbox in
                try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                    let tokens = try await client.signIn(username: "staff", password: SeedAccounts.demoStaffPassword)
                    let credentials = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                    let items = try await client.libraries(.init(status: .all), page: try Page(size: 50), credentials: credentials).items
                    return items.map { "\($0.slug) \($0.name) \($0.lat) \($0.status)" }
                }
            }
        }
        #expect(try await firstPending() == (try await firstPending()))
    }
}

func haversineKm(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
    GreatCircle.kilometres(lat1, lng1, lat2, lng2)
}
