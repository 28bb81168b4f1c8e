/* What outbound requests (webhooks) may reach: the shape of an http(s) URL and the
 * addresses refused as local (loopback, private, link-local with the cloud metadata
 * address, unique local, unspecified, and the IPv4-mapped IPv6 forms of them), which
 * only allow_local_requests_from_hooks_and_services lets through. */
#ifndef COLLABD_NETCHECK_H
#define COLLABD_NETCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* Whether url is an absolute http or https URL with a host (as GitLab's UrlValidator
 * takes it): no blank or control character, a host, a port of digits if any. When it is
 * and host is not NULL, the host (without IPv6's brackets) is copied into host (size n,
 * empty when it does not fit). */
bool netcheck_http_url(const char *url, char *host, size_t n);

/* Whether the address sa (AF_INET or AF_INET6; any other family counts as local) is one
 * a hook may reach only with local requests allowed. */
bool netcheck_local_addr(const struct sockaddr *sa);

/* Whether host is a literal address (IPv4 in any form inet_aton takes, or IPv6) that
 * netcheck_local_addr refuses, or the name localhost. A name is checked when the
 * connection is made, on the address connected to. */
bool netcheck_local_host(const char *host);

#endif
