/* Users' secondary email addresses (GitLab 10.8's /user/emails and, for admins,
 * /users/:id/emails). An address belongs to one user only: no one's secondary and no
 * one's primary address may be added again (400 "has already been taken"). */
#include <ctype.h>
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/email.h"
#include "http/pagination.h"

/* emails_insert's row: whether the user exists, then the email (NULLs when taken) */
enum { EI_USER_EXISTS, EI_EMAIL, EI_NCOLS = EI_EMAIL + EMAIL_NCOLS };

const db_stmt emails_stmts[] = {
	/* $1 user id, $2 limit, $3 offset; a row with NULL email columns when the user
	 * has none, no row when there is no such user */
	{"emails_list",
	 "SELECT (SELECT count(*) FROM emails WHERE user_id = $1), p.* FROM users u"
	 " LEFT JOIN LATERAL (SELECT " EMAIL_COLS " FROM emails e WHERE e.user_id = u.id"
	 " ORDER BY e.id LIMIT $2 OFFSET $3) p ON true WHERE u.id = $1 AND NOT u.ghost",
	 3, 1 + EMAIL_NCOLS},
	{"emails_show", "SELECT " EMAIL_COLS " FROM emails e WHERE e.id = $1 AND e.user_id = $2", 2,
	 EMAIL_NCOLS},
	/* $1 user id, $2 the address in lower case. A concurrent insert of the same address
	 * makes no row, as one taken already. */
	{"emails_insert",
	 "WITH u AS (SELECT id FROM users WHERE id = $1 AND NOT ghost),"
	 " ins AS (INSERT INTO emails AS e (user_id, email) SELECT u.id, $2 FROM u"
	 " WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = $2)"
	 " ON CONFLICT ON CONSTRAINT emails_email_key DO NOTHING RETURNING " EMAIL_COLS ")"
	 " SELECT (SELECT count(*) FROM u) > 0, ins.* FROM (SELECT 1) one LEFT JOIN ins ON true",
	 2, EI_NCOLS},
	/* $1 email id, $2 user id: no row when the user does not exist, NULL when the email
	 * is not the user's (404 User before 404 Email, as GitLab) */
	{"emails_delete",
	 "WITH d AS (DELETE FROM emails WHERE id = $1 AND user_id = $2 RETURNING id)"
	 " SELECT (SELECT id FROM d) FROM users u WHERE u.id = $2 AND NOT u.ghost",
	 2, 1},
	{NULL, NULL, 0, 0},
};

static int list(request *r, const char *user_id)
{
	return user_records_list(r, "emails_list", user_id, entity_email);
}

static int emails_list_mine(request *r)
{
	return list(r, api_caller_id(r));
}

static int emails_list_user(request *r)
{
	return user_records_for(r, list);
}

static int emails_show_mine(request *r)
{
	return user_records_show_mine(r, "emails_show", "email_id", "Email", entity_email);
}

/* The address as GitLab's Email stores it: stripped of surrounding whitespace, in
 * lower case. */
static const char *normalize(request *r, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	char *out = arena_strndup(r->ctx.a, s, n);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static int create(request *r, const char *user_id)
{
	const char *given = param_str(r, "email");
	if (!given)
		return fail_missing(r, "email");
	const char *email = normalize(r, given);
	if (!*email)
		fail_validation(r, "email", "can't be blank");
	if (!valid_email(email))
		fail_validation(r, "email", "is invalid");
	if (r->validation)
		return ERR_VALIDATION;
	const char *v[2] = {user_id, email};
	int err;
	PGresult *res = db_query(&r->ctx, "emails_insert", 2, v, &err);
	if (!res)
		return err;
	if (!db_bool(res, 0, EI_USER_EXISTS))
		return fail_not_found(r, "User");
	if (PQgetisnull(res, 0, EI_EMAIL))
		return fail_validation(r, "email", "has already been taken");
	respond_json(r, 201, entity_email(&r->ctx, res, 0, EI_EMAIL));
	return 0;
}

static int emails_create_mine(request *r)
{
	return create(r, api_caller_id(r));
}

static int emails_create_user(request *r)
{
	return user_records_for(r, create);
}

static int delete_email(request *r, const char *user_id)
{
	const char *email_id;
	int rc = api_id(r, "email_id", &email_id);
	if (rc < 0)
		return rc;
	const char *v[2] = {email_id, user_id};
	PGresult *res;
	if ((rc = api_find(r, "emails_delete", 2, v, "User", &res)) != 0)
		return rc < 0 ? rc : 0;
	if (PQgetisnull(res, 0, 0))
		return fail_not_found(r, "Email");
	respond_empty(r, 204);
	return 0;
}

static int emails_delete_mine(request *r)
{
	return delete_email(r, api_caller_id(r));
}

static int emails_delete_user(request *r)
{
	return user_records_for(r, delete_email);
}

/* The module's routes (http/router.h), in the order they are matched. */
const route emails_routes[] = {
	{"GET", V4 "/user/emails", emails_list_mine, AUTH | RU, NULL},
	{"GET", V4 "/users/:id/emails", emails_list_user, ADMIN | RU, NULL},
	{"GET", V4 "/user/emails/:email_id", emails_show_mine, AUTH | RU, NULL},
	{"POST", V4 "/user/emails", emails_create_mine, AUTH, NULL},
	{"POST", V4 "/users/:id/emails", emails_create_user, ADMIN, NULL},
	{"DELETE", V4 "/user/emails/:email_id", emails_delete_mine, AUTH, NULL},
	{"DELETE", V4 "/users/:id/emails/:email_id", emails_delete_user, ADMIN, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
