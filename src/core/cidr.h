/* Address ranges in CIDR notation (monitoring_whitelist): "127.0.0.0/8, ::1/128". */
#ifndef COLLABD_CIDR_H
#define COLLABD_CIDR_H

#include <stdbool.h>

/* Whether list (ranges separated by commas or blanks; an address alone is a range of
 * one) is well formed: 0, or -1 with the first bad entry in *bad (a static buffer). */
int cidr_list_check(const char *list, const char **bad);
/* Whether the textual address addr (IPv4, IPv6, or an IPv4-mapped IPv6 address, which
 * matches IPv4 ranges) lies in one of list's ranges. False for anything unparsable. */
bool cidr_list_match(const char *list, const char *addr);

#endif
