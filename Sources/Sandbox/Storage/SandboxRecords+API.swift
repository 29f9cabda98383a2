import BookCornersAPI

extension LibraryRecord {
    func moderationLibrary(users: [Int: String]) -> ModerationLibrary {
        ModerationLibrary(
            id: id, slug: slug, name: name, description: description, photoUrl: photoUrl,
            thumbnailUrl: thumbnailUrl, lat: lat, lng: lng, address: address, city: city, country: country,
            postalCode: postalCode, wheelchairAccessible: wheelchairAccessible, capacity: capacity,
            isIndoor: isIndoor, isLit: isLit, website: website, contact: contact, source: source,
            _operator: `operator`, brand: brand, createdAt: createdAt, isFavourited: false, status: status.rawValue,
            rejectionReason: rejectionReason, createdBy: moderationUser(createdById, users))
    }

    var publicLibrary: PublicLibrary {
        PublicLibrary(
            id: id, slug: slug, name: name, description: description, photoUrl: photoUrl,
            thumbnailUrl: thumbnailUrl, lat: lat, lng: lng, address: address, city: city, country: country,
            postalCode: postalCode, wheelchairAccessible: wheelchairAccessible, capacity: capacity,
            isIndoor: isIndoor, isLit: isLit, website: website, contact: contact, source: source,
            _operator: `operator`, brand: brand, createdAt: createdAt, isFavourited: false)
    }

    var summary: LibrarySummary {
        LibrarySummary(id: id, slug: slug, name: name, address: address, city: city, country: country, status: status.rawValue)
    }
}

extension ReportRecord {
    func moderationReport(library: LibrarySummary, users: [Int: String]) -> ModerationReport {
        ModerationReport(
            id: id, library: library, createdBy: moderationUser(createdById, users), reason: reason,
            details: details, photoUrl: photoUrl, status: status.rawValue, createdAt: createdAt)
    }
}

extension PhotoRecord {
    func moderationPhoto(library: LibrarySummary, users: [Int: String]) -> ModerationPhoto {
        ModerationPhoto(
            id: id, library: library, createdBy: moderationUser(createdById, users), caption: caption,
            photoUrl: photoUrl, thumbnailUrl: thumbnailUrl, status: status.rawValue, createdAt: createdAt)
    }
}

private func moderationUser(_ id: Int?, _ users: [Int: String]) -> ModerationUser? {
    guard let id, let username = users[id] else { return nil }
    return ModerationUser(id: id, username: username)
}
