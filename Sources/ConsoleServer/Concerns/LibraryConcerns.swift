import Foundation
import ModerationStore
import ModerationVocabulary

/// Why a waiting library needs a look, drawn from the library itself and what the mirror knows
/// around it (`LibraryEvidence`), by the thresholds staff set (`ConcernSettings`): strong
/// reasons first, then those worth a look.
enum LibraryConcerns {
    /// The reasons of each waiting one of `libraries`, by id, worked out afresh from one read of
    /// the mirror (a decided library has none: they were for its decision).
    static func of(_ libraries: [MirrorLibrary], in store: ModerationStore, settings: ConcernSettings? = nil) async throws -> [Int: [LibraryConcern]] {
        let waiting = libraries.filter { $0.status == .pending }
        guard !waiting.isEmpty else { return [:] }
        let settings = if let settings { settings } else { try await store.concernSettings() }
        let evidence = try await store.libraryEvidence(for: waiting, within: settings.neighbourhoodMetres)
        return Dictionary(waiting.map { ($0.id, assess($0, evidence: evidence[$0.id], settings: settings)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The reasons of each waiting one of `libraries` for a list's rows: those the refresher
    /// stored for the library as it is now and the settings as they are, the rest worked out
    /// afresh. Stored reasons that look at neighbours and the submitter's record are at most one
    /// refresh old (a minute); a decision checks afresh.
    /// Said beside reasons until the mirror has read every library once: the evidence they
    /// are worked out from (neighbours, the submitter's record) may be missing.
    static let incompleteText =
        "Reasons may be missing: the console has not yet read all of Book Corners' libraries once, so a library close by or the submitter's earlier ones may not count yet. Look at a library's page before approving."

    /// `incompleteText` until the mirror's first whole pass over libraries, "" after.
    static func incompleteNote(in store: ModerationStore) async throws -> String {
        try await store.mirrorScopeState(.libraryList).lastPassCompletedAt == nil ? incompleteText : ""
    }

    static func shown(_ libraries: [MirrorLibrary], in store: ModerationStore) async throws -> [Int: [LibraryConcern]] {
        let waiting = libraries.filter { $0.status == .pending }
        guard !waiting.isEmpty else { return [:] }
        let settings = try await store.concernSettings()
        let settingsFields = settings.fingerprintFields
        let stored = try await store.storedLibraryConcerns(
            fingerprints: Dictionary(waiting.map { ($0.id, fingerprint(of: $0, settingsFields: settingsFields)) }, uniquingKeysWith: { first, _ in first }))
        var shown = stored.mapValues { $0.compactMap(LibraryConcern.init(stored:)) }
        let rest = waiting.filter { stored[$0.id] == nil }
        if !rest.isEmpty { shown.merge(try await of(rest, in: store, settings: settings), uniquingKeysWith: { _, fresh in fresh }) }
        return shown
    }

    /// What a library's reasons are worked out from, of its own and of the settings, in a few
    /// characters: when either changes, stored reasons no longer count.
    static func fingerprint(of library: MirrorLibrary, settings: ConcernSettings) -> String {
        fingerprint(of: library, settingsFields: settings.fingerprintFields)
    }

    /// `fingerprint(of:settings:)` with the settings' fields worked out once for a whole page of rows.
    static func fingerprint(of library: MirrorLibrary, settingsFields: [String]) -> String {
        StableHash.of(
            [
                library.name, library.description, library.address, library.city, library.country, String(library.lat), String(library.lng),
                library.photoUrl, library.thumbnailUrl, library.status.rawValue, library.submitterId.map(String.init) ?? "",
                library.submitterUsername ?? "", String(library.createdAt.timeIntervalSince1970),
            ] + settingsFields)
    }

    /// The reasons of one library, strongest first.
    static func assess(_ library: MirrorLibrary, evidence: LibraryEvidence?, settings: ConcernSettings = .defaults) -> [LibraryConcern] {
        var concerns: [LibraryConcern] = []
        if let evidence {
            concerns += duplicate(evidence, settings)
            concerns += submitter(library, evidence, settings)
        }
        concerns += text(library, settings)
        concerns += place(library, evidence)
        if library.photoUrl.isEmpty, library.thumbnailUrl.isEmpty {
            concerns.append(.init(kind: .noPhoto, strength: .worthALook, badge: "no photo", sentence: "No photo was sent with it."))
        }
        // Stable: strong ones first, each group in the order above.
        return concerns.enumerated().sorted { ($0.element.strength, $0.offset) < ($1.element.strength, $1.offset) }.map(\.element)
    }

    /// The rejection reason naming the library this one duplicates ("Duplicate of “Corner Books”,
    /// already on the map 12 m away."), for the reason presets; nil without a likely duplicate.
    static func duplicateReason(_ evidence: LibraryEvidence?, settings: ConcernSettings = .defaults) -> String? {
        guard let evidence else { return nil }
        let close = evidence.nearest.flatMap { settings.isNearDuplicate(metres: $0.metres) ? $0 : nil }
        let namesake = evidence.namesakeNearby.flatMap { settings.isNearNamesake(metres: $0.metres) ? $0 : nil }
        guard let original = close ?? namesake else { return nil }
        let name = LibraryText.displayName(original.name)
        let away = Distance.text(original.metres)
        return original.status == .approved
            ? "Duplicate of “\(name)”, already on the map \(away) away."
            : "Duplicate of “\(name)” \(away) away, already waiting for review."
    }

    // MARK: The reasons

    private static func duplicate(_ evidence: LibraryEvidence, _ settings: ConcernSettings) -> [LibraryConcern] {
        if let nearest = evidence.nearest, settings.isNearDuplicate(metres: nearest.metres) {
            let strength: LibraryConcern.Strength = settings.isStrongDuplicate(metres: nearest.metres) ? .strong : .worthALook
            return [
                .init(
                    kind: .duplicate, strength: strength, badge: "\(LibraryConcern.duplicateName(strength)), \(Distance.text(nearest.metres))",
                    sentence: "\(named(nearest)) is \(Distance.text(nearest.metres)) away.")
            ]
        }
        if let namesake = evidence.namesakeNearby, settings.isNearNamesake(metres: namesake.metres) {
            return [
                .init(
                    kind: .duplicate, strength: .worthALook, badge: "same name \(Distance.text(namesake.metres)) away",
                    sentence: "\(named(namesake)), with the same name, is \(Distance.text(namesake.metres)) away.")
            ]
        }
        return []
    }

    private static func submitter(_ library: MirrorLibrary, _ evidence: LibraryEvidence, _ settings: ConcernSettings) -> [LibraryConcern] {
        guard let record = evidence.submitter else { return [] }
        var concerns: [LibraryConcern] = []
        let who = library.submitterUsername ?? "The submitter"
        if record.submitted <= 1 {
            concerns.append(.init(kind: .newSubmitter, strength: .worthALook, badge: "new submitter", sentence: "\(who)'s first submission."))
        }
        let decided = record.approved + record.rejected
        if decided >= 2, record.rejected * 2 >= decided {
            let last = record.lastRejectionReason.isEmpty ? "" : ", last: “\(record.lastRejectionReason)”"
            concerns.append(
                .init(
                    kind: .oftenRejected, strength: record.rejected >= settings.strongRejections ? .strong : .worthALook,
                    badge: "\(record.rejected) of \(decided) rejected",
                    sentence: "\(who) had \(record.rejected) of \(decided) decided submissions rejected\(last)."))
        }
        if evidence.sameHourSubmissions + 1 > settings.burstSubmissions {
            concerns.append(
                .init(
                    kind: .burst, strength: .worthALook, badge: "\(evidence.sameHourSubmissions + 1) in an hour",
                    sentence: "\(who) sent \(evidence.sameHourSubmissions + 1) libraries within the hour around this one."))
        }
        return concerns
    }

    private static func text(_ library: MirrorLibrary, _ settings: ConcernSettings) -> [LibraryConcern] {
        var concerns: [LibraryConcern] = []
        let written = library.name + "\n" + library.description
        if hasMarkup(written) || written.localizedCaseInsensitiveContains("http://") || written.localizedCaseInsensitiveContains("https://")
            || written.localizedCaseInsensitiveContains("www.") || hasBareDomain(written)
        {
            concerns.append(
                .init(kind: .markup, strength: .strong, badge: "links or markup", sentence: "The name or description has a link or markup in it."))
        }
        if hasEmailAddress(written) || hasPhoneNumber(written) {
            concerns.append(
                .init(
                    kind: .contactDetails, strength: .worthALook, badge: "contact details in text",
                    sentence: "The name or description has a phone number or e-mail address (the contact field is meant for them)."))
        }
        let letters = library.name.unicodeScalars.filter { $0.properties.isAlphabetic && $0.properties.changesWhenLowercased || $0.properties.isLowercase }
        if letters.count >= 4, letters.allSatisfy({ $0.properties.isUppercase }) {
            concerns.append(.init(kind: .allCapitals, strength: .worthALook, badge: "all capitals", sentence: "The name is written in capitals."))
        }
        if let word = SuspectWords(settings.suspectWords).first(in: written) {
            concerns.append(
                .init(
                    kind: .suspectWords, strength: .worthALook, badge: "suspect word: \(word)",
                    sentence: "The name or description has “\(word)”, a word on the staff's suspect list."))
        }
        let address = LibraryNameKey.normalize(library.address)
        if !address.isEmpty, LibraryNameKey.normalize(library.name) == address {
            concerns.append(.init(kind: .nameIsAddress, strength: .worthALook, badge: "name is the address", sentence: "The name is only its address."))
        }
        return concerns
    }

    private static func place(_ library: MirrorLibrary, _ evidence: LibraryEvidence?) -> [LibraryConcern] {
        if library.lat == 0, library.lng == 0 {
            return [
                .init(
                    kind: .place, strength: .strong, badge: "placed at 0, 0",
                    sentence: "It is placed at 0° N, 0° E, off the coast of Africa: no place was given.")
            ]
        }
        var concerns: [LibraryConcern] = []
        if isRound(library.lat), isRound(library.lng) {
            concerns.append(
                .init(
                    kind: .place, strength: .worthALook, badge: "round coordinates",
                    sentence: "It is placed on round coordinates (\(library.lat), \(library.lng)): probably not the real spot."))
        }
        if CountryBoxes.isOutside(lat: library.lat, lng: library.lng, country: library.country) == true {
            concerns.append(
                .init(
                    kind: .place, strength: .strong, badge: "outside \(library.country.uppercased())",
                    sentence:
                        "It is placed at \(library.lat), \(library.lng), outside \(library.country.uppercased()), the country it names: the coordinates or the country are wrong."
                ))
        }
        if evidence?.repeatsOwnCoordinates == true {
            concerns.append(
                .init(
                    kind: .place, strength: .worthALook, badge: "place used before",
                    sentence: "Another of this submitter's libraries has exactly the same coordinates."))
        }
        return concerns
    }

    // MARK: Helpers

    /// An opening or closing tag: `<` then a letter or `/`.
    private static func hasMarkup(_ text: String) -> Bool { text.contains(/<\/?[A-Za-z]/) }

    /// Written as an e-mail address is: within one word (no space, `<` or `>`), something, `@`,
    /// then up to the next `@` a dot after at least one character and two ASCII letters
    /// ("anna@example.org"). One pass over the text: the regex this was backtracked over a long
    /// word, 40 s for 20 000 characters.
    private static func hasEmailAddress(_ text: String) -> Bool {
        text.split(whereSeparator: { $0.isWhitespace || $0 == "<" || $0 == ">" }).contains { word in
            let parts = word.split(separator: "@", omittingEmptySubsequences: false)
            return zip(parts, parts.dropFirst()).contains { before, after in !before.isEmpty && hasDomainDot(after) }
        }
    }

    /// Top-level domains a link written without `http` or `www` ends in ("cheap-books.shop/sale"):
    /// the common generic ones and Europe's and other large countries'. A list, not "any two
    /// letters", so "e.g.", "St.Louis" and "No.5" stay words.
    private static let linkDomains: Set<String> = [
        "com", "net", "org", "info", "biz", "io", "co", "app", "shop", "store", "online", "site", "xyz", "top", "club", "link", "eu",
        "de", "fr", "it", "es", "nl", "be", "at", "ch", "uk", "ie", "pl", "pt", "se", "no", "dk", "fi", "cz", "gr", "hu", "ro", "ru",
        "ua", "us", "ca", "au", "nz", "br", "mx", "ar", "in", "jp", "cn", "kr", "za",
    ]

    /// A word written as a link is, without `http` or `www`: labels of letters, digits and
    /// hyphens joined by dots, the last a top-level domain in `linkDomains`, then perhaps a path
    /// ("bookswap.example.com", "free-books.shop/sale"). A word with `@` is an e-mail address,
    /// which is contact details, not a link.
    private static func hasBareDomain(_ text: String) -> Bool {
        text.split(whereSeparator: { $0.isWhitespace || "<>()[]{}\"'“”‘’«»,;".contains($0) }).contains { word in
            guard !word.contains("@") else { return false }
            // The host: up to a path, without the sentence's punctuation around it ("See x.com.").
            var host = word.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.drop { !$0.isLetter && !$0.isNumber }
            while let last = host.last, !last.isLetter, !last.isNumber { host = host.dropLast() }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count >= 2, let domain = labels.last, linkDomains.contains(domain.lowercased()) else { return false }
            // "book.No money needed", "Bücherschrank.Es gibt": a sentence missing its space, not a link.
            if labels.count == 2, !word.contains("/"), domain.first?.isUppercase == true, domain.dropFirst().allSatisfy(\.isLowercase) { return false }
            return labels.allSatisfy { label in !label.isEmpty && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }
                && labels.dropLast().contains { label in label.count >= 2 && label.contains(where: \.isLetter) }
        }
    }

    /// A dot after at least one character, followed by two ASCII letters: "example.org".
    private static func hasDomainDot(_ part: Substring) -> Bool {
        var index = part.startIndex
        while let dot = part[index...].firstIndex(of: ".") {
            let letters = part[part.index(after: dot)...].prefix(2)
            if dot > part.startIndex, letters.count == 2, letters.allSatisfy({ $0.isASCII && $0.isLetter }) { return true }
            index = part.index(after: dot)
        }
        return false
    }

    /// A run of digits, spaces and phone punctuation written as a phone number is: eight digits
    /// or more after a `+` ("+49 30 1234 5678"), nine or more otherwise ("030 12345678",
    /// "(555) 123-4567"), and no date in it ("2021-06-01", "01.06.2021") nor opening hours
    /// ("10.00 - 18.00"), which are no phone number however many digits they have.
    private static func hasPhoneNumber(_ text: String) -> Bool {
        text.matches(of: /[+(]?[0-9][0-9 ()\-.\/]{6,}[0-9]/).contains { match in
            let run = match.output
            // A book's number is no phone number: "ISBN 978-3-16-148410-0", or 13 digits from 978/979.
            let before = text[..<match.range.lowerBound].suffix(8).lowercased()
            let digitsOnly = run.filter(\.isNumber)
            if before.contains("isbn") || (digitsOnly.count == 13 && (digitsOnly.hasPrefix("978") || digitsOnly.hasPrefix("979"))) {
                return false
            }
            if run.contains(/[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}/) || run.contains(/[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{2,4}/)
                || run.contains(/[0-9]{1,2}\.[0-9]{2} ?- ?[0-9]{1,2}\.[0-9]{2}/)
            {
                return false
            }
            let digits = run.filter(\.isNumber).count
            return run.hasPrefix("+") ? digits >= 8 : digits >= 9
        }
    }

    /// At most one decimal place: about 11 km of precision, not a spot on a street.
    private static func isRound(_ degrees: Double) -> Bool {
        (degrees * 10).rounded() == degrees * 10
    }

    private static func named(_ neighbour: LibraryEvidence.Neighbour) -> String {
        "“\(LibraryText.displayName(neighbour.name))” (\(neighbour.status.rawValue))"
    }
}
