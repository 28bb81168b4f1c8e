#include "core/cidr.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

/* An address as 16 bytes: IPv4 as its IPv4-mapped IPv6 form (::ffff:a.b.c.d), so that
 * one comparison serves both families. */
static bool parse_addr(const char *s, unsigned char out[16], bool *v4)
{
	struct in_addr a4;
	if (inet_pton(AF_INET, s, &a4) == 1) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &a4, 4);
		*v4 = true;
		return true;
	}
	*v4 = false;
	return inet_pton(AF_INET6, s, out) == 1;
}

/* One range "addr[/bits]" (len bytes at s) as a 16-byte address and a prefix length
 * over those 16 bytes. */
static bool parse_range(const char *s, size_t len, unsigned char net[16], int *bits)
{
	char text[64];
	if (len == 0 || len >= sizeof(text))
		return false;
	memcpy(text, s, len);
	text[len] = '\0';
	char *slash = strchr(text, '/');
	if (slash)
		*slash++ = '\0';
	bool v4;
	if (!parse_addr(text, net, &v4))
		return false;
	int max = v4 ? 32 : 128;
	int b = max;
	if (slash) {
		char *end;
		long v = strtol(slash, &end, 10);
		if (!*slash || *end || v < 0 || v > max)
			return false;
		b = (int)v;
	}
	*bits = v4 ? b + 96 : b;
	return true;
}

static bool in_range(const unsigned char addr[16], const unsigned char net[16], int bits)
{
	int full = bits / 8, rest = bits % 8;
	if (memcmp(addr, net, (size_t)full) != 0)
		return false;
	if (rest == 0)
		return true;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return (addr[full] & mask) == (net[full] & mask);
}

static const char *const separators = ", \t";

/* The next entry of a list from *p: its start, its length in *n (0: the list is
 * done); *p moves past it. */
static const char *next_entry(const char **p, size_t *n)
{
	const char *e = *p + strspn(*p, separators);
	*n = strcspn(e, separators);
	*p = e + *n;
	return e;
}

int cidr_list_check(const char *list, const char **bad)
{
	static char entry[64];
	const char *p = list ? list : "";
	size_t n;
	for (const char *e = next_entry(&p, &n); n; e = next_entry(&p, &n)) {
		unsigned char net[16];
		int bits;
		if (!parse_range(e, n, net, &bits)) {
			size_t keep = n < sizeof(entry) - 1 ? n : sizeof(entry) - 1;
			memcpy(entry, e, keep);
			entry[keep] = '\0';
			*bad = entry;
			return -1;
		}
	}
	return 0;
}

bool cidr_list_match(const char *list, const char *addr)
{
	unsigned char a[16];
	bool v4;
	if (!list || !addr || !parse_addr(addr, a, &v4))
		return false;
	const char *p = list;
	size_t n;
	for (const char *e = next_entry(&p, &n); n; e = next_entry(&p, &n)) {
		unsigned char net[16];
		int bits;
		if (parse_range(e, n, net, &bits) && in_range(a, net, bits))
			return true;
	}
	return false;
}
