import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// Answers whose image fields the client resolves against the backend's origin.
protocol CarriesMedia {
    static var mediaFields: [WritableKeyPath<Self, String>] { get }
}

extension ModerationLibrary: CarriesMedia {
    static var mediaFields: [WritableKeyPath<Self, String>] { [\.photoUrl, \.thumbnailUrl] }
}

extension PublicLibrary: CarriesMedia {
    static var mediaFields: [WritableKeyPath<Self, String>] { [\.photoUrl, \.thumbnailUrl] }
}

extension ModerationReport: CarriesMedia {
    static var mediaFields: [WritableKeyPath<Self, String>] { [\.photoUrl] }
}

extension ModerationPhoto: CarriesMedia {
    static var mediaFields: [WritableKeyPath<Self, String>] { [\.photoUrl, \.thumbnailUrl] }
}
