/* GET /projects/:id/repository/commits/:sha/signature (GitLab 10.8's
 * Entities::CommitSignature): the commit's GPG signature verified by GPGME against the
 * user's key it names, with 10.8's statuses (Gitlab::Gpg::Commit). A verification is
 * kept (gpg_signatures) so that gpg runs once per commit; gpg_keys.c's writes change
 * or drop what is kept when a key comes or goes. */
#include <string.h>

#include "api/api.h"
#include "core/validate.h"
#include "entity/gpg_key.h"
#include "git/commits.h"
#include "git/gpg.h"

/* gpg_signatures_key's row */
enum { SK_KEY_ID, SK_SUBKEY_ID, SK_KEY, SK_NCOLS };
/* gpg_signatures_insert's parameters */
enum { SI_PROJECT, SI_SHA, SI_KEY, SI_SUBKEY, SI_KEYID, SI_VALID, SI_EMAIL, SI_NPARAMS };

const db_stmt commit_signatures_stmts[] = {
	/* $1 project, $2 commit sha */
	{"gpg_signatures_show",
	 "SELECT " GPG_SIGNATURE_COLS " FROM gpg_signatures s"
	 " WHERE s.project_id = $1 AND s.commit_sha = $2",
	 2, GPG_SIGNATURE_NCOLS},
	/* $1 key id: the user's key of that id, or whose subkey has it (the subkey's id
	 * then, the key's NULL, as GitLab's GpgSignature#gpg_key=) */
	{"gpg_signatures_key",
	 "SELECT g.id, NULL::bigint, g.key FROM gpg_keys g WHERE g.primary_keyid = $1"
	 " UNION ALL SELECT NULL, sk.id, g.key FROM gpg_key_subkeys sk"
	 " JOIN gpg_keys g ON g.id = sk.gpg_key_id WHERE sk.keyid = $1 LIMIT 1",
	 1, SK_NCOLS},
	/* $1 project, $2 commit sha, $3 key id, $4 subkey id (one of them, or neither:
	 * no key), $5 the signature's key id, $6 the signature is good, $7 the committer's
	 * email. The status as Gitlab::Gpg::Commit#verification_status decides it; the
	 * key's verified user ids are those whose email is one of its user's (users.email
	 * and the emails of /user/emails), the name and email shown the first verified
	 * one's, else the first one's. No row when a row for the commit was made meanwhile. */
	{"gpg_signatures_insert",
	 "WITH g AS (SELECT g.id, g.user_id, g.uid_names, g.uid_emails FROM gpg_keys g"
	 " WHERE g.id = COALESCE($3::bigint,"
	 " (SELECT sk.gpg_key_id FROM gpg_key_subkeys sk WHERE sk.id = $4::bigint))),"
	 " mails AS (SELECT lower(u.email) AS email FROM users u JOIN g ON u.id = g.user_id"
	 " UNION SELECT e.email FROM emails e JOIN g ON e.user_id = g.user_id),"
	 " infos AS (SELECT n.name, n.email, n.i, n.email IN (SELECT email FROM mails) AS verified"
	 " FROM g, unnest(g.uid_names, g.uid_emails) WITH ORDINALITY n(name, email, i)),"
	 " pick AS (SELECT name, email FROM infos ORDER BY verified DESC, i LIMIT 1),"
	 " st AS (SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM g) THEN 'unknown_key'"
	 " WHEN NOT EXISTS (SELECT 1 FROM infos WHERE verified) THEN 'unverified_key'"
	 " WHEN NOT $6::boolean THEN 'unverified'"
	 " WHEN EXISTS (SELECT 1 FROM infos WHERE verified AND email = lower($7::text))"
	 " THEN 'verified'"
	 " WHEN lower($7::text) IN (SELECT email FROM mails) THEN 'same_user_different_email'"
	 " ELSE 'other_user' END AS status, EXISTS (SELECT 1 FROM g) AS known)"
	 " INSERT INTO gpg_signatures AS s (project_id, commit_sha, gpg_key_id, gpg_key_subkey_id,"
	 " gpg_key_primary_keyid, gpg_key_user_name, gpg_key_user_email, verification_status)"
	 " SELECT $1, $2, CASE WHEN st.known THEN $3::bigint END,"
	 " CASE WHEN st.known THEN $4::bigint END, $5,"
	 " (SELECT name FROM pick), (SELECT email FROM pick), st.status FROM st"
	 " ON CONFLICT ON CONSTRAINT gpg_signatures_commit_key DO NOTHING"
	 " RETURNING " GPG_SIGNATURE_COLS,
	 SI_NPARAMS, GPG_SIGNATURE_NCOLS},
	{NULL, NULL, 0, 0},
};

/* Verifies the signature sig of data (committed by email) and keeps the result: 0 with
 * the row in *out, or an ERR_ code. */
static int verify(request *r, const char *sha, const char *sig, size_t sig_len, const char *data,
		  size_t data_len, const char *email, PGresult **out)
{
	const char *issuer;
	bool valid = false;
	int rc = gpg_verify(&r->ctx, sig, sig_len, data, data_len, NULL, &issuer, &valid);
	if (rc < 0)
		return rc;
	const char *key_id = NULL, *subkey_id = NULL;
	int err;
	if (issuer) {
		PGresult *res = db_query(&r->ctx, "gpg_signatures_key", 1, &issuer, &err);
		if (!res)
			return err;
		if (PQntuples(res) == 1) {
			key_id = db_val(res, 0, SK_KEY_ID);
			subkey_id = db_val(res, 0, SK_SUBKEY_ID);
			/* again on a keyring with the key: whether it is good, and made by
			 * the key the signature names (the key's text may hold others) */
			const char *again;
			rc = gpg_verify(&r->ctx, sig, sig_len, data, data_len,
					PQgetvalue(res, 0, SK_KEY), &again, &valid);
			if (rc < 0)
				return rc;
			valid = valid && again && strcmp(again, issuer) == 0;
		}
	}
	const char *v[SI_NPARAMS] = {[SI_PROJECT] = r->project->id,
				     [SI_SHA] = sha,
				     [SI_KEY] = key_id,
				     [SI_SUBKEY] = subkey_id,
				     [SI_KEYID] = issuer,
				     [SI_VALID] = valid ? "true" : "false",
				     [SI_EMAIL] = email};
	PGresult *res = db_query(&r->ctx, "gpg_signatures_insert", SI_NPARAMS, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0) /* another request kept it first */
		res = db_query(&r->ctx, "gpg_signatures_show", 2, v, &err);
	if (!res)
		return err;
	*out = res;
	return 0;
}

static int commit_signatures_show(request *r)
{
	git_repository *repo;
	git_commit *c;
	int rc = content_read(r);
	if (rc < 0 || (rc = content_repo(r, &repo)) < 0)
		return rc;
	rc = gitc_commit_of(&r->ctx, repo, param_str(r, "sha"), &c);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "Commit");
	if (rc < 0)
		return ERR_INTERNAL;
	const char *sig, *data;
	size_t sig_len, data_len;
	rc = gpg_commit_signature(&r->ctx, repo, git_commit_id(c), &sig, &sig_len, &data,
				  &data_len);
	if (rc == ERR_NOT_FOUND)
		return fail_not_found(r, "GPG Signature");
	if (rc < 0)
		return rc;
	char sha[GIT_OID_HEXSZ + 1];
	git_oid_tostr(sha, sizeof(sha), git_commit_id(c));
	const char *v[2] = {r->project->id, sha};
	int err;
	PGresult *res = db_query(&r->ctx, "gpg_signatures_show", 2, v, &err);
	if (!res)
		return err;
	if (PQntuples(res) == 0) {
		const git_signature *committer = git_commit_committer(c);
		const char *email = committer && committer->email ? committer->email : "";
		if (!valid_utf8(email, strlen(email)))
			email = ""; /* no user's address */
		rc = verify(r, sha, sig, sig_len, data, data_len, email, &res);
		if (rc < 0)
			return rc;
		if (PQntuples(res) == 0)
			return ERR_INTERNAL;
	}
	respond_json(r, 200, entity_gpg_signature(&r->ctx, res, 0, 0));
	return 0;
}

/* The module's routes (http/router.h). */
const route commit_signatures_routes[] = {
	/* on the primary: the first answer for a commit is kept in gpg_signatures */
	{"GET", V4 "/projects/:id/repository/commits/:sha/signature", commit_signatures_show,
	 PRN | ROUTE_PRIMARY, NULL},
	{NULL, NULL, NULL, 0, NULL},
};
