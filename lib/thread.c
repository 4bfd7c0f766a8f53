// SPDX-License-Identifier: GPL-2.0-only
/* The worker thread handshake every scenario uses (see pms-thread.h). */
#define _GNU_SOURCE	/* pthread_timedjoin_np */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "pms-thread.h"

void pms_thread_init(struct pms_thread *t)
{
	t->started = false;
	t->stop = 0;
	t->abandoned = false;
	sem_init(&t->ready, 0, 0);
	sem_init(&t->go, 0, 0);
}

int pms_thread_start(struct pms_thread *t, void *(*fn)(void *), void *arg)
{
	int ret = pthread_create(&t->id, NULL, fn, arg);

	if (ret)
		return ret;
	t->started = true;
	while (sem_wait(&t->ready) && errno == EINTR)
		;
	return 0;
}

void pms_thread_ready(struct pms_thread *t)
{
	sem_post(&t->ready);
}

bool pms_thread_wait_go(struct pms_thread *t)
{
	while (sem_wait(&t->go) && errno == EINTR)
		;
	return !__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE);
}

void pms_thread_go(struct pms_thread *t)
{
	sem_post(&t->go);
}

void pms_thread_stop(struct pms_thread *t)
{
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	if (!t->started)
		return;
	sem_post(&t->go);	/* a worker still waiting for go sees stop */
	pthread_join(t->id, NULL);
	t->started = false;
}

int pms_thread_stop_within(struct pms_thread *t, uint64_t ns)
{
	struct timespec ts;

	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	if (!t->started)
		return 0;
	sem_post(&t->go);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ns / 1000000000ull);
	ts.tv_nsec += (long)(ns % 1000000000ull);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(t->id, NULL, &ts)) {
		pthread_detach(t->id);
		t->abandoned = true;
		t->started = false;
		return -ETIMEDOUT;
	}
	t->started = false;
	return 0;
}

void pms_thread_fini(struct pms_thread *t)
{
	pms_thread_stop(t);
	sem_destroy(&t->ready);
	sem_destroy(&t->go);
}
