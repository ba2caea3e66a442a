// The parts of libopus 1.3 and libvpx 1.12 that Swift cannot import: variadic ctl/control
// calls and function-like init macros. Each wrapper does exactly what its macro or typed ctl does.
#ifndef PARLEY_CODEC_SHIM_H
#define PARLEY_CODEC_SHIM_H

#include <stdint.h>
#include <opus/opus.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>

// MARK: libopus (opus_encoder_ctl / opus_decoder_ctl are variadic)

int parley_opus_encoder_set_bitrate(OpusEncoder *enc, int32_t bitsPerSecond);
int parley_opus_encoder_get_bitrate(OpusEncoder *enc, int32_t *bitsPerSecond);
int parley_opus_encoder_set_complexity(OpusEncoder *enc, int32_t complexity);
int parley_opus_encoder_set_inband_fec(OpusEncoder *enc, int32_t enabled);
int parley_opus_encoder_set_packet_loss_perc(OpusEncoder *enc, int32_t percent);
int parley_opus_encoder_set_dtx(OpusEncoder *enc, int32_t enabled);
int parley_opus_encoder_reset_state(OpusEncoder *enc);
int parley_opus_decoder_reset_state(OpusDecoder *dec);

// MARK: libvpx

/// `VPX_DL_REALTIME`, `VPX_EFLAG_FORCE_KF`, `VPX_FRAME_IS_KEY`.
extern const unsigned long parley_VPX_DL_REALTIME;
extern const long parley_VPX_EFLAG_FORCE_KF;
extern const uint32_t parley_VPX_FRAME_IS_KEY;

/// `vpx_codec_enc_init(ctx, iface, cfg, flags)` (a macro over the ABI-versioned function).
vpx_codec_err_t parley_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                          const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags);
/// `vpx_codec_dec_init(ctx, iface, cfg, flags)`.
vpx_codec_err_t parley_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                          const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags);
/// `vpx_codec_control(ctx, id, value)` for the controls that take an `int` (e.g. VP8E_SET_CPUUSED).
vpx_codec_err_t parley_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int id, int value);
/// `vpx_codec_control(ctx, id, &value)` for the controls that return an `int` (e.g. VP8D_GET_FRAME_CORRUPTED).
vpx_codec_err_t parley_vpx_codec_control_get_int(vpx_codec_ctx_t *ctx, int id, int *value);

#endif
