import ParleyMediaClient
import Testing
@testable import ParleyLoadTest

@Suite("Impaired links: netem profiles, the user-space link, the receiver's reorder buffer")
struct ImpairedLinkTests {
    @Test func netemArgumentsAndNamedProfiles() throws {
        let profile = try NetemProfile("delay 40ms 10ms loss 2%")
        #expect(profile.delayMs == 40 && profile.jitterMs == 10 && profile.lossPercent == 2)
        #expect(profile.arguments == "delay 40ms 10ms loss 2%" && profile.name == nil)
        #expect(profile.impairment == LinkImpairment(delay: .milliseconds(40), jitter: .milliseconds(10), loss: 0.02))
        #expect(profile.userSpaceCaveats.isEmpty)

        let lte = try NetemProfile("lte")
        #expect(lte.name == "lte" && lte.arguments == "delay 40ms 10ms loss 1%")
        for (name, _) in NetemProfile.named { #expect((try? NetemProfile(name)) != nil, "\(name)") }

        let full = try NetemProfile("delay 100ms 20ms 25% loss random 1.5% 10% duplicate 1% reorder 5% rate 2mbit")
        #expect(full.delayMs == 100 && full.lossPercent == 1.5 && full.duplicatePercent == 1 && full.reorderPercent == 5)
        #expect(full.rate == "2mbit" && full.hasCorrelation && full.userSpaceCaveats.count == 2)
        #expect(try NetemProfile("delay 1.5s").delayMs == 1_500)
        #expect(try NetemProfile("delay 500us").delayMs == 0.5)
    }

    @Test func badProfilesFailEarlyWithAReason() {
        for bad in ["", "delay", "delay fast", "loss 120%", "loss", "jitter 5ms", "reorder 5%", "rate", "corrupt 1%"] {
            #expect(throws: NetemProfile.Invalid.self, "\(bad)") { try NetemProfile(bad) }
        }
    }

    @Test func userSpaceLinkLosesDelaysAndReorders() {
        var random = SeededRandom(seed: 42)
        let link = LinkImpairment(delay: .milliseconds(40), jitter: .milliseconds(10), loss: 0.02)
        var lost = 0
        var delays: [Duration] = []
        for _ in 0..<20_000 {
            switch link.fate(using: &random) {
            case .lost: lost += 1
            case .delivered(let after, let copies):
                #expect(copies == 1)
                delays.append(after)
            }
        }
        #expect((300...500).contains(lost), "about 2 % of 20 000: \(lost)")
        #expect(delays.allSatisfy { $0 >= .milliseconds(30) && $0 <= .milliseconds(50) })
        // Jitter wider than the spacing of packets 1 ms apart: some overtake the one before.
        let arrivals = delays.enumerated().map { Duration.milliseconds($0.offset) + $0.element }
        #expect(zip(arrivals, arrivals.dropFirst()).contains { $0 > $1 })

        let none = LinkImpairment()
        #expect(none.isNone && none.fate(using: &random) == .delivered(after: .zero, copies: 1))
        let reorderAll = LinkImpairment(delay: .milliseconds(40), reorder: 1)
        #expect(reorderAll.fate(using: &random) == .delivered(after: .zero, copies: 1))
    }

    @Test func reorderBufferHoldsAfterAGapNACKsAndGivesUp() {
        let t0 = ContinuousClock.now
        var buffer = VideoReorderBuffer(maxWait: .milliseconds(100), nackInterval: .milliseconds(30), maxNACKs: 2)
        var missing: [UInt16] = []
        var out: [VideoReorderBuffer.Packet] = []
        func arrive(_ sequence: UInt16, at ms: Int) -> VideoReorderBuffer.Arrival {
            buffer.arrive(sequence: sequence, marker: false, payload: [UInt8(sequence & 0xFF)], now: t0 + .milliseconds(ms),
                          newlyMissing: &missing)
        }
        // In order across the wrap: straight through, nothing held.
        #expect(arrive(65_534, at: 0) == .inOrder)
        #expect(arrive(65_535, at: 1) == .inOrder)
        #expect(arrive(0, at: 2) == .inOrder && !buffer.isHolding)
        // 1 and 2 missing: 3 and 4 wait, the gap is NACKed at once.
        #expect(arrive(3, at: 3) == .held(filledGap: false))
        #expect(missing == [1, 2])
        #expect(arrive(4, at: 4) == .held(filledGap: false))
        #expect(missing == [1, 2])
        buffer.release(now: t0 + .milliseconds(5), into: &out)
        #expect(out.isEmpty)
        // 1 comes (retransmitted): it and nothing after the next gap goes on.
        #expect(arrive(1, at: 20) == .held(filledGap: true))
        buffer.release(now: t0 + .milliseconds(20), into: &out)
        #expect(out.map(\.sequence) == [1])
        // 2 is asked for again once the interval has passed, at most maxNACKs times in all.
        #expect(buffer.nacksDue(now: t0 + .milliseconds(10)).isEmpty)
        #expect(buffer.nacksDue(now: t0 + .milliseconds(40)) == [2])
        #expect(buffer.nacksDue(now: t0 + .milliseconds(80)).isEmpty)
        // Past maxWait the gap is given up and what waited goes on; 2 arriving then is late.
        buffer.release(now: t0 + .milliseconds(103), into: &out)
        #expect(out.map(\.sequence) == [1, 3, 4] && buffer.givenUp == 1 && !buffer.isHolding)
        #expect(arrive(2, at: 110) == .late)
        #expect(arrive(4, at: 111) == .late)
        #expect(arrive(5, at: 112) == .inOrder)
    }

    @Test func reorderBufferWithNoWaitGivesUpAtOnce() {
        let t0 = ContinuousClock.now
        var buffer = VideoReorderBuffer(maxWait: .zero)
        var missing: [UInt16] = []
        var out: [VideoReorderBuffer.Packet] = []
        #expect(buffer.arrive(sequence: 10, marker: false, payload: [1], now: t0, newlyMissing: &missing) == .inOrder)
        #expect(buffer.arrive(sequence: 12, marker: true, payload: [2], now: t0, newlyMissing: &missing) == .held(filledGap: false))
        buffer.release(now: t0, into: &out)
        #expect(out == [.init(sequence: 12, marker: true, payload: [2])] && buffer.givenUp == 1 && missing == [11])
    }
}

/// A small deterministic generator (SplitMix64), so the link's dice are the same every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("The reorder buffer's first NACK waits for reordering")
struct ReorderNACKDelayTests {
    @Test func aGapThatFillsByItselfIsNeverNACKed() {
        let t0 = ContinuousClock.now
        var buffer = VideoReorderBuffer(maxWait: .milliseconds(200), firstNACKDelay: .milliseconds(20), nackInterval: .milliseconds(100))
        var missing: [UInt16] = []
        var out: [VideoReorderBuffer.Packet] = []
        #expect(buffer.arrive(sequence: 1, marker: false, payload: [1], now: t0, newlyMissing: &missing) == .inOrder)
        #expect(buffer.arrive(sequence: 3, marker: false, payload: [3], now: t0, newlyMissing: &missing) == .held(filledGap: false))
        #expect(buffer.arrive(sequence: 5, marker: false, payload: [5], now: t0, newlyMissing: &missing) == .held(filledGap: false))
        #expect(missing.isEmpty, "not at once")
        // 2 comes 10 ms late (reordered): never asked for; 4 does not: asked for after 20 ms.
        #expect(buffer.arrive(sequence: 2, marker: false, payload: [2], now: t0 + .milliseconds(10), newlyMissing: &missing) == .held(filledGap: true))
        #expect(buffer.nacksDue(now: t0 + .milliseconds(15)).isEmpty)
        #expect(buffer.nacksDue(now: t0 + .milliseconds(20)) == [4])
        #expect(buffer.nacksDue(now: t0 + .milliseconds(60)).isEmpty)
        #expect(buffer.nacksDue(now: t0 + .milliseconds(120)) == [4])
        buffer.release(now: t0 + .milliseconds(120), into: &out)
        #expect(out.map(\.sequence) == [2, 3])
    }
}
