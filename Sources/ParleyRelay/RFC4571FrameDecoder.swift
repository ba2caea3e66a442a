import NIOCore
import ParleyRTP

/// What the relay reads from a TCP media connection: a packet, or a length that ends the stream.
enum TCPFrame {
    /// One RFC 4571 frame's packet (a slice of what was read, no copy).
    case packet(ByteBuffer)
    /// A LENGTH over the largest packet accepted: nothing after it is read.
    case tooLong(Int)
}

/// Splits a TCP byte stream into RFC 4571 frames (``RFC4571Frame``), however the reads cut
/// them: several frames in one read, or one frame over several. After a length over
/// `maxLength` it reports ``TCPFrame/tooLong(_:)`` once and discards the rest.
struct RFC4571FrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = TCPFrame

    let maxLength: Int
    private var isBroken = false

    init(maxLength: Int) {
        self.maxLength = maxLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard !isBroken else {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        let maxLength = self.maxLength
        switch buffer.withUnsafeReadableBytes({ RFC4571Frame.next(in: $0, maxLength: maxLength) }) {
        case .incomplete:
            return .needMoreData
        case .tooLong(let length):
            isBroken = true
            buffer.moveReaderIndex(to: buffer.writerIndex)
            context.fireChannelRead(wrapInboundOut(.tooLong(length)))
            return .needMoreData
        case .frame(let length):
            buffer.moveReaderIndex(forwardBy: RFC4571Frame.headerSize)
            guard let packet = buffer.readSlice(length: length) else { return .needMoreData }
            context.fireChannelRead(wrapInboundOut(.packet(packet)))
            return .continue
        }
    }

    /// A partial frame at the end of the stream is dropped with the connection.
    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
