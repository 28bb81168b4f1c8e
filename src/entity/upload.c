#include "entity/upload.h"

#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "entity/entity.h"

bool entity_upload_embedded(const char *filename)
{
	/* GitLab 10's UploaderHelper: IMAGE_EXT, VIDEO_EXT and DANGEROUS_EXT (svg) */
	static const char *const exts[] = {"png", "jpg", "jpeg", "gif", "bmp",  "tiff", "ico",
					   "mp4", "m4v", "mov",  "webm", "ogv", "svg"};
	const char *dot = strrchr(filename, '.');
	if (!dot)
		return false;
	for (size_t i = 0; i < sizeof(exts) / sizeof(*exts); i++)
		if (strcasecmp(dot + 1, exts[i]) == 0)
			return true;
	return false;
}

json_object *entity_upload(ctx *c, const char *secret, const char *filename)
{
	bool embedded = entity_upload_embedded(filename);
	/* the alt text: an image's name without its extension, with "]" escaped so that
	 * the link stays one */
	const char *dot = strrchr(filename, '.');
	size_t n = embedded && dot ? (size_t)(dot - filename) : strlen(filename);
	buf alt;
	buf_init(&alt, c->a, n + 8);
	for (size_t i = 0; i < n; i++) {
		if (filename[i] == ']')
			buf_putc(&alt, '\\');
		buf_putc(&alt, filename[i]);
	}
	const char *url = arena_printf(c->a, "/uploads/%s/%s", secret, filename);
	json_object *o = json_object_new_object();
	json_put_str(o, "alt", buf_cstr(&alt));
	json_put_str(o, "url", url);
	json_put_str(o, "markdown",
		     arena_printf(c->a, "%s[%s](%s)", embedded ? "!" : "", buf_cstr(&alt), url));
	return o;
}
