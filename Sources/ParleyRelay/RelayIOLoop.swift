/// The media socket's reader: a thread of its own that blocks in `recvmmsg`, hands each batch to
/// the ``RelayEngine`` under its lock, and sends what the batch produced with one `sendmmsg` —
/// the C reference relay's loop, with the engine's demultiplexing, ICE, DTLS and SRTP inside.
///
/// A dedicated thread rather than an event-loop channel: no readiness round trip per wake-up,
/// and no address object or envelope per datagram.
final class RelayIOLoop: Sendable {
    let socket: RelaySocket
    let engine: RelayEngine

    init(socket: RelaySocket, engine: RelayEngine) {
        self.socket = socket
        self.engine = engine
    }

    /// Reads until ``RelayEngine/isReading`` is cleared (see ``MediaRelay/shutdown()``).
    func run() {
        let socket = self.socket
        let engine = self.engine
        while true {
            let count = socket.receive()
            let keepReading = engine.lock.withLock { () -> Bool in
                guard engine.isReading else { return false }
                for index in 0..<count {
                    let datagram = socket.datagram(index)
                    engine.receive(datagram.slot, length: datagram.length, truncated: datagram.truncated,
                                   from: datagram.source)
                }
                engine.flushIfNeeded()
                return true
            }
            guard keepReading else { return }
        }
    }
}
