/* What outbound requests may reach (core/netcheck.h). */
#include "core/netcheck.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

bool netcheck_http_url(const char *url, char *host, size_t n)
{
	if (host && n)
		host[0] = '\0';
	if (!url)
		return false;
	for (const unsigned char *p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return false;
	const char *rest;
	if (strncasecmp(url, "http://", 7) == 0)
		rest = url + 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		rest = url + 8;
	else
		return false;
	size_t alen = strcspn(rest, "/?#");
	const char *auth = rest, *end = rest + alen;
	for (const char *p = auth; p < end; p++) /* userinfo@: the host follows the last @ */
		if (*p == '@')
			auth = p + 1;
	const char *h = auth, *hend;
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(end - h));
		if (!close)
			return false;
		h++;
		hend = close;
		if (close + 1 < end && close[1] != ':')
			return false;
	} else {
		hend = memchr(h, ':', (size_t)(end - h));
		if (!hend)
			hend = end;
	}
	if (hend == h)
		return false;
	const char *port = *hend == ']' ? hend + 1 : hend;
	if (port < end) { /* ":digits", at most 65535 */
		port++;
		if (port == end || end - port > 5)
			return false;
		long v = 0;
		for (const char *p = port; p < end; p++) {
			if (!isdigit((unsigned char)*p))
				return false;
			v = v * 10 + (*p - '0');
		}
		if (v > 65535)
			return false;
	}
	if (host && n > (size_t)(hend - h)) {
		memcpy(host, h, (size_t)(hend - h));
		host[hend - h] = '\0';
	}
	return true;
}

/* An IPv4 address in host order. */
static bool local_v4(unsigned long a)
{
	return (a >> 24) == 0 ||                  /* 0.0.0.0/8, "this network" */
	       (a >> 24) == 127 ||                /* loopback */
	       (a >> 24) == 10 ||                 /* private */
	       (a >> 20) == (172UL << 4 | 1) ||   /* 172.16/12 */
	       (a >> 16) == (192UL << 8 | 168) || /* 192.168/16 */
	       (a >> 16) == (169UL << 8 | 254) || /* link-local, 169.254.169.254 the metadata */
	       (a >> 22) == (100UL << 2 | 1) ||   /* 100.64/10, shared address space */
	       (a >> 28) >= 14;                   /* multicast, reserved, broadcast */
}

static bool local_v6(const struct in6_addr *a)
{
	const unsigned char *b = a->s6_addr;
	static const unsigned char zero[10] = {0};
	if (memcmp(b, zero, 10) == 0 && ((b[10] == 0xff && b[11] == 0xff) || /* ::ffff:v4 */
					 (b[10] == 0 && b[11] == 0)))        /* ::v4, ::, ::1 */
		return local_v4((unsigned long)b[12] << 24 | (unsigned long)b[13] << 16 |
				(unsigned long)b[14] << 8 | b[15]);
	return (b[0] & 0xfe) == 0xfc ||                   /* fc00::/7 unique local */
	       (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* fe80::/10 link-local */
	       (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) || /* fec0::/10 site-local */
	       b[0] == 0xff ||                            /* multicast */
	       (b[0] == 0x20 && b[1] == 0x02) ||          /* 6to4: may wrap any v4 */
	       (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b); /* NAT64 */
}

bool netcheck_local_addr(const struct sockaddr *sa)
{
	if (!sa)
		return true;
	if (sa->sa_family == AF_INET)
		return local_v4(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6)
		return local_v6(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return true;
}

bool netcheck_local_host(const char *host)
{
	if (!host)
		return false;
	if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
		return true;
	struct in_addr v4;
	struct in6_addr v6;
	if (inet_aton(host, &v4))
		return local_v4(ntohl(v4.s_addr));
	char tmp[64];
	size_t n = strcspn(host, "%"); /* a zone index: fe80::1%eth0 */
	if (n < sizeof(tmp)) {
		memcpy(tmp, host, n);
		tmp[n] = '\0';
		if (inet_pton(AF_INET6, tmp, &v6) == 1)
			return local_v6(&v6);
	}
	return false;
}
