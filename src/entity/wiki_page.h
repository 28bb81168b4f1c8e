/* Presenter of a wiki page (GitLab 10's Entities::WikiPageBasic and WikiPage): format,
 * slug, title, and content when the caller asked for it. */
#ifndef COLLABD_ENTITY_WIKI_PAGE_H
#define COLLABD_ENTITY_WIKI_PAGE_H

#include <json-c/json.h>
#include <stddef.h>

/* A new object the caller owns; content NULL: WikiPageBasic (no content member). */
json_object *entity_wiki_page(const char *format, const char *slug, const char *title,
			      const char *content, size_t content_len);

#endif
