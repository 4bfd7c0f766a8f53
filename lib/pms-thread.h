/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_THREAD_H
#define PMS_THREAD_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A scenario's worker thread and its handshake with the supervising
 * thread, the same in every scenario: the worker opens its events on
 * itself and says ready; the supervisor starts the measurement with go;
 * the worker works until stop.  Teardown stops and joins whatever state
 * the run ended in.
 */
struct pms_thread {
	pthread_t id;
	bool started;
	bool abandoned;		/* did not stop in time: left running, detached */
	sem_t ready, go;
	int stop;
};

/* Before anything else; pms_thread_fini() may then always be called. */
void pms_thread_init(struct pms_thread *t);

/**
 * pms_thread_start - run @fn(@arg) in a new thread and wait until it calls
 * pms_thread_ready() (its setup done, whether it succeeded or not).
 * Return: 0 or the pthread_create() error.
 */
int pms_thread_start(struct pms_thread *t, void *(*fn)(void *), void *arg);

/* Worker: setup is done (the caller reads the worker's status next). */
void pms_thread_ready(struct pms_thread *t);

/* Worker: wait for go.  Return: true to work, false when stopped before it. */
bool pms_thread_wait_go(struct pms_thread *t);

/* Supervisor: start the measurement. */
void pms_thread_go(struct pms_thread *t);

/* Worker, in its loop: whether to stop (relaxed: the loop only polls it). */
static inline bool pms_thread_stopping(const struct pms_thread *t)
{
	return __atomic_load_n(&t->stop, __ATOMIC_RELAXED);
}

/* Supervisor: ask the worker to stop, wake it if it still waits for go, join. */
void pms_thread_stop(struct pms_thread *t);

/*
 * Supervisor: pms_thread_stop(), but give up after @ns: a worker that
 * does not end then is abandoned (detached; the process's exit ends it)
 * and t->abandoned says so, so teardown leaves its memory alone.
 * Return: 0 when joined, -ETIMEDOUT when abandoned.
 */
int pms_thread_stop_within(struct pms_thread *t, uint64_t ns);

/* pms_thread_stop(), then release the semaphores. */
void pms_thread_fini(struct pms_thread *t);

#endif
