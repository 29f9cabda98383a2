import ArgumentParser

/// `console oncall …`: the on-call rotation and its hand-offs from the command line.
struct OnCallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oncall", abstract: "The on-call rotation and its hand-offs.",
        subcommands: [OnCallShowCommand.self, OnCallDigestCommand.self])
}
