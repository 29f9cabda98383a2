import Foundation

/// Where each country lies, as boxes around its parts (Natural Earth's map subunits): enough to
/// tell that a library said to be in Germany is placed in the sea off Africa, not to draw borders.
public enum CountryBoxes {
    /// A box in degrees; `west` is less than `east` (boxes across the antimeridian come as two).
    public struct Box: Sendable, Equatable {
        public let west: Double
        public let south: Double
        public let east: Double
        public let north: Double

        func contains(lat: Double, lng: Double, margin: Double) -> Bool {
            lat >= south - margin && lat <= north + margin && lng >= west - margin && lng <= east + margin
        }
    }

    /// Natural Earth's 1:50m outlines are simplified: a library on a border's edge of a box may lie
    /// this far outside it (0.05° is 3–5 km).
    public static let marginDegrees = 0.05

    /// Each country's boxes by ISO 3166 alpha-2 code, upper case.
    public static let byCode: [String: [Box]] = {
        var boxes: [String: [Box]] = [:]
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let west = Double(fields[1]), let south = Double(fields[2]), let east = Double(fields[3]),
                let north = Double(fields[4])
            else { continue }
            boxes[String(fields[0]), default: []].append(Box(west: west, south: south, east: east, north: north))
        }
        return boxes
    }()

    /// Whether the point lies outside every box of the country `code` names; `nil` when the code
    /// is not one the table knows (an empty or made-up country says nothing about the place).
    public static func isOutside(lat: Double, lng: Double, country code: String) -> Bool? {
        guard let boxes = byCode[code.trimmingCharacters(in: .whitespaces).uppercased()] else { return nil }
        return !boxes.contains { $0.contains(lat: lat, lng: lng, margin: marginDegrees) }
    }
}
