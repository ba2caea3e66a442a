#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sine-wave test signal cut into 20 ms Int16 frames at 48 kHz — the audio a load-test client
/// sends so a receiver can check, with `ToneDetector`, that it hears the tone it should.
///
/// Phase carries over between frames, so the concatenated frames are one continuous sine.
public struct TonePCM: Sendable {
    public let frequency: Double
    public let amplitude: Int16
    public let channels: Int
    public let sampleRate: Int
    /// Samples per channel per frame: 20 ms.
    public var samplesPerChannelPerFrame: Int { sampleRate / 50 }

    private var phase = 0.0

    /// - Parameters:
    ///   - frequency: in Hz, below the Nyquist frequency.
    ///   - amplitude: peak, default about −10 dBFS.
    ///   - channels: 1 or 2 (the same tone on both, interleaved).
    public init(frequency: Double, amplitude: Int16 = 10_000, channels: Int = 1, sampleRate: Int = 48_000) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.channels = max(1, min(2, channels))
        self.sampleRate = max(1, sampleRate)
    }

    /// Writes the next 20 ms into `pcm`, reusing its storage.
    public mutating func nextFrame(into pcm: inout [Int16]) {
        let count = samplesPerChannelPerFrame * channels
        if pcm.count != count { pcm = [Int16](repeating: 0, count: count) }
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        for i in 0..<samplesPerChannelPerFrame {
            let sample = Int16(Double(amplitude) * sin(phase))
            for c in 0..<channels { pcm[i * channels + c] = sample }
            phase += step
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        }
    }

    /// The next 20 ms as new PCM.
    public mutating func nextFrame() -> [Int16] {
        var pcm: [Int16] = []
        nextFrame(into: &pcm)
        return pcm
    }
}
