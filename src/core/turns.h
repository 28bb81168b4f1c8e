/* Turns: at most n processes of an instance at once in a section (its write
 * transactions), the others waiting for theirs in the order they came. A System V
 * semaphore the master makes before it forks: the kernel hands a turn that is given back
 * to the first process waiting (none overtakes another), and gives back the turn of a
 * process that dies holding it (SEM_UNDO). */
#ifndef COLLABD_TURNS_H
#define COLLABD_TURNS_H

/* A set of n turns (n > 0): its id, or -1 (logged) when the system has none to give. */
int turns_new(int n);
/* Removes the set (the master, as it exits). */
void turns_free(int id);
/* Waits for a turn of set id, and gives it back. A set of -1 (none) has a turn for
 * anyone at once; so has a set that is gone. */
void turns_take(int id);
void turns_give(int id);

#endif
