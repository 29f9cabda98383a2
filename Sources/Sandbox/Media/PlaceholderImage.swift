/// Draws a small, distinct PNG for each media path: a little library box on a coloured
/// background, its colours and shelf pattern derived from the path. Real image bytes, so
/// browsers, `file` and image decoders all accept them; no image library needed.
enum PlaceholderImage {
    /// The PNG for a media path; thumbnails (paths containing "thumb") are smaller.
    static func png(for path: String) -> [UInt8] {
        let hash = fnv1a(path)
        let isThumbnail = path.contains("thumb")
        let width = isThumbnail ? 120 : 320
        let height = isThumbnail ? 90 : 240
        return encode(width: width, height: height, palette: palette(hash), pixels: draw(width, height, hash))
    }

    private static func palette(_ hash: UInt64) -> [UInt8] {
        func colour(_ shift: UInt64, lightness: Double) -> [UInt8] {
            let hue = Double((hash >> shift) % 360)
            return hsl(hue: hue, saturation: 0.45, lightness: lightness)
        }
        return colour(0, lightness: 0.82) + colour(9, lightness: 0.35) + colour(18, lightness: 0.6) + colour(27, lightness: 0.25)
    }

    private static func draw(_ width: Int, _ height: Int, _ hash: UInt64) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        let boxLeft = width / 4 + Int(hash % UInt64(width / 8))
        let boxRight = boxLeft + width / 2 - width / 10
        let boxTop = height / 3
        let boxBottom = height - height / 8
        let roofHeight = height / 6
        let shelves = 2 + Int((hash >> 40) % 3)
        for y in 0..<height {
            for x in 0..<width {
                var index: UInt8 = 0
                if y >= boxTop - roofHeight, y < boxTop {
                    let inset = (boxTop - y) * (boxRight - boxLeft) / (2 * roofHeight)
                    if x >= boxLeft + inset - 6, x <= boxRight - inset + 6 { index = 3 }
                } else if y >= boxTop, y < boxBottom, x >= boxLeft, x < boxRight {
                    index = 1
                    let inner = (boxBottom - boxTop - 8) / shelves
                    let row = (y - boxTop - 4) % max(inner, 1)
                    if x > boxLeft + 5, x < boxRight - 5, row > 3, ((x + Int((hash >> UInt64(x % 13)) % 5)) % 7) < 5 {
                        index = 2
                    }
                }
                pixels[y * width + x] = index
            }
        }
        return pixels
    }

    // MARK: PNG encoding (palette colour, stored deflate blocks)

    private static func encode(width: Int, height: Int, palette: [UInt8], pixels: [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)
            raw.append(contentsOf: pixels[(y * width)..<((y + 1) * width)])
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 3, 0, 0, 0])
        png += chunk("PLTE", palette)
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isLast = offset + length >= data.count
            out.append(isLast ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    private static func hsl(hue: Double, saturation: Double, lightness: Double) -> [UInt8] {
        let c = (1 - abs(2 * lightness - 1)) * saturation
        let h = hue / 60
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch Int(h) {
            case 0: (c, x, 0)
            case 1: (x, c, 0)
            case 2: (0, c, x)
            case 3: (0, x, c)
            case 4: (x, 0, c)
            default: (c, 0, x)
            }
        let m = lightness - c / 2
        return [r, g, b].map { UInt8(max(0, min(255, (($0 + m) * 255).rounded()))) }
    }
}
