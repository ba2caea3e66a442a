import NIOCore
import ParleyRTP

extension MediaLink {
    /// Hands the packets of one read to the router (on the event loop, its only thread).
    final class Inbox<Message>: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = Message
        let router: Router
        let bytes: (Message) -> ByteBuffer
        let impairment: LinkImpairment?
        private var random = SystemRandomNumberGenerator()
        init(_ router: Router, impairment: LinkImpairment? = nil, bytes: @escaping (Message) -> ByteBuffer) {
            self.router = router
            self.impairment = impairment
            self.bytes = bytes
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = bytes(unwrapInboundIn(data))
            guard let impairment else {
                buffer.withUnsafeReadableBytes { router.packet($0) }
                return
            }
            switch impairment.fate(using: &random) {
            case .lost:
                return
            case .delivered(let after, let copies) where after == .zero:
                for _ in 0..<copies { buffer.withUnsafeReadableBytes { router.packet($0) } }
            case .delivered(let after, let copies):
                let router = self.router
                context.eventLoop.scheduleTask(in: .nanoseconds(after.nanoseconds)) {
                    for _ in 0..<copies { buffer.withUnsafeReadableBytes { router.packet($0) } }
                    router.readComplete()
                }
            }
        }
        func channelReadComplete(context: ChannelHandlerContext) {
            router.readComplete()
        }
        func channelInactive(context: ChannelHandlerContext) {
            router.finish()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// RFC 4571 frames out of the TCP stream; a length over 2048 is not the relay.
    struct FrameDecoder: ByteToMessageDecoder {
        typealias InboundOut = ByteBuffer
        struct TooLong: Error {}

        mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
            switch buffer.withUnsafeReadableBytes({ RFC4571Frame.next(in: $0, maxLength: 2_048) }) {
            case .incomplete:
                return .needMoreData
            case .tooLong:
                throw TooLong()
            case .frame(let length):
                buffer.moveReaderIndex(forwardBy: RFC4571Frame.headerSize)
                guard let packet = buffer.readSlice(length: length) else { return .needMoreData }
                context.fireChannelRead(wrapInboundOut(packet))
                return .continue
            }
        }
    }
}
