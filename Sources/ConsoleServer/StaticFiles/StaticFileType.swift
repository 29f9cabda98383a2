/// The kinds of file the console serves from its public directory. The type comes from
/// this list, chosen by the file's extension at start-up; a request's name never picks it.
enum StaticFileType: String, CaseIterable, Sendable {
    case css
    case js
    case svg
    case png
    case ico
    case woff2

    var contentType: String {
        switch self {
        case .css: "text/css; charset=utf-8"
        case .js: "text/javascript; charset=utf-8"
        case .svg: "image/svg+xml"
        case .png: "image/png"
        case .ico: "image/vnd.microsoft.icon"
        case .woff2: "font/woff2"
        }
    }

    /// The type of a file name, or nil for a name the console does not serve.
    init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return nil }
        self.init(rawValue: fileName[fileName.index(after: dot)...].lowercased())
    }
}
