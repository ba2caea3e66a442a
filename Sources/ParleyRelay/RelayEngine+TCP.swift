import NIOCore
import ParleyRTP

extension RelayEngine {
    /// One RFC 4571 frame from the TCP connection at `address`, handled as a datagram from that
    /// address (copied into ``inbound``, which has ``protectionRoom`` after it). A connection not
    /// yet `checked` may send only STUN (RFC 6544 §7.1 has the active side start with a check);
    /// returns whether the connection stays open: always once checked, else only if this frame
    /// was a valid check that made `address` a leg's.
    func receiveFramed(_ packet: ByteBuffer, from address: PeerAddress, checked: Bool) -> Bool {
        let length = packet.readableBytes
        counters.tcp.packetsIn &+= 1
        counters.tcp.bytesIn &+= UInt64(length)
        if !checked {
            guard let first = packet.getInteger(at: packet.readerIndex, as: UInt8.self),
                  PacketKind.classify(firstByte: first) == .stun else {
                counters.packetsIn &+= 1
                counters.bytesIn &+= UInt64(length)
                drop(.tcpUnauthenticated)
                return false
            }
        }
        packet.withUnsafeReadableBytes { bytes in
            if bytes.count > 0 { inbound.copyMemory(from: bytes) }
        }
        receive(inbound, length: length, truncated: false, from: address)
        return checked || legsByAddress[address] != nil
    }

    /// Queues `bytes` on the TCP connection at `address`, or counts why not.
    func sendTCP(_ bytes: UnsafeRawBufferPointer, to address: PeerAddress) {
        guard let tcp else { return drop(.tcpNoConnection) }
        if let reason = tcp.enqueue(bytes, to: address) { return drop(reason) }
        counters.packetsOut &+= 1
        counters.bytesOut &+= UInt64(bytes.count)
        counters.tcp.packetsOut &+= 1
        counters.tcp.bytesOut &+= UInt64(bytes.count)
        needsFlush = true
    }

    /// A TCP connection closed: its address leaves the table, so a new connection from the same
    /// address and port has to pass a check again.
    func forgetTCPAddress(_ address: PeerAddress) {
        guard let leg = legsByAddress.removeValue(forKey: address) else { return }
        leg.heldAddresses.removeAll { $0 == address }
    }

    /// Closes the TCP connections a released leg was using (after its close_notify).
    func disconnectTCP(of leg: RelayLeg) {
        guard let tcp else { return }
        for address in leg.heldAddresses where address.isTCP && legsByAddress[address] === leg { tcp.disconnect(address) }
    }
}
