import Foundation

/// The public files the console serves, read once at start-up from its public directory.
/// Only these names are ever served: a request names one of them exactly or gets a 404,
/// so no path a client sends reaches the file system.
struct StaticFileLibrary: Sendable {
    private let files: [String: StaticFile]

    /// Reads every file of a known type directly inside `directory` (not its subfolders).
    init(directory: String) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StaticFileLibraryError.missingDirectory(directory)
        }
        var files: [String: StaticFile] = [:]
        for name in try manager.contentsOfDirectory(atPath: directory) {
            guard let type = StaticFileType(fileName: name) else { continue }
            let path = directory + "/" + name
            let attributes = try manager.attributesOfItem(atPath: path)
            guard attributes[.type] as? FileAttributeType == .typeRegular, let bytes = manager.contents(atPath: path) else { continue }
            files[name] = StaticFile(bytes: Array(bytes), type: type, modified: attributes[.modificationDate] as? Date ?? Date())
        }
        self.files = files
    }

    /// The file called exactly `name`, if it is one of ours.
    func file(named name: Substring) -> StaticFile? {
        files[String(name)]
    }
}

enum StaticFileLibraryError: Error, CustomStringConvertible {
    case missingDirectory(String)

    var description: String {
        switch self {
        case .missingDirectory(let path): "The public files directory \(path) does not exist; pass --public DIR or set CONSOLE_PUBLIC."
        }
    }
}
