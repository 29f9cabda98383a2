import Foundation
import TestSupport
import Testing

/// Tests that stop and restart the backend rely on these.
@Suite("Sandbox: restarts on a fixed port", .timeLimit(.minutes(3)))
struct SandboxRestartTests {
    @Test("a sandbox whose port stays taken gives up with an error instead of waiting forever")
    func portTaken() async throws {
        try await SandboxFixture.run { running in
            let started = Date()
            await #expect {
                try await SandboxFixture.run(port: running.port, portWait: .seconds(1)) { _ in }
            } throws: { error in
                (error as? TestServerError)?.isAddressInUse == true
            }
            #expect(Date().timeIntervalSince(started) < 90, "a bind failure is reported, not waited on")
        }
    }

    @Test("a sandbox stopped and started again on its port answers there, with its data")
    func restart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.path("sandbox.sqlite")
        let port = try FreePort.find()
        let first = try await SandboxFixture.run(databasePath: database, port: port) { sandbox in
            try await sandbox.raw(.GET, "/api/v1/libraries/moderation/summary", token: try await sandbox.accessToken()).text
        }
        let second = try await SandboxFixture.run(databasePath: database, port: port) { sandbox in
            #expect(sandbox.port == port)
            return try await sandbox.raw(.GET, "/api/v1/libraries/moderation/summary", token: try await sandbox.accessToken()).text
        }
        #expect(first == second)
        #expect(first.contains("pending"))
    }
}
