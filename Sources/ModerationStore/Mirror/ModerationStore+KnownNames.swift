import Foundation
import GRDB

/// Names the console has seen for ids it stores: pages show "maria", not "user #14", and a
/// library name that repeats in a list gets its city.
extension ModerationStore {
    /// The usernames of `userIDs` as the console knows them: staff who signed in, then the
    /// submitters and reporters of mirrored items. An id nobody has seen is absent.
    public func knownUsernames(userIDs: Set<Int>) async throws -> [Int: String] {
        guard !userIDs.isEmpty else { return [:] }
        let ids = Array(userIDs)
        return try await writer.read { db in
            var names: [Int: String] = [:]
            // Staff first: the name they signed in with is the freshest one.
            let sources = [
                "SELECT id, username FROM staffMember WHERE id IN",
                "SELECT submitterId, submitterUsername FROM mirrorLibrary WHERE submitterUsername IS NOT NULL AND submitterId IN",
                "SELECT submitterId, submitterUsername FROM mirrorPhoto WHERE submitterUsername IS NOT NULL AND submitterId IN",
                "SELECT reporterId, reporterUsername FROM mirrorReport WHERE reporterUsername IS NOT NULL AND reporterId IN",
            ]
            let placeholders = "(" + ids.map { _ in "?" }.joined(separator: ",") + ")"
            for source in sources where names.count < ids.count {
                for row in try Row.fetchAll(db, sql: source + placeholders, arguments: StatementArguments(ids)) {
                    let id: Int = row[0]
                    let name: String = row[1]
                    if names[id] == nil, !name.isEmpty { names[id] = name }
                }
            }
            return names
        }
    }

    /// The city of each mirrored library among `slugs` (empty cities left out).
    public func mirroredCities(slugs: Set<String>) async throws -> [String: String] {
        guard !slugs.isEmpty else { return [:] }
        return try await writer.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT slug, city FROM mirrorLibrary WHERE slug IN (" + slugs.map { _ in "?" }.joined(separator: ",") + ")",
                arguments: StatementArguments(Array(slugs)))
            var cities: [String: String] = [:]
            for row in rows {
                let city: String = row["city"]
                if !city.isEmpty { cities[row["slug"]] = city }
            }
            return cities
        }
    }
}
