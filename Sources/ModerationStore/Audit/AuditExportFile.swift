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
    /// entries in between are not in the file, so those links cannot be checked). The file does
    /// not say which entries are keyed: with `key`, an entry whose hash is its HMAC is keyed,
    /// and every later one must be too.
    public static func verify(_ entries: [AuditEntry], key: AuditKey? = nil) -> AuditExportVerdict {
        var previous: AuditEntry?
        var gaps = 0
        var keyedSince: Int64?
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
            if let key, key.mac(entry.canonicalEncoding()) == entry.hash {
                keyedSince = keyedSince ?? id
            } else if let since = keyedSince {
                return .broken(entryID: id, reason: "it is not keyed, but the chain is keyed since entry \(since) (it was rewritten without the key)")
            } else {
                if key == nil, entry.action == AuditEntry.keyedAction, entry.computedHash() != entry.hash {
                    return .broken(entryID: id, reason: "the chain is keyed from here (HMAC-SHA256): verify the export with the audit key (--audit-key)")
                }
                guard entry.computedHash() == entry.hash else {
                    return .broken(
                        entryID: id,
                        reason: key == nil
                            ? "its contents do not match its hash (the entry was changed)"
                            : "its contents match neither its plain nor its keyed hash (the entry was changed, or this is not the key)")
                }
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
