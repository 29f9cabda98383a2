import Foundation
import GRDB
import ModerationVocabulary

/// Writes a deterministic, realistic data set: by default 500 libraries in 24 countries,
/// 60 of them pending (near-duplicates, empty fields, long texts, non-Latin scripts and
/// one hostile name among them), 25 reports and 20 community photos, spread over 18 months.
/// Another library count scales every part in the same proportions (for scale work).
struct SeedGenerator {
    /// The default size, and the base the proportions are taken from.
    static let defaultLibraryCount = 500
    /// The sizes `--libraries` accepts: enough for every kind of pending quirk, at most 50 000.
    static let libraryCountRange = 25...50_000

    let libraryCount: Int
    let pendingCount: Int
    let rejectedCount: Int
    let reportCount: Int
    let photoCount: Int

    private var random: SeededRandom
    private let anchor: Date
    private var usedSlugs: Set<String> = []

    /// Staff accounts added after everything else (`soak01`…), so the rest of the data set and
    /// every id in it stay as without them.
    let extraStaff: Int

    /// Pending photos, and open reports per reason, added after everything else (see
    /// `SandboxConfiguration.crowdedQueues`); made without the random source, so the rest
    /// of the data set stays as without them.
    let crowdedQueues: Int

    init(
        seed: UInt64, anchor: Date, libraryCount: Int = SeedGenerator.defaultLibraryCount, extraStaff: Int = 0, crowdedQueues: Int = 0
    ) {
        self.extraStaff = extraStaff
        self.crowdedQueues = crowdedQueues
        self.random = SeededRandom(seed: seed)
        self.anchor = anchor
        self.libraryCount = libraryCount
        // The default data set's shares: 12 % pending, 4.8 % rejected, 5 reports and 4 photos per 100 libraries.
        self.pendingCount = max(1, libraryCount * 60 / Self.defaultLibraryCount)
        self.rejectedCount = libraryCount * 24 / Self.defaultLibraryCount
        self.reportCount = max(1, libraryCount * 25 / Self.defaultLibraryCount)
        self.photoCount = max(1, libraryCount * 20 / Self.defaultLibraryCount)
    }

    mutating func insert(into db: Database) throws {
        let users = try insertUsers(db)
        let libraries = try insertLibraries(db, submitters: users)
        try insertReports(db, libraries: libraries, reporters: users)
        try insertPhotos(db, libraries: libraries, submitters: users)
        try insertExtraStaff(db)
        try insertQueueFillers(db, libraries: libraries)
    }

    /// Fills the photo queue and each reason's report queue with items newer than every
    /// seeded one (one a minute back from the anchor), ids after the seeded ones.
    private func insertQueueFillers(_ db: Database, libraries: [LibraryRecord]) throws {
        guard crowdedQueues > 0 else { return }
        let approved = libraries.filter { $0.status == .approved }
        let reasons = ["damaged", "missing", "incorrect_info", "inappropriate", "other"]
        var reportID = reportCount
        for index in 0..<crowdedQueues {
            let created = anchor.addingTimeInterval(-Double(index + 1) * 60)
            let library = approved[(index * 31) % approved.count]
            let month = MediaFolder.month(of: created)
            let photoID = photoCount + index + 1
            try PhotoRecord(
                id: photoID, libraryId: library.id, createdById: nil, caption: Self.captions[index % Self.captions.count],
                photoUrl: "/media/libraries/user_photos/\(month)/community-\(photoID).png",
                thumbnailUrl: "/media/libraries/user_photos/thumbnails/\(month)/community-\(photoID)-thumb.png",
                status: .pending, createdAt: created
            ).insert(db)
            for reason in reasons {
                reportID += 1
                try ReportRecord(
                    id: reportID, libraryId: library.id, createdById: nil, reason: reason,
                    details: Self.reportDetails[reason, default: ""], photoUrl: "", status: .open, createdAt: created
                ).insert(db)
            }
        }
    }

    private mutating func insertExtraStaff(_ db: Database) throws {
        guard extraStaff > 0 else { return }
        var id = (try Int.fetchOne(db, sql: "SELECT MAX(id) FROM user") ?? 0) + 1
        for number in 1...extraStaff {
            let name = SeedAccounts.extraStaffUsername(number)
            let salt = String(UInt32.random(in: .min ... .max, using: &random), radix: 16)
            try UserRecord(
                id: id, username: name, email: "\(name)@example.com", passwordSalt: salt,
                passwordHash: PasswordHasher.hash(SeedAccounts.demoStaffPassword, salt: salt), isStaff: true,
                isSocialOnly: false
            ).insert(db)
            id += 1
        }
    }

    // MARK: Users

    private mutating func insertUsers(_ db: Database) throws -> [Int] {
        var id = 1
        var ordinary: [Int] = []
        for name in ["seedbot"] + SeedAccounts.staff + SeedAccounts.users {
            let isStaff = name == "seedbot" || SeedAccounts.staff.contains(name)
            let password = isStaff ? SeedAccounts.demoStaffPassword : SeedAccounts.userPassword
            let salt = String(UInt32.random(in: .min ... .max, using: &random), radix: 16)
            try UserRecord(
                id: id, username: name, email: "\(name)@example.com", passwordSalt: salt,
                passwordHash: PasswordHasher.hash(password, salt: salt), isStaff: isStaff,
                isSocialOnly: name == "yuki"
            ).insert(db)
            if !isStaff { ordinary.append(id) }
            id += 1
        }
        return ordinary
    }

    // MARK: Libraries

    private mutating func insertLibraries(_ db: Database, submitters: [Int]) throws -> [LibraryRecord] {
        var libraries: [LibraryRecord] = []
        libraries.reserveCapacity(libraryCount)
        let approvedCount = libraryCount - pendingCount - rejectedCount
        for index in 0..<approvedCount {
            libraries.append(makeLibrary(id: index + 1, status: .approved, ageDays: 0...548, submitters: submitters))
        }
        for index in 0..<rejectedCount {
            var library = makeLibrary(id: approvedCount + index + 1, status: .rejected, ageDays: 5...400, submitters: submitters)
            library.rejectionReason = index.isMultiple(of: 3) ? "" : random.pick(Self.rejectionReasons)
            libraries.append(library)
        }
        let approved = libraries.filter { $0.status == .approved }
        for index in 0..<pendingCount {
            let id = approvedCount + rejectedCount + index + 1
            var library = makeLibrary(
                id: id, status: .pending, ageDays: 0...45, submitters: submitters,
                city: index % 10 == 7 ? random.pick(Self.nonLatinCities) : nil)
            applyPendingQuirk(index: index, to: &library, approved: approved)
            libraries.append(library)
        }
        for library in libraries { try library.insert(db) }
        return libraries
    }

    private mutating func makeLibrary(
        id: Int, status: LibraryStatus, ageDays: ClosedRange<Int>, submitters: [Int], city chosen: CountryCatalog.City? = nil
    ) -> LibraryRecord {
        let city = chosen ?? random.pick(CountryCatalog.cities)
        let street = random.pick(city.streets)
        let number = Int.random(in: 1...220, using: &random)
        let name = random.pick(city.localNames.isEmpty ? CountryCatalog.libraryNames : city.localNames)
        let imported = random.chance(0.12)
        let hasPhoto = random.chance(0.8)
        // Spread around the centre by up to ~5 km, as real neighbourhoods are.
        let lat = city.lat + Double.random(in: -0.045...0.045, using: &random)
        let lng = city.lng + Double.random(in: -0.06...0.06, using: &random)
        let created = anchor.addingTimeInterval(
            -Double(Int.random(in: ageDays, using: &random)) * 86_400 - Double(Int.random(in: 0..<86_400, using: &random)))
        let slug = uniqueSlug("\(city.name) \(street) \(number) \(name)", id: id)
        let month = MediaFolder.month(of: created)
        return LibraryRecord(
            id: id, slug: slug, name: name,
            description: "A community little free library in \(city.name), looked after by neighbours near \(street).",
            photoUrl: hasPhoto ? "/media/libraries/photos/\(month)/\(slug).png" : "",
            thumbnailUrl: hasPhoto ? "/media/libraries/photos/thumbnails/\(month)/\(slug)-thumb.png" : "",
            lat: lat, lng: lng, address: "\(street) \(number)", city: city.name, country: city.country,
            postalCode: city.postalPrefix + String(Int.random(in: 10...99, using: &random)),
            wheelchairAccessible: random.pick(["", "", "yes", "no", "limited"]),
            capacity: random.chance(0.4) ? random.pick([20, 30, 50, 80, 120]) : nil,
            isIndoor: random.chance(0.5) ? random.chance(0.2) : nil,
            isLit: random.chance(0.5) ? random.chance(0.4) : nil,
            website: "", contact: "", source: imported ? "OpenStreetMap" : "",
            operator: imported ? "" : (random.chance(0.2) ? "Friends of \(city.name) Libraries" : ""),
            brand: random.chance(0.15) ? "Little Free Library" : "",
            createdAt: created, status: status, rejectionReason: "",
            createdById: imported ? nil : random.pick(submitters))
    }

    /// Gives some pending submissions the rough edges real submissions have.
    private mutating func applyPendingQuirk(index: Int, to library: inout LibraryRecord, approved: [LibraryRecord]) {
        switch index {
        case 0:
            library.name = "<script>alert(1)</script>"
            library.description = "Tries to run script: <img src=x onerror=alert(2)> & \"quotes\" 'too'."
        case 1...8:
            // A second submission of a library that is already on the map, 5–45 m away.
            let original = approved[(index * 37) % approved.count]
            let metres = Double(5 + index * 5)
            library.lat = original.lat + metres / 111_320 * 0.6
            library.lng = original.lng + metres / (111_320 * cos(original.lat * .pi / 180)) * 0.8
            library.city = original.city
            library.country = original.country
            library.address = index.isMultiple(of: 2) ? original.address : ""
            library.name = index.isMultiple(of: 3) ? original.name : original.name + " (new)"
            library.postalCode = original.postalCode
            library.description = "Found this one on my walk, near \(original.address) in \(original.city)."
            library.slug = uniqueSlug("\(original.city) \(original.address) \(library.name)", id: library.id)
            if !library.photoUrl.isEmpty {
                let month = MediaFolder.month(of: library.createdAt)
                library.photoUrl = "/media/libraries/photos/\(month)/\(library.slug).png"
                library.thumbnailUrl = "/media/libraries/photos/thumbnails/\(month)/\(library.slug)-thumb.png"
            }
        case 9, 10, 11:
            library.name = ""
        case 12, 13, 14:
            library.address = ""
        case 15...18:
            library.description = String(repeating: Self.longParagraph + " ", count: 4 + index - 15)
        case 19:
            library.name = "O'Brien's \"Reading\" Corner & Café 📚"
        case 20:
            library.name = "مكتبة الحي الصغيرة"
            library.description = "مكتبة صغيرة مجانية بجانب المدرسة. Right-to-left text with English mixed in."
        default:
            break
        }
    }

    // MARK: Reports and photos

    private mutating func insertReports(_ db: Database, libraries: [LibraryRecord], reporters: [Int]) throws {
        let approved = libraries.filter { $0.status == .approved }
        let reasons = ["damaged", "missing", "incorrect_info", "inappropriate", "other"]
        for id in 1...reportCount {
            let library = approved[(id * 53) % approved.count]
            let reason = reasons[(id - 1) % reasons.count]
            let status = Self.share(id, of: reportCount, below: 14, 20, out: 25, [ReportStatus.open, .resolved, .dismissed])
            try ReportRecord(
                id: id, libraryId: library.id, createdById: id % 6 == 0 ? nil : random.pick(reporters),
                reason: reason, details: Self.reportDetails[reason, default: ""] + (id == 3 ? " <b>not bold</b>" : ""),
                photoUrl: id % 3 == 0 ? "/media/reports/photos/report-\(id).png" : "",
                status: status, createdAt: anchor.addingTimeInterval(-Double(id * 29 % 40) * 86_400 - Double(id) * 3_600)
            ).insert(db)
        }
    }

    private mutating func insertPhotos(_ db: Database, libraries: [LibraryRecord], submitters: [Int]) throws {
        let approved = libraries.filter { $0.status == .approved }
        for id in 1...photoCount {
            let library = approved[(id * 71) % approved.count]
            let status = Self.share(id, of: photoCount, below: 12, 16, out: 20, [PhotoStatus.pending, .approved, .rejected])
            let created = anchor.addingTimeInterval(-Double(id * 17 % 30) * 86_400 - Double(id) * 1_800)
            let month = MediaFolder.month(of: created)
            try PhotoRecord(
                id: id, libraryId: library.id, createdById: id % 7 == 0 ? nil : random.pick(submitters),
                caption: random.pick(Self.captions),
                photoUrl: "/media/libraries/user_photos/\(month)/community-\(id).png",
                thumbnailUrl: "/media/libraries/user_photos/thumbnails/\(month)/community-\(id)-thumb.png",
                status: status, createdAt: created
            ).insert(db)
        }
    }

    /// The status of item `id` of `count`, in the default data set's shares: the first
    /// `first`/`total` get `statuses[0]`, up to `second`/`total` `statuses[1]`, the rest `statuses[2]`
    /// (with the default counts exactly the default data set's split).
    private static func share<Status>(_ id: Int, of count: Int, below first: Int, _ second: Int, out total: Int, _ statuses: [Status]) -> Status {
        let scaled = (id * total + count - 1) / count
        return scaled <= first ? statuses[0] : (scaled <= second ? statuses[1] : statuses[2])
    }

    // MARK: Text

    private mutating func uniqueSlug(_ text: String, id: Int) -> String {
        let folded = text.applyingTransform(.stripDiacritics, reverse: false) ?? text
        var slug = ""
        for scalar in folded.lowercased().unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        slug = String(slug.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(80))
        if slug.isEmpty || usedSlugs.contains(slug) { slug += "-\(id)" }
        usedSlugs.insert(slug)
        return slug
    }

    static let nonLatinCities = CountryCatalog.cities.filter { !$0.localNames.isEmpty }

    static let rejectionReasons = [
        "Duplicate submission.", "The photo does not show a book-sharing library.",
        "The location is private property without public access.", "Not enough information to find it.",
    ]

    static let captions = [
        "Fresh paint this spring!", "New door, same books.", "Winter view with snow on the roof.",
        "The shelf after the neighbourhood clean-up.", "Better light than the old photo.", "Now with a bench next to it.",
    ]

    static let reportDetails = [
        "damaged": "The door hinge is broken and rain gets in.",
        "missing": "Could not find it at the pin location.",
        "incorrect_info": "The address is wrong: it is on the other side of the square.",
        "inappropriate": "Someone left flyers with offensive content inside.",
        "other": "The box has been moved into the courtyard.",
    ]

    static let longParagraph = """
        The library sits in a former telephone box painted green, right next to the bakery. \
        Neighbours bring children's books on Saturdays and the school across the road uses it for a swap day \
        every month. There is a small notebook inside where people write which books they loved.
        """
}

/// `YYYY/MM` folders, as the backend's media storage names them.
enum MediaFolder {
    static func month(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: date)
        return String(format: "%04d/%02d", parts.year ?? 0, parts.month ?? 0)
    }
}
