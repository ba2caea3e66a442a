// libopus 1.3 (Debian: libopus-dev) for Swift. The variadic opus_encoder_ctl / opus_decoder_ctl
// cannot be called from Swift: their typed wrappers live in CParleyCodecShim.
#include <opus/opus.h>
