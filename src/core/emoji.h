/* The emoji names award emoji accept: GitLab 10's (gemojione 3.3: each emoji's name and
 * its aliases), and the name an alias stands for (":+1:" is "thumbsup"). */
#ifndef COLLABD_EMOJI_H
#define COLLABD_EMOJI_H

#include <stddef.h>

/* The name an award of emoji name is stored as: name itself, or the emoji an alias
 * names; NULL when name is no emoji. The string is static. */
const char *emoji_normalize(const char *name);
/* The length of the name of the one emoji that text[0..len) is, written as GitLab
 * writes it (":name:", then at most one white space character and an optional final
 * newline), with its start in *name; 0 when text is anything else. */
size_t emoji_only(const char *text, size_t len, const char **name);

#endif
