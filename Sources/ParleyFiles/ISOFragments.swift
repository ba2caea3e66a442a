/// Media time carried in movie fragments (ISO/IEC 14496-12 §8.8), for fragmented MP4 whose `moov`
/// holds no samples and says duration 0: each top-level `moof/traf` has a `tfhd` (§8.8.7) naming
/// its track and perhaps a default sample duration, and `trun` boxes (§8.8.8) listing samples with
/// their own durations or relying on that default — else on the track's `moov/mvex/trex` default
/// (§8.8.3).
enum ISOFragments {
    /// Summed sample durations per track id, in each track's media timescale.
    static func durations(_ bytes: MediaBytes, top: [ISOBox], movie: [ISOBox]) -> [UInt32: UInt64] {
        // trex: version/flags, track_ID, default_sample_description_index, default_sample_duration.
        var trackDefaults: [UInt32: UInt32] = [:]
        for trex in movie.first("mvex")?.children(of: bytes).filter({ $0.type == "trex" }) ?? [] {
            let start = trex.payload.lowerBound
            if trex.payload.count >= 16, let id = bytes.u32be(start + 4), let duration = bytes.u32be(start + 12) {
                trackDefaults[id] = duration
            }
        }
        var totals: [UInt32: UInt64] = [:]
        for moof in top where moof.type == "moof" {
            for traf in moof.children(of: bytes) where traf.type == "traf" {
                let parts = traf.children(of: bytes)
                guard let tfhd = parts.first("tfhd"), let (id, defaultDuration) = header(bytes, tfhd) else { continue }
                let fallback = defaultDuration ?? trackDefaults[id] ?? 0
                for trun in parts where trun.type == "trun" {
                    let (sum, overflow) = (totals[id] ?? 0).addingReportingOverflow(run(bytes, trun, defaultDuration: fallback))
                    totals[id] = overflow ? UInt64.max : sum
                }
            }
        }
        return totals
    }

    /// tfhd: version/flags, track_ID, then optional fields by flag — base data offset (0x01, 8 bytes),
    /// sample description index (0x02, 4), default sample duration (0x08, 4), …
    private static func header(_ bytes: MediaBytes, _ box: ISOBox) -> (UInt32, UInt32?)? {
        let start = box.payload.lowerBound
        guard box.payload.count >= 8, let flags = bytes.u32be(start).map({ $0 & 0xFF_FFFF }),
              let id = bytes.u32be(start + 4) else { return nil }
        guard flags & 0x08 != 0 else { return (id, nil) }
        let at = start + 8 + (flags & 0x01 != 0 ? 8 : 0) + (flags & 0x02 != 0 ? 4 : 0)
        guard at + 4 <= box.payload.upperBound else { return nil }
        return (id, bytes.u32be(at))
    }

    /// trun: version/flags, sample_count, optional data offset (0x01) and first-sample flags (0x04),
    /// then per sample optional duration (0x100), size (0x200), flags (0x400) and composition
    /// offset (0x800), 4 bytes each. Samples beyond the box's end are not counted.
    private static func run(_ bytes: MediaBytes, _ box: ISOBox, defaultDuration: UInt32) -> UInt64 {
        let start = box.payload.lowerBound, end = box.payload.upperBound
        guard box.payload.count >= 8, let flags = bytes.u32be(start).map({ $0 & 0xFF_FFFF }),
              let count = bytes.u32be(start + 4) else { return 0 }
        guard flags & 0x100 != 0 else { return UInt64(count) * UInt64(defaultDuration) }
        var offset = start + 8 + (flags & 0x01 != 0 ? 4 : 0) + (flags & 0x04 != 0 ? 4 : 0)
        let entry = [0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 4
        var total: UInt64 = 0
        for _ in 0..<Int(count) {
            guard offset + entry <= end, let duration = bytes.u32be(offset) else { break }
            total += UInt64(duration)
            offset += entry
        }
        return total
    }
}
