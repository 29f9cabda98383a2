import Foundation

/// An export file read back, so the chain can be checked from the file alone (`console audit
/// verify --export`): CSV (formula-neutralised cells restored) or NDJSON.
public enum AuditExportFile {
    /// The entries of an export, hashes included; NDJSON when the text starts with `{`. The
    /// spreadsheet CSV's byte-order mark is not part of its header.
    public static func entries(in text: String) throws -> [AuditEntry] {
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        return text.first == "{" ? try AuditNDJSON.entries(in: text) : try AuditCSV.entries(in: text)
    }

    /// Checks every entry against its own hash, and each entry's previous hash against the
    /// entry before it where their ids follow each other (a filtered export has gaps: the
    /// entries in between are not in the file, so those links cannot be checked).
    public static func verify(_ entries: [AuditEntry]) -> AuditExportVerdict {
        var previous: AuditEntry?
        var gaps = 0
        for entry in entries {
            let id = entry.id ?? 0
            if let previous, let previousID = previous.id {
                if id == previousID + 1 {
                    guard entry.previousHash == previous.hash else {
                        return .broken(entryID: id, reason: "its previous hash does not match the entry before it (an entry was removed or moved)")
                    }
                } else if id > previousID {
                    gaps += 1
                } else {
                    return .broken(entryID: id, reason: "it comes after entry \(previousID) (the file's entries are out of order)")
                }
            }
            guard entry.computedHash() == entry.hash else {
                return .broken(entryID: id, reason: "its contents do not match its hash (the entry was changed)")
            }
            previous = entry
        }
        return .intact(entries: entries.count, head: previous?.hash ?? AuditEntry.genesisHash, gaps: gaps)
    }
}

/// What checking an export file found.
public enum AuditExportVerdict: Equatable, Sendable {
    /// `gaps`: places where the file skips ids (a filtered export), whose links were not checked.
    case intact(entries: Int, head: String, gaps: Int)
    case broken(entryID: Int64, reason: String)
}
