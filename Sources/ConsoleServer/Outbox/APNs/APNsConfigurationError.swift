import Foundation

/// Why the APNs transport cannot start, in words an operator can act on.
public enum APNsConfigurationError: Error, Equatable, CustomStringConvertible {
    case keyMissing(path: String)
    case keyUnreadable(path: String)
    case keyInvalid(path: String)
    case caFileInvalid(path: String)
    case emptySetting(name: String)

    public var description: String {
        switch self {
        case .keyMissing(let path):
            "The APNs signing key \(path) does not exist: download the .p8 key from the Apple developer account and give its path."
        case .keyUnreadable(let path):
            "The APNs signing key \(path) cannot be read: check its permissions."
        case .keyInvalid(let path):
            "The APNs signing key \(path) is not a P-256 private key in PEM (the .p8 file Apple gives): check it is the right file."
        case .caFileInvalid(let path):
            "The CA file \(path) holds no PEM certificate that can be read: give the certificate file the APNs stand-in wrote."
        case .emptySetting(let name):
            "The APNs \(name) is empty: give the value from the Apple developer account."
        }
    }
}
