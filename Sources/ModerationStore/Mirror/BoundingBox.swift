import Foundation
import ModerationVocabulary

/// The latitude/longitude rectangle that holds a circle: an index can search it.
struct BoundingBox {
    let minLat: Double
    let maxLat: Double
    let minLng: Double
    let maxLng: Double

    init(lat: Double, lng: Double, metres: Double) {
        let latDegrees = metres / GreatCircle.metresPerDegree
        // Degrees of longitude shrink towards the poles; never divide by (nearly) zero.
        let lngDegrees = metres / (GreatCircle.metresPerDegree * max(cos(lat * .pi / 180), 0.01))
        (minLat, maxLat, minLng, maxLng) = (lat - latDegrees, lat + latDegrees, lng - lngDegrees, lng + lngDegrees)
    }
}
