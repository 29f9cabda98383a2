import Foundation
import GRDB

extension ModerationStore {
    /// Empties every photo address in the mirror that `isAllowed` refuses (and a library's kept
    /// backend record with it, so its page falls back to the emptied columns): rows mirrored
    /// before addresses were checked, or under another `--media-origin`, then show "no photo"
    /// until the next pass reads them again. Answers how many rows changed.
    @discardableResult
    public func forgetMediaAddresses(notAllowedBy isAllowed: @Sendable (String) -> Bool) async throws -> Int {
        try await writer.write { db in
            var changed = 0
            for (table, columns, clearsRecord) in [
                ("mirrorLibrary", ["photoUrl", "thumbnailUrl"], true), ("mirrorReport", ["photoUrl"], false),
                ("mirrorPhoto", ["photoUrl", "thumbnailUrl"], false),
            ] {
                let rows = try Row.fetchAll(db, sql: "SELECT id, \(columns.joined(separator: ", ")) FROM \(table)")
                for row in rows {
                    let refused = columns.filter { column in
                        let address: String = row[column]
                        return !address.isEmpty && !isAllowed(address)
                    }
                    guard !refused.isEmpty else { continue }
                    let assignments = refused.map { "\($0) = ''" } + (clearsRecord ? ["record = NULL"] : [])
                    try db.execute(sql: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE id = ?", arguments: [row["id"] as Int64])
                    changed += 1
                }
            }
            return changed
        }
    }
}
