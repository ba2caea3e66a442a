import NIOCore

/// Which leg an address belongs to (``RelayEngine/legsByAddress``), the table every DTLS and
/// SRTP datagram is looked up in.
///
/// An address belongs to one live leg at a time: a valid check — made with a leg's own ICE
/// credentials, so by any client for its own leg — from an address another live leg holds is
/// refused (``DropReason/addressTaken``), or whoever can send from a victim's address (spoofed
/// UDP, or a NAT that gives the victim's port to a second client) would have the victim's media
/// looked up under the wrong leg: black-holed, and a handshake still running failed. A leg
/// that has failed, closed or died gives its addresses up to the next valid check.
///
/// And a leg holds only so many: the addresses its agent still counts valid
/// (``ICELiteAgent/maxValidAddresses``) and its send target. A client that checks in from one
/// new source port after another (or opens one ICE-TCP connection after another) pushes its
/// oldest addresses out of the table, and their TCP connections are closed — the table, and
/// the descriptors, stay bounded per leg.
extension RelayEngine {
    /// Whether a valid check from `peer` may give it to `leg`.
    func mayHold(_ peer: PeerAddress, for leg: RelayLeg) -> Bool {
        guard let owner = legsByAddress[peer], owner !== leg else { return true }
        switch owner.state {
        case .waitingForICE, .handshaking, .connected: return false
        case .failed, .closed, .dead: return true
        }
    }

    /// Gives `peer` to `leg` after a valid check (taking it from a leg no longer live), and lets
    /// go of the leg's addresses its agent has forgotten since — all but the send target.
    func hold(_ peer: PeerAddress, for leg: RelayLeg) {
        if let previous = legsByAddress[peer] { previous.heldAddresses.removeAll { $0 == peer } }
        legsByAddress[peer] = leg
        leg.heldAddresses.append(peer)
        logger.debug("valid connectivity check", metadata: ["leg": "\(leg.id)", "address": "\(peer)"])
        let kept = leg.heldAddresses.filter { $0 == peer || $0 == leg.sendAddress || leg.ice.isValid($0) }
        guard kept.count < leg.heldAddresses.count else { return }
        for address in leg.heldAddresses where !kept.contains(address) {
            if legsByAddress[address] === leg { legsByAddress.removeValue(forKey: address) }
            if address.isTCP { tcp?.disconnect(address) }
        }
        leg.heldAddresses = kept
    }
}
