#include "CParleyShim.h"

#include <openssl/ec.h>
#include <openssl/rsa.h>

const uint64_t parley_SSL_OP_NO_QUERY_MTU = SSL_OP_NO_QUERY_MTU;
const uint64_t parley_SSL_OP_NO_TICKET = SSL_OP_NO_TICKET;
const uint64_t parley_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
const uint64_t parley_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;

long parley_SSL_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }
long parley_DTLS_set_link_mtu(SSL *ssl, long mtu) { return DTLS_set_link_mtu(ssl, mtu); }
long parley_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
int parley_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
int parley_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
int parley_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) {
    return (int)SSL_CTX_set1_groups_list(ctx, list);
}
int parley_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

int parley_DTLSv1_get_timeout_us(SSL *ssl, int64_t *micros) {
    struct timeval tv = {0, 0};
    if (DTLSv1_get_timeout(ssl, &tv) != 1) return 0;
    *micros = (int64_t)tv.tv_sec * 1000000 + (int64_t)tv.tv_usec;
    return 1;
}
int parley_DTLSv1_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }

long parley_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
size_t parley_BIO_pending(BIO *bio) { return BIO_pending(bio); }
long parley_BIO_set_mem_eof_return(BIO *bio, long value) { return BIO_set_mem_eof_return(bio, value); }
void parley_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

EVP_PKEY *parley_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
EVP_PKEY *parley_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
int parley_BIO_reset(BIO *bio) { return (int)BIO_reset(bio); }

const int parley_SRTP_MAX_TRAILER_LEN = SRTP_MAX_TRAILER_LEN;

void parley_srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *policy) {
    srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(policy);
}
