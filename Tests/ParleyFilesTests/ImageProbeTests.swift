import ParleyFiles
import ParleyTestSupport
import Testing

@Suite("Images: PNG, JPEG, GIF sizes")
struct ImageProbeTests {
    /// The 1×1 PNG Parley's HTTP tests upload (signature, IHDR, IDAT, IEND).
    static let onePixelPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
        0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        let ihdr = ISOWriter.u32(width) + ISOWriter.u32(height) + [8, 2, 0, 0, 0]
        return Array(onePixelPNG[0..<8]) + ISOWriter.u32(13) + Array("IHDR".utf8) + ihdr + [0, 0, 0, 0]
    }

    /// SOI, APP0 JFIF, a DQT, optional fill bytes, a start-of-frame `sof` with the size, DHT, SOS, EOI.
    static func jpeg(sof: UInt8 = 0xC0, width: Int, height: Int) -> [UInt8] {
        let app0: [UInt8] = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
        let dqt: [UInt8] = [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        let frame: [UInt8] = [0xFF, 0xFF, 0xFF, sof, 0x00, 0x11, 8] + ISOWriter.u16(height) + ISOWriter.u16(width)
            + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        let dht: [UInt8] = [0xFF, 0xC4, 0x00, 0x14, 0x00] + [1] + [UInt8](repeating: 0, count: 15) + [0]
        let sos: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0] + [0x12, 0x34]
        return [0xFF, 0xD8] + app0 + dqt + frame + dht + sos + [0xFF, 0xD9]
    }

    @Test func pngSizeFromIHDR() {
        #expect(MediaProbe.probe(Self.onePixelPNG) == MediaInfo(type: .png, width: 1, height: 1))
        #expect(MediaProbe.probe(Self.png(width: 1170, height: 2532)) == MediaInfo(type: .png, width: 1170, height: 2532))
    }

    @Test func jpegSizeFromBaselineAndProgressiveFrames() {
        #expect(MediaProbe.probe(Self.jpeg(width: 4032, height: 3024)) == MediaInfo(type: .jpeg, width: 4032, height: 3024))
        #expect(MediaProbe.probe(Self.jpeg(sof: 0xC2, width: 640, height: 480)) == MediaInfo(type: .jpeg, width: 640, height: 480))
    }

    @Test func aJPEGWhoseFrameNeverComesHasNoSize() {
        let signatureOnly: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
                                      0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9]
        #expect(MediaProbe.probe(signatureOnly) == MediaInfo(type: .jpeg))
    }

    @Test func gifLogicalScreenSize() {
        let gif = Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00, 0x00, 0x00, 0x00] + [0x3B]
        #expect(MediaProbe.probe(gif) == MediaInfo(type: .gif, width: 320, height: 240))
    }
}
