// libsrtp2 (Debian: libsrtp2-dev) for Swift. Macros Swift cannot import live in CParleyShim.
#include <srtp2/srtp.h>
