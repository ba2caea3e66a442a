/// Why a VP8 encoder or decoder call failed. Bad input never traps: it comes back as one of these.
public enum VP8CodecError: Error, Equatable, Sendable {
    /// A parameter outside what libvpx or this wrapper accepts (odd sizes are fine; zero is not).
    case invalidArgument(String)
    /// The frame handed to `encode` does not match the encoder's dimensions or has short planes.
    case frameMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// An empty compressed frame.
    case emptyFrame
    /// libvpx refused: `code` is the `vpx_codec_err_t`, `message` its error string and detail.
    case library(code: Int32, message: String)
    /// libvpx accepted the data but produced no picture (e.g. an inter frame before any key frame).
    case noPicture
    /// libvpx reports the decoded picture as corrupt (`VP8D_GET_FRAME_CORRUPTED`), e.g. after loss.
    case corruptPicture
}
