import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The write itself: temporary file, fsync, rename, fsync of the directory.
struct SpoolFileWriter: Sendable {
    let directory: String

    func store(_ body: Data, as fileName: String) throws(SpoolWriteError) {
        try makeDirectory()
        let target = directory + "/" + fileName
        let temporary = directory + "/." + fileName + ".tmp"
        var descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == EEXIST {
            // Left by a write that crashed before its rename: nobody else writes this id (the
            // dispatcher holds the message's lease), so it is ours to replace.
            unlink(temporary)
            descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { throw SpoolWriteError(step: "create", path: temporary, code: errno) }
        do throws(SpoolWriteError) {
            try writeAll(body, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw SpoolWriteError(step: "sync", path: temporary, code: errno) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 else {
            let code = errno
            unlink(temporary)
            throw SpoolWriteError(step: "close", path: temporary, code: code)
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw SpoolWriteError(step: "rename into place", path: target, code: code)
        }
        // The rename itself lives in the directory: without this a power cut can forget it.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw SpoolWriteError(step: "open", path: directory, code: errno) }
        defer { close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else { throw SpoolWriteError(step: "sync", path: directory, code: errno) }
    }

    private func makeDirectory() throws(SpoolWriteError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue { return }
        // Parents as the system makes them; the spool itself is private to the console's user.
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty { try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw SpoolWriteError(step: "create the directory", path: directory, code: errno) }
    }

    private func writeAll(_ body: Data, to descriptor: Int32, path: String) throws(SpoolWriteError) {
        let failure: Int32? = body.withUnsafeBytes { buffer in
            guard var next = buffer.baseAddress else { return nil }
            var remaining = buffer.count
            while remaining > 0 {
                let written = write(descriptor, next, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                next += written
                remaining -= written
            }
            return nil
        }
        if let failure { throw SpoolWriteError(step: "write", path: path, code: failure) }
    }
}
