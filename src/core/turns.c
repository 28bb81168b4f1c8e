#include "core/turns.h"

#include <errno.h>
#include <string.h>
#include <sys/sem.h>

#include "core/log.h"

/* semctl's fourth argument, which the caller defines (semctl(2)) */
union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

int turns_new(int n)
{
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (id < 0) {
		log_error("semget: %s", strerror(errno));
		return -1;
	}
	union semun arg = {.val = n};
	if (semctl(id, 0, SETVAL, arg) < 0) {
		log_error("semctl SETVAL %d: %s", n, strerror(errno));
		turns_free(id);
		return -1;
	}
	return id;
}

void turns_free(int id)
{
	if (id >= 0)
		(void)semctl(id, 0, IPC_RMID);
}

static void change(int id, short by)
{
	if (id < 0)
		return;
	struct sembuf op = {.sem_num = 0, .sem_op = by, .sem_flg = SEM_UNDO};
	while (semop(id, &op, 1) < 0 && errno == EINTR)
		;
}

void turns_take(int id)
{
	change(id, -1);
}

void turns_give(int id)
{
	change(id, 1);
}
