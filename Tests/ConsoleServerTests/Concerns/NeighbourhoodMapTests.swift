import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

@testable import ConsoleServer

/// The map beside a waiting library: drawn from the mirror, every library within 500 m,
/// numbered nearest first, duplicates ringed, and the same said in words for keyboard and
/// screen-reader users.
@Suite("The neighbourhood map")
struct NeighbourhoodMapTests {
    private let origin = (lat: 52.52, lng: 13.405)

    private func library(_ id: Int, name: String, north: Double = 0, east: Double = 0, status: LibraryStatus = .approved) -> MirrorLibrary {
        let lat = origin.lat + north / GreatCircle.metresPerDegree
        let lng = origin.lng + east / (GreatCircle.metresPerDegree * cos(origin.lat * .pi / 180))
        return MirrorLibrary(
            id: id, slug: "library-\(id)", name: name, description: "", address: "Straße \(id)", city: "Berlin", country: "DE", postalCode: "10115",
            lat: lat, lng: lng, photoUrl: "", thumbnailUrl: "", status: status, rejectionReason: "", submitterId: nil, submitterUsername: nil,
            createdAt: Date(timeIntervalSince1970: 1_800_000_000), lastConfirmedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test(
        "libraries within 500 m are numbered nearest first with where they are; a close or same-named one is a possible duplicate, a rejected one is not; farther ones are left out"
    )
    func places() {
        let here = library(1, name: "Little Library Box")
        let map = NeighbourhoodMap(
            library: here,
            neighbours: [
                library(2, name: "Bücherschrank", north: 21, east: 21),  // 30 m north-east
                library(3, name: "Little Library Box", north: -150),  // a namesake 150 m south
                library(4, name: "Old box", east: 40, status: .rejected),  // close, but rejected
                library(5, name: "Far away", north: 600),
                here,
            ],
            link: { "/libraries/\($0)" })
        #expect(map.places.map(\.name) == ["Bücherschrank", "Old box", "Little Library Box"])
        #expect(map.places.map(\.whereText) == ["30 m north-east", "40 m east", "150 m south"])
        #expect(map.places.map(\.isDuplicate) == [true, false, true])
        #expect(map.summary == "3 libraries within 500 m, the nearest 30 m away.")
        #expect(!map.svg.contains("Far away") && !map.svg.contains("library-5"))
        #expect(map.svg.contains(#"aria-label="1. Bücherschrank, approved, 30 m north-east, possible duplicate""#))
        #expect(map.svg.contains(">50 m</text>"), "a scale bar as long as a ring's step: out to 150 m, rings every 50 m")
        #expect(map.rejectedHere == "Rejected here before (context, not a reason): “\u{2068}Old box\u{2069}”, 40 m away, was rejected: no reason was recorded.")
    }

    @Test("across the 180th meridian a neighbour is placed the short way round: 21 m east, not 40 000 km west")
    func acrossTheMeridian() {
        var here = library(1, name: "Here")
        var twin = library(2, name: "Twin")
        (here.lat, here.lng) = (-17.0, 179.9999)
        (twin.lat, twin.lng) = (-17.0, -179.9999)
        let map = NeighbourhoodMap(library: here, neighbours: [twin], link: { "/libraries/\($0)" })
        #expect(map.places.map(\.whereText) == ["21 m east"])
        #expect(map.places.map(\.isDuplicate) == [true])
        let (x, y) = NeighbourhoodMap.offset(from: here, to: twin)
        #expect((20...23).contains(x) && abs(y) < 0.01, "\(x), \(y)")
    }

    @Test("a rejected library where this one would be a duplicate is told with its reason, as context; one farther away is not")
    func rejectedHere() {
        var garden = library(2, name: "Garden box", north: 12, status: .rejected)
        garden.rejectionReason = "Private garden"
        let far = library(3, name: "Other", north: 300, status: .rejected)
        let map = NeighbourhoodMap(library: library(1, name: "Here"), neighbours: [garden, far], link: { "/libraries/\($0)" })
        #expect(
            map.rejectedHere
                == "Rejected here before (context, not a reason): “\u{2068}Garden box\u{2069}”, 12 m away, was rejected: “\u{2068}Private garden\u{2069}”.")
        #expect(NeighbourhoodMap(library: library(1, name: "Here"), neighbours: [far], link: { "/libraries/\($0)" }).rejectedHere.isEmpty)
    }

    @Test("the drawing zooms to the farthest library shown: a duplicate 10 m away sits clear of the library's own mark")
    func zoom() throws {
        let map = NeighbourhoodMap(library: library(1, name: "Here"), neighbours: [library(2, name: "Twin", east: 10)], link: { "/libraries/\($0)" })
        let marker = try #require(map.svg.firstMatch(of: /<circle cx="([0-9.]+)" cy="-?0" r="10"/))
        #expect(try #require(Double(marker.1)) > 25, "the marker's centre is more than its radius and the mark's apart from the middle")
        #expect(map.svg.contains(">10 m</text>"))
    }

    @Test("a twin 3 m away and a neighbour 12 m away stay clear of the library's mark and of each other when the map reaches 480 m; markers come nearest first")
    func closeMarkersStayVisible() throws {
        let neighbours = [
            library(2, name: "Twin", north: 3), library(3, name: "Near", east: 12), library(4, name: "Same spot"), library(5, name: "Far", north: -479),
        ]
        let map = NeighbourhoodMap(library: library(1, name: "Here"), neighbours: neighbours, link: { "/libraries/\($0)" })
        let markers = map.svg.matches(of: /<circle cx="(-?[0-9.]+)" cy="(-?[0-9.]+)" r="10"/).compactMap { match in
            Double(match.1).flatMap { x in Double(match.2).map { (x: x, y: $0) } }
        }
        try #require(markers.count == 4)
        for (index, marker) in markers.enumerated() {
            #expect((marker.x * marker.x + marker.y * marker.y).squareRoot() >= 28, "marker \(index + 1) clear of the library's own mark: \(marker)")
            for other in markers[..<index] {
                let apart = ((marker.x - other.x) * (marker.x - other.x) + (marker.y - other.y) * (marker.y - other.y)).squareRoot()
                #expect(apart >= 28, "markers \(index + 1) and an earlier one overlap: \(apart)")
            }
            #expect(abs(marker.x) <= 190 && abs(marker.y) <= 190, "inside the drawing")
        }
        let numbers = map.svg.matches(of: /font-weight="600" fill="#fff">([0-9]+)<\/text>/).map { String($0.1) }
        #expect(numbers == ["1", "2", "3", "4"], "in the drawing's order, as the keyboard reaches them")
        #expect(map.svg.contains("<line x1="), "a moved marker is tied to where the library really is")
    }

    @Test("a name from the mirror cannot become markup inside the drawing")
    func hostileNames() {
        let hostile = #"<script>alert("x")</script>' & ‮RTL"#
        let map = NeighbourhoodMap(library: library(1, name: hostile), neighbours: [library(2, name: hostile, north: 10)], link: { "/libraries/\($0)" })
        #expect(!map.svg.contains("<script>"))
        #expect(map.svg.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
    }

    @Test("a dense centre draws the 40 nearest and says how many more there are; an empty neighbourhood says so")
    func denseAndEmpty() {
        let crowd = (2...60).map { library($0, name: "Box \($0)", north: Double($0) * 5) }
        let dense = NeighbourhoodMap(library: library(1, name: "Here"), neighbours: crowd, link: { "/libraries/\($0)" })
        #expect(dense.places.count == 40 && dense.places.last?.name == "Box 41")
        #expect(dense.more == "And 19 more farther away, not drawn.")
        let alone = NeighbourhoodMap(library: library(1, name: "Here"), neighbours: [], link: { "/libraries/\($0)" })
        #expect(alone.places.isEmpty && alone.summary == "No other library within 500 m." && alone.svg.hasPrefix("<svg"))
    }
}
