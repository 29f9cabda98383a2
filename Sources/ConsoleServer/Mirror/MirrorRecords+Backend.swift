import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary

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
            id: library.id, slug: library.slug, name: visible(library.name), description: visible(library.description),
            address: visible(library.address), city: visible(library.city), country: library.country,
            postalCode: visible(library.postalCode), lat: library.lat, lng: library.lng,
            photoUrl: library.photoUrl, thumbnailUrl: library.thumbnailUrl, status: status, rejectionReason: visible(library.rejectionReason),
            submitterId: library.createdBy?.id, submitterUsername: library.createdBy.map { visible($0.username) }, createdAt: library.createdAt,
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
            id: report.id, libraryId: report.library.id, librarySlug: report.library.slug, libraryName: visible(report.library.name),
            libraryAddress: visible(report.library.address), libraryCity: visible(report.library.city), libraryCountry: report.library.country,
            libraryStatus: libraryStatus, reporterId: report.createdBy?.id, reporterUsername: report.createdBy.map { visible($0.username) },
            reason: reason, details: visible(report.details), photoUrl: report.photoUrl, status: status, createdAt: report.createdAt,
            lastConfirmedAt: confirmedAt)
    }
}

extension MirrorPhoto {
    init(_ photo: ModerationPhoto, confirmedAt: Date) throws(UnknownStatusError) {
        guard let status = PhotoStatus(rawValue: photo.status), let libraryStatus = LibraryStatus(rawValue: photo.library.status) else {
            throw UnknownStatusError(kind: "photo", id: photo.id, status: "\(photo.status)/\(photo.library.status)")
        }
        self.init(
            id: photo.id, libraryId: photo.library.id, librarySlug: photo.library.slug, libraryName: visible(photo.library.name),
            libraryCity: visible(photo.library.city), libraryCountry: photo.library.country, libraryStatus: libraryStatus,
            submitterId: photo.createdBy?.id, submitterUsername: photo.createdBy.map { visible($0.username) }, caption: visible(photo.caption),
            photoUrl: photo.photoUrl, thumbnailUrl: photo.thumbnailUrl, status: status, createdAt: photo.createdAt,
            lastConfirmedAt: confirmedAt)
    }
}

/// Text from Book Corners as the mirror keeps it: control characters made visible, since
/// SQLite would cut a value at a NUL (`ControlCharacters`).
private func visible(_ text: String) -> String { ControlCharacters.escaped(text) }

extension MirrorSummary {
    init(_ summary: ModerationSummary, confirmedAt: Date) {
        self.init(
            pendingLibraries: summary.pendingLibrariesCount, openReports: summary.openReportsCount,
            pendingPhotos: summary.pendingPhotosCount, totalPending: summary.totalPending, totalLibraries: summary.totalLibraries,
            totalUsers: summary.totalUsers, lastConfirmedAt: confirmedAt)
    }
}
