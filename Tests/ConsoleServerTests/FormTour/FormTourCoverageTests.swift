import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import ConsoleServer

/// The form tour covers every form: each route the router takes a POST on is a stop of one of
/// the tour's parts, so a form added later without a stop fails here.
@Suite("Form tour: every POST route is a stop")
struct FormTourCoverageTests {
    /// The routes the tour's parts send forms to (each part checks it sent to every one it names).
    static let toured: Set<SiteURL.Route> = FormTourLibrariesTests.routes.union(FormTourReportsAndPhotosTests.routes)
        .union(FormTourOnCallTests.routes).union(FormTourRecordsTests.routes)

    @Test("every route the console's router takes a POST on is a stop on the form tour")
    func everyPostRouteToured() async throws {
        // act
        let routes = try await ConsoleFixture.registeredRoutes()
        // check
        let posted = Set(routes.filter { $0.method == "POST" }.map(\.path))
        let stops = Set(Self.toured.map(\.pattern.description))
        #expect(posted.count >= 30, "the router's POST routes were found: \(posted.sorted())")
        #expect(posted.subtracting(stops).isEmpty, "POST routes no part of the form tour sends a form to: \(posted.subtracting(stops).sorted())")
        #expect(stops.subtracting(posted).isEmpty, "tour stops the router takes no POST on: \(stops.subtracting(posted).sorted())")
    }
}
