/// A synthetic I420 video source for load tests: a moving bar over a gradient, with the frame
/// number written into the picture so a receiver can read it back after lossy VP8 coding.
///
/// The number's 16 bits are drawn MSB first as 16×16 blocks (one VP8 macroblock each, RFC 6386
/// §2) along the top row — white for 1, black for 0 — and again, inverted, on the row below.
/// A reader compares each block's centre with its inverted twin, so a picture that does not carry
/// the code (or is too damaged) reads as nil rather than as a wrong number.
public struct MovingPattern: Sendable {
    /// Side of one code block, in pixels.
    public static let blockSize = 16
    /// Bits of frame number carried (numbers wrap at 65536).
    public static let bitCount = 16
    /// Smallest picture that holds the code: 256×64.
    public static let minimumWidth = blockSize * bitCount
    public static let minimumHeight = blockSize * 4

    public let width: Int
    public let height: Int

    /// Nil when the size cannot hold the code (below 256×64) or is not even (I420 chroma).
    public init?(width: Int, height: Int) {
        guard width >= Self.minimumWidth, height >= Self.minimumHeight, width % 2 == 0, height % 2 == 0,
              width <= 16_383, height <= 16_383
        else { return nil }
        self.width = width
        self.height = height
    }

    /// Draws frame `number` into `frame`, resizing it only if its size differs.
    public func render(frameNumber number: Int, into frame: inout I420Frame) {
        frame.resize(width: width, height: height)
        let code = UInt16(truncatingIfNeeded: number)
        let codeRows = 2 * Self.blockSize
        let barWidth = 24
        let barX = (number * 6) % (width + barWidth) - barWidth
        frame.y.withUnsafeMutableBufferPointer { y in
            for row in 0..<height {
                let line = row * width
                if row < codeRows {
                    let inverted = row >= Self.blockSize
                    for x in 0..<width {
                        let block = x / Self.blockSize
                        var value: UInt8 = 128
                        if block < Self.bitCount {
                            let bit = (code >> UInt16(Self.bitCount - 1 - block)) & 1 == 1
                            value = bit != inverted ? 235 : 16
                        }
                        y[line + x] = value
                    }
                } else {
                    for x in 0..<width {
                        let onBar = x >= barX && x < barX + barWidth
                        // A gradient plus texture that scrolls two pixels a frame, so every frame
                        // costs bits as camera video does and the rate control has work to do.
                        let grain = Self.texture(x: x + 2 * number, y: row)
                        y[line + x] = onBar ? 220 : UInt8(40 + (x * 120) / width + grain)
                    }
                }
            }
        }
        let cw = frame.chromaWidth, ch = frame.chromaHeight
        for row in 0..<ch {
            for x in 0..<cw {
                let onBar = row * 2 >= codeRows && x * 2 >= barX && x * 2 < barX + barWidth
                frame.u[row * cw + x] = onBar ? 90 : 128
                frame.v[row * cw + x] = onBar ? 200 : 128
            }
        }
    }

    /// A new frame showing frame `number`.
    public func frame(number: Int) -> I420Frame {
        var frame = I420Frame(width: width, height: height)
        render(frameNumber: number, into: &frame)
        return frame
    }

    /// Reads the frame number from a (decoded) picture, or nil if the code is not there.
    public static func readFrameNumber(from frame: I420Frame) -> UInt16? {
        guard frame.width >= minimumWidth, frame.height >= 2 * blockSize, frame.isWellFormed else { return nil }
        var value: UInt16 = 0
        for block in 0..<bitCount {
            let plain = centreLuma(frame, blockX: block, blockY: 0)
            let inverted = centreLuma(frame, blockX: block, blockY: 1)
            // A genuine bit is a bright block over a dark one or the reverse, far apart.
            guard abs(plain - inverted) > 64 else { return nil }
            value = value << 1 | (plain > inverted ? 1 : 0)
        }
        return value
    }

    /// A fixed pseudo-random value in 0..<48 per 4×4 cell.
    private static func texture(x: Int, y: Int) -> Int {
        var h = UInt32(truncatingIfNeeded: (x >> 2) &* 73_856_093 ^ (y >> 2) &* 19_349_663)
        h ^= h >> 13
        h = h &* 0x5bd1_e995
        h ^= h >> 15
        return Int(h % 48)
    }

    /// Mean luma of the central 8×8 of a block: away from edges where coding ringing lives.
    private static func centreLuma(_ frame: I420Frame, blockX: Int, blockY: Int) -> Int {
        let x0 = blockX * blockSize + 4, y0 = blockY * blockSize + 4
        var sum = 0
        for row in y0..<y0 + 8 {
            for x in x0..<x0 + 8 { sum += Int(frame.y[row * frame.width + x]) }
        }
        return sum / 64
    }
}
