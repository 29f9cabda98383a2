/// A page request, checked against the backend's bounds before anything is sent.
public struct Page: Sendable, Hashable {
    /// The backend accepts pages 1...1000.
    public static let numberRange = 1...1000
    /// The backend accepts page sizes 1...50.
    public static let sizeRange = 1...50

    public let number: Int
    public let size: Int

    /// The first page of the given size.
    public static func first(size: Int = 20) throws(PageError) -> Page {
        try Page(number: 1, size: size)
    }

    public init(number: Int = 1, size: Int = 20) throws(PageError) {
        guard Page.numberRange.contains(number) else { throw .numberOutOfRange(number) }
        guard Page.sizeRange.contains(size) else { throw .sizeOutOfRange(size) }
        self.number = number
        self.size = size
    }

    /// Clamps untrusted values (from a URL, say) into the backend's bounds.
    public init(clampingNumber number: Int, size: Int) {
        self.number = min(max(number, Page.numberRange.lowerBound), Page.numberRange.upperBound)
        self.size = min(max(size, Page.sizeRange.lowerBound), Page.sizeRange.upperBound)
    }
}

/// A page outside the backend's bounds.
public enum PageError: Error, Equatable, Sendable {
    case numberOutOfRange(Int)
    case sizeOutOfRange(Int)
}
