import NIOCore
import NIOWebSocket
import ParleyRealtime
import Synchronization

/// Writes a mailbox's frames to its WebSocket, on the channel's event loop.
///
/// Woken by the mailbox when frames wait, it takes them all and writes them with one flush: a
/// frame costs no task switch and no event-loop hand-off of its own (the socket's async writer
/// paid both per frame — about 4.5 frames a chat message). Frames go down the same pipeline the
/// async writer's do (its handler passes writes through), so pings and the closing frame still
/// interleave whole.
///
/// A peer that reads slowly is not written past the channel's high-water mark: the last frame
/// of a batch written while the channel is not writable carries a promise, and nothing more is
/// taken until it completes. Meanwhile frames wait in the mailbox, whose bound closes the
/// connection of a device that stopped reading.
final class SocketWriter: Sendable {
    private let channel: any Channel
    private let mailbox: Mailbox
    /// A write's completion is awaited before more is taken (only touched on the event loop).
    private let waiting = Atomic<Bool>(false)

    init(channel: any Channel, mailbox: Mailbox) {
        self.channel = channel
        self.mailbox = mailbox
    }

    /// Starts taking the mailbox's frames.
    func start() {
        mailbox.onFrames { [self] in channel.eventLoop.execute { self.drain() } }
    }

    private func drain() {
        guard !waiting.load(ordering: .relaxed) else { return }
        let frames = mailbox.take()
        guard !frames.isEmpty else { return }
        for (index, text) in frames.enumerated() {
            var promise: EventLoopPromise<Void>?
            if index == frames.count - 1, !channel.isWritable {
                let written = channel.eventLoop.makePromise(of: Void.self)
                waiting.store(true, ordering: .relaxed)
                written.futureResult.whenComplete { [self] _ in
                    waiting.store(false, ordering: .relaxed)
                    drain()
                }
                promise = written
            }
            let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text))
            channel.write(frame, promise: promise)
        }
        channel.flush()
        mailbox.written(frames.count)
    }
}
