import Foundation

/// Distance on the Earth's surface (haversine, mean radius): what a backend's radius search uses.
enum GreatCircle {
    static let earthRadius = 6_371_008.8
    static let metresPerDegree = earthRadius * .pi / 180

    static func metres(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let dLat = (lat2 - lat1) * .pi / 180
        let dLng = (lng2 - lng1) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * .pi / 180) * cos(lat2 * .pi / 180) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }
}
