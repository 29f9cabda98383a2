import Foundation

/// The structure of a JSON document without its values: which keys, and of which kind.
/// `null` matches any kind, since a nullable field is null in one answer and set in another.
public indirect enum JSONShape: Equatable, CustomStringConvertible {
    case null, bool, number, string
    case array(JSONShape?)
    case object([String: JSONShape])

    /// The shape of a JSON document.
    public init(json: Data) throws {
        self = try JSONDecoder().decode(Node.self, from: json).shape
    }

    private struct Node: Decodable {
        let shape: JSONShape

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                shape = .null
            } else if (try? container.decode(Bool.self)) != nil {
                shape = .bool
            } else if (try? container.decode(Double.self)) != nil {
                shape = .number
            } else if (try? container.decode(String.self)) != nil {
                shape = .string
            } else if let array = try? container.decode([Node].self) {
                shape = .array(array.first?.shape)
            } else {
                shape = .object(try container.decode([String: Node].self).mapValues(\.shape))
            }
        }
    }

    /// The differences between two shapes, as readable paths; empty when they agree.
    public func differences(from other: JSONShape, at path: String = "$") -> [String] {
        switch (self, other) {
        case (.null, _), (_, .null): return []
        case (.array(let mine?), .array(let theirs?)): return mine.differences(from: theirs, at: path + "[0]")
        case (.array, .array): return []
        case (.object(let mine), .object(let theirs)):
            var found: [String] = []
            for key in Set(mine.keys).union(theirs.keys).sorted() {
                switch (mine[key], theirs[key]) {
                case (let a?, let b?): found += a.differences(from: b, at: path + "." + key)
                case (nil, _): found.append("\(path).\(key) missing here")
                case (_, nil): found.append("\(path).\(key) not in the other")
                }
            }
            return found
        default:
            return self == other ? [] : ["\(path): \(self) vs \(other)"]
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
