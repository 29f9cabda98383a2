import GRDB

extension DatabaseQueue {
    /// A test's own connection to a database a running console also writes: it waits up to
    /// 5 s for a lock, as the console's own connections do, instead of failing at once with
    /// "database is locked" when the dispatcher or the mirror happens to be writing.
    public static func waiting(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
