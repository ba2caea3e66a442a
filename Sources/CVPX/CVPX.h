// libvpx 1.12 (Debian: libvpx-dev) for Swift: the VP8 encoder and decoder interfaces.
// vpx_codec_enc_init / vpx_codec_dec_init are macros and vpx_codec_control is variadic:
// their wrappers live in CParleyCodecShim.
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
