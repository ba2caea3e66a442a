#include "CParleyCodecShim.h"

int parley_opus_encoder_set_bitrate(OpusEncoder *enc, int32_t bps) {
    return opus_encoder_ctl(enc, OPUS_SET_BITRATE(bps));
}
int parley_opus_encoder_get_bitrate(OpusEncoder *enc, int32_t *bps) {
    return opus_encoder_ctl(enc, OPUS_GET_BITRATE(bps));
}
int parley_opus_encoder_set_complexity(OpusEncoder *enc, int32_t complexity) {
    return opus_encoder_ctl(enc, OPUS_SET_COMPLEXITY(complexity));
}
int parley_opus_encoder_set_inband_fec(OpusEncoder *enc, int32_t enabled) {
    return opus_encoder_ctl(enc, OPUS_SET_INBAND_FEC(enabled));
}
int parley_opus_encoder_set_packet_loss_perc(OpusEncoder *enc, int32_t percent) {
    return opus_encoder_ctl(enc, OPUS_SET_PACKET_LOSS_PERC(percent));
}
int parley_opus_encoder_set_dtx(OpusEncoder *enc, int32_t enabled) {
    return opus_encoder_ctl(enc, OPUS_SET_DTX(enabled));
}
int parley_opus_encoder_reset_state(OpusEncoder *enc) { return opus_encoder_ctl(enc, OPUS_RESET_STATE); }
int parley_opus_decoder_reset_state(OpusDecoder *dec) { return opus_decoder_ctl(dec, OPUS_RESET_STATE); }

const unsigned long parley_VPX_DL_REALTIME = VPX_DL_REALTIME;
const long parley_VPX_EFLAG_FORCE_KF = VPX_EFLAG_FORCE_KF;
const uint32_t parley_VPX_FRAME_IS_KEY = VPX_FRAME_IS_KEY;

vpx_codec_err_t parley_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                          const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, iface, cfg, flags);
}
vpx_codec_err_t parley_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                          const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, iface, cfg, flags);
}
vpx_codec_err_t parley_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int id, int value) {
    return vpx_codec_control_(ctx, id, value);
}
vpx_codec_err_t parley_vpx_codec_control_get_int(vpx_codec_ctx_t *ctx, int id, int *value) {
    return vpx_codec_control_(ctx, id, value);
}
