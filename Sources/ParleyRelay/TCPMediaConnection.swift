import NIOConcurrencyHelpers
import NIOCore
import ParleyRTP

/// One accepted TCP connection's sending side (RFC 6544 passive candidate, RFC 4571 framing):
/// the engine queues framed packets under its lock from whichever thread it runs on, and the
/// connection hands them to its channel in one write per batch on the channel's own event loop.
///
/// Back-pressure without blocking: bytes queued here or handed to the channel but not yet taken
/// by the kernel are counted, and past ``limit`` ``enqueue(_:)`` refuses (the engine drops and
/// counts `tcp_send_buffer_full`) — a slow reader loses packets, as it would on UDP, and never
/// holds up the relay.
final class TCPMediaConnection: @unchecked Sendable {
    let channel: any Channel
    let address: PeerAddress
    let limit: Int

    /// Under the engine's lock: whether a connectivity check from this connection passed, and
    /// whether it waits in ``TCPMediaServer``'s list of connections to flush.
    var isChecked = false
    var isDirty = false

    /// Guards the fields below between the engine (any thread) and the channel's event loop.
    private let lock = NIOLock()
    private var outgoing: ByteBuffer
    /// Bytes written to the channel whose write has not completed.
    private var inFlight = 0
    private var drainScheduled = false

    init(channel: any Channel, address: PeerAddress, limit: Int) {
        self.channel = channel
        self.address = address
        self.limit = limit
        outgoing = channel.allocator.buffer(capacity: 4096)
    }

    /// Queues `bytes` with its RFC 4571 header; false when the queue is full (nothing queued).
    func enqueue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let (high, low) = RFC4571Frame.header(length: bytes.count) else { return false }
        return lock.withLock {
            guard outgoing.readableBytes + inFlight + RFC4571Frame.headerSize + bytes.count <= limit else { return false }
            outgoing.writeInteger(high)
            outgoing.writeInteger(low)
            outgoing.writeBytes(bytes)
            return true
        }
    }

    /// Has what is queued written out, on the channel's event loop. Never writes inline: the
    /// caller holds the engine's lock, and a write can call back into handlers that take it.
    func flush() {
        let schedule = lock.withLock { () -> Bool in
            guard !drainScheduled, outgoing.readableBytes > 0 else { return false }
            drainScheduled = true
            return true
        }
        if schedule { channel.eventLoop.execute { _ = self.drain() } }
    }

    /// Writes what is queued after anything queued before, then closes the connection.
    func close() {
        channel.eventLoop.execute {
            let channel = self.channel
            if let written = self.drain() {
                written.whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
    }

    /// On the channel's event loop: one write of everything queued; nil when there was nothing.
    private func drain() -> EventLoopFuture<Void>? {
        let batch = lock.withLock { () -> ByteBuffer? in
            drainScheduled = false
            guard outgoing.readableBytes > 0 else { return nil }
            let batch = outgoing
            outgoing = channel.allocator.buffer(capacity: 4096)
            inFlight += batch.readableBytes
            return batch
        }
        guard let batch else { return nil }
        let count = batch.readableBytes
        let written = channel.writeAndFlush(batch)
        written.whenComplete { _ in self.lock.withLock { self.inFlight -= count } }
        return written
    }
}
