import Foundation
import ModerationVocabulary

/// The latitude/longitude rectangle that holds a circle: an index can search it. Near the
/// 180th meridian the rectangle wraps: 179.9999° E and 179.9999° W are 22 m apart at Fiji's
/// latitude, so its longitudes are two ranges, one on each side (the same range twice when it
/// does not wrap, so a statement always takes four bounds).
struct BoundingBox {
    let minLat: Double
    let maxLat: Double
    let longitudes: (ClosedRange<Double>, ClosedRange<Double>)

    init(lat: Double, lng given: Double, metres: Double) {
        // The backend bounds no longitude: 181° is 179° W, and a range must never be built backwards.
        var lng = given.isFinite ? given.truncatingRemainder(dividingBy: 360) : 0
        if lng >= 180 { lng -= 360 } else if lng < -180 { lng += 360 }
        let latDegrees = metres / GreatCircle.metresPerDegree
        // Degrees of longitude shrink towards the poles; never divide by (nearly) zero.
        let lngDegrees = min(180, metres / (GreatCircle.metresPerDegree * max(cos(lat * .pi / 180), 0.01)))
        (minLat, maxLat) = (lat - latDegrees, lat + latDegrees)
        let (west, east) = (lng - lngDegrees, lng + lngDegrees)
        longitudes =
            if west < -180 {
                (-180...east, (west + 360)...180)
            } else if east > 180 {
                (west...180, -180...(east - 360))
            } else {
                (west...east, west...east)
            }
    }

    /// The bounds in the order `lng BETWEEN ? AND ? OR lng BETWEEN ? AND ?` takes them.
    var longitudeBounds: [Double] {
        [longitudes.0.lowerBound, longitudes.0.upperBound, longitudes.1.lowerBound, longitudes.1.upperBound]
    }
}
