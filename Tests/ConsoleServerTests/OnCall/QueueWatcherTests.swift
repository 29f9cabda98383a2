import BookCornersAPI
import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// The queue watcher against the sandbox over real HTTP, its clock moved by hand: one alert
/// per episode, a repeat after the interval, escalation along the rotation when nobody
/// acknowledges, closing when the queue is back under target, and its reads within its share.
@Suite("On call: the queue watcher", .timeLimit(.minutes(3)))
struct QueueWatcherTests {
    /// Starts an hour after the oldest open report passed the reports' 24-h target.
    private static let oldestReportOverdue: @Sendable (SandboxFixture, BackendClient, StaffCredentials) async throws -> Date = { _, client, credentials in
        let oldest = try #require(try await WatcherFixture.openReportDates(client, credentials).first)
        return oldest.createdAt.addingTimeInterval(25 * 3_600)
    }

    private func payload(_ message: OutboxMessage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
    }

    @Test("an overdue queue gets one message to the person on call per episode; acknowledged, it does not escalate; it repeats after the interval")
    func oneMessagePerEpisodeThenRepeat() async throws {
        try await WatcherFixture.run(start: Self.oldestReportOverdue) { fixture in
            // act: the first look finds reports overdue, later looks within the hour find it still so
            await fixture.tick()
            let alert = try await #require(try fixture.reportsEpisode())
            await fixture.tick(after: 10)
            await fixture.tick(after: 10)
            // check: one message, to alice, in the APNs shape with the queue's numbers
            let first = try await fixture.messages(of: alert)
            try #require(first.count == 1, "\(first.map(\.dedupeKey))")
            #expect(first[0].recipientUserId == WatcherFixture.alice.id && first[0].dedupeKey == "alert-\(alert.id)-notice-1")
            let json = try payload(first[0])
            let data = try #require(json["data"] as? [String: Any])
            #expect(data["type"] as? String == "queue.overdue" && data["queue"] as? String == "reports")
            #expect(data["overdue_count"] as? Int == alert.overdueCount && alert.overdueCount >= 1)
            #expect((data["oldest_age_seconds"] as? Int ?? 0) >= 25 * 3_600)
            let alertText = try #require((json["aps"] as? [String: Any])?["alert"] as? [String: String])
            #expect(alertText["title"] == "Reports overdue")
            #expect(alertText["body"]?.contains("waiting past the 24 h target; the oldest has waited 1 d 1 h") == true, "\(alertText)")
            // act: alice acknowledges; the ack timeout passes
            let acknowledged = try await fixture.store.acknowledgeQueueAlert(
                id: alert.id, by: WatcherFixture.alice, audit: WatcherFixture.audit("alert.acknowledge", now: fixture.clock.now),
                now: fixture.clock.now)
            #expect(acknowledged != .notFound)
            await fixture.tick(after: 15)
            // check: no escalation after an acknowledgement
            await #expect(try fixture.messages(of: alert).count == 1)
            // act: an hour after the first message
            await fixture.tick(after: 26)
            await fixture.tick(after: 5)
            // check: one repeat, to alice
            let after = try await fixture.messages(of: alert)
            #expect(after.map(\.dedupeKey) == ["alert-\(alert.id)-notice-1", "alert-\(alert.id)-notice-2"])
            #expect(after.map(\.recipientUserId) == [WatcherFixture.alice.id, WatcherFixture.alice.id])
            await #expect(try fixture.store.activeQueueAlerts().filter { $0.queue == .reports }.count == 1, "still the one episode")
        }
    }

    @Test("not acknowledged within 30 min it escalates to bob, then carol, and stops before wrapping back to alice")
    func escalatesAlongTheRotation() async throws {
        try await WatcherFixture.run(start: Self.oldestReportOverdue) { fixture in
            // setup
            await fixture.tick()
            let alert = try await #require(try fixture.reportsEpisode())
            // act
            await fixture.tick(after: 29)
            let beforeTimeout = try await fixture.messages(of: alert).count
            await fixture.tick(after: 2)
            await fixture.tick(after: 31)
            await fixture.tick(after: 25)  // 87 min: carol has held it 25 min; nobody is left after her
            // check
            #expect(beforeTimeout == 1)
            let messages = try await fixture.messages(of: alert)
            #expect(
                messages.map(\.dedupeKey) == [
                    "alert-\(alert.id)-notice-1", "alert-\(alert.id)-escalation-1", "alert-\(alert.id)-escalation-2",
                ])
            #expect(messages.map(\.recipientUserId) == [WatcherFixture.alice.id, WatcherFixture.bob.id, WatcherFixture.carol.id])
            let escalation = try #require((try payload(messages[1])["aps"] as? [String: Any])?["alert"] as? [String: String])
            #expect(escalation["body"]?.hasPrefix("Escalated: alice has not acknowledged.") == true, "\(escalation)")
            let episode = try await #require(try fixture.store.queueAlert(id: alert.id))
            #expect(episode.state == .escalated && episode.escalationLevel == 2 && episode.notifiedStaffId == WatcherFixture.carol.id)
            // act: past carol's ack timeout, the rotation would wrap to alice: no third escalation
            await fixture.tick(after: 10)
            await #expect(try fixture.messages(of: alert).count == 3)
            let notices = try await fixture.store.queueAlertNotices(alertIDs: [alert.id])[alert.id] ?? []
            #expect(notices.map(\.kind) == [.notice, .escalation, .escalation])
        }
    }

    @Test("the episode closes when the overdue reports are resolved in the sandbox; the next overdue spell is a new episode with its own message")
    func closesWhenUnderTarget() async throws {
        try await WatcherFixture.run(start: Self.oldestReportOverdue) { fixture in
            // setup: at the start only the reports older than 24 h are overdue
            let cutoff = fixture.clock.now.addingTimeInterval(-24 * 3_600)
            let overdue = try await WatcherFixture.openReportDates(fixture.client, fixture.credentials).filter { $0.createdAt < cutoff }
            await fixture.tick()
            let alert = try await #require(try fixture.reportsEpisode())
            #expect(alert.overdueCount == overdue.count)
            // act: staff resolve them in the backend; the watcher looks again a minute later
            for report in overdue {
                _ = try await fixture.client.setReportStatus(id: report.id, to: .resolved, credentials: fixture.credentials)
            }
            await fixture.tick(after: 1)
            // check
            await #expect(try fixture.reportsEpisode() == nil)
            let closed = try await #require(try fixture.store.queueAlert(id: alert.id))
            #expect(closed.state == .closed && closed.closedAt == fixture.clock.now)
            await #expect(try fixture.messages(of: alert).count == 1)
            // act: five days on, the next oldest report is overdue too
            await fixture.tick(after: 5 * 24 * 60)
            let next = try await #require(try fixture.reportsEpisode())
            #expect(next.id != alert.id)
            await #expect(try fixture.messages(of: next).map(\.dedupeKey) == ["alert-\(next.id)-notice-1"])
        }
    }

    @Test("over four simulated windows with the mirror off, it reads each queue in every window and never more than its 12 of 60 per endpoint and window")
    func staysWithinItsReadShare() async throws {
        try await WatcherFixture.run(start: { _, _, _ in
            // a window boundary, so four windows are four whole ones
            Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 300).rounded(.down) * 300 + 300)
        }) { fixture in
            // setup
            let windowSeconds = 300.0
            let loggedAtStart = try fixture.loggedRequests().count
            var perScopeAndWindow: [String: Int] = [:]
            var seen = loggedAtStart
            // act: a look every 5 simulated seconds for four windows
            for _ in 0..<(4 * 60) {
                let window = Int(fixture.clock.now.timeIntervalSince1970 / windowSeconds)
                await fixture.tick(after: 0)
                let lines = try fixture.loggedRequests()
                for line in lines[seen...] where line.kind == "read" {
                    perScopeAndWindow["\(line.scope) \(window)", default: 0] += 1
                }
                seen = lines.count
                fixture.clock.advance(by: 5)
            }
            // check
            let scopes = ["api-library-moderation-list", "api-report-moderation-list", "api-photo-moderation-list"]
            #expect(Set(perScopeAndWindow.keys.compactMap { $0.split(separator: " ").first.map(String.init) }) == Set(scopes))
            for scope in scopes {
                let windows = perScopeAndWindow.filter { $0.key.hasPrefix(scope) }
                #expect(windows.count == 4, "\(scope) read in every window: \(windows)")
                #expect(windows.values.allSatisfy { $0 <= 12 }, "\(scope): \(windows.sorted { $0.key < $1.key })")
            }
            // 60 pending libraries: two pages, so both ends of that queue are read
            let libraryReads = perScopeAndWindow.filter { $0.key.hasPrefix(scopes[0]) }.values.reduce(0, +)
            let reportReads = perScopeAndWindow.filter { $0.key.hasPrefix(scopes[1]) }.values.reduce(0, +)
            #expect(libraryReads == 2 * reportReads, "libraries \(libraryReads), reports \(reportReads)")
        }
    }
}
