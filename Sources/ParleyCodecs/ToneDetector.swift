#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Recovers a tone's frequency from PCM, e.g. decoded Opus, to check what a peer sent.
///
/// `dominantFrequency` counts rising zero crossings with linear interpolation between samples,
/// which for a clean tone is accurate to well under 1 Hz over a second of audio. `power(at:)` is a
/// Goertzel filter, to tell two candidate tones apart.
public enum ToneDetector {
    /// The frequency of a single dominant tone in one channel of interleaved PCM, or nil if the
    /// signal never crosses zero twice (silence, DC).
    ///
    /// - Parameters:
    ///   - channel: which channel of `channels` to read.
    ///   - hysteresis: a crossing counts only after the signal went below −hysteresis, so noise
    ///     around zero is not counted.
    public static func dominantFrequency(
        _ pcm: [Int16], channels: Int = 1, channel: Int = 0, sampleRate: Int = 48_000, hysteresis: Int16 = 300
    ) -> Double? {
        guard channels > 0, (0..<channels).contains(channel), sampleRate > 0 else { return nil }
        var first: Double?
        var last = 0.0
        var crossings = 0
        var armed = false
        var previous = 0
        var index = channel
        var n = 0
        while index < pcm.count {
            let sample = Int(pcm[index])
            if sample < -Int(hysteresis) { armed = true }
            if armed, n > 0, previous < 0, sample >= 0 {
                // Linear interpolation of where the signal crossed zero between n-1 and n.
                let t = Double(n - 1) + Double(-previous) / Double(sample - previous)
                if first == nil { first = t } else { crossings += 1; last = t }
                armed = false
            }
            previous = sample
            index += channels
            n += 1
        }
        guard let first, crossings > 0, last > first else { return nil }
        return Double(crossings) * Double(sampleRate) / (last - first)
    }

    /// The Goertzel power of `frequency` in one channel, normalised by the sample count squared:
    /// a full-scale sine at that frequency gives about 0.25 × amplitude².
    public static func power(
        at frequency: Double, in pcm: [Int16], channels: Int = 1, channel: Int = 0, sampleRate: Int = 48_000
    ) -> Double {
        guard channels > 0, (0..<channels).contains(channel), sampleRate > 0 else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var s1 = 0.0, s2 = 0.0, count = 0
        var index = channel
        while index < pcm.count {
            let s0 = Double(pcm[index]) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
            index += channels
            count += 1
        }
        guard count > 0 else { return 0 }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return power / Double(count * count)
    }
}
