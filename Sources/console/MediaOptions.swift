import ArgumentParser
import Foundation

/// Where photos may come from, besides Book Corners' own origin.
struct MediaOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "An origin (https://host[:port]) besides the backend's own that library photos may be shown from, such as a CDN; repeat or comma-separate. Photo addresses on any other origin, or not http(s), show as \"no photo\". (env: CONSOLE_MEDIA_ORIGIN, comma-separated; default: the backend's origin only)"
    )
    var mediaOrigin: [String] = []

    /// The extra origins, each checked to be an http(s) origin with nothing after it.
    func origins() throws -> [String] {
        let given = mediaOrigin.isEmpty ? [EnvironmentOption.string(nil, "CONSOLE_MEDIA_ORIGIN", default: "")] : mediaOrigin
        return try given.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { text in
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
                url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil
            else { throw ValidationError("--media-origin must be an origin such as https://media.bookcorners.org, got '\(text)'.") }
            return text
        }
    }
}
