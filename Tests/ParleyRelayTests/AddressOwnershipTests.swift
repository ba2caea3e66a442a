import NIOCore
import Testing
@testable import ParleyRelay

/// An address belongs to one live leg, and a leg holds only so many (`RelayEngine+Addresses`).
extension RelayEngineTests {
    @Test("a valid check from the address another live leg uses is refused address_taken; one it moved away from, or a dead leg's, may be taken")
    func anAddressBelongsToOneLiveLeg() throws {
        let (victim, _) = try makeLeg(owner: "call-1")
        let (other, _) = try makeLeg(owner: "call-2")
        let address = PeerAddress(ipv4: 0x7F00_0001, port: 40100)
        engine.receive(datagram(check(for: victim, useCandidate: true), from: 40100))
        #expect(engine.legsByAddress[address] === victim)

        // The other leg's own credentials, from the victim's address (spoofed, or a NAT's reused port).
        engine.receive(datagram(check(for: other, useCandidate: true), from: 40100))
        #expect(engine.counters[.addressTaken] == 1)
        #expect(engine.legsByAddress[address] === victim, "the victim's media is still looked up under its own leg")
        #expect(!other.ice.isValid(address) && other.state == .waitingForICE, "the refused check counted for nothing")

        sendTarget(of: victim, is: address)
        engine.receive(datagram(check(for: other, useCandidate: true), from: 40100))
        #expect(engine.counters[.addressTaken] == 2, "nor once media goes there")

        // The victim moved on (a network switch, a TURN allocation given up): its old port may go
        // to someone else, who must not stay barred from it.
        engine.receive(datagram(check(for: victim, useCandidate: true), from: 40101))
        sendTarget(of: victim, is: PeerAddress(ipv4: 0x7F00_0001, port: 40101))
        engine.receive(datagram(check(for: other, useCandidate: true), from: 40100))
        #expect(engine.legsByAddress[address] === other, "an address the owner left is free")
        #expect(victim.heldAddresses == [PeerAddress(ipv4: 0x7F00_0001, port: 40101)] && other.heldAddresses == [address])

        let (third, _) = try makeLeg(owner: "call-3")
        other.state = .dead
        engine.receive(datagram(check(for: third, useCandidate: true), from: 40100))
        #expect(engine.legsByAddress[address] === third, "a leg that died gives its address up, even the one it sent to")
        engine.release(other.id)
        #expect(engine.legsByAddress[address] === third, "releasing the old leg leaves the address with the new one")
        for leg in [victim, third] { engine.release(leg.id) }
        #expect(engine.legsByAddress.isEmpty)
    }

    /// As if authenticated media from `address` had made it the leg's send target.
    func sendTarget(of leg: RelayLeg, is address: PeerAddress) {
        leg.sendAddress = address
    }

    @Test("a leg holds what its agent counts valid and its send target: checks from one new port after another do not grow the table")
    func addressesPerLegAreBounded() throws {
        let (leg, _) = try makeLeg()
        let first = PeerAddress(ipv4: 0x7F00_0001, port: 41000)
        engine.receive(datagram(check(for: leg, useCandidate: true), from: 41000))
        leg.sendAddress = first   // as if media had proved it
        for port in 41001..<41040 { engine.receive(datagram(check(for: leg, useCandidate: false), from: port)) }
        let limit = ICELiteAgent.maxValidAddresses
        #expect(leg.heldAddresses.count == limit + 1 && engine.legsByAddress.count == limit + 1, "\(leg.heldAddresses)")
        #expect(engine.legsByAddress[first] === leg, "the send target stays, though its agent forgot it")
        #expect(engine.legsByAddress[PeerAddress(ipv4: 0x7F00_0001, port: 41039)] === leg)
        #expect(engine.legsByAddress[PeerAddress(ipv4: 0x7F00_0001, port: 41001)] == nil, "older ones went")
        engine.release(leg.id)
        #expect(engine.legsByAddress.isEmpty)
    }

    @Test("an ICE-TCP connection from the address and port of one that closed may check in again")
    func aClosedTCPAddressMayCheckInAgain() throws {
        let (leg, _) = try makeLeg()
        var address = PeerAddress(ipv4: 0x7F00_0001, port: 42000)
        address.isTCP = true
        #expect(engine.receiveFramed(ByteBuffer(bytes: check(for: leg, useCandidate: true)), from: address, checked: false))
        engine.forgetTCPAddress(address)   // the connection closed
        #expect(engine.legsByAddress[address] == nil && leg.heldAddresses.isEmpty)
        #expect(engine.receiveFramed(ByteBuffer(bytes: check(for: leg, useCandidate: true)), from: address, checked: false),
                "a new connection's valid check keeps it open")
        #expect(engine.legsByAddress[address] === leg)
    }
}
