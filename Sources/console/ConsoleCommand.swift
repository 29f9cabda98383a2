import ArgumentParser

/// `console`: the Book Corners moderation console and its tools.
@main
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "The Book Corners moderation console: a web console for staff, and a sandbox backend to try it on.",
        discussion: """
            Start with `console demo`: it runs the sandbox backend and the console together on loopback \
            and prints where to sign in. Every option can also be set with the environment variable named \
            in its help.
            """,
        subcommands: [
            ServeCommand.self, SandboxCommand.self, DemoCommand.self, AuditCommand.self, BackupCommand.self, RestoreCommand.self,
            DevicesCommand.self, OnCallCommand.self, StaffCommand.self,
        ]
    )
}
