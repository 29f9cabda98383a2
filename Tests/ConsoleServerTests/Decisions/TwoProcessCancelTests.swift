import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

/// Cancel against two real `console serve` processes on one database: a Cancel sent through one
/// process while the other's runner reaches the same decisions as they fall due. Each decision
/// ends one way only: cancelled and never sent, or sent once and the Cancel refused in words.
@Suite("Two console processes and a Cancel", .serialized, .timeLimit(.minutes(3)))
struct TwoProcessCancelTests {
    @Test(
        "six decisions, four falling due as their Cancels arrive through the other process: each is either cancelled and never sent, or sent once with its Cancel refused; the audit matches"
    )
    func cancelRacesTheOtherRunner() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let origin = sandbox.baseURL.absoluteString.replacingOccurrences(of: "/api/v1/", with: "")
            try await FaultingProxy.run(to: origin, plan: { _, _, _ in .pass }) { proxy, proxyOrigin in
                // setup: two consoles on one database, staff signed in on the second
                let serves = try await ConsoleBinary.startServes(2, backend: proxyOrigin, directory: directory)
                defer { serves.processes.forEach { $0.stop() } }
                let second = serves.bases[1]
                let session = try #require(try await RawForms.signIn(base: second, login: "staff", password: SeedAccounts.demoStaffPassword))
                let token = try await sandbox.accessToken()
                let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=6", token: token).jsonObject()
                let slugs = ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
                try #require(slugs.count == 6)
                let store = try ModerationStore(path: directory.path("console.sqlite"))
                let staff = try #require(try await store.staffMember(username: "staff"))
                // Six approvals waiting for Book Corners' limits: four falling due 0.4 s apart from 4 s
                // on, as their Cancels arrive, and two not due for a minute (cancelled for certain).
                let start = Date()
                var ids: [Int64] = []
                for (index, slug) in slugs.enumerated() {
                    var action = ModerationAction(
                        idempotencyKey: "race-\(index)", actorId: staff.id, actorUsername: staff.username, targetKind: .library, targetKey: slug,
                        statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r\(index)", clientAddress: "127.0.0.1", userAgent: "",
                        now: start)
                    action.state = .waiting
                    action.nextAttemptAt = start.addingTimeInterval(index < 4 ? 4 + Double(index) * 0.4 : 60)
                    ids.append(try #require(try await store.record(action).action.id))
                }

                // act: from 4 s on, one Cancel every 0.4 s, each as its decision falls due through the second console, while either runner may take each up
                try await Task.sleep(for: .seconds(max(0, 4.0 - Date().timeIntervalSince(start))))
                var answers: [String] = []
                for id in ids {
                    let page = try await rawHTTP(.GET, second + "/libraries", headers: [("Cookie", session)])
                    let posted = try await rawHTTP(
                        .POST, second + "/decisions/\(id)/cancel",
                        headers: [("Cookie", session), ("Content-Type", "application/x-www-form-urlencoded")],
                        body: RawForms.body([("csrf", RawForms.field("csrf", in: page.text) ?? "")]))
                    let landed = try await rawHTTP(
                        .GET, second + (posted.headers.first { $0.0 == "location" }?.1 ?? "/"), headers: [("Cookie", session)])
                    answers.append(landed.text.range(of: "<div class=\"flash\"").map { String(landed.text[$0.upperBound...].prefix(400)) } ?? "")
                    let next = 4.0 + Double(answers.count) * 0.4
                    try await Task.sleep(for: .seconds(max(0, next - Date().timeIntervalSince(start))))
                }
                // every decision reaches its end: cancelled, or sent and applied
                var final: [ModerationAction] = []
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    final = try await ids.asyncMap { try #require(try await store.action(id: $0)) }
                    if final.allSatisfy({ $0.state == .cancelled || $0.state.isFinal }) { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                // Both runners look again for a while: a late PATCH would show here.
                try await Task.sleep(for: .seconds(3))

                // check: one way only for each
                let cancelAudits = try await store.auditEntries(limit: 200).filter { $0.action == "decision.cancel" }
                for (index, action) in final.enumerated() {
                    let path = "/api/v1/libraries/moderation/\(slugs[index])"
                    let patches = await proxy.forwarded(.patch, path)
                    let status = try await sandbox.raw(.GET, path, token: token).jsonObject()?["status"] as? String
                    switch action.state {
                    case .cancelled:
                        #expect(patches == 0, "a cancelled decision was never sent: \(slugs[index])")
                        #expect(status == "pending")
                        #expect(answers[index].contains("Cancelled: "), "\(answers[index])")
                        #expect(cancelAudits.filter { $0.actionId == action.id }.count == 1, "its Cancel audited once")
                    case .applied:
                        #expect(patches == 1, "sent once: \(slugs[index]) had \(patches)")
                        #expect(status == "approved")
                        #expect(answers[index].contains("Too late to cancel"), "the Cancel refused in words: \(answers[index])")
                        #expect(cancelAudits.allSatisfy { $0.actionId != action.id }, "a refused Cancel is not audited as one")
                    default:
                        Issue.record("\(slugs[index]) ended \(action.state): \(action.outcomeMessage ?? "")")
                    }
                }
                #expect(final.filter { $0.state == .cancelled }.count >= 2, "the two not yet due were cancelled")
                print("cancel race: \(final.filter { $0.state == .cancelled }.count) cancelled, \(final.filter { $0.state == .applied }.count) sent")
            }
        }
    }
}

extension Array {
    /// `transform` applied to each element in order, awaiting each.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
