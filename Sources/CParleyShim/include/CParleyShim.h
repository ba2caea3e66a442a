// The parts of OpenSSL 3.0 and libsrtp2 that Swift cannot import: function-like macros and
// constants built from them. Each wrapper does exactly what the macro of the same name does.
#ifndef PARLEY_SHIM_H
#define PARLEY_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <srtp2/srtp.h>

// MARK: OpenSSL

/// SSL_OP_* are `SSL_OP_BIT(n)` expressions, which Swift does not import.
extern const uint64_t parley_SSL_OP_NO_QUERY_MTU;
extern const uint64_t parley_SSL_OP_NO_TICKET;
extern const uint64_t parley_SSL_OP_CIPHER_SERVER_PREFERENCE;
extern const uint64_t parley_SSL_OP_NO_RENEGOTIATION;

long parley_SSL_set_mtu(SSL *ssl, long mtu);
long parley_DTLS_set_link_mtu(SSL *ssl, long mtu);
long parley_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
int parley_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
int parley_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version);
int parley_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list);
/// `SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL)`.
int parley_SSL_get_ex_new_index(void);

/// `DTLSv1_get_timeout`, as microseconds: returns 1 and sets `*micros` while a retransmission
/// timer runs (0 when it has already expired), 0 when no timer runs.
int parley_DTLSv1_get_timeout_us(SSL *ssl, int64_t *micros);
int parley_DTLSv1_handle_timeout(SSL *ssl);

long parley_BIO_get_mem_data(BIO *bio, char **data);
size_t parley_BIO_pending(BIO *bio);
long parley_BIO_set_mem_eof_return(BIO *bio, long value);
void parley_OPENSSL_free(void *pointer);

/// `EVP_EC_gen(curve)`, e.g. "P-256": a fresh EC key pair, or NULL.
EVP_PKEY *parley_EVP_EC_gen(const char *curve);
/// `EVP_RSA_gen(bits)`: a fresh RSA key pair, or NULL.
EVP_PKEY *parley_EVP_RSA_gen(unsigned int bits);
/// `BIO_reset(bio)`: empties a memory BIO.
int parley_BIO_reset(BIO *bio);

// MARK: libsrtp

/// Bytes SRTP may append to a packet (tag + MKI), `SRTP_MAX_TRAILER_LEN`.
extern const int parley_SRTP_MAX_TRAILER_LEN;

/// `srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80` is a macro over the RTP default.
void parley_srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *policy);

#endif
