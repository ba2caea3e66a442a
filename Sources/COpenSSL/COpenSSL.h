// OpenSSL 3.0 (Debian: libssl-dev) for Swift: what the DTLS endpoint uses.
// Function-like macros and SSL_OP_* constants Swift cannot import live in CParleyShim.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
