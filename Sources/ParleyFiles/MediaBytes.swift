import Foundation

/// Bounds-checked reads over a file's bytes for the media parsers: every read returns nil instead
/// of trapping when it would run past the end, so malformed or truncated uploads cannot crash us.
/// Over `Data`, so that a file on disk is read through a memory map (`MediaProbe.probe(fileAt:)`)
/// rather than copied whole into memory.
struct MediaBytes {
    let bytes: Data

    init(_ bytes: [UInt8]) { self.bytes = Data(bytes) }

    /// Indexes count from 0 whatever slice `data` is.
    init(_ data: Data) { self.bytes = data.startIndex == 0 ? data : Data(data) }

    var count: Int { bytes.count }

    /// True when `length` bytes starting at `offset` are all inside the buffer.
    func has(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && length <= bytes.count && offset <= bytes.count - length
    }

    func u8(_ offset: Int) -> UInt8? {
        has(offset, 1) ? bytes[offset] : nil
    }

    func u16be(_ offset: Int) -> UInt16? { unsigned(offset, 2, bigEndian: true).map { UInt16($0) } }
    func u32be(_ offset: Int) -> UInt32? { unsigned(offset, 4, bigEndian: true).map { UInt32($0) } }
    func u64be(_ offset: Int) -> UInt64? { unsigned(offset, 8, bigEndian: true) }
    func u16le(_ offset: Int) -> UInt16? { unsigned(offset, 2, bigEndian: false).map { UInt16($0) } }
    func u32le(_ offset: Int) -> UInt32? { unsigned(offset, 4, bigEndian: false).map { UInt32($0) } }
    func u64le(_ offset: Int) -> UInt64? { unsigned(offset, 8, bigEndian: false) }

    /// True when the ASCII text `tag` appears at `offset`.
    func matches(_ tag: String, at offset: Int) -> Bool {
        let utf8 = tag.utf8
        guard has(offset, utf8.count) else { return false }
        var index = offset
        for byte in utf8 {
            if bytes[index] != byte { return false }
            index += 1
        }
        return true
    }

    /// The four bytes at `offset` as text (an ISO box type, a RIFF chunk id, a brand).
    func fourCC(_ offset: Int) -> String? {
        has(offset, 4) ? String(decoding: bytes[offset..<offset + 4], as: UTF8.self) : nil
    }

    private func unsigned(_ offset: Int, _ length: Int, bigEndian: Bool) -> UInt64? {
        guard has(offset, length) else { return nil }
        var value: UInt64 = 0
        for index in 0..<length {
            let byte = bytes[bigEndian ? offset + index : offset + length - 1 - index]
            value = value << 8 | UInt64(byte)
        }
        return value
    }
}
