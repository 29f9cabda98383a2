import Foundation
import ModerationStore

/// Devices as a plain-text table for a terminal: one row each, columns padded to fit.
struct DeviceTable {
    let text: String

    init(_ devices: [Device]) {
        let header = ["ID", "USER", "ENVIRONMENT", "STATUS", "LAST SUCCESS", "SOURCE", "TOKEN"]
        let rows = devices.map { device in
            [
                device.id.map { String($0) } ?? "", String(device.userId), device.environment.rawValue,
                device.state.rawValue + (device.active || device.disabledReason.isEmpty ? "" : ": " + Self.oneLine(device.disabledReason)),
                device.lastSuccessAt.map(ISOTime.string) ?? "never", device.source, Self.shortened(device.token),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        text =
            ([header] + rows).map { cells in
                cells.enumerated().map { column, cell in
                    column == cells.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }.joined(separator: "\n") + "\n"
    }

    /// The first 8 and last 4 digits: enough to tell tokens apart, too little to push with.
    static func shortened(_ token: String) -> String {
        token.count > 12 ? "\(token.prefix(8))…\(token.suffix(4))" : token
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
