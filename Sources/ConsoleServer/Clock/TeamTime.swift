import Foundation
import Mustache

/// One instant as a page shows it: on the team's clock, with the machine-readable instant and
/// the UTC instant for the hover title. `isShown` is false for a time that never happened
/// ("never delivered"), so a template's section is skipped without looking the names up outside.
struct TeamTime: MustacheParent, Sendable {
    let isShown: Bool
    /// "2026-11-27 06:51 Rome time".
    let text: String
    /// "2026-11-27T05:51:00Z", for `datetime`.
    let iso: String
    /// "2026-11-27 05:51 UTC", for `title`.
    let utc: String

    init(_ date: Date?) {
        isShown = date != nil
        text = date.map(TeamClock.stamp) ?? ""
        iso = date.map(TimeText.iso) ?? ""
        utc = date.map(TimeText.utc) ?? ""
    }

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": isShown
        case "text": text
        case "iso": iso
        case "utc": utc
        default: nil
        }
    }
}
