/* Tokens, digests, the instance key and passwords. */
#ifndef COLLABD_CRYPTO_H
#define COLLABD_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"

#define TOKEN_LEN 20 /* characters of a generated token, as GitLab's */

/* Fills out with n bytes from getrandom(); 0 or -1. */
int crypto_random(void *out, size_t n);
/* A new random token of TOKEN_LEN characters [A-Za-z0-9_-], NUL-terminated in out. */
int crypto_token(char out[TOKEN_LEN + 1]);
/* SHA-256 of s as 64 lower-case hex characters (in a). */
char *crypto_sha256_hex(arena *a, const char *s, size_t n);
void crypto_sha256(const void *data, size_t n, unsigned char out[32]);
void crypto_md5(const void *data, size_t n, unsigned char out[16]);

/* Instance key: 32 bytes read from path, which must be mode 0600 or stricter. */
int crypto_key_load(const char *path, unsigned char key[32]);
/* Creates path with a new key, mode 0600; fails if it exists. */
int crypto_key_create(const char *path);
/* AES-256-GCM: hex(nonce | ciphertext | tag) of plain, in a. NULL on failure. */
char *crypto_seal(arena *a, const unsigned char key[32], const char *plain);
/* Inverse of crypto_seal; NULL when the text is malformed or was tampered with. */
char *crypto_open(arena *a, const unsigned char key[32], const char *sealed);
/* A new token (crypto_token) that is shown again later, so kept sealed with key: the
 * token in out, its seal in *sealed (in a). 0 or -1. */
int crypto_token_sealed(arena *a, const unsigned char key[32], char out[TOKEN_LEN + 1],
			const char **sealed);

/* yescrypt hash of password (crypt(3)); NULL on failure. */
char *crypto_password_hash(arena *a, const char *password);
/* 1 when password matches hash, else 0. */
int crypto_password_check(const char *password, const char *hash);

/* Standard base64 decode (no whitespace); -1 when malformed. *out in a. */
int crypto_base64_decode(arena *a, const char *in, unsigned char **out, size_t *out_len);
/* Standard base64 of n bytes (with = padding when pad), in a (buf_put_base64 into a
 * buffer of its own). */
char *crypto_base64_encode(arena *a, const unsigned char *in, size_t n, int pad);

#endif
