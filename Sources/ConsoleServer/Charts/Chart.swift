import Foundation
import ModerationStore
import Mustache

/// A chart as the statistics page shows it: the SVG (built on the server from typed data,
/// so it is embedded as is), and the same numbers as a table and as CSV.
///
/// Each chart is drawn twice, for a laptop's column and for a phone's (`ChartFrame`), and
/// CSS shows the one that fits: an SVG scales its text with it, so one drawing 600 wide
/// shown 330 px wide had axis labels of 5 px.
struct Chart: MustacheParent {
    let id: String
    let title: String
    let description: String
    let svg: String
    let narrowSVG: String
    let table: ChartTable
    /// Long tables fold away under the chart; short ones stay open.
    let tableOpen: Bool
    let csvHref: String

    init(id: String, title: String, description: String, svg draw: (ChartFrame) -> String, table: ChartTable, csvHref: String) {
        self.id = id
        self.title = title
        self.description = description
        svg = draw(.wide)
        narrowSVG = draw(.narrow)
        self.table = table
        tableOpen = table.rows.count <= 8
        self.csvHref = csvHref
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "title": title
        case "description": description
        case "svg": svg
        case "narrowSVG": narrowSVG
        case "table": table
        case "tableOpen": tableOpen
        case "csvHref": csvHref
        default: nil
        }
    }
}

/// The numbers behind a chart.
struct ChartTable: MustacheParent {
    let columns: [String]
    let rows: [[String]]

    /// RFC 4180: a header row, CRLF line ends, fields quoted when they need it.
    var csv: String {
        return ([columns] + rows).map { $0.map(AuditCSV.field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// One cell with its column's name: a phone shows a row's cells one after another, each named.
    struct Cell: MustacheParent {
        let label: String
        let value: String

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "value": value
            default: nil
            }
        }
    }

    /// A row's cells, labelled.
    struct Row: MustacheParent {
        let cells: [Cell]

        func child(named key: String) -> Any? { key == "cells" ? cells : nil }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "columns": columns
        case "rows": rows
        case "labelledRows": rows.map { row in Row(cells: zip(columns, row).map { Cell(label: $0, value: $1) }) }
        default: nil
        }
    }
}

/// Okabe and Ito's colours, told apart by readers with any common colour-vision
/// deficiency; ordered so neighbours also differ in lightness, which survives grey print.
enum ChartPalette {
    static let series = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
    static let ink = "#1f2328"
    static let muted = "#57606a"
    static let grid = "#e3dfd7"
    static let axis = "#8c857b"

    static func color(_ index: Int) -> String { series[index % series.count] }
}

/// The plot area inside a chart's frame, leaving room for axis labels.
struct PlotArea: MustacheParent {
    let left: Double
    let top: Double
    let right: Double
    let bottom: Double

    var width: Double { right - left }
    var height: Double { bottom - top }

    func child(named key: String) -> Any? {
        switch key {
        case "left": left
        case "top": top
        case "right": right
        case "bottom": bottom
        default: nil
        }
    }
}

/// The width a chart is drawn for, in SVG units that CSS shows at about one pixel each:
/// 600 in a laptop's chart column (520–600 px), 340 on a phone (330 px at 390 wide). A
/// narrow drawing has fewer ticks, shorter label columns and staggered bin names, so its
/// 11-unit labels stay 11 px and apart.
struct ChartFrame: Sendable, Equatable {
    let width: Double
    /// Added to the SVG's element ids: both drawings are on the page at once.
    let idSuffix: String

    static let wide = ChartFrame(width: 600, idSuffix: "")
    static let narrow = ChartFrame(width: 340, idSuffix: "-narrow")

    var isNarrow: Bool { width < 400 }
    /// How many time-axis ticks fit without their labels touching.
    var maximumTimeTicks: Int { isNarrow ? 4 : 8 }
}
