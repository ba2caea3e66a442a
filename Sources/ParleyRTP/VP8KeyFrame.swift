/// Whether a VP8 RTP payload starts a key frame (RFC 7741 §4.2–4.3): the packet opens partition 0
/// of a frame (S=1, PID=0) and the frame's first byte has P=0. The relay reads only this much
/// of VP8 — it never decodes — to know that a receiver it asked a key frame for has one.
public enum VP8KeyFrame {
    /// `payload` is the RTP payload (after the header and its extension, before padding).
    /// False for anything too short to say.
    public static func starts(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let first = payload.first, first & 0x10 != 0, first & 0x07 == 0 else { return false }
        var offset = 1
        if first & 0x80 != 0 {   // X: an octet of I/L/T/K flags follows
            guard payload.count > offset else { return false }
            let flags = payload[offset]
            offset += 1
            if flags & 0x80 != 0 {   // I: PictureID, two octets when its M bit is set
                guard payload.count > offset else { return false }
                offset += payload[offset] & 0x80 != 0 ? 2 : 1
            }
            if flags & 0x40 != 0 { offset += 1 }   // L: TL0PICIDX
            if flags & 0x30 != 0 { offset += 1 }   // T or K: TID/Y/KEYIDX
        }
        guard payload.count > offset else { return false }
        return payload[offset] & 0x01 == 0   // the VP8 payload header's P bit: 0 for a key frame
    }
}
