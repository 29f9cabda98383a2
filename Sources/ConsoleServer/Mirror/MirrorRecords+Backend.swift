import BookCornersAPI
import Foundation
import ModerationStore

/// A backend answer whose status is not one the console knows: it cannot be mirrored.
struct UnknownStatusError: Error {
    let kind: String
    let id: Int
    let status: String
}

extension MirrorLibrary {
    /// The mirror's row for a library the backend answered at `confirmedAt`.
    init(_ library: ModerationLibrary, confirmedAt: Date) throws(UnknownStatusError) {
        guard let status = LibraryStatus(rawValue: library.status) else {
            throw UnknownStatusError(kind: "library", id: library.id, status: library.status)
        }
        self.init(
            id: library.id, slug: library.slug, name: library.name, description: library.description, address: library.address,
            city: library.city, country: library.country, postalCode: library.postalCode, lat: library.lat, lng: library.lng,
            photoUrl: library.photoUrl, thumbnailUrl: library.thumbnailUrl, status: status, rejectionReason: library.rejectionReason,
            submitterId: library.createdBy?.id, submitterUsername: library.createdBy?.username, createdAt: library.createdAt,
            lastConfirmedAt: confirmedAt, source: library.source,
            // Encoding a value the client just decoded cannot fail in practice; without it the page shows the mirror's columns.
            record: try? BackendJSON.encoder().encode(library))
    }
}

extension MirrorReport {
    init(_ report: ModerationReport, confirmedAt: Date) throws(UnknownStatusError) {
        guard let status = ReportStatus(rawValue: report.status), let reason = ReportReason(rawValue: report.reason),
            let libraryStatus = LibraryStatus(rawValue: report.library.status)
        else { throw UnknownStatusError(kind: "report", id: report.id, status: "\(report.status)/\(report.reason)/\(report.library.status)") }
        self.init(
            id: report.id, libraryId: report.library.id, librarySlug: report.library.slug, libraryName: report.library.name,
            libraryAddress: report.library.address, libraryCity: report.library.city, libraryCountry: report.library.country,
            libraryStatus: libraryStatus, reporterId: report.createdBy?.id, reporterUsername: report.createdBy?.username,
            reason: reason, details: report.details, photoUrl: report.photoUrl, status: status, createdAt: report.createdAt,
            lastConfirmedAt: confirmedAt)
    }
}

extension MirrorPhoto {
    init(_ photo: ModerationPhoto, confirmedAt: Date) throws(UnknownStatusError) {
        guard let status = PhotoStatus(rawValue: photo.status), let libraryStatus = LibraryStatus(rawValue: photo.library.status) else {
            throw UnknownStatusError(kind: "photo", id: photo.id, status: "\(photo.status)/\(photo.library.status)")
        }
        self.init(
            id: photo.id, libraryId: photo.library.id, librarySlug: photo.library.slug, libraryName: photo.library.name,
            libraryCity: photo.library.city, libraryCountry: photo.library.country, libraryStatus: libraryStatus,
            submitterId: photo.createdBy?.id, submitterUsername: photo.createdBy?.username, caption: photo.caption,
            photoUrl: photo.photoUrl, thumbnailUrl: photo.thumbnailUrl, status: status, createdAt: photo.createdAt,
            lastConfirmedAt: confirmedAt)
    }
}

extension MirrorSummary {
    init(_ summary: ModerationSummary, confirmedAt: Date) {
        self.init(
            pendingLibraries: summary.pendingLibrariesCount, openReports: summary.openReportsCount,
            pendingPhotos: summary.pendingPhotosCount, totalPending: summary.totalPending, totalLibraries: summary.totalLibraries,
            totalUsers: summary.totalUsers, lastConfirmedAt: confirmedAt)
    }
}
