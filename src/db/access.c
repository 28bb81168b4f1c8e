#include "db/access.h"

void access_me_params(ctx *c, const char **v)
{
	if (!c->user) {
		v[ME_ID] = v[ME_ADMIN] = v[ME_EXTERNAL] = NULL;
		return;
	}
	v[ME_ID] = arena_printf(c->a, "%lld", c->user->id);
	v[ME_ADMIN] = c->user->admin ? "true" : "false";
	v[ME_EXTERNAL] = c->user->external ? "true" : "false";
}
