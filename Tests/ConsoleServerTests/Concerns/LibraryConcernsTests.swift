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
            (12.4, LibraryConcern.Strength.strong, "likely duplicate, 12 m"), (25.0, .strong, "likely duplicate, 25 m"),
            (30.2, .worthALook, "possible duplicate, 30 m"), (50.0, .worthALook, "possible duplicate, 50 m"),
        ])
    func duplicateByDistance(metres: Double, strength: LibraryConcern.Strength, badge: String) throws {
        let concerns = LibraryConcerns.assess(library(), evidence: LibraryEvidence(nearest: neighbour(metres), submitter: settled))
        let duplicate = try #require(concerns.first)
        #expect(concerns.count == 1)
        #expect(duplicate.kind == .duplicate && duplicate.strength == strength && duplicate.badge == badge)
        #expect(duplicate.sentence == "“Little Library Box” (approved) is \(badge.split(separator: ", ").last ?? "") away.")
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
        for link in ["Order at cheap-books.shop/sale", "See bookswap.example.com.", "(bücher-tausch.de)", "shop: BOOKS4U.CO.UK!"] {
            #expect(badges(library(description: link)) == ["links or markup"], "a link without http or www: \(link)")
        }
        for word in [
            "Books, e.g. novels", "Near St.Louis church", "Chanel No.5 shop", "Version 3.5 of the map", "Ends with a dot. Then more",
            "Take a book.No money needed", "Ein Bücherschrank.Es gibt Romane", "Een minibieb.De kast is open",
        ] {
            #expect(badges(library(description: word)) == [], "no link: \(word)")
        }
        #expect(badges(library(description: "Call +49 30 1234 5678 for the key")) == ["contact details in text"])
        #expect(badges(library(description: "Write to anna@example.org")) == ["contact details in text"])
        #expect(badges(library(description: "Call (555) 123-4567")) == ["contact details in text"])
        for address in ["(anna@example.org)", "mail: a@b@shelf.de.", "lea@bücher.de"] {
            #expect(badges(library(description: address)) == ["contact details in text"], "\(address)")
        }
        for notAnAddress in ["@example.org", "anna@.org", "anna@example.o", "a@b"] {
            #expect(badges(library(description: notAnAddress)) == [], "\(notAnAddress)")
        }
        #expect(badges(library(description: "anna @ example.org")) == ["links or markup"], "no address, but a domain written out")
        #expect(badges(library(description: "Open 2020-2024, 3 shelves, 120 books")) == [], "years and counts are no phone number")
        for notAPhone in [
            "Opened 2021-06-01 by the school", "Since 01.06.2021", "Mo-Fr 10.00 - 18.00", "(2019-2021) at the old kiosk",
            "Start with ISBN 0-306-40615-2", "Our favourite: 978-3-16-148410-0",
        ] {
            #expect(badges(library(description: notAPhone)) == [], "dates, opening hours and ISBNs are no phone number: \(notAPhone)")
        }
        #expect(badges(library(name: "BEST BOOKS")) == ["all capitals"])
        #expect(badges(library(name: "ABC")) == [], "a short acronym is no shouting")
        #expect(badges(library(name: "مكتبة الحي")) == [], "a script without capitals is never all capitals")
        #expect(badges(library(name: "Hauptstrasse 5", address: "Hauptstraße 5")) == ["name is the address"])
        let strongFirst = LibraryConcerns.assess(
            library(name: "FREE BOOKS", description: "See https://example.test"), evidence: LibraryEvidence(submitter: settled))
        #expect(strongFirst.map(\.strength) == [.strong, .worthALook], "strong reasons come first")
    }

    @Test("a name or description of one very long word is read in time in line with its length (a backtracking check took 40 s on 20 000 characters)")
    func longWordsReadInLinearTime() {
        let clock = ContinuousClock()
        let long = 20_000
        let shapes = [
            String(repeating: "a", count: long), String(repeating: "1", count: long), String(repeating: "a@", count: long / 2),
            String(repeating: "a.", count: long / 2), String(repeating: "1-", count: long / 2), String(repeating: "(1", count: long / 2),
            String(repeating: "a", count: long) + "@example.org",
        ]
        var slowest = Duration.zero
        for shape in shapes {
            let took = clock.measure {
                _ = LibraryConcerns.assess(library(name: String(shape.prefix(200)), description: shape), evidence: LibraryEvidence(submitter: settled))
            }
            slowest = max(slowest, took)
        }
        // Linear checks take milliseconds here; the backtracking ones took tens of seconds.
        #expect(slowest < .seconds(3), "slowest: \(slowest)")
        #expect(
            LibraryConcerns.assess(library(description: String(repeating: "a", count: long) + "@example.org"), evidence: LibraryEvidence(submitter: settled))
                .map(\.badge) == ["contact details in text"], "an address at the end of a long word is still found")
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

    @Test("a place outside the country the library names is strong; inside, near a border, overseas or across the antimeridian it is none")
    func outsideItsCountry() {
        func badges(lat: Double, lng: Double, country: String) -> [String] {
            var placed = library(lat: lat, lng: lng)
            placed.country = country
            return LibraryConcerns.assess(placed, evidence: LibraryEvidence(submitter: settled)).map(\.badge)
        }
        // Said to be in Germany, placed in Paris: the coordinates or the country are wrong.
        #expect(badges(lat: 48.856_61, lng: 2.351_49, country: "DE") == ["outside DE"])
        #expect(
            LibraryConcerns.assess(
                {
                    var l = library(lat: 48.856_61, lng: 2.351_49); l.country = "de"; return l
                }(), evidence: nil
            ).first?.strength == .strong)
        // Lat and lng swapped: 13.4, 52.5 is in the Arabian Sea.
        #expect(badges(lat: 13.409_531, lng: 52.520_812, country: "DE") == ["outside DE"])
        // Inside: Berlin; Aachen, 2 km from the Dutch border; Réunion (France overseas); Honolulu; Fiji both sides of 180°.
        #expect(badges(lat: 52.520_812, lng: 13.409_531, country: "DE").isEmpty)
        #expect(badges(lat: 50.775_5, lng: 6.083_9, country: "DE").isEmpty)
        #expect(badges(lat: -21.115_1, lng: 55.536_4, country: "FR").isEmpty)
        #expect(badges(lat: 21.306_9, lng: -157.858_3, country: "US").isEmpty)
        #expect(badges(lat: -16.777_3, lng: 179.414_4, country: "FJ").isEmpty)
        #expect(badges(lat: -16.799_1, lng: -179.981_1, country: "FJ").isEmpty)
        // A country the table does not know, or none, says nothing.
        #expect(badges(lat: 48.856_61, lng: 2.351_49, country: "").isEmpty)
        #expect(badges(lat: 48.856_61, lng: 2.351_49, country: "XX").isEmpty)
    }

    @Test("a suspect word in the name or description is worth a look, matched as a whole word, whatever its case and accents")
    func suspectWords() {
        let settings = ConcernSettings(suspectWords: ["casino", "free money", "Café"])
        func badges(name: String = "Corner Books", description: String = "A box of books.") -> [String] {
            LibraryConcerns.assess(library(name: name, description: description), evidence: LibraryEvidence(submitter: settled), settings: settings)
                .map(\.badge)
        }
        #expect(badges(name: "Corner Books CASINO") == ["suspect word: casino"])
        #expect(badges(description: "Get\r\nfree   money here") == ["suspect word: free money"])
        #expect(badges(name: "Cafe corner") == ["suspect word: Café"])
        #expect(badges(name: "casinos", description: "Occasional opening.").isEmpty, "part of a word is no match")
        #expect(LibraryConcerns.assess(library(name: "casino"), evidence: LibraryEvidence(submitter: settled)).isEmpty, "an empty list flags nothing")
    }

    @Test("the thresholds staff set move each reason: a duplicate's distance, a burst's size, when often rejected turns strong")
    func thresholds() {
        let strict = ConcernSettings(strongDuplicateMetres: 40, duplicateMetres: 80, sameNameMetres: 100, burstSubmissions: 2, strongRejections: 2)
        let near = LibraryConcerns.assess(library(), evidence: LibraryEvidence(nearest: neighbour(35), submitter: settled), settings: strict)
        #expect(near.map(\.strength) == [.strong])
        #expect(
            LibraryConcerns.assess(library(), evidence: LibraryEvidence(nearest: neighbour(70, name: "Other"), submitter: settled), settings: strict).count == 1
        )
        // A namesake 150 m away is past 100 m.
        #expect(
            LibraryConcerns.assess(
                library(), evidence: LibraryEvidence(nearest: neighbour(150, name: "Other"), namesakeNearby: neighbour(150), submitter: settled),
                settings: strict
            ).isEmpty)
        let burst = LibraryConcerns.assess(library(), evidence: LibraryEvidence(submitter: settled, sameHourSubmissions: 2), settings: strict)
        #expect(burst.map(\.badge) == ["3 in an hour"])
        let rejected = LibraryEvidence.SubmitterRecord(submitted: 4, approved: 1, rejected: 2, lastRejectionReason: "")
        #expect(LibraryConcerns.assess(library(), evidence: LibraryEvidence(submitter: rejected), settings: strict).first?.strength == .strong)
        #expect(LibraryConcerns.assess(library(), evidence: LibraryEvidence(submitter: rejected)).first?.strength == .worthALook)
    }

    @Test(
        "the settings form: whole numbers within range, strong no farther than worth a look, CR LF lines, each word once, a word without letters refused, a clear sentence otherwise"
    )
    func settingsInput() throws {
        var form = ConcernSettingsForm(
            strongDuplicateMetres: " 30 ", duplicateMetres: "60", sameNameMetres: "250", burstSubmissions: "4", strongRejections: "3",
            suspectWords: "casino\r\n\r\n  Free Money \r\nCASINO\r\nbad\u{0}word\r\ntab\tword\r\n\u{2401}ctl\u{2421}\r\n", seen: nil)
        let settings = try ConcernSettingsInput.settings(from: form).get()
        #expect(
            settings
                == ConcernSettings(
                    strongDuplicateMetres: 30, duplicateMetres: 60, sameNameMetres: 250, burstSubmissions: 4,
                    suspectWords: ["casino", "Free Money", "bad word", "tab word", "ctl"]),
            "a control character (a tab), or its picture as a form's arrives, reads as a space"
        )
        form.suspectWords = "casino\r\n📚\r\n"
        #expect(
            throws: ConcernSettingsInput.Problem(
                message:
                    "“📚” has no letter or digit, so it would never match: the suspect list matches words and phrases. Remove it or write it in words."
            )
        ) { try ConcernSettingsInput.settings(from: form).get() }
        form.suspectWords = "casino"
        form.strongDuplicateMetres = "70"
        #expect(throws: ConcernSettingsInput.Problem(message: "“Duplicate, strong within” (70 m) cannot be farther than “worth a look within” (60 m).")) {
            try ConcernSettingsInput.settings(from: form).get()
        }
        form.strongDuplicateMetres = "2.5"
        #expect(throws: ConcernSettingsInput.Problem(message: "“Duplicate, strong within” must be a whole number of metres from 1 to 500.")) {
            try ConcernSettingsInput.settings(from: form).get()
        }
        form.strongDuplicateMetres = nil
        #expect(throws: ConcernSettingsInput.Problem.self) { try ConcernSettingsInput.settings(from: form).get() }
        form.strongDuplicateMetres = "10"
        form.suspectWords = (1...201).map { "word\($0)" }.joined(separator: "\n")
        #expect(throws: ConcernSettingsInput.Problem(message: "The suspect list holds at most 200 words; it has 201.")) {
            try ConcernSettingsInput.settings(from: form).get()
        }
        #expect(
            settings.changes(from: .defaults) == [
                "Duplicate, strong within: 25 m → 30 m", "Duplicate, worth a look within: 50 m → 60 m", "Same name within: 200 m → 250 m",
                "Many in an hour (more than): 5 → 4", "Suspect words added: casino, Free Money, bad word, tab word, ctl",
            ])
    }
}
