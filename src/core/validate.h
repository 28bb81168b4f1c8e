/* Checks on the shape of values clients send. Each returns true when valid. */
#ifndef COLLABD_VALIDATE_H
#define COLLABD_VALIDATE_H

#include <stdbool.h>

/* A user or group path: letters, digits, '_', '-', '.'; not starting with '-', not
 * ending in '.', '.git' or '.atom'; 1..255 characters. */
bool valid_namespace_path(const char *s);
/* something@something, no whitespace, at most 255 characters. */
bool valid_email(const char *s);
/* #RGB or #RRGGBB. */
bool valid_hex_color(const char *s);
/* ISO 8601 date-time: YYYY-MM-DD, optionally followed by T or space, HH:MM[:SS[.frac]]
 * and Z or +HH:MM / -HH:MM, with real calendar values. */
bool valid_datetime(const char *s);
/* YYYY-MM-DD with real calendar values. */
bool valid_date(const char *s);
/* Valid UTF-8 without NUL or other C0 controls but tab, CR and LF. */
bool valid_text(const char *s);

#endif
