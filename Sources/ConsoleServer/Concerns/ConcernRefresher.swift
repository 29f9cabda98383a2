import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Works out the reasons of every waiting library, a batch at a time, and stores them for the
/// queue's filter by reason and its rows (a row whose library or the settings changed since is
/// worked out when shown). Every `interval`, within the pending sweep's 120 s; from the mirror
/// only, no backend read. Two console processes on one file both refresh: each pass writes
/// the same rows.
struct ConcernRefresher: Service {
    let store: ModerationStore
    let interval: TimeInterval
    let logger: Logger
    /// Wakes it early: staff changed the settings.
    var nudge = ConcernRefreshNudge()
    var batchSize = 500

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let pass = await refreshOnce() ?? Pass(covered: 1, heldBack: 0)
                // Until the mirror holds a waiting library (a first start, before anyone signed in),
                // or while mirror changes held some back (a fill under way), look again soon: the
                // filter must not come up short for a minute after the first fill.
                let soon = pass.covered == 0 || pass.heldBack > 0
                await nudge.wait(seconds: soon ? min(interval, 5) : interval)
            }
        }
    }

    /// What one pass did: how many waiting libraries it covered, and how many of their reasons it
    /// held back because the mirror changed around them while it worked them out.
    struct Pass: Equatable {
        let covered: Int
        let heldBack: Int
    }

    /// One pass over the whole queue; nil when it failed (logged; the next pass, one interval
    /// later, tries again).
    @discardableResult
    func refreshOnce() async -> Pass? {
        do {
            let started = ContinuousClock.now
            var after = 0
            var count = 0
            var heldBack = 0
            while true {
                // Read before the batch and its evidence: a mirror change after it holds back what it made stale.
                let evidenceTick = try await store.concernEvidenceTick()
                let batch = try await store.pendingLibraries(afterID: after, limit: batchSize)
                guard let last = batch.last else { break }
                // Read per batch: settings staff change mid-pass apply from the next batch on.
                let settings = try await store.concernSettings()
                let concerns = try await LibraryConcerns.of(batch, in: store, settings: settings)
                heldBack += try await store.replaceLibraryConcerns(
                    Dictionary(
                        batch.map { library in
                            let assessment = LibraryAssessment(
                                fingerprint: LibraryConcerns.fingerprint(of: library, settings: settings),
                                concerns: (concerns[library.id] ?? []).map(\.stored))
                            return (library.id, assessment)
                        }, uniquingKeysWith: { first, _ in first }), evidenceTick: evidenceTick
                ).heldBack
                count += batch.count
                after = last.id
                try Task.checkCancellation()
            }
            try await store.pruneLibraryConcerns()
            let seconds = (ContinuousClock.now - started) / .milliseconds(1) / 1000
            logger.debug(
                "library reasons refreshed",
                metadata: ["libraries": "\(count)", "heldBack": "\(heldBack)", "seconds": "\(String(format: "%.2f", seconds))"])
            return Pass(covered: count, heldBack: heldBack)
        } catch is CancellationError {
            return nil  // shutting down: the next start refreshes
        } catch {
            logger.error("refreshing library reasons failed", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
