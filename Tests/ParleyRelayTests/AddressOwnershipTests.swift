import NIOCore
import Testing
@testable import ParleyRelay

/// An address belongs to one live leg, and a leg holds only so many (`RelayEngine+Addresses`).
extension RelayEngineTests {
    @Test("a valid check from an address another live leg holds is refused address_taken; a dead leg's address may be taken")
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

        victim.state = .dead
        engine.receive(datagram(check(for: other, useCandidate: true), from: 40100))
        #expect(engine.legsByAddress[address] === other, "a leg that died gives its address up")
        #expect(victim.heldAddresses.isEmpty && other.heldAddresses == [address])
        engine.release(victim.id)
        #expect(engine.legsByAddress[address] === other, "releasing the old leg leaves the address with the new one")
        engine.release(other.id)
        #expect(engine.legsByAddress.isEmpty)
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
