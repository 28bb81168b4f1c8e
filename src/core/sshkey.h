/* OpenSSH public keys: parsing, normalising and fingerprinting. */
#ifndef COLLABD_SSHKEY_H
#define COLLABD_SSHKEY_H

#include "core/arena.h"

typedef struct {
	const char *type;        /* ssh-rsa, ssh-ed25519, ... */
	const char *normalized;  /* "type base64 [comment]" on one line */
	const char *fingerprint; /* MD5, colon-separated hex, as GitLab 10 shows it */
	int bits;                /* key size where it is known */
} sshkey;

/* 0 when text is one public key in OpenSSH format whose blob matches its type;
 * -1 otherwise. Results live in a. */
int sshkey_parse(arena *a, const char *text, sshkey *out);

#endif
