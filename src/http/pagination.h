/* page/per_page and the seven pagination headers plus Link. */
#ifndef COLLABD_PAGINATION_H
#define COLLABD_PAGINATION_H

#include "http/request.h"

#define PER_PAGE_DEFAULT 20
#define PER_PAGE_MAX 100

typedef struct {
	long long page;
	long long per_page;
	long long offset;
} page_req;

/* Reads page and per_page (defaults 1 and 20, per_page capped at 100). 0 or ERR_INVALID. */
int pagination_parse(request *r, page_req *out);
/* Adds X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link. */
void pagination_headers(request *r, const page_req *p, long long total);
/* Text for SQL parameters: per_page and offset, in r's arena. */
const char *pagination_limit(request *r, const page_req *p);
const char *pagination_offset(request *r, const page_req *p);

#endif
