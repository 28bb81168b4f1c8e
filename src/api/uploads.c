/* A project's uploaded files (GitLab 10's POST /projects/:id/uploads and its
 * UploadsController): the markdown of an issue's screenshot.
 *
 * POST /projects/:id/uploads takes a multipart "file" from anyone authenticated who
 * sees the project (GitLab 10 asks nothing more of the caller), up to the application
 * setting max_attachment_size (MB; 413 beyond, where GitLab 10 answered "null"), and
 * stores it by project id under a random secret: <storage>/uploads/@hashed/ab/cd/<h>/
 * <32 hex>/<name>, the name sanitized as GitLab's (core/files.h), so that nothing a
 * client sends names a path. The answer's url (/uploads/<secret>/<name>) is relative to
 * the project's web page: markdown links resolve it to
 * /<namespace>/<project>/uploads/<secret>/<name>, which nginx passes to collabd. There
 * the caller's read access to the project decides (the same scope as the API's: a
 * project the caller may not see is 404) and nginx sends the bytes (X-Accel-Redirect to
 * /_internal/uploads/). Inline only an image whose extension and bytes agree (the
 * avatars' rule, core/files.h files_image_type); anything else as an attachment of
 * application/octet-stream. The files go with the project (git/repo.h repo_remove). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "core/files.h"
#include "core/log.h"
#include "db/settings.h"
#include "entity/upload.h"
#include "git/repo.h"

#define SECRET_BYTES 16

const db_stmt uploads_stmts[] = {
	{NULL, NULL, 0, 0},
};

/* The multipart file "file": 0, or ERR_MISSING when there is none. A part whose file
 * name is empty is none (Rack's parser: no file was selected). */
static int read_file(request *r, const char **data, size_t *len, const char **filename)
{
	if (param_file(r, "file", data, len, filename) != 0 || !**filename)
		return fail_missing(r, "file");
	return 0;
}

/* GitLab's `requires :file`, before the project is looked for. */
static int uploads_check_create(request *r)
{
	const char *data, *filename;
	size_t len;
	return read_file(r, &data, &len, &filename);
}

static int uploads_create(request *r)
{
	const char *data, *filename;
	size_t len;
	int rc = read_file(r, &data, &len, &filename);
	if (rc < 0)
		return rc;
	long mb = settings_max_attachment_size(&r->ctx);
	if (mb < 0)
		return ERR_INTERNAL;
	if ((unsigned long long)len > (unsigned long long)mb * 1024 * 1024)
		return ERR_TOO_LARGE;
	const char *name = files_sanitize_name(r->ctx.a, filename);
	if (!name)
		return fail_invalid(r, "file");
	unsigned char raw[SECRET_BYTES];
	if (crypto_random(raw, sizeof(raw)) < 0)
		return ERR_INTERNAL;
	char secret[2 * SECRET_BYTES + 1];
	for (size_t i = 0; i < SECRET_BYTES; i++)
		snprintf(secret + 2 * i, 3, "%02x", raw[i]);
	const char *path = arena_printf(r->ctx.a, "%s/%s/%s/%s", r->ctx.cfg->storage_path,
					repo_uploads_relative(&r->ctx, r->project->id), secret, name);
	if (files_write(path, data, len) < 0) {
		log_error("cannot write upload of project %s: %s", r->project->id, strerror(errno));
		return ERR_INTERNAL;
	}
	respond_json(r, 201, entity_upload(&r->ctx, secret, name));
	return 0;
}

/* A request for /<full path>/uploads/<secret>/<name> is one only when the path names a
 * project by path (never by id, nor the API's), the secret is one collabd makes, and the
 * name one it stores; anything else is a path collabd does not serve. */
static int uploads_check_show(request *r)
{
	const char *full = param_str(r, "id"), *secret = param_str(r, "secret"),
		   *name = param_str(r, "filename");
	if (!full || !strchr(full, '/') || strncmp(full, "api/", 4) == 0 || !secret || !name)
		return ERR_NO_ROUTE;
	if (strlen(secret) != 2 * SECRET_BYTES ||
	    strspn(secret, "0123456789abcdef") != 2 * SECRET_BYTES)
		return ERR_NO_ROUTE;
	const char *clean = files_sanitize_name(r->ctx.a, name);
	if (!clean || strcmp(clean, name) != 0)
		return ERR_NO_ROUTE;
	return 0;
}

/* The type to send path as, and whether inline: an image type when the name's
 * extension says one and the first bytes are that type (a name alone is no type). */
static const char *served_type(const char *path, const char *name, bool *inline_)
{
	static const struct {
		const char *ext, *detected, *type;
	} images[] = {
		{"png", "png", "image/png"},    {"jpg", "jpg", "image/jpeg"},
		{"jpeg", "jpg", "image/jpeg"},  {"gif", "gif", "image/gif"},
		{"bmp", "bmp", "image/bmp"},    {"tif", "tiff", "image/tiff"},
		{"tiff", "tiff", "image/tiff"}, {"ico", "ico", "image/x-icon"},
	};
	*inline_ = false;
	const char *dot = strrchr(name, '.');
	if (!dot)
		return "application/octet-stream";
	for (size_t i = 0; i < sizeof(images) / sizeof(*images); i++) {
		if (strcasecmp(dot + 1, images[i].ext) != 0)
			continue;
		unsigned char head[64];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, head, sizeof(head)) : -1;
		if (fd >= 0)
			close(fd);
		const char *type = n > 0 ? files_image_type(head, (size_t)n) : NULL;
		if (type && strcmp(type, images[i].detected) == 0) {
			*inline_ = true;
			return images[i].type;
		}
		break;
	}
	return "application/octet-stream";
}

static int uploads_show(request *r)
{
	const char *secret = param_str(r, "secret"), *name = param_str(r, "filename");
	const char *rel = arena_printf(r->ctx.a, "%s/%s/%s",
				       repo_uploads_relative(&r->ctx, r->project->id), secret, name);
	const char *path = arena_printf(r->ctx.a, "%s/%s", r->ctx.cfg->storage_path, rel);
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return fail_not_found(r, "File");
	bool inline_;
	const char *type = served_type(path, name, &inline_);
	respond_empty(r, 200);
	respond_header(r, "Content-Type", type);
	/* the name is sanitized (letters, digits, _ . - +): quoted as it is; RFC 5987's
	 * form too when it holds letters beyond ASCII */
	buf d;
	buf_init(&d, r->ctx.a, 128);
	buf_printf(&d, "%s; filename=\"%s\"", inline_ ? "inline" : "attachment", name);
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p >= 0x80) {
			buf_puts(&d, "; filename*=UTF-8''");
			buf_urlencode(&d, name);
			break;
		}
	respond_header(r, "Content-Disposition", buf_cstr(&d));
	/* under <storage>/uploads/ (nginx/collabd.conf, location /_internal/uploads/) */
	respond_header(r, "X-Accel-Redirect",
		       arena_printf(r->ctx.a, "/_internal/%s", rel));
	return 0;
}

/* The module's routes (http/router.h), in the order they are matched. The second is no
 * API route: the path a project's markdown links to, which nginx passes on. */
const route uploads_routes[] = {
	{"POST", V4 "/projects/:id/uploads", uploads_create, AUTH | PR, uploads_check_create},
	{"GET", "/*id/uploads/:secret/:filename", uploads_show, PR, uploads_check_show},
	{NULL, NULL, NULL, 0, NULL},
};
