import NIOCore

/// Which leg an address belongs to (``RelayEngine/legsByAddress``), the table every DTLS and
/// SRTP datagram is looked up in.
///
/// An address a live leg uses belongs to it: a valid check — made with a leg's own ICE
/// credentials, so by any client for its own leg — from the address another live leg sends its
/// media to, or from any of its addresses while it has none yet (it is still connecting), is
/// refused (``DropReason/addressTaken``). Else whoever can send from a victim's address (spoofed
/// UDP, or a NAT that gives the victim's port to a second client) would have the victim's media
/// looked up under the wrong leg: black-holed, and a handshake still running failed. An address
/// the leg has moved away from (a network switch, a TURN allocation given up), and every address
/// of a leg that failed, closed or died, goes to the next valid check — a relay port handed on
/// to someone else must not stay barred to them.
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
        case .waitingForICE, .handshaking, .connected: return owner.sendAddress != nil && owner.sendAddress != peer
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
