import NIOCore
import Testing
@testable import ParleyRelay

/// Which address a leg's media goes to: only one that was checked and chosen (nominated, or
/// checked while the target is silent) and proved itself with authenticated traffic.
@Suite struct MediaPathTests {
    static let t0 = NIODeadline.uptimeNanoseconds(5_000_000_000_000)
    let home = PeerAddress(ipv4: 0x7F00_0001, port: 40000)
    let rebound = PeerAddress(ipv4: 0x7F00_0001, port: 40001)
    let intruder = PeerAddress(ipv4: 0x7F00_0001, port: 40666)

    func at(_ milliseconds: Int64) -> NIODeadline { Self.t0 + .milliseconds(milliseconds) }

    /// A path whose target is `home`, last heard at t0.
    func established() -> MediaPath {
        var path = MediaPath()
        _ = path.checked(from: home, nominating: true, now: Self.t0)
        _ = path.authenticated(from: home, now: Self.t0)
        return path
    }

    @Test("set-up: nominated, then the DTLS handshake completes from it — the first target")
    func firstTarget() {
        var path = MediaPath()
        #expect(path.checked(from: home, nominating: false, now: at(0)) == nil, "a plain check chooses nothing")
        #expect(path.checked(from: home, nominating: true, now: at(10)) == nil, "nominated, not yet proved")
        #expect(path.target == nil)
        #expect(path.authenticated(from: home, now: at(50)) == home)
        #expect(path.target == home && path.switches == 0)
    }

    @Test("set-up in the other order: DTLS completes first, the nomination follows (Chromium)")
    func proofBeforeNomination() {
        var path = MediaPath()
        _ = path.checked(from: home, nominating: false, now: at(0))
        #expect(path.authenticated(from: home, now: at(20)) == nil, "proved, but nobody nominated it")
        #expect(path.checked(from: home, nominating: true, now: at(40)) == home)
    }

    @Test("the first target must be nominated: a plain check plus media is not enough")
    func firstTargetNeedsNomination() {
        var path = MediaPath()
        _ = path.checked(from: home, nominating: false, now: at(0))
        #expect(path.authenticated(from: home, now: at(5_000)) == nil)
        #expect(path.target == nil)
    }

    @Test("a second address that answers one valid check, even nominating, gets no media without authenticated traffic")
    func checkAloneMovesNothing() {
        var path = established()
        #expect(path.checked(from: intruder, nominating: true, now: at(100)) == nil)
        #expect(path.checked(from: intruder, nominating: false, now: at(10_000)) == nil, "not even once home is silent")
        #expect(path.target == home)
        #expect(path.isChecked(intruder))
    }

    @Test("traffic from an address that never passed a check moves nothing")
    func uncheckedTraffic() {
        var path = established()
        #expect(path.authenticated(from: rebound, now: at(10_000)) == nil)
        #expect(path.target == home && !path.isChecked(rebound))
    }

    @Test("network switch: a nominating check from the new address, then its media — it takes over at once")
    func renomination() {
        var path = established()
        _ = path.authenticated(from: home, now: at(400))   // home still talking
        #expect(path.checked(from: rebound, nominating: true, now: at(500)) == nil)
        #expect(path.target == home, "nominated is not enough")
        #expect(path.authenticated(from: rebound, now: at(520)) == rebound)
        #expect(path.switches == 1)
        #expect(!path.isChecked(home), "the old address must check in again to come back")
    }

    @Test("NAT rebinding: a plain check from the new address counts once the target is silent")
    func rebinding() {
        var path = established()
        // Home is silent from t0; the rebound address's consent check arrives 1 s later —
        // too early to count — and its media keeps arriving.
        _ = path.checked(from: rebound, nominating: false, now: at(1_000))
        #expect(path.authenticated(from: rebound, now: at(1_500)) == nil, "home silent for 1.5 s only")
        #expect(path.authenticated(from: rebound, now: at(2_000)) == rebound, "silent for 2 s: the checked address proves and takes over")
        #expect(path.targetHeardAt == at(2_000))
    }

    @Test("NAT rebinding: a plain check after the silence, then media")
    func rebindingCheckAfterSilence() {
        var path = established()
        _ = path.checked(from: rebound, nominating: false, now: at(4_000))
        #expect(path.authenticated(from: rebound, now: at(4_020)) == rebound)
    }

    @Test("a target that keeps talking is not replaced by a plain check plus media")
    func liveTargetStays() {
        var path = established()
        for step in 1...20 { _ = path.authenticated(from: home, now: at(Int64(step) * 200)) }
        _ = path.checked(from: rebound, nominating: false, now: at(3_000))
        _ = path.authenticated(from: home, now: at(3_100))
        #expect(path.authenticated(from: rebound, now: at(3_200)) == nil)
        #expect(path.target == home)
    }

    @Test("valid checks from the target keep it from counting as silent")
    func checksKeepTargetAlive() {
        var path = established()
        _ = path.checked(from: home, nominating: false, now: at(1_900))
        _ = path.checked(from: rebound, nominating: false, now: at(3_000))
        #expect(path.authenticated(from: rebound, now: at(3_100)) == nil)
    }

    @Test("a proof older than the nomination does not count once a target exists")
    func staleProof() {
        var path = established()
        _ = path.checked(from: rebound, nominating: false, now: at(100))
        _ = path.authenticated(from: rebound, now: at(200))    // home not silent: no switch
        _ = path.authenticated(from: home, now: at(250))
        #expect(path.checked(from: rebound, nominating: true, now: at(300)) == nil, "proof at 200 predates the nomination")
        #expect(path.authenticated(from: rebound, now: at(320)) == rebound)
    }

    @Test("an ICE restart's new credentials forget addresses checked with the old ones")
    func credentialsRenewed() {
        var path = established()
        _ = path.checked(from: rebound, nominating: true, now: at(100))
        path.credentialsRenewed()
        #expect(path.target == home)
        #expect(path.authenticated(from: rebound, now: at(200)) == nil, "must check in with the new credentials")
        _ = path.checked(from: rebound, nominating: true, now: at(300))
        #expect(path.authenticated(from: rebound, now: at(310)) == rebound)
    }

    @Test("at most eight addresses are remembered, the oldest forgotten first")
    func bounded() {
        var path = established()
        for port in 0..<10 { _ = path.checked(from: PeerAddress(ipv4: 0x0A00_0001, port: UInt16(port)), nominating: false, now: at(10)) }
        #expect(path.candidates.count == MediaPath.maxAddresses - 1)
        #expect(!path.isChecked(PeerAddress(ipv4: 0x0A00_0001, port: 0)))
        #expect(path.isChecked(PeerAddress(ipv4: 0x0A00_0001, port: 9)))
    }
}
