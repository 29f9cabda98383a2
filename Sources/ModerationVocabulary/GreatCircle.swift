import Foundation

/// Distances on the Earth's surface (haversine, mean Earth radius): the sandbox's
/// `radius_km` search and the console's duplicate check measure the same way.
public enum GreatCircle {
    public static let earthRadiusMetres = 6_371_008.8
    /// Metres along a meridian per degree of latitude.
    public static let metresPerDegree = earthRadiusMetres * .pi / 180

    public static func metres(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let dLat = (lat2 - lat1) * .pi / 180
        let dLng = (lng2 - lng1) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * .pi / 180) * cos(lat2 * .pi / 180) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * earthRadiusMetres * asin(min(1, sqrt(a)))
    }

    public static func kilometres(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        metres(lat1, lng1, lat2, lng2) / 1_000
    }
}
