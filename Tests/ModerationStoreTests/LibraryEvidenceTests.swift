import Foundation
import GRDB
import ModerationVocabulary
import Testing

@testable import ModerationStore

@Suite("ModerationStore: the evidence a library's reasons are drawn from")
struct LibraryEvidenceTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evidence-\(UUID().uuidString)")
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func library(
        _ id: Int, status: LibraryStatus = .pending, name: String = "Corner Books", metresNorth: Double = 0, submitter: Int? = 7,
        created: TimeInterval = 0, reason: String = ""
    ) -> MirrorLibrary {
        MirrorLibrary(
            id: id, slug: "library-\(id)", name: name, description: "", address: "Via Roma \(id)", city: "Florence", country: "IT",
            postalCode: "50100", lat: 43.77 + metresNorth / GreatCircle.metresPerDegree, lng: 11.25, photoUrl: "", thumbnailUrl: "",
            status: status, rejectionReason: reason, submitterId: submitter, submitterUsername: submitter.map { "user\($0)" },
            createdAt: now.addingTimeInterval(created), lastConfirmedAt: now)
    }

    @Test(
        "nearest approved or pending neighbour and nearest namesake within 200 m; the submitter's record, last reason, submissions within the hour and a repeated spot"
    )
    func evidence() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path)
        // setup: the submission (1), its submitter's history, and its neighbourhood
        var rows = [
            library(1),
            library(2, status: .rejected, metresNorth: 5_000, created: -10 * 86_400, reason: "Private garden"),
            library(3, status: .approved, metresNorth: 9_000, created: -20 * 86_400),
            // the same spot as 1, rejected: a repeated place, but no duplicate (rejected ones duplicate nothing)
            library(9, status: .rejected, created: -86_400),
        ]
        rows += (4...8).map { library($0, metresNorth: 3_000 + Double($0) * 100, created: Double($0 - 3) * 300) }
        // one more, 40 minutes later: outside the hour around it
        rows.append(library(15, metresNorth: 4_000, created: 2_400))
        rows += [
            library(10, status: .approved, metresNorth: 150, submitter: 20),
            library(11, name: "Garden Shelf", metresNorth: -40, submitter: 21),
            library(12, status: .rejected, name: "Garden Shelf", metresNorth: 5, submitter: 22),
            library(13, status: .approved, metresNorth: 900, submitter: 23),
            library(14, name: "Another", submitter: nil),
        ]
        rows[rows.count - 1].lat += 3_000 / GreatCircle.metresPerDegree
        try await store.upsertMirror(libraries: rows)
        let anchor = try #require(try await store.mirroredLibrary(slug: "library-1"))
        let imported = try #require(try await store.mirroredLibrary(slug: "library-14"))
        // act
        let evidence = try await store.libraryEvidence(for: [anchor, imported])
        // check
        let found = try #require(evidence[1])
        #expect(found.nearest?.id == 11 && (found.nearest?.metres ?? 0).rounded() == 40, "\(String(describing: found.nearest))")
        #expect(found.namesakeNearby?.id == 10 && found.namesakeNearby?.status == .approved, "the namesake 900 m away is too far")
        #expect(found.submitter == .init(submitted: 10, approved: 1, rejected: 2, lastRejectionReason: "Private garden"))
        #expect(found.sameHourSubmissions == 5)
        #expect(found.repeatsOwnCoordinates)
        let alone = try #require(evidence[14])
        #expect(alone.submitter == nil && alone.nearest == nil && alone.sameHourSubmissions == 0 && !alone.repeatsOwnCoordinates)
    }

    @Test("across the 180th meridian a library 21 m away is a neighbour: the evidence, the duplicate search and forgetting stored reasons see it")
    func acrossTheMeridian() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path)
        func fiji(_ id: Int, lng: Double, status: LibraryStatus = .pending) -> MirrorLibrary {
            var row = library(id, status: status, name: "Shelf \(id)", submitter: 30 + id)
            (row.lat, row.lng) = (-17.0, lng)
            return row
        }
        // setup: a waiting library just east of the meridian, an approved one just west of it, and one 1 km away
        try await store.upsertMirror(libraries: [fiji(1, lng: 179.9999), fiji(2, lng: -179.9999, status: .approved), fiji(3, lng: 179.99)])
        let east = try #require(try await store.mirroredLibrary(slug: "library-1"))
        let nearest = try #require(try await store.libraryEvidence(for: [east])[1]?.nearest)
        #expect(nearest.id == 2 && (20...23).contains(nearest.metres), "\(nearest)")
        let near = try await store.mirroredLibraries(near: east.lat, east.lng, withinMetres: 500, statuses: [.approved, .pending])
        #expect(near.map(\.id) == [1, 2], "itself and its twin across the meridian, not the one 1 km away")
        #expect(try await store.mirroredDuplicates(of: east).map(\.id) == [2])
        // The backend bounds no longitude: one past 180° is read round the globe, not a crash.
        var past = fiji(5, lng: 180.9999)
        past.lat = 10
        try await store.upsertMirror(libraries: [
            past,
            {
                var twin = fiji(6, lng: -179.0001); twin.lat = 10; return twin
            }(),
        ])
        let wrapped = try await store.mirroredLibraries(near: past.lat, past.lng, withinMetres: 100, statuses: [.pending])
        #expect(wrapped.map(\.id) == [6], "181° E is 179° W: its neighbour at 179.0001° W is found")
        #expect(try await store.libraryEvidence(for: [past])[5]?.nearest?.id == 6)
        // A change to the library across the meridian forgets the stored reasons of this one.
        try await store.replaceLibraryConcerns([1: LibraryAssessment(fingerprint: "f", concerns: [])])
        #expect(try await store.storedLibraryConcerns(fingerprints: [1: "f"]).keys.sorted() == [1])
        var moved = fiji(2, lng: -179.99985, status: .approved)
        moved.name = "Shelf 2, moved"
        try await store.upsertMirror(libraries: [moved])
        #expect(try await store.storedLibraryConcerns(fingerprints: [1: "f"]).isEmpty, "the trigger looked across the meridian")
    }

    @Test("reasons worked out before a mirror change that makes them stale are not stored; a change elsewhere holds nothing back; the next pass stores them")
    func staleWhileWorkingOut() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path)
        // setup: two waiting libraries of two submitters, 50 km apart
        try await store.upsertMirror(libraries: [library(1), library(2, metresNorth: 50_000, submitter: 99)])
        let newSubmitter = LibraryAssessment(
            fingerprint: "1",
            concerns: [StoredLibraryConcern(kind: "new-submitter", strength: "worth-a-look", badge: "new submitter", sentence: "user7's first submission.")])
        let quiet = LibraryAssessment(fingerprint: "2", concerns: [])
        // act: a pass reads where the mirror stands and its evidence; meanwhile the mirror learns of
        // an earlier rejection by library 1's submitter, and of a library far from both
        let tick = try await store.concernEvidenceTick()
        try await store.upsertMirror(libraries: [
            library(3, status: .rejected, metresNorth: 9_000, created: -86_400, reason: "Private garden"),
            library(4, status: .approved, metresNorth: 90_000, submitter: 98),
        ])
        let written = try await store.replaceLibraryConcerns([1: newSubmitter, 2: quiet], evidenceTick: tick)
        // check: only the untouched library's reasons were stored
        #expect(written == (1, 1))
        #expect(try await store.storedLibraryConcerns(fingerprints: [1: "1", 2: "2"]).keys.sorted() == [2])
        // The next pass reads the mirror as it now stands, and stores what it works out.
        let next = try await store.concernEvidenceTick()
        #expect(next > tick)
        #expect(try await store.replaceLibraryConcerns([1: newSubmitter], evidenceTick: next) == (1, 0))
        #expect(try await store.storedLibraryConcerns(fingerprints: [1: "1"]).keys.sorted() == [1])
        // The log of changes is kept ten minutes, longer than any pass needs it.
        let logged = { try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM concernEvidenceChange") ?? 0 } }
        #expect(try await logged() == 4, "one row for each library written")
        try await store.pruneLibraryConcerns(now: Date().addingTimeInterval(60))
        #expect(try await logged() == 4)
        try await store.pruneLibraryConcerns(now: Date().addingTimeInterval(601))
        #expect(try await logged() == 0)
    }

    @Test("a mirror change written by a second console process on the same file holds back the reasons the first worked out before it")
    func staleFromAnotherProcess() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        // setup: two stores on one file, as two `console serve` processes open it
        let refreshing = try ModerationStore(path: path)
        let syncing = try ModerationStore(path: path)
        try await syncing.upsertMirror(libraries: [library(1), library(2, metresNorth: 50_000, submitter: 99)])
        let newSubmitter = LibraryAssessment(
            fingerprint: "1",
            concerns: [StoredLibraryConcern(kind: "new-submitter", strength: "worth-a-look", badge: "new submitter", sentence: "user7's first submission.")])
        // act: one process's pass reads the clock; the other's sync learns of an earlier rejection
        let tick = try await refreshing.concernEvidenceTick()
        try await syncing.upsertMirror(libraries: [library(3, status: .rejected, metresNorth: 9_000, created: -86_400, reason: "Private garden")])
        let written = try await refreshing.replaceLibraryConcerns([1: newSubmitter, 2: LibraryAssessment(fingerprint: "2", concerns: [])], evidenceTick: tick)
        // check: the first process stores only what the second one's change left untouched
        #expect(written == (1, 1))
        #expect(try await syncing.storedLibraryConcerns(fingerprints: [1: "1", 2: "2"]).keys.sorted() == [2])
        #expect(try await refreshing.concernEvidenceTick() == (try await syncing.concernEvidenceTick()), "one clock for both")
    }
}
