/* The reference of the benchmark: what one indexed PostgreSQL read behind nginx and
 * FastCGI costs with nothing else in the way. Same process shape as collabd and hello.c
 * (N pre-forked processes on one socket, one database connection each, the statement
 * prepared once at connect); every request looks up a random user id in 1..MAX-ID with
 *   SELECT id, username FROM users WHERE id = $1
 * and answers the row as JSON ({"id":N,"username":"..."}), 404 when there is none.
 *
 *   refresp SOCKET-PATH PROCESSES MAX-ID [CONNINFO]
 *
 * CONNINFO defaults to $DATABASE_URL, else libpq's own defaults (PGHOST, ...).
 * Runs until SIGTERM/SIGINT, which it passes on to its children. */
#include <errno.h>
#include <fcgiapp.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 256
#define STMT "user_by_id"

static pid_t kids[MAX_PROCS];
static int nkids;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t rng;

static uint64_t next_random(void)
{
	/* xorshift64*: cheap, and independent per process (seeded with the pid) */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static PGconn *connect_db(const char *conninfo)
{
	PGconn *c = PQconnectdb(conninfo);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "refresp: %s", PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	PGresult *res = PQprepare(c, STMT, "SELECT id, username FROM users WHERE id = $1", 1, NULL);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		fprintf(stderr, "refresp: prepare: %s", PQerrorMessage(c));
	PQclear(res);
	if (!ok) {
		PQfinish(c);
		return NULL;
	}
	return c;
}

/* s as a JSON string body (quotes not included) */
static void put_json_string(FCGX_Stream *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			FCGX_FPrintF(out, "\\%c", ch);
		else if (ch < 0x20)
			FCGX_FPrintF(out, "\\u%04x", ch);
		else
			FCGX_PutChar(ch, out);
	}
}

static void serve(int fd, long long max_id, const char *conninfo)
{
	rng = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ 0x9E3779B97F4A7C15ULL;
	PGconn *db = connect_db(conninfo);
	FCGX_Request req;
	if (FCGX_InitRequest(&req, fd, 0) != 0)
		_exit(1);
	while (FCGX_Accept_r(&req) >= 0) {
		if (!db)
			db = connect_db(conninfo);
		PGresult *res = NULL;
		if (db) {
			char id[24];
			snprintf(id, sizeof id, "%lld", (long long)(next_random() % (uint64_t)max_id) + 1);
			const char *params[1] = {id};
			res = PQexecPrepared(db, STMT, 1, params, NULL, NULL, 0);
			if (PQresultStatus(res) != PGRES_TUPLES_OK) {
				PQclear(res);
				res = NULL;
				if (PQstatus(db) != CONNECTION_OK) {
					PQfinish(db);
					db = NULL;
				}
			}
		}
		if (!res) {
			FCGX_PutS("Status: 503 Service Unavailable\r\nContent-Type: application/json\r\n\r\n"
				  "{\"message\":\"503 Service Unavailable\"}",
				  req.out);
		} else if (PQntuples(res) == 0) {
			FCGX_PutS("Status: 404 Not Found\r\nContent-Type: application/json\r\n\r\n"
				  "{\"message\":\"404 User Not Found\"}",
				  req.out);
		} else {
			FCGX_FPrintF(req.out,
				     "Status: 200 OK\r\nContent-Type: application/json\r\n\r\n"
				     "{\"id\":%s,\"username\":\"",
				     PQgetvalue(res, 0, 0));
			put_json_string(req.out, PQgetvalue(res, 0, 1));
			FCGX_PutS("\"}", req.out);
		}
		PQclear(res);
		FCGX_Finish_r(&req);
	}
	PQfinish(db);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s SOCKET-PATH PROCESSES MAX-ID [CONNINFO]\n", argv[0]);
		return 2;
	}
	int n = atoi(argv[2]);
	long long max_id = atoll(argv[3]);
	if (n < 1 || n > MAX_PROCS || max_id < 1) {
		fprintf(stderr, "refresp: PROCESSES must be 1..%d and MAX-ID at least 1\n", MAX_PROCS);
		return 2;
	}
	const char *conninfo = argc == 5 ? argv[4] : getenv("DATABASE_URL");
	if (!conninfo)
		conninfo = "";
	/* fail early on a bad connection string rather than answer 503 forever */
	PGconn *probe = connect_db(conninfo);
	if (!probe)
		return 1;
	PQfinish(probe);

	if (FCGX_Init() != 0)
		return 1;
	unlink(argv[1]);
	int fd = FCGX_OpenSocket(argv[1], 1024);
	if (fd < 0) {
		fprintf(stderr, "refresp: cannot listen on %s\n", argv[1]);
		return 1;
	}
	chmod(argv[1], 0666); /* nginx workers run as another user */

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("refresp: fork");
			break;
		}
		if (p == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			serve(fd, max_id, conninfo);
		}
		kids[nkids++] = p;
	}
	while (!stop) {
		pid_t p = wait(NULL);
		if (p < 0 && errno == ECHILD)
			break;
	}
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGTERM);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	unlink(argv[1]);
	return 0;
}
