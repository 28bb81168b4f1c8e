/* The floor of the benchmark: the smallest libfcgi responder, the same process shape as
 * collabd (one listening socket, N pre-forked processes each looping on FCGX_Accept_r),
 * answering every request with a constant JSON body. Whatever nginx + FastCGI cost,
 * this pays too; collabd can at best match it.
 *
 *   hello SOCKET-PATH PROCESSES
 *
 * Runs until SIGTERM/SIGINT, which it passes on to its children. */
#include <errno.h>
#include <fcgiapp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROCS 256

static const char reply[] = "Status: 200 OK\r\n"
			    "Content-Type: application/json\r\n"
			    "\r\n"
			    "{\"hello\":\"world\"}";

static pid_t kids[MAX_PROCS];
static int nkids;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void serve(int fd)
{
	FCGX_Request req;
	if (FCGX_InitRequest(&req, fd, 0) != 0)
		_exit(1);
	while (FCGX_Accept_r(&req) >= 0) {
		FCGX_PutStr(reply, (int)sizeof(reply) - 1, req.out);
		FCGX_Finish_r(&req);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s SOCKET-PATH PROCESSES\n", argv[0]);
		return 2;
	}
	int n = atoi(argv[2]);
	if (n < 1 || n > MAX_PROCS) {
		fprintf(stderr, "hello: PROCESSES must be 1..%d\n", MAX_PROCS);
		return 2;
	}
	if (FCGX_Init() != 0)
		return 1;
	unlink(argv[1]);
	int fd = FCGX_OpenSocket(argv[1], 1024);
	if (fd < 0) {
		fprintf(stderr, "hello: cannot listen on %s\n", argv[1]);
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
			perror("hello: fork");
			break;
		}
		if (p == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			serve(fd);
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
