import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// The neighbourhood of a library, drawn on the server as SVG from the mirror (no tiles, no
/// outside request): the library in the middle, every library within `radiusMetres` as a
/// numbered marker, likely duplicates marked, a scale bar. Each marker is a link with its
/// name and distance, and the numbered list under the drawing says the same in words, so the
/// map is as usable by keyboard and screen reader as by eye.
struct NeighbourhoodMap: MustacheParent {
    /// One library on the map, and its line in the list under it.
    struct Place: MustacheParent {
        let number: Int
        let name: String
        let libraryURL: String
        /// "30 m north-east".
        let whereText: String
        let status: String
        let isDuplicate: Bool
        /// Near enough to be a strong reason (as the library's reasons rank it), not only worth a look.
        let isStrongDuplicate: Bool

        /// "likely duplicate" or "possible duplicate", as strong as the library's reason says.
        var duplicateLabel: String { isStrongDuplicate ? "likely duplicate" : "possible duplicate" }

        func child(named key: String) -> Any? {
            switch key {
            case "number": number
            case "name": name
            case "libraryURL": libraryURL
            case "whereText": whereText
            case "status": status
            case "isDuplicate": isDuplicate
            case "duplicateLabel": duplicateLabel
            case "duplicateStrength": isStrongDuplicate ? LibraryConcern.Strength.strong.rawValue : LibraryConcern.Strength.worthALook.rawValue
            default: nil
            }
        }
    }

    static let radiusMetres = 500.0
    /// Markers beyond these are summed up in one line: a dense centre stays readable.
    static let placesShown = 40

    let svg: String
    let places: [Place]
    /// "12 libraries within 500 m, the nearest 30 m away."
    let summary: String
    /// "And 8 more farther away (not drawn)." or "".
    let more: String
    /// Rejected libraries where this one would be a duplicate, as context (never a reason): ""
    /// or "“Garden box”, 12 m away, was rejected: “Private garden”."
    let rejectedHere: String

    /// The map around `library` with `neighbours` (any status, any distance: those farther
    /// than the radius are left out); `link` answers a neighbour's page.
    init(library: MirrorLibrary, neighbours: [MirrorLibrary], settings: ConcernSettings = .defaults, link: (String) -> String) {
        let placed =
            neighbours
            .filter { $0.id != library.id }
            .map { (library: $0, metres: GreatCircle.metres(library.lat, library.lng, $0.lat, $0.lng)) }
            .filter { $0.metres <= Self.radiusMetres }
            .sorted { ($0.metres, $0.library.id) < ($1.metres, $1.library.id) }
        let key = library.normalizedName
        let shown = placed.prefix(Self.placesShown)
        places = shown.enumerated().map { index, entry in
            let other = entry.library
            let duplicates = ModerationStore.duplicateStatuses.contains(other.status)
            let sameName = !key.isEmpty && other.normalizedName == key && settings.isNearNamesake(metres: entry.metres)
            return Place(
                number: index + 1, name: LibraryText.displayName(other.name), libraryURL: link(other.slug),
                whereText: Self.whereText(metres: entry.metres, from: library, to: other), status: other.status.rawValue,
                isDuplicate: duplicates && (settings.isNearDuplicate(metres: entry.metres) || sameName),
                isStrongDuplicate: duplicates && settings.isStrongDuplicate(metres: entry.metres))
        }
        summary =
            placed.first.map {
                "\(CountText.of(placed.count, "library", "libraries")) within \(Distance.text(Self.radiusMetres)), "
                    + ($0.metres < 1 ? "one on the very same spot." : "the nearest \(Distance.text($0.metres)) away.")
            } ?? "No other library within \(Distance.text(Self.radiusMetres))."
        more = placed.count > shown.count ? "And \(placed.count - shown.count) more farther away, not drawn." : ""
        rejectedHere = Self.rejectedHere(placed, sameName: key, settings: settings)
        svg = Self.drawing(library: library, shown: Array(shown), places: places)
    }

    /// No map (a page whose library is not loaded).
    static let none = NeighbourhoodMap()

    private init() {
        svg = ""
        places = []
        summary = ""
        more = ""
        rejectedHere = ""
    }

    /// The rejected ones among `placed` close enough to be duplicates, each with its reason.
    private static func rejectedHere(_ placed: [(library: MirrorLibrary, metres: Double)], sameName key: String, settings: ConcernSettings) -> String {
        let rejected = placed.filter { entry in
            entry.library.status == .rejected
                && (settings.isNearDuplicate(metres: entry.metres)
                    || (!key.isEmpty && entry.library.normalizedName == key && settings.isNearNamesake(metres: entry.metres)))
        }
        guard !rejected.isEmpty else { return "" }
        let sentences = rejected.prefix(3).map { entry in
            // Isolated: a right-to-left name or reason cannot reorder the sentence around it.
            let reason = entry.library.rejectionReason.isEmpty ? "no reason was recorded" : "“\(TypedText.isolated(entry.library.rejectionReason))”"
            return "“\(TypedText.isolated(LibraryText.displayName(entry.library.name)))”, \(Distance.text(entry.metres)) away, was rejected: \(reason)."
        }
        let more = rejected.count > 3 ? " And \(rejected.count - 3) more." : ""
        return "Rejected here before (context, not a reason): " + sentences.joined(separator: " ") + more
    }

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": !svg.isEmpty
        case "svg": svg
        case "places": places
        case "hasPlaces": !places.isEmpty
        case "summary": summary
        case "more": more
        case "hasMore": !more.isEmpty
        case "rejectedHere": rejectedHere
        case "hasRejectedHere": !rejectedHere.isEmpty
        default: nil
        }
    }

    // MARK: Drawing

    /// The drawing's half-width in its own units; markers and text are sized in these, so they
    /// read the same whatever the zoom.
    private static let half = 200.0

    /// Drawn as far out as the farthest library shown (at least 50 m): a duplicate 10 m away is
    /// not lost under the library's own mark.
    private static func drawing(library: MirrorLibrary, shown: [(library: MirrorLibrary, metres: Double)], places: [Place]) -> String {
        let n = SVGWriter.number
        let reach = max(50, (shown.last?.metres ?? radiusMetres) * 1.15)
        let scale = (half - 24) / reach  // units per metre
        let step = [10.0, 25, 50, 100, 250].first { reach / $0 <= 5 } ?? 100
        var body = ""
        // Rings every `step` metres to judge distance by.
        for ring in stride(from: step, through: reach, by: step) {
            body +=
                "<circle cx=\"0\" cy=\"0\" r=\"\(n(ring * scale))\" fill=\"none\" stroke=\"\(ChartPalette.grid)\" stroke-width=\"1\" stroke-dasharray=\"4 4\"/>"
        }
        body += "<text x=\"0\" y=\"\(n(-half + 14))\" text-anchor=\"middle\" font-size=\"12\" fill=\"\(ChartPalette.muted)\">N ↑</text>"
        let spots = markerSpots(shown.map { offset(from: library, to: $0.library) }.map { ($0.x * scale, $0.y * scale) })
        // Nearest first: keyboard order follows the list's numbers. Markers never overlap, so none hides another.
        for ((entry, place), spot) in zip(zip(shown, places), spots) {
            let (x, y) = (spot.x, spot.y)
            if spot.x != spot.trueX || spot.y != spot.trueY {
                // Moved clear of a closer one: a thin line and a dot say where it really is.
                body +=
                    "<g aria-hidden=\"true\"><line x1=\"\(n(spot.trueX))\" y1=\"\(n(spot.trueY))\" x2=\"\(n(x))\" y2=\"\(n(y))\" stroke=\"\(ChartPalette.ink)\" stroke-width=\"1\"/>"
                    + "<circle cx=\"\(n(spot.trueX))\" cy=\"\(n(spot.trueY))\" r=\"2.5\" fill=\"\(ChartPalette.ink)\"/></g>"
            }
            let fill = place.isDuplicate ? "#D55E00" : entry.library.status == .rejected ? "#8c857b" : "#0072B2"
            let label = "\(place.number). \(place.name), \(place.status), \(place.whereText)\(place.isDuplicate ? ", " + place.duplicateLabel : "")"
            body +=
                "<a href=\"\(SVGWriter.escape(place.libraryURL))\" aria-label=\"\(SVGWriter.escape(label))\"><title>\(SVGWriter.escape(label))</title>"
                + "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"10\" fill=\"\(fill)\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
                + (place.isDuplicate ? "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"14\" fill=\"none\" stroke=\"#D55E00\" stroke-width=\"2\"/>" : "")
                + "<text x=\"\(n(x))\" y=\"\(n(y + 4))\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"600\" fill=\"#fff\">\(place.number)</text></a>"
        }
        // The library itself: a ringed dot, not a number.
        body +=
            "<g aria-hidden=\"true\"><circle cx=\"0\" cy=\"0\" r=\"9\" fill=\"\(ChartPalette.ink)\" stroke=\"#fff\" stroke-width=\"2\"/>"
            + "<circle cx=\"0\" cy=\"0\" r=\"3\" fill=\"#fff\"/></g>"
        // Scale bar: one ring's step, bottom left.
        let (barLeft, barY) = (-half + 12, half - 12)
        body +=
            "<g aria-hidden=\"true\"><line x1=\"\(n(barLeft))\" y1=\"\(n(barY))\" x2=\"\(n(barLeft + step * scale))\" y2=\"\(n(barY))\" stroke=\"\(ChartPalette.ink)\" stroke-width=\"3\"/>"
            + "<text x=\"\(n(barLeft))\" y=\"\(n(barY - 7))\" font-size=\"12\" fill=\"\(ChartPalette.ink)\">\(Distance.text(step))</text></g>"
        let title = "Libraries within \(Distance.text(radiusMetres)) of \(LibraryText.displayName(library.name))"
        let description =
            places.isEmpty
            ? "No other library within \(Distance.text(radiusMetres))."
            : "This library in the middle; the others numbered nearest first, as in the list below. Possible duplicates are ringed. Dashed rings every \(Distance.text(step))."
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="\(n(-half)) \(n(-half)) \(n(half * 2)) \(n(half * 2))" role="group" \
            aria-labelledby="neighbourhood-title neighbourhood-desc" class="neighbourhood-map" font-family="system-ui, sans-serif">\
            <title id="neighbourhood-title">\(SVGWriter.escape(title))</title><desc id="neighbourhood-desc">\(SVGWriter.escape(description))</desc>\
            <rect x="\(n(-half))" y="\(n(-half))" width="\(n(half * 2))" height="\(n(half * 2))" fill="#f6f4ef"/>\(body)</svg>
            """
    }

    /// Where each marker goes, nearest first: at its place, or, when that is within a marker's
    /// width of the library's own mark or of a marker already placed, moved outward along its
    /// bearing (round the centre by the golden angle when on the very spot) until it is clear.
    static func markerSpots(_ places: [(x: Double, y: Double)]) -> [(x: Double, y: Double, trueX: Double, trueY: Double)] {
        let clearance = 30.0  // two duplicate rings (radius 14) side by side, and a little air
        var placed: [(x: Double, y: Double)] = []
        var spots: [(x: Double, y: Double, trueX: Double, trueY: Double)] = []
        for (index, place) in places.enumerated() {
            let length = (place.x * place.x + place.y * place.y).squareRoot()
            let angle = length < 0.5 ? Double(index) * 2.399963 : atan2(place.y, place.x)
            var (x, y) = (place.x, place.y)
            var radius = length
            func crowded() -> Bool {
                (x * x + y * y).squareRoot() < clearance || placed.contains { (($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y)).squareRoot() < clearance }
            }
            // Never out of the drawing: in the rare crowd that would push it there, it stays at the edge.
            while crowded(), radius + 4 < half - 14 {
                radius += 4
                (x, y) = (cos(angle) * radius, sin(angle) * radius)
            }
            placed.append((x, y))
            spots.append((x, y, place.x, place.y))
        }
        return spots
    }

    /// Metres east (x) and south (y, as SVG counts down) of `origin`: flat is close enough within
    /// 500 m. Across the 180th meridian the short way round: 179.9999° W is east of 179.9999° E.
    static func offset(from origin: MirrorLibrary, to other: MirrorLibrary) -> (x: Double, y: Double) {
        var degreesEast = other.lng - origin.lng
        if degreesEast > 180 { degreesEast -= 360 } else if degreesEast < -180 { degreesEast += 360 }
        let east = degreesEast * cos(origin.lat * .pi / 180) * GreatCircle.metresPerDegree
        let north = (other.lat - origin.lat) * GreatCircle.metresPerDegree
        return (east, -north)
    }

    /// "30 m north-east", "here" when on the same spot.
    static func whereText(metres: Double, from origin: MirrorLibrary, to other: MirrorLibrary) -> String {
        let (x, y) = offset(from: origin, to: other)
        guard metres >= 1, x != 0 || y != 0 else { return "on the same spot" }
        let degrees = (atan2(x, -y) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
        let names = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]
        return "\(Distance.text(metres)) \(names[Int((degrees + 22.5) / 45) % 8])"
    }
}
