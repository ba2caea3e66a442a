/// The last video packets the relay sent to one leg, as plaintext RTP just before SRTP
/// protection, so a NACK from that leg's client (RFC 4585 §6.2.1) is answered from here — the
/// packet again, exactly as it was, under the same sequence number — instead of from the far
/// sender, whose copy the relay would take for a replay (it already received it) when the loss was
/// between the relay and this client.
///
/// `capacity` slots of `slotSize` bytes in one allocation made when the leg first gets video;
/// a slot is found by sequence number modulo the capacity, and storing is one copy. Owned by its
/// leg, used on the engine's thread only.
final class RetransmissionHistory {
    let capacity: Int
    let slotSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var sequences: [UInt16]
    private var lengths: [Int]
    /// Times each kept packet went out again; a slot takes a new packet with a count of zero.
    private var resends: [UInt8]
    /// How often one kept packet is sent again: enough for a resend that is itself lost, and a
    /// bound on what NACKs can ask of the relay (at most this many times the video it sent).
    static let maxResends: UInt8 = 2

    init(capacity: Int = 256, slotSize: Int) {
        self.capacity = capacity
        self.slotSize = slotSize
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * slotSize, alignment: 16)
        sequences = Array(repeating: 0, count: capacity)
        lengths = Array(repeating: 0, count: capacity)
        resends = Array(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Keeps `packet` (plaintext RTP) as the one with `sequence`; too large, it is not kept.
    func store(_ packet: UnsafeRawBufferPointer, sequence: UInt16) {
        let slot = Int(sequence) % capacity
        guard packet.count <= slotSize else { lengths[slot] = 0; return }
        UnsafeMutableRawBufferPointer(rebasing: storage[(slot * slotSize)..<(slot * slotSize + packet.count)])
            .copyMemory(from: packet)
        sequences[slot] = sequence
        lengths[slot] = packet.count
        resends[slot] = 0
    }

    /// The packet kept for `sequence`, if it is still there.
    func packet(_ sequence: UInt16) -> UnsafeRawBufferPointer? {
        let slot = Int(sequence) % capacity
        guard lengths[slot] > 0, sequences[slot] == sequence else { return nil }
        return UnsafeRawBufferPointer(rebasing: storage[(slot * slotSize)..<(slot * slotSize + lengths[slot])])
    }

    /// Counts one more resend of the kept `sequence`; false once it went out ``maxResends`` times.
    func admitResend(_ sequence: UInt16) -> Bool {
        let slot = Int(sequence) % capacity
        guard resends[slot] < Self.maxResends else { return false }
        resends[slot] += 1
        return true
    }
}
