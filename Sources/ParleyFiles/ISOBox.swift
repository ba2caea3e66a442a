/// One box of an ISO base media file (ISO/IEC 14496-12 §4.2, "Object Structure"; the same layout as
/// a QuickTime atom): a 32-bit big-endian size and a four-character type, where size 1 means a
/// 64-bit `largesize` follows the type, size 0 means "to the end of the enclosing container", and a
/// `uuid` box carries a 16-byte extended type before its payload.
struct ISOBox {
    /// The four-character type, e.g. `moov`.
    let type: String
    /// The bytes after the header, clamped to the enclosing container (a truncated file yields a
    /// shorter payload rather than an out-of-bounds one).
    let payload: Range<Int>

    /// The boxes laid end to end in `range`; stops at the first header that is malformed (smaller
    /// than itself, or cut off) so garbage after valid boxes is ignored rather than misread.
    static func children(of bytes: MediaBytes, in range: Range<Int>) -> [ISOBox] {
        var boxes: [ISOBox] = []
        var offset = range.lowerBound
        let end = min(range.upperBound, bytes.count)
        while offset <= end - 8, let size32 = bytes.u32be(offset), let type = bytes.fourCC(offset + 4) {
            var header = 8
            var size: UInt64 = UInt64(size32)
            if size32 == 1 {
                guard offset <= end - 16, let large = bytes.u64be(offset + 8) else { break }
                size = large
                header = 16
            } else if size32 == 0 {
                size = UInt64(end - offset)
            }
            if type == "uuid" { header += 16 }
            guard size >= UInt64(header), offset <= end - header else { break }
            let available = UInt64(end - offset)
            let boxEnd = size >= available ? end : offset + Int(size)
            boxes.append(ISOBox(type: type, payload: (offset + header)..<boxEnd))
            if size >= available { break }
            offset = boxEnd
        }
        return boxes
    }

    /// The children of this box when it is a plain container (`moov`, `trak`, `mdia`, …); for a full
    /// box container such as `meta` pass `skipping: 4` to step over its version and flags.
    func children(of bytes: MediaBytes, skipping prefix: Int = 0) -> [ISOBox] {
        guard payload.count >= prefix else { return [] }
        return ISOBox.children(of: bytes, in: (payload.lowerBound + prefix)..<payload.upperBound)
    }
}

extension Array where Element == ISOBox {
    /// The first box of the given type.
    func first(_ type: String) -> ISOBox? { first { $0.type == type } }
}
