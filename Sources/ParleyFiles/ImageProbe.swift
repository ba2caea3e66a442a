/// Pixel size of PNG, JPEG and GIF images, as stored (EXIF orientation is not applied).
///
/// - PNG (ISO/IEC 15948, PNG specification §11.2.2): the first chunk after the 8-byte signature must
///   be `IHDR`, 13 bytes: width and height as 32-bit big-endian integers.
/// - JPEG (ITU-T T.81 Annex B): markers after SOI are walked — `FF` (plus any fill `FF`s) and a
///   marker code; RSTn, TEM and SOI stand alone, every other segment has a 16-bit length counting
///   itself. The first start-of-frame (SOF0–3, 5–7, 9–11, 13–15; not DHT C4, JPG C8, DAC CC) holds
///   precision, then height and width (B.2.2). The walk gives up at SOS or EOI.
/// - GIF (GIF89a specification §18, Logical Screen Descriptor): 16-bit little-endian width and
///   height right after the 6-byte signature.
enum ImageProbe {
    static func size(_ bytes: MediaBytes, type: MediaType) -> (width: Int, height: Int)? {
        let size: (UInt32, UInt32)?
        switch type {
        case .png:
            guard bytes.u32be(8) == 13, bytes.matches("IHDR", at: 12),
                  let width = bytes.u32be(16), let height = bytes.u32be(20) else { return nil }
            size = (width, height)
        case .gif:
            guard let width = bytes.u16le(6), let height = bytes.u16le(8) else { return nil }
            size = (UInt32(width), UInt32(height))
        case .jpeg:
            size = jpegSize(bytes)
        default:
            return nil
        }
        guard let (width, height) = size, width > 0, height > 0,
              width <= UInt32(Int32.max), height <= UInt32(Int32.max) else { return nil }
        return (Int(width), Int(height))
    }

    private static func jpegSize(_ bytes: MediaBytes) -> (UInt32, UInt32)? {
        var offset = 2
        while bytes.u8(offset) == 0xFF {
            var markerAt = offset + 1
            while bytes.u8(markerAt) == 0xFF { markerAt += 1 }  // Fill bytes.
            guard let marker = bytes.u8(markerAt) else { return nil }
            switch marker {
            case 0x01, 0xD0...0xD8:
                offset = markerAt + 1
                continue
            case 0xD9, 0xDA:
                return nil
            default:
                break
            }
            guard let length = bytes.u16be(markerAt + 1), length >= 2 else { return nil }
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isStartOfFrame {
                guard length >= 7, let height = bytes.u16be(markerAt + 4), let width = bytes.u16be(markerAt + 6)
                else { return nil }
                return (UInt32(width), UInt32(height))
            }
            offset = markerAt + 1 + Int(length)
        }
        return nil
    }
}
