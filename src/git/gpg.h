/* OpenPGP through GPGME (GitLab 10.8's Gitlab::Gpg): what a user's public key holds, and
 * whether a commit's signature is good. Nothing here parses OpenPGP itself: each call
 * runs GPGME in a child process on a keyring of its own (a fresh home directory under
 * $TMPDIR or /tmp, removed afterwards, gpg-agent never started), bounded by
 * GPG_TIMEOUT_MS after which the child and its gpg are killed. Strings are in c's
 * arena; key ids (16 hex digits) and fingerprints (40) are upper case. Functions return
 * 0, ERR_INVALID (the input is no key), or ERR_INTERNAL (gpg failed or timed out,
 * logged). */
#ifndef COLLABD_GIT_GPG_H
#define COLLABD_GIT_GPG_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/ctx.h"

#define GPG_TIMEOUT_MS 10000

typedef struct {
	const char *keyid, *fingerprint;
} gpg_subkey;

typedef struct {
	const char *name, *email; /* email in lower case; "" when the user id has none */
} gpg_uid;

typedef struct {
	const char *fingerprint, *keyid; /* the primary key's */
	gpg_subkey *subkeys;             /* the others, in the key's order */
	int nsubkeys;
	gpg_uid *uids;
	int nuids;
} gpg_key_info;

/* The first key that armored (a public key block) holds: ERR_INVALID when GPGME
 * imports none from it. */
int gpg_key_read(ctx *c, const char *armored, gpg_key_info *out);

/* Verifies sig (a detached signature, as a commit's gpgsig header holds it) over
 * data with key (an armored public key; NULL: an empty keyring, which tells only who
 * signed). *issuer: the key id of the signature's key (NULL when gpg found no
 * signature in sig); *valid: the signature is good and made by key. */
int gpg_verify(ctx *c, const char *sig, size_t sig_len, const char *data, size_t data_len,
	       const char *key, const char **issuer, bool *valid);

/* The signature of commit (its gpgsig header) and the bytes it signs, in c's arena:
 * 0, ERR_NOT_FOUND when the commit is not signed, or ERR_INTERNAL. */
int gpg_commit_signature(ctx *c, git_repository *repo, const git_oid *commit, const char **sig,
			 size_t *sig_len, const char **data, size_t *data_len);

#endif
