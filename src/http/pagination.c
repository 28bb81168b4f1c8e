#include "http/pagination.h"

#include <stdio.h>
#include <string.h>

int pagination_parse(request *r, page_req *out)
{
	long long page = 1, per_page = PER_PAGE_DEFAULT;
	int rc = param_int(r, "page", &page);
	if (rc < 0)
		return rc;
	rc = param_int(r, "per_page", &per_page);
	if (rc < 0)
		return rc;
	if (page < 1)
		page = 1;
	if (per_page < 1)
		per_page = PER_PAGE_DEFAULT;
	if (per_page > PER_PAGE_MAX)
		per_page = PER_PAGE_MAX;
	if (page > 1000000000LL)
		return fail_invalid(r, "page");
	out->page = page;
	out->per_page = per_page;
	out->offset = (page - 1) * per_page;
	return 0;
}

const char *pagination_limit(request *r, const page_req *p)
{
	return arena_printf(r->ctx.a, "%lld", p->per_page);
}

const char *pagination_offset(request *r, const page_req *p)
{
	return arena_printf(r->ctx.a, "%lld", p->offset);
}

/* <external_url><path>?<every query parameter, page and per_page set> */
static void link_url(request *r, buf *b, const page_req *p, long long page)
{
	buf_puts(b, "<");
	buf_puts(b, r->ctx.cfg->external_url);
	buf_puts(b, r->path);
	buf_putc(b, '?');
	bool first = true;
	for (param *q = r->params; q; q = q->next) {
		if (q->source != SRC_QUERY || strcmp(q->name, "page") == 0 ||
		    strcmp(q->name, "per_page") == 0)
			continue;
		if (!first)
			buf_putc(b, '&');
		first = false;
		buf_urlencode(b, q->name);
		if (q->array)
			buf_puts(b, "%5B%5D");
		buf_putc(b, '=');
		buf_urlencode(b, q->value ? q->value : "");
	}
	buf_puts(b, first ? "page=" : "&page=");
	buf_put_int(b, page);
	buf_puts(b, "&per_page=");
	buf_put_int(b, p->per_page);
	buf_putc(b, '>');
}

void pagination_headers(request *r, const page_req *p, long long total)
{
	long long pages = (total + p->per_page - 1) / p->per_page;
	if (pages < 1)
		pages = 1;
	respond_header_int(r, "X-Total", total);
	respond_header_int(r, "X-Total-Pages", pages);
	respond_header_int(r, "X-Per-Page", p->per_page);
	respond_header_int(r, "X-Page", p->page);
	/* as Kaminari: no previous page for a page past the last one */
	bool has_prev = p->page > 1 && p->page <= pages;
	if (p->page < pages)
		respond_header_int(r, "X-Next-Page", p->page + 1);
	else
		respond_header(r, "X-Next-Page", "");
	if (has_prev)
		respond_header_int(r, "X-Prev-Page", p->page - 1);
	else
		respond_header(r, "X-Prev-Page", "");

	buf link;
	buf_init(&link, r->ctx.a, 512);
	if (has_prev) {
		link_url(r, &link, p, p->page - 1);
		buf_puts(&link, "; rel=\"prev\", ");
	}
	if (p->page < pages) {
		link_url(r, &link, p, p->page + 1);
		buf_puts(&link, "; rel=\"next\", ");
	}
	link_url(r, &link, p, 1);
	buf_puts(&link, "; rel=\"first\", ");
	link_url(r, &link, p, pages);
	buf_puts(&link, "; rel=\"last\"");
	respond_header(r, "Link", buf_cstr(&link));
}
