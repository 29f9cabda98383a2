import Foundation
import NIOCore
import NIOPosix

/// One request sent as raw bytes on a connection of its own, and how the server dealt with
/// it: a whole answer, a close, or nothing at all within a time limit. Bytes are not checked
/// on the way out, so the request may be anything a fuzzer makes up.
enum RawHTTPExchange {
    enum Outcome: Sendable, Equatable {
        /// A whole answer (interim 1xx answers skipped) with this status.
        case answered(status: Int)
        /// The server closed (or reset) the connection before sending anything.
        case closedWithoutAnswer
        /// The server closed after part of an answer: its head, or part of its body.
        case truncated(received: String)
        /// What came back is not HTTP/1.x.
        case unparsable(received: String)
        /// Neither an answer nor a close within the limit.
        case hanging
        case connectionFailed(String)
    }

    static func send(_ request: [UInt8], port: Int, isHead: Bool, limit: Duration) async -> Outcome {
        let connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                }
        } catch {
            return .connectionFailed("\(error)")
        }
        do {
            return try await connection.executeThenClose { inbound, outbound in
                await withTaskGroup(of: Outcome.self) { tasks in
                    tasks.addTask {
                        var response = ResponseBytes(isHead: isHead)
                        do {
                            try await outbound.write(ByteBuffer(bytes: request))
                        } catch {
                            // The server may close before taking every byte: what it sent still counts.
                        }
                        do {
                            for try await chunk in inbound {
                                response.bytes += chunk.readableBytesView
                                if case .complete(let status) = response.state(atEnd: false) { return .answered(status: status) }
                                if case .malformed = response.state(atEnd: false) { return .unparsable(received: response.text) }
                            }
                        } catch {
                            // A reset is a close too.
                        }
                        switch response.state(atEnd: true) {
                        case .complete(let status): return .answered(status: status)
                        case .malformed: return .unparsable(received: response.text)
                        case .incomplete: return response.bytes.isEmpty ? .closedWithoutAnswer : .truncated(received: response.text)
                        }
                    }
                    tasks.addTask {
                        try? await Task.sleep(for: limit)
                        return .hanging
                    }
                    let first = await tasks.next() ?? .hanging
                    // Closing ends whichever task is still waiting: the reader, or the timer's sleep by cancellation.
                    tasks.cancelAll()
                    connection.channel.close(promise: nil)
                    return first
                }
            }
        } catch {
            return .connectionFailed("\(error)")
        }
    }
}

extension RawHTTPExchange {
    /// What the server sent for `request` until it closed the connection, and whether it
    /// closed within `limit` (false: it was still open when the limit ran out).
    static func untilClose(_ request: [UInt8], port: Int, limit: Duration) async throws -> (text: String, closed: Bool) {
        let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await connection.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: request))
            let received = ReceivedBytes()
            let closed = await withTaskGroup(of: Bool.self) { tasks in
                tasks.addTask {
                    do {
                        for try await chunk in inbound { await received.append(chunk.readableBytesView) }
                    } catch {
                        // A reset is a close too.
                    }
                    return true
                }
                tasks.addTask {
                    try? await Task.sleep(for: limit)
                    return false
                }
                let first = await tasks.next() ?? false
                tasks.cancelAll()
                connection.channel.close(promise: nil)
                return first
            }
            return (String(decoding: await received.bytes, as: UTF8.self), closed)
        }
    }
}

/// Bytes gathered by one task and read by another.
private actor ReceivedBytes {
    private(set) var bytes: [UInt8] = []
    func append(_ more: some Sequence<UInt8>) { bytes += more }
}

/// An HTTP/1.x answer as it arrives, judged whole or not: interim (1xx) answers are skipped,
/// a body is as long as `Content-Length` says, chunked until its last chunk, or until the close.
struct ResponseBytes {
    enum State: Equatable {
        case incomplete
        case complete(status: Int)
        case malformed
    }

    let isHead: Bool
    var bytes: [UInt8] = []

    var text: String { String(decoding: bytes.prefix(300), as: UTF8.self) }

    func state(atEnd: Bool) -> State {
        var start = 0
        while true {
            guard let headEnd = Self.find([13, 10, 13, 10], in: bytes, from: start) else {
                // A server sends its status line first: anything else is not HTTP.
                let sofar = bytes[start...]
                if !sofar.isEmpty, !Array("HTTP/1.".utf8).starts(with: sofar.prefix(7)) { return .malformed }
                return .incomplete
            }
            let head = String(decoding: bytes[start..<headEnd], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let statusLine = lines[0].split(separator: " ", maxSplits: 2)
            guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1" || statusLine[0] == "HTTP/1.0", let status = Int(statusLine[1]),
                (100...599).contains(status)
            else { return .malformed }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { return .malformed }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let bodyStart = headEnd + 4
            if (100..<200).contains(status), status != 101 {
                start = bodyStart
                continue
            }
            if isHead || status == 204 || status == 304 { return .complete(status: status) }
            // A stream of server-sent events (`/events`) never ends by design: its head is its answer.
            if status == 200, headers["content-type"]?.lowercased().hasPrefix("text/event-stream") == true { return .complete(status: status) }
            if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                return Self.chunkedBodyEnds(in: bytes, from: bodyStart) ? .complete(status: status) : .incomplete
            }
            if let length = headers["content-length"] {
                guard let length = Int(length) else { return .malformed }
                return bytes.count - bodyStart >= length ? .complete(status: status) : .incomplete
            }
            return atEnd ? .complete(status: status) : .incomplete
        }
    }

    /// Whether a chunked body starting at `start` has arrived up to its last (empty) chunk.
    private static func chunkedBodyEnds(in bytes: [UInt8], from start: Int) -> Bool {
        var position = start
        while let lineEnd = find([13, 10], in: bytes, from: position) {
            let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
            if size == 0 { return find([13, 10, 13, 10], in: bytes, from: lineEnd) != nil }
            position = lineEnd + 2 + size + 2
            guard position <= bytes.count else { return false }
        }
        return false
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
