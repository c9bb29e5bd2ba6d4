#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* Macros over SSL_ctrl / SSL_CTX_ctrl, which Swift cannot import, as functions. */

static inline int healthstore_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int healthstore_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
