#include "entity/wiki_page.h"

#include "entity/entity.h"

json_object *entity_wiki_page(const char *format, const char *slug, const char *title,
			      const char *content, size_t content_len)
{
	json_object *o = json_object_new_object();
	json_put_str(o, "format", format);
	json_put_str(o, "slug", slug);
	json_put_str(o, "title", title);
	if (content) /* a page's bytes may hold a NUL: sized, not C string */
		json_object_object_add(o, "content",
				       json_object_new_string_len(content, (int)content_len));
	return o;
}
