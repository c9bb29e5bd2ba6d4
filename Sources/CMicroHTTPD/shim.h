#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <microhttpd.h>

// Swift cannot call C variadic functions: these wrappers make the variadic calls HealthStore needs.

/// Starts a daemon driven by the caller's event loop (epoll, no internal thread) on an already
/// listening socket. With both `tls_key` and `tls_cert` (PEM text), it serves HTTPS.
static inline struct MHD_Daemon *hs_mhd_start(int listen_fd, MHD_AccessHandlerCallback handler,
                                              MHD_RequestCompletedCallback completed, void *context,
                                              unsigned int connection_limit, unsigned int timeout_seconds,
                                              const char *tls_key, const char *tls_cert) {
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    if (tls_key != NULL && tls_cert != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, context,
                                MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                                MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                MHD_OPTION_HTTPS_MEM_KEY, tls_key,
                                MHD_OPTION_HTTPS_MEM_CERT, tls_cert,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_END);
}

/// The daemon's epoll descriptor: readable whenever MHD_run has work.
static inline int hs_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/// The peer's address, or NULL.
static inline const struct sockaddr *hs_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// MHD_SIZE_UNKNOWN and the content reader's end marker (macros Swift does not import).
static const uint64_t hs_mhd_size_unknown = MHD_SIZE_UNKNOWN;
static const ssize_t hs_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;

/// A response holding its own copy of `size` bytes (the mode's enum is not importable by name).
static inline struct MHD_Response *hs_mhd_response_copy(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *) bytes, MHD_RESPMEM_MUST_COPY);
}
