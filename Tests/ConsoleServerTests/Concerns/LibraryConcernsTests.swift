import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

@testable import ConsoleServer

/// Why a waiting library needs a look: each reason from its evidence, ranked, in words a
/// moderator reads; a generic name shared across a city is no reason on its own.
@Suite("Reasons to look at a library")
struct LibraryConcernsTests {
    private func library(
        name: String = "Corner Books", description: String = "A box of books by the bakery.", address: String = "Hauptstraße 5",
        lat: Double = 52.520_812, lng: Double = 13.409_531, photo: String = "/media/p.jpg", submitter: String? = "jonas"
    ) -> MirrorLibrary {
        MirrorLibrary(
            id: 1, slug: "corner-books", name: name, description: description, address: address, city: "Berlin", country: "DE",
            postalCode: "10178", lat: lat, lng: lng, photoUrl: photo, thumbnailUrl: photo, status: .pending, rejectionReason: "",
            submitterId: submitter == nil ? nil : 7, submitterUsername: submitter, createdAt: Date(timeIntervalSince1970: 1_790_000_000),
            lastConfirmedAt: Date(timeIntervalSince1970: 1_790_000_000))
    }

    private func neighbour(_ metres: Double, name: String = "Little Library Box") -> LibraryEvidence.Neighbour {
        .init(id: 2, slug: "other", name: name, status: .approved, metres: metres)
    }

    private let settled = LibraryEvidence.SubmitterRecord(submitted: 6, approved: 5, rejected: 0, lastRejectionReason: "")

    @Test("nothing stands out for an ordinary submission by a known submitter")
    func ordinary() {
        #expect(LibraryConcerns.assess(library(), evidence: LibraryEvidence(submitter: settled)).isEmpty)
    }

    @Test(
        "a library within 25 m is a strong duplicate with the distance in its badge; within 50 m or the same name within 200 m is worth a look",
        arguments: [
            (12.4, LibraryConcern.Strength.strong, "duplicate? 12 m"), (25.0, .strong, "duplicate? 25 m"), (30.2, .worthALook, "duplicate? 30 m"),
            (50.0, .worthALook, "duplicate? 50 m"),
        ])
    func duplicateByDistance(metres: Double, strength: LibraryConcern.Strength, badge: String) throws {
        let concerns = LibraryConcerns.assess(library(), evidence: LibraryEvidence(nearest: neighbour(metres), submitter: settled))
        let duplicate = try #require(concerns.first)
        #expect(concerns.count == 1)
        #expect(duplicate.kind == .duplicate && duplicate.strength == strength && duplicate.badge == badge)
        #expect(duplicate.sentence == "“Little Library Box” (approved) is \(badge.dropFirst("duplicate? ".count)) away.")
    }

    @Test("a namesake 150 m away is worth a look; one 60 m away with another name, or the same name farther than 200 m, is no reason")
    func namesakes() {
        let sameName = LibraryConcerns.assess(
            library(), evidence: LibraryEvidence(nearest: neighbour(60, name: "Other"), namesakeNearby: neighbour(150), submitter: settled))
        #expect(sameName.map(\.badge) == ["same name 150 m away"])
        #expect(sameName.first?.strength == .worthALook)
        // The store looks for neighbours within 200 m only: a namesake elsewhere in the city never reaches the evidence.
        #expect(LibraryConcerns.assess(library(), evidence: LibraryEvidence(nearest: neighbour(60, name: "Other"), submitter: settled)).isEmpty)
    }

    @Test("the submitter: a first submission, one often rejected (with the count and the last reason), a burst within an hour")
    func submitter() {
        let first = LibraryConcerns.assess(
            library(), evidence: LibraryEvidence(submitter: .init(submitted: 1, approved: 0, rejected: 0, lastRejectionReason: "")))
        #expect(first.map(\.badge) == ["new submitter"])
        #expect(first.first?.sentence == "jonas's first submission.")
        let rejected = LibraryConcerns.assess(
            library(), evidence: LibraryEvidence(submitter: .init(submitted: 6, approved: 2, rejected: 3, lastRejectionReason: "Private garden")))
        #expect(rejected.first?.strength == .strong)
        #expect(rejected.first?.sentence == "jonas had 3 of 5 decided submissions rejected, last: “Private garden”.")
        let once = LibraryConcerns.assess(
            library(), evidence: LibraryEvidence(submitter: .init(submitted: 3, approved: 1, rejected: 1, lastRejectionReason: "")))
        #expect(once.map(\.strength) == [.worthALook], "1 of 2 rejected: worth a look, not strong")
        let burst = LibraryConcerns.assess(library(), evidence: LibraryEvidence(submitter: settled, sameHourSubmissions: 5))
        #expect(burst.map(\.badge) == ["6 in an hour"])
        // An imported library has no submitter: no submitter reasons.
        #expect(LibraryConcerns.assess(library(submitter: nil), evidence: LibraryEvidence()).isEmpty)
    }

    @Test("text: markup or links are strong; contact details, all capitals and a name that is only the address are worth a look")
    func text() {
        func badges(_ library: MirrorLibrary) -> [String] {
            LibraryConcerns.assess(library, evidence: LibraryEvidence(submitter: settled)).map(\.badge)
        }
        #expect(badges(library(name: "<script>alert(1)</script>")) == ["links or markup"])
        #expect(badges(library(description: "Cheap pills at https://example.test")) == ["links or markup"])
        #expect(badges(library(description: "Visit www.example.test")) == ["links or markup"])
        #expect(badges(library(description: "Call +49 30 1234 5678 for the key")) == ["contact details in text"])
        #expect(badges(library(description: "Write to anna@example.org")) == ["contact details in text"])
        #expect(badges(library(description: "Call (555) 123-4567")) == ["contact details in text"])
        #expect(badges(library(description: "Open 2020-2024, 3 shelves, 120 books")) == [], "years and counts are no phone number")
        for notAPhone in ["Opened 2021-06-01 by the school", "Since 01.06.2021", "Mo-Fr 10.00 - 18.00", "(2019-2021) at the old kiosk"] {
            #expect(badges(library(description: notAPhone)) == [], "dates and opening hours are no phone number: \(notAPhone)")
        }
        #expect(badges(library(name: "BEST BOOKS")) == ["all capitals"])
        #expect(badges(library(name: "ABC")) == [], "a short acronym is no shouting")
        #expect(badges(library(name: "مكتبة الحي")) == [], "a script without capitals is never all capitals")
        #expect(badges(library(name: "Hauptstrasse 5", address: "Hauptstraße 5")) == ["name is the address"])
        let strongFirst = LibraryConcerns.assess(
            library(name: "FREE BOOKS", description: "See https://example.test"), evidence: LibraryEvidence(submitter: settled))
        #expect(strongFirst.map(\.strength) == [.strong, .worthALook], "strong reasons come first")
    }

    @Test("place: 0, 0 is strong; round coordinates and a spot the submitter used before are worth a look; no photo is worth a look")
    func placeAndPhoto() {
        #expect(LibraryConcerns.assess(library(lat: 0, lng: 0), evidence: nil).map(\.badge) == ["placed at 0, 0"])
        #expect(LibraryConcerns.assess(library(lat: 52.5, lng: 13.4), evidence: nil).map(\.badge) == ["round coordinates"])
        #expect(
            LibraryConcerns.assess(library(), evidence: LibraryEvidence(submitter: settled, repeatsOwnCoordinates: true)).map(\.badge) == [
                "place used before"
            ])
        #expect(LibraryConcerns.assess(library(photo: ""), evidence: nil).map(\.badge) == ["no photo"])
    }

    @Test("the duplicate reason preset names the library it duplicates, approved or waiting; none without a likely duplicate")
    func duplicatePreset() {
        #expect(LibraryConcerns.duplicateReason(LibraryEvidence(nearest: neighbour(12))) == "Duplicate of “Little Library Box”, already on the map 12 m away.")
        #expect(
            LibraryConcerns.duplicateReason(LibraryEvidence(nearest: .init(id: 3, slug: "p", name: "Box", status: .pending, metres: 40)))
                == "Duplicate of “Box” 40 m away, already waiting for review.")
        #expect(LibraryConcerns.duplicateReason(LibraryEvidence(nearest: neighbour(80, name: "Other"))) == nil)
        #expect(
            LibraryConcerns.duplicateReason(LibraryEvidence(nearest: neighbour(80, name: "Other"), namesakeNearby: neighbour(150)))
                == "Duplicate of “Little Library Box”, already on the map 150 m away.")
        #expect(LibraryConcerns.duplicateReason(nil) == nil)
    }
}
