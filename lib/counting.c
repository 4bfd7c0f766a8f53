// SPDX-License-Identifier: GPL-2.0-only
/* The signal scenarios' counting thread (see pms-counting.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pms-counting.h"
#include "pms-cpus.h"
#include "pms-perf.h"
#include "pms-util.h"

static void *counting_main(void *arg)
{
	struct pms_counting *k = arg;
	struct perf_event_attr attr, mig = {
		.size = sizeof(mig), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_MIGRATIONS, .disabled = 1,
	};
	int ret;

	k->tid = gettid();
	pthread_setname_np(pthread_self(), "pms-count");
	/* Streaming recorder: this thread's signals go to its own ring. */
	pms_recorder_lane_bind(k->lane);
	sched_getaffinity(0, sizeof(k->aff_initial), &k->aff_initial);
	if (k->pin_first) {
		hwloc_bitmap_t first = hwloc_bitmap_alloc();

		hwloc_bitmap_only(first, (unsigned int)hwloc_bitmap_first(k->pin_first));
		hwloc_set_cpubind(k->topo, first, HWLOC_CPUBIND_THREAD);
		hwloc_bitmap_free(first);
	}
	pms_counter_attr(k->c, &attr);
	k->fd = pms_perf_open_self(&attr, -1);
	if (k->fd < 0) {
		k->setup_status = PMS_E_SETUP;
		pms_perf_strerror(k->fd, &k->c->ev, k->setup_msg, sizeof(k->setup_msg));
		goto out_ready;
	}
	ret = pms_perf_async(k->fd, k->signo, k->tid);
	if (ret) {
		k->setup_status = PMS_E_SETUP;
		snprintf(k->setup_msg, sizeof(k->setup_msg), "cannot route overflow signals "
			 "(O_ASYNC/F_SETSIG/F_SETOWN_EX): %s", strerror(-ret));
		goto out_ready;
	}
	if (k->ring_pages) {
		long page = sysconf(_SC_PAGESIZE);

		k->ring_len = (size_t)(k->ring_pages + 1) * (size_t)page;
		k->ring = mmap(NULL, k->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
		if (k->ring == MAP_FAILED) {
			k->ring = NULL;
			k->ring_err = errno;
		}
	}
	/*
	 * Competitors: the same event counting without sampling, enabled with
	 * the thread, so the PMU has more events than counters and rotates
	 * them (rotation is a schedule-out path of its own).
	 */
	while (k->competing_open < k->competing && k->competing_open < PMS_COMPETING_MAX) {
		struct perf_event_attr ca = attr;
		int cfd;

		ca.sample_period = 0;
		ca.disabled = 0;
		ca.use_clockid = 0;
		cfd = pms_perf_open_self(&ca, -1);
		if (cfd < 0) {
			k->competing_err = -cfd;
			break;
		}
		k->competing_fd[k->competing_open++] = cfd;
	}
	/* Migrations that really happened, next to the rebinds requested. */
	k->mig_fd = pms_perf_open_self(&mig, -1);
	k->setup_status = PMS_OK;
out_ready:
	pms_thread_ready(&k->thread);
	if (k->setup_status != PMS_OK)
		return NULL;
	if (!pms_thread_wait_go(&k->thread))
		goto out_restore;

	ioctl(k->fd, PERF_EVENT_IOC_RESET, 0);
	if (k->mig_fd >= 0)
		ioctl(k->mig_fd, PERF_EVENT_IOC_ENABLE, 0);
	k->start_ns = pms_now_ns();
	ioctl(k->fd, PERF_EVENT_IOC_ENABLE, 0);
	if (k->enabled)
		k->enabled(k->arg);
	while (!pms_thread_stopping(&k->thread)) {
		pms_workload_step(k->work);
		if (k->step)
			k->step(k->arg);
	}
	if (k->disabling)
		k->disabling(k->arg);
	ioctl(k->fd, PERF_EVENT_IOC_DISABLE, 0);
	k->end_ns = pms_now_ns();
	ret = pms_perf_read_times(k->fd, &k->final_value, &k->time_enabled, &k->time_running);
	k->final_valid = ret >= 0;
	k->times_valid = ret > 0;
	if (k->mig_fd >= 0) {
		ioctl(k->mig_fd, PERF_EVENT_IOC_DISABLE, 0);
		k->migrations_valid = !pms_perf_read(k->mig_fd, &k->migrations_counted);
	}
	k->nr_migrations_sched = pms_task_nr_migrations(k->tid);
out_restore:
	/* Leave the thread as found, and prove it. */
	sched_setaffinity(0, sizeof(k->aff_initial), &k->aff_initial);
	sched_getaffinity(0, sizeof(k->aff_final), &k->aff_final);
	k->aff_restored = CPU_EQUAL(&k->aff_initial, &k->aff_final);
	return NULL;
}

void pms_counting_init(struct pms_counting *k)
{
	k->fd = k->mig_fd = -1;
	k->nr_migrations_sched = -1;
	pms_thread_init(&k->thread);
}

enum pms_status pms_counting_start(struct pms_counting *k, char *reason, size_t len)
{
	int ret = pms_thread_start(&k->thread, counting_main, k);

	if (ret) {
		snprintf(reason, len, "cannot start the counting thread: %s", strerror(ret));
		return PMS_E_SETUP;
	}
	if (k->setup_status != PMS_OK)
		snprintf(reason, len, "%s", k->setup_msg);
	return k->setup_status;
}

void pms_counting_go(struct pms_counting *k)
{
	pms_thread_go(&k->thread);
}

void pms_counting_stop(struct pms_counting *k)
{
	pms_thread_stop(&k->thread);
}

void pms_counting_fini(struct pms_counting *k)
{
	pms_thread_fini(&k->thread);
	if (k->fd >= 0)
		close(k->fd);
	if (k->mig_fd >= 0)
		close(k->mig_fd);
	k->fd = k->mig_fd = -1;
	if (k->ring)
		munmap(k->ring, k->ring_len);
	k->ring = NULL;
	while (k->competing_open)
		close(k->competing_fd[--k->competing_open]);
}
