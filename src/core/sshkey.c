#include "core/sshkey.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/crypto.h"

static const struct {
	const char *name;
	int bits;
} types[] = {
	{"ssh-rsa", 0},
	{"ssh-dss", 1024},
	{"ssh-ed25519", 256},
	{"ecdsa-sha2-nistp256", 256},
	{"ecdsa-sha2-nistp384", 384},
	{"ecdsa-sha2-nistp521", 521},
	{"sk-ssh-ed25519@openssh.com", 256},
	{"sk-ecdsa-sha2-nistp256@openssh.com", 256},
};

/* Reads one length-prefixed string of the key blob. */
static int blob_string(const unsigned char **p, const unsigned char *end, const unsigned char **s,
		       uint32_t *n)
{
	if (end - *p < 4)
		return -1;
	uint32_t len = (uint32_t)(*p)[0] << 24 | (uint32_t)(*p)[1] << 16 | (uint32_t)(*p)[2] << 8 |
		       (*p)[3];
	*p += 4;
	if ((uint32_t)(end - *p) < len)
		return -1;
	*s = *p;
	*n = len;
	*p += len;
	return 0;
}

int sshkey_parse(arena *a, const char *text, sshkey *out)
{
	/* GitLab strips line breaks pasted into keys */
	size_t n = strlen(text);
	char *t = arena_alloc(a, n + 1), *o = t;
	for (const char *p = text; *p; p++)
		if (*p != '\r' && *p != '\n')
			*o++ = *p;
	*o = '\0';
	while (isspace((unsigned char)*t))
		t++;
	char *type = t;
	while (*t && !isspace((unsigned char)*t))
		t++;
	if (!*t)
		return -1;
	*t++ = '\0';
	while (isspace((unsigned char)*t))
		t++;
	char *b64 = t;
	while (*t && !isspace((unsigned char)*t))
		t++;
	if (*t)
		*t++ = '\0';
	while (isspace((unsigned char)*t))
		t++;
	char *comment = t;
	o = comment + strlen(comment);
	while (o > comment && isspace((unsigned char)o[-1]))
		*--o = '\0';

	int bits = -1;
	for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
		if (strcmp(types[i].name, type) == 0)
			bits = types[i].bits;
	if (bits < 0)
		return -1;
	unsigned char *blob;
	size_t blen;
	if (crypto_base64_decode(a, b64, &blob, &blen) < 0)
		return -1;
	const unsigned char *p = blob, *end = blob + blen, *s;
	uint32_t sl;
	if (blob_string(&p, end, &s, &sl) < 0 || sl != strlen(type) || memcmp(s, type, sl) != 0)
		return -1;
	if (strcmp(type, "ssh-rsa") == 0) {
		const unsigned char *e, *m;
		uint32_t el, ml;
		if (blob_string(&p, end, &e, &el) < 0 || blob_string(&p, end, &m, &ml) < 0 ||
		    el == 0 || ml == 0 || p != end)
			return -1;
		while (ml > 0 && *m == 0) {
			m++;
			ml--;
		}
		if (ml == 0)
			return -1;
		int top = 8;
		while (top > 0 && !(m[0] & (1u << (top - 1))))
			top--;
		bits = (int)(ml - 1) * 8 + top;
		if (bits < 768)
			return -1;
	} else if (strcmp(type, "ssh-ed25519") == 0) {
		if (blob_string(&p, end, &s, &sl) < 0 || sl != 32 || p != end)
			return -1;
	} else if (strncmp(type, "ecdsa-sha2-", 11) == 0) {
		const unsigned char *curve, *q;
		uint32_t cl, ql;
		if (blob_string(&p, end, &curve, &cl) < 0 || cl != strlen(type + 11) ||
		    memcmp(curve, type + 11, cl) != 0 || blob_string(&p, end, &q, &ql) < 0 ||
		    ql < 2 || q[0] != 4 || p != end)
			return -1;
	} else if (strcmp(type, "ssh-dss") == 0) {
		for (int i = 0; i < 4; i++)
			if (blob_string(&p, end, &s, &sl) < 0 || sl == 0)
				return -1;
		if (p != end)
			return -1;
	} else if (p == end) {
		return -1;
	}

	unsigned char md5[16];
	crypto_md5(blob, blen, md5);
	buf f;
	buf_init(&f, a, 48);
	for (int i = 0; i < 16; i++)
		buf_printf(&f, i ? ":%02x" : "%02x", md5[i]);
	out->type = type;
	out->fingerprint = buf_cstr(&f);
	out->bits = bits;
	out->normalized = *comment ? arena_printf(a, "%s %s %s", type, b64, comment)
				   : arena_printf(a, "%s %s", type, b64);
	return 0;
}
