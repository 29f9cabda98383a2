import Foundation
import ModerationStore
import NIOCore
import Synchronization

/// Pages as last rendered for one session, for `lifetime`: a reload, a second tab or the back
/// button within that time is answered with the same bytes instead of reading and rendering
/// again. A copy is used only while the database stands exactly where it stood before the
/// page was read (`ChangeStamp`: any commit by any process drops every copy at once), so a
/// page never hides a change; `lifetime` only bounds what time alone changes (ages, claims
/// running out), which a page shows to the minute.
final class RecentPages: Sendable {
    struct Key: Hashable, Sendable {
        /// The session's id: a copy is never shown to anyone else.
        let session: String
        /// Path and query, as requested.
        let target: String
    }

    private struct Copy {
        let body: ByteBuffer
        let stamp: ChangeStamp
        let keptAt: ContinuousClock.Instant
    }

    let lifetime: Duration
    private let maximumCount: Int
    private let maximumBytes: Int
    private let copies = Mutex<[Key: Copy]>([:])

    init(lifetime: Duration, maximumCount: Int = 256, maximumBytes: Int = 16 << 20) {
        self.lifetime = lifetime
        self.maximumCount = maximumCount
        self.maximumBytes = maximumBytes
    }

    /// The page's bytes, when a copy was kept at `stamp` less than `lifetime` ago.
    func page(_ key: Key, stamp: ChangeStamp, now: ContinuousClock.Instant) -> ByteBuffer? {
        copies.withLock { copies in
            guard let copy = copies[key] else { return nil }
            guard copy.stamp == stamp, now - copy.keptAt < lifetime else {
                copies[key] = nil
                return nil
            }
            return copy.body
        }
    }

    /// Keeps a page read and rendered entirely at `stamp`. Past the bounds, copies that ran
    /// out go first, then the oldest.
    func keep(_ body: ByteBuffer, for key: Key, stamp: ChangeStamp, at now: ContinuousClock.Instant) {
        guard body.readableBytes <= maximumBytes / 4 else { return }
        copies.withLock { copies in
            copies[key] = Copy(body: body, stamp: stamp, keptAt: now)
            guard copies.count > maximumCount || copies.values.reduce(0, { $0 + $1.body.readableBytes }) > maximumBytes else { return }
            copies = copies.filter { $0.value.stamp == stamp && now - $0.value.keptAt < lifetime }
            while copies.count > maximumCount || copies.values.reduce(0, { $0 + $1.body.readableBytes }) > maximumBytes,
                let oldest = copies.min(by: { $0.value.keptAt < $1.value.keptAt })?.key
            {
                copies[oldest] = nil
            }
        }
    }

    /// How many copies are kept (for tests).
    var count: Int { copies.withLock { $0.count } }
}

/// Where a page's rendered bytes are handed back to `RecentPageMiddleware` (`HTML` fills it).
final class PageCapture: Sendable {
    private let body = Mutex<ByteBuffer?>(nil)

    func keep(_ buffer: ByteBuffer) { body.withLock { $0 = buffer } }
    var captured: ByteBuffer? { body.withLock { $0 } }
}
