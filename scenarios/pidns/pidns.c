// SPDX-License-Identifier: GPL-2.0-only
/*
 * pidns: who does a sample belong to when the workload, or the observer,
 * is in another PID namespace?
 *
 * The workload runs in a new PID namespace: its pid 1 is the inside
 * observer (a helper process, `pmustress __helper pidns init ...`), which
 * forks the workload process (a main thread, a second thread, and a child
 * forked and reaped every --child-every).  Two perf sessions watch it at
 * once with the same events: this process from the root namespace, and pid 1
 * from inside.  Each has
 *   - a sampling event on the workload (inherit, TID | TIME | CPU, with COMM,
 *     FORK/EXIT, NAMESPACES and SWITCH side-band records),
 *   - a dummy event per CPU with context_switch (SWITCH_CPU_WIDE records),
 *   - a watchpoint on the second thread whose overflow signal is routed to
 *     that thread with F_SETOWN_EX, by its tid in the observer's namespace.
 * Every workload task tells this process who it is over a unix socket with
 * SO_PASSCRED, so the kernel hands over its root-namespace pid with its own
 * word for its namespace pid; the second thread's pair comes from
 * /proc/PID/task/TID/status (NSpid).  The inside observer streams its ring
 * bytes over the same socket, and both views are judged here by one oracle
 * (rules.c): every record names a workload task by its numbers in the
 * observer's namespace, owed side-band records come once, NAMESPACES names
 * the workload's namespace, the two views count each task's switches
 * alike, and each observer's signals reach the thread it named.
 *
 * Arm SPE, where an arm_spe PMU exists, is the part of spe.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "pms-event.h"
#include "pms-perf.h"
#include "pms-probe.h"
#include "pms-scenario.h"
#include "pms-util.h"
#include "records.h"
#include "rules.h"
#include "spe-session.h"

#define PN_MAX_CPUS 256
#define PN_CHUNK 32768			/* ring bytes per message */
#define PN_BP_WRITES 200		/* watchpoint hits per routing check */
#define PN_MAX_SIDEBAND (1u << 20)	/* side-band records kept per view */
#define PN_TALLY (1u << 14)
#define PN_GRACE_NS (5 * NS_PER_S)

/* ---- messages between the namespace and this process */

enum pn_msg_type {
	M_HELLO_INIT = 1,	/* pid 1: a = its pid (1) */
	M_HELLO_MAIN,		/* a = pid, b = tid, x = the watched address */
	M_HELLO_THREAD,		/* a = tid */
	M_HELLO_CHILD,		/* a = pid, b = its index, c = ppid */
	M_READY,		/* inside observer: events open; err[] per kind */
	M_GO,			/* -> inside: start the workload */
	M_BP_OPEN,		/* -> inside: open the watchpoint on tid a */
	M_BP_READY,		/* inside: a = owner read back, b = owner type, err[0] */
	M_ROUTE,		/* thread: a,b = signals of root/inside, c,d = on other threads */
	M_STOP,			/* -> inside: stop the workload */
	M_DATA,			/* a = 0 per-task ring, 1 CPU-wide ring; payload: records */
	M_DONE,			/* inside: x = watchpoint count, a = records lost */
	M_BYE,			/* main thread: the workload ended (a = children forked) */
	M_FAIL,			/* anybody: text says what went wrong */
	M_SPE_START,		/* -> inside: an SPE session on tid a for x ns */
	M_SPE_RESULT,		/* inside: payload struct pidns_spe_session; a = 1 if it ran */
};

enum { ERR_TASK, ERR_CPUWIDE, ERR_BP, ERR_NR };

struct pn_msg {
	uint32_t type;
	uint32_t a, b, c, d;
	uint32_t pad;
	uint64_t x, y;
	int32_t err[ERR_NR];
	char text[200];
};

/* ---- configuration shared with the helper (argv) */

struct pn_cfg {
	uint64_t duration_ns;
	uint64_t child_every_ns;
	uint32_t ev_type;
	uint64_t ev_config, period;
	uint64_t exclude;	/* bit 0 user, 1 kernel, 2 hv */
	uint32_t bp_period;	/* 0: no routing check */
	bool cpu_wide;
	bool inside;		/* the inside observer opens events */
	uint32_t ncpus;
	int cpus[PN_MAX_CPUS];
};

static volatile uint64_t pn_bp_var;	/* the second thread writes it; watched */

static ssize_t send_msg(int fd, const struct pn_msg *m, const void *payload, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)m, .iov_len = sizeof(*m) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = payload ? 2 : 1 };
	ssize_t n;

	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

static void send_simple(int fd, uint32_t type, uint32_t a, uint32_t b, uint32_t c, uint64_t x)
{
	struct pn_msg m = { .type = type, .a = a, .b = b, .c = c, .x = x };

	send_msg(fd, &m, NULL, 0);
}

static void send_fail(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void send_fail(int fd, const char *fmt, ...)
{
	struct pn_msg m = { .type = M_FAIL };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	send_msg(fd, &m, NULL, 0);
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- the events, the same for both observers */

static void base_attr(struct perf_event_attr *a, const struct pn_cfg *c)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = PN_SAMPLE_TYPE;
	a->sample_id_all = 1;
	/*
	 * CLOCK_MONOTONIC, so that record times compare with this process's
	 * clock (the time the workload was told to start).
	 */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_user = !!(c->exclude & 1);
	a->exclude_kernel = !!(c->exclude & 2);
	a->exclude_hv = !!(c->exclude & 4);
	a->exclude_guest = !!(c->exclude & 8);
}

/* The sampling event with every side-band record that names a task. */
static void task_attr(struct perf_event_attr *a, const struct pn_cfg *c, bool namespaces)
{
	base_attr(a, c);
	a->type = c->ev_type;
	a->config = c->ev_config;
	a->sample_period = c->period;
	a->inherit = 1;
	a->comm = 1;
	a->task = 1;
	a->namespaces = namespaces;
	a->context_switch = 1;
}

static void cpuwide_attr(struct perf_event_attr *a, const struct pn_cfg *c)
{
	base_attr(a, c);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->context_switch = 1;
}

static void bp_attr(struct perf_event_attr *a, const struct pn_cfg *c, uint64_t addr)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = HW_BREAKPOINT_W;
	a->bp_addr = addr;
	a->bp_len = HW_BREAKPOINT_LEN_8;
	a->sample_period = c->bp_period;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* One observer's events and rings. */
struct pn_obs {
	/*
	 * The sampling event once per CPU: the kernel refuses to map the ring
	 * of an inherited event that follows a task on every CPU (cpu -1).
	 */
	unsigned int ntask;
	int task_fd[PN_MAX_CPUS];
	struct pn_ring task_ring[PN_MAX_CPUS];
	unsigned int ncpu;
	int cpu_fd[PN_MAX_CPUS];
	struct pn_ring cpu_ring[PN_MAX_CPUS];
	int bp_fd;
	int err[ERR_NR];	/* 0 or -errno per kind */
	bool namespaces;	/* attr.namespaces was accepted */
	struct f_owner_ex owner;	/* read back after F_SETOWN_EX */
	uint64_t bp_count;
};

static void obs_init(struct pn_obs *o)
{
	unsigned int i;

	memset(o, 0, sizeof(*o));
	o->bp_fd = -1;
	for (i = 0; i < PN_MAX_CPUS; i++)
		o->cpu_fd[i] = o->task_fd[i] = -1;
}

/*
 * Ring pages per event, emptied every 5 ms.  CPU-wide switch records come
 * from every task of the machine: on a loaded one they are most of the
 * volume while the reader gets the least CPU, so their rings cover about a
 * second of starvation at 10,000 switches a second per CPU.
 */
static unsigned int ring_pages(const struct pn_cfg *c, bool cpu_wide)
{
	if (cpu_wide)
		return c->ncpus <= 8 ? 128 : 16;
	return c->ncpus <= 8 ? 32 : 8;
}

static void close_set(int *fd, struct pn_ring *ring, unsigned int *n)
{
	unsigned int i;

	for (i = 0; i < *n; i++) {
		pn_ring_unmap(&ring[i]);
		close(fd[i]);
		fd[i] = -1;
	}
	*n = 0;
}

/* @a on every CPU of @c, each with its ring.  Return: 0 or -errno (none left open). */
static int open_set(struct perf_event_attr *a, const struct pn_cfg *c, pid_t target, int *fd,
		    struct pn_ring *ring, unsigned int *n, unsigned int pages)
{
	unsigned int i;
	int ret;

	*n = 0;
	for (i = 0; i < c->ncpus; i++) {
		ret = pms_perf_open(a, target, c->cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (ret < 0)
			break;
		fd[*n] = ret;
		ret = pn_ring_map(&ring[*n], fd[*n], pages);
		(*n)++;
		if (ret)
			break;
	}
	if (i < c->ncpus) {
		close_set(fd, ring, n);
		return ret;
	}
	return 0;
}

static int obs_open(struct pn_obs *o, const struct pn_cfg *c, pid_t target)
{
	struct perf_event_attr a;
	int ret;

	task_attr(&a, c, true);
	ret = open_set(&a, c, target, o->task_fd, o->task_ring, &o->ntask, ring_pages(c, false));
	if (ret == -EACCES || ret == -EPERM) {
		/* attr.namespaces wants CAP_SYS_ADMIN; the rest may still open. */
		task_attr(&a, c, false);
		ret = open_set(&a, c, target, o->task_fd, o->task_ring, &o->ntask,
			       ring_pages(c, false));
	} else if (!ret) {
		o->namespaces = true;
	}
	if (ret) {
		o->err[ERR_TASK] = ret;
		return ret;
	}
	if (!c->cpu_wide)
		return 0;
	/* All CPUs or none: a partial CPU-wide view cannot be compared. */
	cpuwide_attr(&a, c);
	o->err[ERR_CPUWIDE] = open_set(&a, c, -1, o->cpu_fd, o->cpu_ring, &o->ncpu,
				       ring_pages(c, true));
	return 0;
}

static int obs_open_bp(struct pn_obs *o, const struct pn_cfg *c, pid_t tid, uint64_t addr,
		       int signo)
{
	struct perf_event_attr a;
	int fd, ret;

	bp_attr(&a, c, addr);
	fd = pms_perf_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return o->err[ERR_BP] = fd;
	ret = pms_perf_async(fd, signo, tid);
	if (!ret && fcntl(fd, F_GETOWN_EX, &o->owner))
		ret = -errno;
	if (ret) {
		close(fd);
		return o->err[ERR_BP] = ret;
	}
	o->bp_fd = fd;
	return 0;
}

static void obs_close(struct pn_obs *o)
{
	close_set(o->task_fd, o->task_ring, &o->ntask);
	close_set(o->cpu_fd, o->cpu_ring, &o->ncpu);
	if (o->bp_fd >= 0)
		close(o->bp_fd);
	o->bp_fd = -1;
}

/*
 * Empty every ring of @o into @fn(@arg, source, bytes, len): source 0 the
 * per-task ring, 1 a CPU-wide one.  Return: 0, or -EBADMSG for a ring the
 * kernel cannot have written.
 */
static int drain_set(struct pn_ring *ring, unsigned int n, int src,
		     void (*fn)(void *, int, const void *, size_t), void *arg, void *buf)
{
	unsigned int i;
	long got;

	for (i = 0; i < n; i++)
		do {
			got = pn_ring_take(&ring[i], buf, PN_CHUNK);
			if (got < 0)
				return (int)got;
			if (got)
				fn(arg, src, buf, (size_t)got);
		} while (got > PN_CHUNK / 2);
	return 0;
}

static int obs_drain(struct pn_obs *o, void (*fn)(void *, int, const void *, size_t),
		     void *arg, void *buf)
{
	int ret = drain_set(o->task_ring, o->ntask, 0, fn, arg, buf);

	return ret ? ret : drain_set(o->cpu_ring, o->ncpu, 1, fn, arg, buf);
}

/* ---- Arm SPE sessions, one observer at a time (SPE is one per CPU) */

#define PN_SPE_BUF (4u << 20)	/* AUX bytes kept per session */

struct pn_spe_job {
	struct pidns_spe_cfg cfg;
	pid_t tid;
	uint64_t ns;
	uint8_t *buf;
	struct pidns_spe_session out;
	pthread_t th;
	bool started;
	volatile int done;
};

static void *spe_main(void *arg)
{
	struct pn_spe_job *job = arg;

	pidns_spe_session_run(&job->cfg, job->tid, job->ns, job->buf, PN_SPE_BUF, &job->out);
	__atomic_store_n(&job->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start @job on a thread of its own. Return: 0 or -errno (then it is done). */
static int spe_start(struct pn_spe_job *job, const char *devices, pid_t tid, uint64_t ns)
{
	int ret;

	memset(&job->out, 0, sizeof(job->out));
	job->tid = tid;
	job->ns = ns;
	job->done = 0;
	ret = pidns_spe_find(devices, &job->cfg);
	if (!ret && !job->buf)
		job->buf = malloc(PN_SPE_BUF);
	if (!ret && !job->buf)
		ret = -ENOMEM;
	if (!ret)
		ret = -pthread_create(&job->th, NULL, spe_main, job);
	if (ret) {
		job->out.err = ret;
		snprintf(job->out.step, sizeof(job->out.step), "set-up");
		snprintf(job->out.why, sizeof(job->out.why), "%.159s", job->cfg.why);
		job->done = 1;
		return ret;
	}
	job->started = true;
	return 0;
}

static void spe_join(struct pn_spe_job *job)
{
	if (job->started)
		pthread_join(job->th, NULL);
	job->started = false;
	free(job->buf);
	job->buf = NULL;
}

static const char *devices_dir(void)
{
	const char *d = getenv("PMUSTRESS_SYSFS_DEVICES");

	return d ? d : "/sys/bus/event_source/devices";
}

/* ---- the workload (inside the namespace) */

struct pn_work {
	const struct pn_cfg *cfg;
	int sock;
	int cmd;		/* read end: 'g' go, 'b' watchpoints open, 's' stop */
	volatile int stop;
	volatile int bp_go;
	volatile pid_t thread_tid;
	uint64_t deadline;
};

static volatile uint64_t pn_sig_got[2], pn_sig_other[2];
static volatile pid_t pn_sig_target;

static void on_route(int signo, siginfo_t *si, void *uc)
{
	int k = signo == SIGRTMIN + 1 ? 0 : 1;

	pn_sig_got[k]++;
	if (my_tid() != pn_sig_target)
		pn_sig_other[k]++;
}

static void burn(uint64_t ns)
{
	uint64_t end = pms_now_ns() + ns;
	volatile uint64_t x = 0;

	while (pms_now_ns() < end)
		x += x * 3 + 1;
}

static void *thread_main(void *arg)
{
	struct pn_work *w = arg;
	uint64_t i, want, until;

	prctl(PR_SET_NAME, "pidns-thread", 0, 0, 0);
	w->thread_tid = my_tid();
	pn_sig_target = w->thread_tid;
	send_simple(w->sock, M_HELLO_THREAD, (uint32_t)w->thread_tid, 0, 0, 0);
	while (!w->stop && !w->bp_go && pms_now_ns() < w->deadline)
		usleep(200);
	if (w->bp_go && !w->stop) {
		struct pn_msg m = { .type = M_ROUTE };

		for (i = 1; i <= PN_BP_WRITES; i++) {
			want = pn_sig_got[0] + pn_sig_got[1];
			pn_bp_var = i;
			/* Delivery comes on the way back to user space; wait a little anyway. */
			until = pms_now_ns() + 2 * NS_PER_MS;
			while (pn_sig_got[0] + pn_sig_got[1] == want && pms_now_ns() < until)
				;
		}
		until = pms_now_ns() + 100 * NS_PER_MS;
		while (pms_now_ns() < until)
			usleep(1000);
		m.a = (uint32_t)pn_sig_got[0];
		m.b = (uint32_t)pn_sig_got[1];
		m.c = (uint32_t)pn_sig_other[0];
		m.d = (uint32_t)pn_sig_other[1];
		m.x = PN_BP_WRITES;
		send_msg(w->sock, &m, NULL, 0);
	}
	while (!w->stop && pms_now_ns() < w->deadline) {
		burn(200 * NS_PER_US);
		usleep(500);
	}
	return NULL;
}

static void poll_cmd(struct pn_work *w, int timeout_ms)
{
	struct pollfd p = { .fd = w->cmd, .events = POLLIN };
	char c;

	if (poll(&p, 1, timeout_ms) <= 0)
		return;
	if (read(w->cmd, &c, 1) != 1 || c == 's')
		w->stop = 1;
	else if (c == 'b')
		w->bp_go = 1;
}

static int workload_main(struct pn_work *w)
{
	struct sigaction sa = { .sa_sigaction = on_route, .sa_flags = SA_SIGINFO | SA_RESTART };
	uint64_t next_child, children = 0;
	pthread_t t;
	char c = 0;

	sigaction(SIGRTMIN + 1, &sa, NULL);
	sigaction(SIGRTMIN + 2, &sa, NULL);
	send_simple(w->sock, M_HELLO_MAIN, (uint32_t)getpid(), (uint32_t)my_tid(), 0,
		    (uint64_t)(uintptr_t)&pn_bp_var);
	{
		struct pollfd p = { .fd = w->cmd, .events = POLLIN };

		if (poll(&p, 1, (int)((w->deadline - pms_now_ns()) / NS_PER_MS)) <= 0 ||
		    read(w->cmd, &c, 1) != 1 || c != 'g')
			return 2;
	}
	prctl(PR_SET_NAME, "pidns-main", 0, 0, 0);
	if (pthread_create(&t, NULL, thread_main, w)) {
		send_fail(w->sock, "the workload could not start its second thread");
		return 3;
	}
	next_child = pms_now_ns();
	while (!w->stop && pms_now_ns() < w->deadline) {
		if (pms_now_ns() >= next_child) {
			pid_t p = fork();

			if (p == 0) {
				char name[16];
				struct pn_msg m = { .type = M_HELLO_CHILD, .a = (uint32_t)getpid(),
						    .b = (uint32_t)children,
						    .c = (uint32_t)getppid() };

				send_msg(w->sock, &m, NULL, 0);
				snprintf(name, sizeof(name), "pidns-c%" PRIu64, children);
				prctl(PR_SET_NAME, name, 0, 0, 0);
				_exit(0);
			}
			if (p > 0) {
				children++;
				while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
					;
			}
			next_child += w->cfg->child_every_ns;
		}
		burn(NS_PER_MS);
		poll_cmd(w, 0);
	}
	w->stop = 1;
	pthread_join(t, NULL);
	send_simple(w->sock, M_BYE, (uint32_t)children, 0, 0, 0);
	return 0;
}

/* ---- the inside observer: pid 1 of the namespace */

struct pn_init {
	const struct pn_cfg *cfg;
	int sock;
	struct pn_obs obs;
	uint8_t buf[PN_CHUNK];
	bool failed;
};

static void send_chunk(void *arg, int src, const void *bytes, size_t len)
{
	struct pn_init *in = arg;
	struct pn_msg m = { .type = M_DATA, .a = (uint32_t)src };

	if (send_msg(in->sock, &m, bytes, len) < 0)
		in->failed = true;
}

static int init_main(const struct pn_cfg *cfg, int sock)
{
	static struct pn_init in;
	static struct pn_spe_job spe;
	bool spe_reported = true;
	struct pn_msg m;
	int cmd[2], status = 0;
	pid_t w;
	uint64_t deadline = pms_now_ns() + cfg->duration_ns + PN_GRACE_NS;
	bool reaped = false;

	in.cfg = cfg;
	in.sock = sock;
	obs_init(&in.obs);
	send_simple(sock, M_HELLO_INIT, (uint32_t)getpid(), 0, 0, 0);
	if (pipe2(cmd, O_CLOEXEC))
		return 3;
	w = fork();
	if (w < 0) {
		send_fail(sock, "pid 1 of the namespace cannot fork the workload: %s",
			  strerror(errno));
		return 3;
	}
	if (w == 0) {
		struct pn_work wk = { .cfg = cfg, .sock = sock, .cmd = cmd[0],
				      .deadline = deadline };

		close(cmd[1]);
		_exit(workload_main(&wk));
	}
	close(cmd[0]);
	memset(&m, 0, sizeof(m));
	m.type = M_READY;
	if (cfg->inside)
		obs_open(&in.obs, cfg, w);
	memcpy(m.err, in.obs.err, sizeof(m.err));
	m.a = in.obs.namespaces;
	m.b = in.obs.ncpu;
	send_msg(sock, &m, NULL, 0);

	while (!reaped) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int r = poll(&p, 1, 5);

		if (r > 0) {
			ssize_t n = recv(sock, &m, sizeof(m), 0);

			if (n <= 0) {
				/* The root side is gone: end the namespace. */
				kill(w, SIGKILL);
				break;
			}
			if (m.type == M_GO) {
				if (write(cmd[1], "g", 1) != 1)
					kill(w, SIGKILL);
			} else if (m.type == M_STOP) {
				if (write(cmd[1], "s", 1) != 1)
					kill(w, SIGKILL);
			} else if (m.type == M_BP_OPEN) {
				struct pn_msg r2 = { .type = M_BP_READY };

				if (cfg->inside)
					obs_open_bp(&in.obs, cfg, (pid_t)m.a, m.x, SIGRTMIN + 2);
				r2.a = (uint32_t)in.obs.owner.pid;
				r2.b = (uint32_t)in.obs.owner.type;
				memcpy(r2.err, in.obs.err, sizeof(r2.err));
				send_msg(sock, &r2, NULL, 0);
				if (write(cmd[1], "b", 1) != 1)
					kill(w, SIGKILL);
			} else if (m.type == M_SPE_START) {
				spe_start(&spe, devices_dir(), (pid_t)m.a, m.x);
				spe_reported = false;
			}
		}
		if (!spe_reported && __atomic_load_n(&spe.done, __ATOMIC_ACQUIRE)) {
			struct pn_msg r3 = { .type = M_SPE_RESULT, .a = 1 };

			spe_join(&spe);
			send_msg(sock, &r3, &spe.out, sizeof(spe.out));
			spe_reported = true;
		}
		if (obs_drain(&in.obs, send_chunk, &in, in.buf))
			in.failed = true;
		if (waitpid(w, &status, WNOHANG) == w)
			reaped = true;
		else if (pms_now_ns() > deadline)
			kill(w, SIGKILL);
	}
	/* The workload is gone: what its events wrote is all there is. */
	if (!spe_reported) {
		struct pn_msg r3 = { .type = M_SPE_RESULT, .a = 1 };

		spe_join(&spe);
		send_msg(sock, &r3, &spe.out, sizeof(spe.out));
	}
	obs_drain(&in.obs, send_chunk, &in, in.buf);
	memset(&m, 0, sizeof(m));
	m.type = M_DONE;
	if (in.obs.bp_fd >= 0)
		pms_perf_read(in.obs.bp_fd, &in.obs.bp_count);
	m.x = in.obs.bp_count;
	m.a = WIFEXITED(status) ? (uint32_t)WEXITSTATUS(status) : 128 + (uint32_t)WTERMSIG(status);
	m.b = in.failed;
	send_msg(sock, &m, NULL, 0);
	obs_close(&in.obs);
	return 0;
}

static int cfg_to_argv(const struct pn_cfg *c, char *buf, size_t len)
{
	size_t pos;
	unsigned int i;
	int n;

	n = snprintf(buf, len, "%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
		     ",%u,%d,%d", c->duration_ns, c->child_every_ns, c->ev_type, c->ev_config,
		     c->period, c->exclude, c->bp_period, c->cpu_wide, c->inside);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	pos = (size_t)n;
	for (i = 0; i < c->ncpus; i++) {
		n = snprintf(buf + pos, len - pos, ":%d", c->cpus[i]);
		if (n < 0 || (size_t)n >= len - pos)
			return -ENOSPC;
		pos += (size_t)n;
	}
	return 0;
}

static int cfg_from_argv(struct pn_cfg *c, const char *s)
{
	int cw, in, off = 0;
	const char *p;

	memset(c, 0, sizeof(*c));
	if (sscanf(s, "%" SCNu64 ",%" SCNu64 ",%u,%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%u,%d,%d%n",
		   &c->duration_ns, &c->child_every_ns, &c->ev_type, &c->ev_config, &c->period,
		   &c->exclude, &c->bp_period, &cw, &in, &off) != 9)
		return -EINVAL;
	c->cpu_wide = cw;
	c->inside = in;
	for (p = s + off; *p == ':' && c->ncpus < PN_MAX_CPUS; ) {
		char *end;
		long v = strtol(p + 1, &end, 10);

		if (end == p + 1 || v < 0)
			return -EINVAL;
		c->cpus[c->ncpus++] = (int)v;
		p = end;
	}
	return *p ? -EINVAL : 0;
}

/* `pmustress __helper pidns init SOCKFD CFG`: pid 1 of the new namespace. */
static int pn_helper(int argc, char **argv)
{
	static struct pn_cfg cfg;
	uint64_t fd;

	if (argc != 4 || strcmp(argv[1], "init") || pms_parse_u64(argv[2], &fd) || fd > 1024 ||
	    cfg_from_argv(&cfg, argv[3])) {
		fprintf(stderr, "pmustress: __helper pidns: internal use only\n");
		return 64;
	}
	/* Die with the process that made the namespace. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	return init_main(&cfg, (int)fd);
}

/* ---- this process: the root observer and the judge */

enum { VIEW_BOTH, VIEW_ROOT, VIEW_INSIDE };
enum { CW_AUTO, CW_ON, CW_OFF };

static const struct pms_opt_desc pn_opts[] = {
	{ .name = "view", .type = PMS_OPT_CHOICE, .def = "both", .arg = "both|root|inside",
	  .choices = (const char *const[]){ "both", "root", "inside", NULL },
	  .help = "which observers open events: this process in the root namespace, pid 1 "
		  "inside the workload's namespace, or both (the workload and the truth are "
		  "the same either way)" },
	{ .name = "cpu-wide", .type = PMS_OPT_CHOICE, .def = "auto", .arg = "auto|on|off",
	  .choices = (const char *const[]){ "auto", "on", "off", NULL },
	  .help = "CPU-wide SWITCH_CPU_WIDE events on every CPU (auto: where the kernel "
		  "allows them; on: an observer that cannot is an error)" },
	{ .name = "child-every", .type = PMS_OPT_DURATION, .def = "20ms", .min = 1000000,
	  .max = 10 * NS_PER_S, .arg = "TIME",
	  .help = "the workload forks, names and reaps a child this often" },
	{ .name = "routing", .type = PMS_OPT_CHOICE, .def = "on", .arg = "on|off",
	  .choices = (const char *const[]){ "on", "off", NULL },
	  .help = "check F_SETOWN_EX routing with a watchpoint on the second thread" },
	{ .name = "userns", .type = PMS_OPT_FLAG,
	  .help = "also give the namespace a user namespace of its own: pid 1 then observes "
		  "without privileges in the root user namespace (as in a rootless "
		  "container), and this works for an unprivileged caller where user "
		  "namespaces are allowed" },
	{ .name = "inject-wrong-ns", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = 1u << 30,
	  .arg = "N", .help = "fault injection: give every Nth sample of the root view the "
			      "workload's namespace numbers before judging (0: off); the run "
			      "must then fail" },
};

struct pn_view_state {
	bool on;		/* this view's observer opens events */
	bool cpu_wide;		/* it has CPU-wide events */
	bool namespaces;	/* attr.namespaces accepted */
	int err[ERR_NR];
	struct pn_rec *side;	/* FORK, EXIT, COMM, NAMESPACES records */
	size_t nside;
	uint64_t side_dropped;
	struct pn_tally tally;	/* per-task SAMPLE and SWITCH by task */
	struct pn_tally cpu;	/* SWITCH_CPU_WIDE by current, and by next/prev */
	uint64_t kinds[PERF_RECORD_MAX];
	uint64_t other;
	uint64_t lost_records, lost;	/* per-task rings */
	uint64_t lost_cpu_records, lost_cpu;	/* CPU-wide rings */
	uint64_t bad_bytes;
	uint64_t bytes;
	/* routing */
	bool bp_open;
	struct f_owner_ex owner;
	uint64_t bp_count, got, on_other;
	int signo;
};

struct pn_state {
	struct pn_cfg cfg;
	struct pms_event ev;
	int view, cw_mode;
	bool routing;
	struct pn_view_state v[PN_NR_VIEWS];
	struct pn_obs root;
	struct pn_truth truth;
	int sock;		/* our end */
	int child_sock;
	pid_t init_pid;		/* root-namespace pid of the namespace's pid 1 */
	bool init_reaped;
	int init_status;
	struct stat our_ns, their_ns;
	bool their_ns_known;
	/* the workload */
	pid_t main_pid[PN_NR_VIEWS], main_tid[PN_NR_VIEWS];
	uint64_t bp_addr;
	bool have_main, have_thread, ready, go_sent, bp_sent, bp_ready, route_done, done, bye;
	bool stop_sent;
	uint64_t children_forked, children_reported;
	int thread_idx;
	char fail[256];
	uint64_t start_ns, end_ns;
	uint64_t go_ns;		/* CLOCK_MONOTONIC just before M_GO */
	uint64_t inject, root_samples, injected;	/* --inject-wrong-ns */
	char spe_why[256];
	bool spe;		/* an arm_spe PMU is there: sessions run */
	struct pn_spe_job spe_root;	/* this process's session */
	struct pidns_spe_session spe_inside;	/* pid 1's, as it sent it */
	bool spe_inside_ran, spe_inside_sent, spe_root_started;
	bool our_ns_initial;	/* this process is in the initial PID namespace */
	int pid_in_contextidr;	/* CONFIG_PID_IN_CONTEXTIDR: 1 y, 0 not, -1 unknown */
	json_object *spe_pmus;	/* arm_spe PMUs under run->devices */
	bool capable;		/* this process may see kernel data (CAP_PERFMON or root) */
	bool userns;		/* --userns: CLONE_NEWUSER too */
	char exclude_source[96];
	uint8_t buf[sizeof(struct pn_msg) + PN_CHUNK + 64];
	uint8_t drain_buf[PN_CHUNK];
};

static int online_cpus(struct pms_run *run, struct pn_cfg *c)
{
	hwloc_const_cpuset_t set = hwloc_topology_get_topology_cpuset(run->topo);
	int i;

	c->ncpus = 0;
	hwloc_bitmap_foreach_begin(i, set)
		if (c->ncpus < PN_MAX_CPUS)
			c->cpus[c->ncpus++] = i;
	hwloc_bitmap_foreach_end();
	return c->ncpus ? 0 : -ENODEV;
}

static enum pms_status start_namespace(struct pms_run *run, struct pn_state *st);

static enum pms_status pn_setup(struct pms_run *run)
{
	struct pn_state *st = run->priv;
	const char *spec = pms_opt_str(&run->opts, "event");
	const char *excl = pms_opt_str(&run->opts, "exclude");
	char err[512];
	int ret;

	st->sock = st->child_sock = -1;
	st->thread_idx = -1;
	obs_init(&st->root);
	st->view = (int)pms_opt_u64(&run->opts, "view");
	st->cw_mode = (int)pms_opt_u64(&run->opts, "cpu-wide");
	st->routing = pms_opt_u64(&run->opts, "routing") == 0;
	st->inject = pms_opt_u64(&run->opts, "inject-wrong-ns");
	st->userns = pms_opt_given(&run->opts, "userns");
	st->cfg.duration_ns = pms_opt_u64(&run->opts, "duration");
	st->cfg.child_every_ns = pms_opt_u64(&run->opts, "child-every");
	st->cfg.cpu_wide = st->cw_mode != CW_OFF;
	st->cfg.inside = st->view != VIEW_ROOT;
	st->v[PN_ROOT].on = st->view != VIEW_INSIDE;
	st->v[PN_INSIDE].on = st->view != VIEW_ROOT;

	ret = pms_event_parse(spec ? spec : "task-clock", run->devices, run->arch, &st->ev, err,
			      sizeof(err));
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "%s", err);
		return PMS_E_EVENT;
	}
	if (st->ev.breakpoint) {
		snprintf(run->reason, sizeof(run->reason), "--event %s: pidns samples a "
			 "counting event (task-clock, cycles:u, ...); its watchpoint is its own",
			 st->ev.spec);
		return PMS_E_USAGE;
	}
	if (excl) {
		ret = pms_event_set_exclude(&st->ev.attr, excl, err, sizeof(err));
		if (ret) {
			snprintf(run->reason, sizeof(run->reason), "bad --exclude: %s", err);
			return PMS_E_EVENT;
		}
		snprintf(st->exclude_source, sizeof(st->exclude_source), "--exclude %s", excl);
	} else if (spec && strchr(spec, ':')) {
		snprintf(st->exclude_source, sizeof(st->exclude_source), "modifiers of '%s'", spec);
	} else {
		/* What rr sets, and what an observer without privileges may open. */
		pms_event_set_exclude(&st->ev.attr, "kernel,guest", err, sizeof(err));
		snprintf(st->exclude_source, sizeof(st->exclude_source), "default: exclude_kernel, "
			 "exclude_guest (what rr sets)");
	}
	st->cfg.ev_type = st->ev.attr.type;
	st->cfg.ev_config = st->ev.attr.config;
	st->cfg.exclude = (uint64_t)st->ev.attr.exclude_user |
			  (uint64_t)st->ev.attr.exclude_kernel << 1 |
			  (uint64_t)st->ev.attr.exclude_hv << 2 |
			  (uint64_t)st->ev.attr.exclude_guest << 3;
	st->cfg.period = pms_opt_given(&run->opts, "period") ? pms_opt_u64(&run->opts, "period") :
			 st->ev.sem == PMS_SEM_TIMER ? 1000000 : 100000;
	/* arm64 watchpoints hit again on the way back from the handler (see sigtrap). */
	st->cfg.bp_period = !st->routing ? 0 : !strcmp(run->arch, "aarch64") ? 2 : 1;
	if (online_cpus(run, &st->cfg)) {
		snprintf(run->reason, sizeof(run->reason), "no online CPU in the topology");
		return PMS_E_SETUP;
	}
	if (pn_truth_init(&st->truth, 4 + st->cfg.duration_ns / st->cfg.child_every_ns + 16)) {
		snprintf(run->reason, sizeof(run->reason), "out of memory");
		return PMS_E_SETUP;
	}
	for (int v = 0; v < PN_NR_VIEWS; v++) {
		st->v[v].side = calloc(PN_MAX_SIDEBAND, sizeof(struct pn_rec));
		if (!st->v[v].side || pn_tally_init(&st->v[v].tally, PN_TALLY) ||
		    pn_tally_init(&st->v[v].cpu, PN_TALLY)) {
			snprintf(run->reason, sizeof(run->reason), "out of memory");
			return PMS_E_SETUP;
		}
	}
	{
		json_object *em = pms_json_get(run->host, "emulated");
		json_object *ini = pms_json_get(run->host, "pid_namespace.initial");
		const char *cx = pms_json_get_str(run->host, "config_pid_in_contextidr.value");

		/* The SPE PMUs of --devices (tests name a fake tree), kept for the result. */
		st->spe_pmus = pms_probe_spe(run->devices);
		st->spe = st->spe_pmus && json_object_array_length(st->spe_pmus) > 0;
		if (!st->spe)
			snprintf(st->spe_why, sizeof(st->spe_why), "no arm_spe PMU in %s%s: the "
				 "SPE part did not run, the rest did", run->devices,
				 em && json_object_get_boolean(em) ? " (this looks like an "
				 "emulated machine: QEMU's emulated CPUs have no SPE)" : "");
		/* The rest the probe of the host block has read already. */
		st->our_ns_initial = ini && json_object_get_boolean(ini);
		st->pid_in_contextidr = !cx ? -1 : !strcmp(cx, "y");
		/* Effective root stands for CAP_PERFMON here: the SPE driver's test. */
		st->capable = geteuid() == 0;
	}
	if (stat("/proc/self/ns/pid", &st->our_ns)) {
		snprintf(run->reason, sizeof(run->reason), "cannot read this process's PID "
			 "namespace (/proc/self/ns/pid): %s", strerror(errno));
		return PMS_E_SETUP;
	}
	return start_namespace(run, st);
}

/* Make the namespace: pid 1 is this binary again, as the helper. */
static int spawn_init(struct pms_run *run, struct pn_state *st)
{
	char exe[4096], fdarg[16], cfgarg[2048];
	char *argv[] = { exe, "__helper", "pidns", "init", fdarg, cfgarg, NULL };
	int sv[2], one = 1;
	ssize_t n;
	long pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	st->sock = sv[0];
	st->child_sock = sv[1];
	if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		return -errno;
	snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
	if (cfg_to_argv(&st->cfg, cfgarg, sizeof(cfgarg)))
		return -ENOSPC;
	/*
	 * A fork-like clone: the child only clears close-on-exec and execs,
	 * both async-signal-safe, so the threads of this process do not matter.
	 */
	pid = syscall(SYS_clone, CLONE_NEWPID | (st->userns ? CLONE_NEWUSER : 0) | SIGCHLD, NULL,
		      NULL, NULL, NULL);
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fcntl(sv[1], F_SETFD, 0);
		execv(exe, argv);
		_exit(127);
	}
	st->init_pid = (pid_t)pid;
	close(sv[1]);
	st->child_sock = -1;
	return 0;
}

/* A switch from before the workload was told to start: one view may lack it. */
static uint32_t early(const struct pn_state *st, const struct pn_rec *r)
{
	return !st->go_ns || r->time < st->go_ns ? PN_KIND_EARLY : 0;
}

static void add_records(struct pn_state *st, enum pn_view v, int src, const void *bytes,
			size_t len)
{
	struct pn_view_state *vs = &st->v[v];
	struct pn_rec r;
	size_t off = 0;
	int ret;

	vs->bytes += len;
	while ((ret = pn_parse(bytes, len, &off, &r)) == 1) {
		if (r.type < PERF_RECORD_MAX)
			vs->kinds[r.type]++;
		else
			vs->other++;
		switch (r.type) {
		case PERF_RECORD_SAMPLE:
			if (v == PN_ROOT && st->inject && st->have_main &&
			    ++st->root_samples % st->inject == 0) {
				r.id_pid = (uint32_t)st->main_pid[PN_INSIDE];
				r.id_tid = (uint32_t)st->main_tid[PN_INSIDE];
				st->injected++;
			}
			pn_tally_add(&vs->tally, r.type, r.id_pid, r.id_tid, 1);
			break;
		case PERF_RECORD_SWITCH:
			pn_tally_add(&vs->tally, r.type | early(st, &r), r.id_pid, r.id_tid, 1);
			break;
		case PERF_RECORD_SWITCH_CPU_WIDE:
			pn_tally_add(&vs->cpu, r.type | early(st, &r), r.id_pid, r.id_tid, 1);
			pn_tally_add(&vs->cpu, PN_KIND_NEXT_PREV | early(st, &r), r.np_pid,
				     r.np_tid, 1);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_COMM:
		case PERF_RECORD_NAMESPACES:
			if (src != 0)
				break;
			if (vs->nside < PN_MAX_SIDEBAND)
				vs->side[vs->nside++] = r;
			else
				vs->side_dropped++;
			break;
		case PERF_RECORD_LOST:
			if (src == 0) {
				vs->lost_records++;
				vs->lost += r.lost;
			} else {
				vs->lost_cpu_records++;
				vs->lost_cpu += r.lost;
			}
			break;
		default:
			break;
		}
	}
	if (ret < 0)
		vs->bad_bytes += len - off;
}

static void root_chunk(void *arg, int src, const void *bytes, size_t len)
{
	add_records(arg, PN_ROOT, src, bytes, len);
}

/* The root-namespace tid of the workload thread whose namespace tid is @ntid. */
static pid_t global_tid(pid_t gpid, pid_t ntid)
{
	char path[64], line[256];
	struct dirent *d;
	pid_t found = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", gpid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		char sp[300];
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(sp, sizeof(sp), "/proc/%d/task/%s/status", gpid, d->d_name);
		f = fopen(sp, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			long a, b;

			/* "NSpid:\tROOT\tINNER": this process sees two levels. */
			if (sscanf(line, "NSpid: %ld %ld", &a, &b) == 2 && b == ntid) {
				found = (pid_t)a;
				break;
			}
		}
		fclose(f);
	}
	closedir(dir);
	return found;
}

static void add_task(struct pn_state *st, struct pn_task *t)
{
	if (pn_truth_add(&st->truth, t) < 0)
		snprintf(st->fail, sizeof(st->fail), "more workload tasks than room for them");
}

static void on_msg(struct pms_run *run, struct pn_state *st, const struct pn_msg *m,
		   const void *payload, size_t plen, const struct ucred *cred)
{
	struct pn_task t = { 0 };
	struct pn_msg out = { 0 };

	switch (m->type) {
	case M_HELLO_INIT:
		t.role = PN_INIT;
		t.pid[PN_ROOT] = t.tid[PN_ROOT] = (uint32_t)st->init_pid;
		t.pid[PN_INSIDE] = t.tid[PN_INSIDE] = m->a;
		add_task(st, &t);
		break;
	case M_HELLO_MAIN:
		if (!cred)
			break;
		st->main_pid[PN_ROOT] = st->main_tid[PN_ROOT] = cred->pid;
		st->main_pid[PN_INSIDE] = (pid_t)m->a;
		st->main_tid[PN_INSIDE] = (pid_t)m->b;
		st->bp_addr = m->x;
		t.role = PN_MAIN;
		t.pid[PN_ROOT] = t.tid[PN_ROOT] = (uint32_t)cred->pid;
		t.pid[PN_INSIDE] = m->a;
		t.tid[PN_INSIDE] = m->b;
		t.parent[PN_ROOT] = (uint32_t)st->init_pid;
		t.parent[PN_INSIDE] = 1;
		snprintf(t.comm, sizeof(t.comm), "pidns-main");
		t.exits = true;
		add_task(st, &t);
		st->have_main = true;
		break;
	case M_HELLO_THREAD: {
		pid_t g = global_tid(st->main_pid[PN_ROOT], (pid_t)m->a);

		if (!g) {
			snprintf(st->fail, sizeof(st->fail), "the second thread (namespace tid "
				 "%u) has no root-namespace tid in /proc/%d/task", m->a,
				 st->main_pid[PN_ROOT]);
			break;
		}
		t.role = PN_THREAD;
		t.pid[PN_ROOT] = (uint32_t)st->main_pid[PN_ROOT];
		t.tid[PN_ROOT] = (uint32_t)g;
		t.pid[PN_INSIDE] = (uint32_t)st->main_pid[PN_INSIDE];
		t.tid[PN_INSIDE] = m->a;
		/* A thread's real parent is its process's parent. */
		t.parent[PN_ROOT] = (uint32_t)st->init_pid;
		t.parent[PN_INSIDE] = 1;
		for (int v = 0; v < PN_NR_VIEWS; v++) {
			t.fpid[v] = (uint32_t)st->main_pid[v];
			t.ftid[v] = (uint32_t)st->main_tid[v];
		}
		snprintf(t.comm, sizeof(t.comm), "pidns-thread");
		t.sideband = t.exits = true;
		st->thread_idx = (int)st->truth.n;
		add_task(st, &t);
		st->have_thread = true;
		if (!st->routing)
			break;
		/* The root observer's watchpoint, routed by the root-namespace tid. */
		st->v[PN_ROOT].signo = SIGRTMIN + 1;
		st->v[PN_INSIDE].signo = SIGRTMIN + 2;
		if (st->v[PN_ROOT].on && !obs_open_bp(&st->root, &st->cfg, g, st->bp_addr,
						      SIGRTMIN + 1)) {
			st->v[PN_ROOT].bp_open = true;
			st->v[PN_ROOT].owner = st->root.owner;
		}
		st->v[PN_ROOT].err[ERR_BP] = st->root.err[ERR_BP];
		out.type = M_BP_OPEN;
		out.a = m->a;
		out.x = st->bp_addr;
		send_msg(st->sock, &out, NULL, 0);
		st->bp_sent = true;
		break;
	}
	case M_HELLO_CHILD:
		if (!cred)
			break;
		st->children_reported++;
		t.role = PN_CHILD;
		t.pid[PN_ROOT] = t.tid[PN_ROOT] = (uint32_t)cred->pid;
		t.pid[PN_INSIDE] = t.tid[PN_INSIDE] = m->a;
		for (int v = 0; v < PN_NR_VIEWS; v++) {
			t.parent[v] = t.fpid[v] = (uint32_t)st->main_pid[v];
			t.ftid[v] = (uint32_t)st->main_tid[v];
		}
		snprintf(t.comm, sizeof(t.comm), "pidns-c%u", m->b);
		t.sideband = t.exits = true;
		add_task(st, &t);
		break;
	case M_READY:
		st->ready = true;
		memcpy(st->v[PN_INSIDE].err, m->err, sizeof(m->err));
		st->v[PN_INSIDE].namespaces = m->a;
		st->v[PN_INSIDE].cpu_wide = m->b > 0;
		break;
	case M_BP_READY:
		st->bp_ready = true;
		st->v[PN_INSIDE].err[ERR_BP] = m->err[ERR_BP];
		st->v[PN_INSIDE].bp_open = st->v[PN_INSIDE].on && !m->err[ERR_BP];
		st->v[PN_INSIDE].owner.pid = (pid_t)m->a;
		st->v[PN_INSIDE].owner.type = (int)m->b;
		break;
	case M_ROUTE:
		st->route_done = true;
		st->v[PN_ROOT].got = m->a;
		st->v[PN_INSIDE].got = m->b;
		st->v[PN_ROOT].on_other = m->c;
		st->v[PN_INSIDE].on_other = m->d;
		break;
	case M_DATA:
		add_records(st, PN_INSIDE, (int)m->a, payload, plen);
		break;
	case M_BYE:
		st->bye = true;
		st->children_forked = m->a;
		break;
	case M_DONE:
		st->done = true;
		st->v[PN_INSIDE].bp_count = m->x;
		if (m->b)
			snprintf(st->fail, sizeof(st->fail), "the inside observer could not hand "
				 "over all of its records");
		break;
	case M_SPE_RESULT:
		if (plen == sizeof(st->spe_inside)) {
			memcpy(&st->spe_inside, payload, plen);
			st->spe_inside_ran = true;
		}
		break;
	case M_FAIL:
		snprintf(st->fail, sizeof(st->fail), "%.*s", (int)sizeof(m->text) - 1, m->text);
		break;
	}
	(void)run;
}

/* Read every message waiting on our end.  Return: false once the other end is gone. */
static bool pump(struct pms_run *run, struct pn_state *st, int timeout_ms)
{
	struct pollfd p = { .fd = st->sock, .events = POLLIN };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;

	if (poll(&p, 1, timeout_ms) <= 0)
		return !(p.revents & (POLLHUP | POLLERR)) || (p.revents & POLLIN);
	for (;;) {
		struct iovec iov = { .iov_base = st->buf, .iov_len = sizeof(st->buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
				     .msg_controllen = sizeof(ctl.buf) };
		const struct ucred *cred = NULL;
		struct cmsghdr *c;
		struct pn_msg m;
		ssize_t n = recvmsg(st->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if ((size_t)n < sizeof(m))
			continue;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
				cred = (const struct ucred *)CMSG_DATA(c);
		memcpy(&m, st->buf, sizeof(m));
		on_msg(run, st, &m, st->buf + sizeof(m), (size_t)n - sizeof(m), cred);
	}
}

static void reap_init(struct pn_state *st, uint64_t within_ns)
{
	uint64_t until = pms_now_ns() + within_ns;

	while (!st->init_reaped) {
		pid_t r = waitpid(st->init_pid, &st->init_status, WNOHANG);

		if (r == st->init_pid || (r < 0 && errno == ECHILD)) {
			st->init_reaped = true;
			break;
		}
		if (pms_now_ns() >= until) {
			/* pid 1 takes the whole namespace with it. */
			kill(st->init_pid, SIGKILL);
			while (waitpid(st->init_pid, &st->init_status, 0) < 0 && errno == EINTR)
				;
			st->init_reaped = true;
			break;
		}
		usleep(1000);
	}
}

/* ---- the result */

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void ju(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static json_object *ns_json(const struct stat *s)
{
	json_object *o = json_object_new_object();

	ju(o, "dev_major", major(s->st_dev));
	ju(o, "dev_minor", minor(s->st_dev));
	ju(o, "inode", s->st_ino);
	return o;
}

static json_object *err_json(int err)
{
	return err ? jstr(pms_errno_name(-err)) : NULL;
}

static json_object *view_json(const struct pn_state *st, enum pn_view v,
			      const struct pn_judgement *j, bool exact)
{
	const struct pn_view_state *vs = &st->v[v];
	json_object *o = json_object_new_object(), *x, *c;
	int k;

	json_object_object_add(o, "opened", json_object_new_boolean(vs->on && !vs->err[ERR_TASK]));
	x = json_object_new_object();
	json_object_object_add(x, "task", err_json(vs->err[ERR_TASK]));
	json_object_object_add(x, "cpu_wide", err_json(vs->err[ERR_CPUWIDE]));
	json_object_object_add(x, "watchpoint", err_json(vs->err[ERR_BP]));
	json_object_object_add(o, "errors", x);
	json_object_object_add(o, "namespaces_records", json_object_new_boolean(vs->namespaces));
	json_object_object_add(o, "cpu_wide", json_object_new_boolean(vs->cpu_wide));
	x = json_object_new_object();
	for (k = 0; k < PERF_RECORD_MAX; k++)
		if (vs->kinds[k])
			ju(x, pn_rec_name((uint32_t)k), vs->kinds[k]);
	json_object_object_add(o, "records", x);
	ju(o, "bytes", vs->bytes);
	ju(o, "lost_records", vs->lost_records);
	ju(o, "lost", vs->lost);
	ju(o, "lost_cpu_wide_records", vs->lost_cpu_records);
	ju(o, "lost_cpu_wide", vs->lost_cpu);
	json_object_object_add(o, "cpu_wide_exact", json_object_new_boolean(
		vs->cpu_wide && !vs->lost_cpu_records && !vs->cpu.dropped));
	ju(o, "unparsed_bytes", vs->bad_bytes);
	ju(o, "tally_dropped", vs->tally.dropped + vs->cpu.dropped);
	ju(o, "sideband_dropped", vs->side_dropped);
	json_object_object_add(o, "exact", json_object_new_boolean(exact));
	c = json_object_new_object();
	for (k = 1; k < PN_NR_CLASSES; k++)
		ju(c, pn_class_name((enum pn_class)k), j->cls[k][v]);
	json_object_object_add(o, "classes", c);
	ju(o, "records_judged", j->records[v]);
	ju(o, "cpu_wide_released", j->released[v]);
	return o;
}

/*
 * Each busy thread's time on a CPU so far, from the root namespace's /proc,
 * read just before STOP (they are still there): a thread the scheduler
 * hardly ran owes no sample.
 */
static void busy_cpu_time(struct pn_state *st)
{
	char path[96], line[128];
	size_t i;

	for (i = 0; i < st->truth.n; i++) {
		struct pn_task *t = &st->truth.t[i];
		unsigned long long ns;

		if (t->role != PN_MAIN && t->role != PN_THREAD)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", t->pid[PN_ROOT],
			 t->tid[PN_ROOT]);
		t->cpu_known = !pms_read_line(path, line, sizeof(line)) &&
			       sscanf(line, "%llu", &ns) == 1;
		t->cpu_ns = t->cpu_known ? ns : 0;
	}
}

/*
 * How long a busy thread must have run for its missing samples to count:
 * five periods of a timer event, and never less than 20 ms.
 */
static uint64_t busy_floor_ns(const struct pn_state *st)
{
	uint64_t f = 20 * NS_PER_MS;

	if (st->ev.sem == PMS_SEM_TIMER && st->cfg.period < UINT64_MAX / 5 &&
	    5 * st->cfg.period > f)
		f = 5 * st->cfg.period;
	return f;
}

static json_object *task_json(const struct pn_task *t)
{
	json_object *o = json_object_new_object(), *x;
	int v;

	for (v = 0; v < PN_NR_VIEWS; v++) {
		x = json_object_new_object();
		ju(x, "pid", t->pid[v]);
		ju(x, "tid", t->tid[v]);
		ju(x, "samples", t->samples[v]);
		ju(x, "switches", t->switches[v]);
		ju(x, "cpu_wide_switches", t->cpu_switches[v]);
		json_object_object_add(o, pn_view_name((enum pn_view)v), x);
	}
	if (t->role == PN_MAIN || t->role == PN_THREAD)
		json_object_object_add(o, "cpu_seconds", t->cpu_known ?
				       json_object_new_double((double)t->cpu_ns / 1e9) : NULL);
	return o;
}

static bool route_ok(const struct pn_state *st, enum pn_view v, char *why, size_t len)
{
	const struct pn_view_state *vs = &st->v[v];
	uint64_t want = st->cfg.bp_period ? vs->bp_count / st->cfg.bp_period : 0;
	const struct pn_task *t = st->thread_idx >= 0 ? &st->truth.t[st->thread_idx] : NULL;

	if (!vs->bp_open || !st->route_done || !t)
		return true;
	if (vs->owner.type != F_OWNER_TID || (uint32_t)vs->owner.pid != t->tid[v]) {
		snprintf(why, len, "%s observer: F_GETOWN_EX gives %s %d after F_SETOWN_EX "
			 "F_OWNER_TID %u", pn_view_name(v), vs->owner.type == F_OWNER_TID ?
			 "F_OWNER_TID" : "another owner type", vs->owner.pid, t->tid[v]);
		return false;
	}
	if (vs->on_other) {
		snprintf(why, len, "%s observer: %" PRIu64 " of its signals ran on a thread other "
			 "than the one it named (tid %u)", pn_view_name(v), vs->on_other,
			 t->tid[v]);
		return false;
	}
	if (vs->got != want || vs->bp_count < PN_BP_WRITES) {
		snprintf(why, len, "%s observer: %" PRIu64 " signals reached the second thread "
			 "for %" PRIu64 " overflows (%" PRIu64 " watchpoint counts, period %u, %d "
			 "writes)", pn_view_name(v), vs->got, want, vs->bp_count,
			 st->cfg.bp_period, PN_BP_WRITES);
		return false;
	}
	return true;
}

static json_object *route_json(const struct pn_state *st, enum pn_view v)
{
	const struct pn_view_state *vs = &st->v[v];
	const struct pn_task *t = st->thread_idx >= 0 ? &st->truth.t[st->thread_idx] : NULL;
	json_object *o = json_object_new_object();
	char why[256] = "";

	json_object_object_add(o, "checked", json_object_new_boolean(vs->bp_open &&
								     st->route_done));
	json_object_object_add(o, "error", err_json(vs->err[ERR_BP]));
	ju(o, "signal", (uint64_t)vs->signo);
	ju(o, "owner_set", t ? t->tid[v] : 0);
	ju(o, "owner_read", (uint64_t)(uint32_t)vs->owner.pid);
	json_object_object_add(o, "owner_type_tid",
			       json_object_new_boolean(vs->owner.type == F_OWNER_TID));
	ju(o, "watchpoint_count", vs->bp_count);
	ju(o, "period", st->cfg.bp_period);
	ju(o, "overflows", st->cfg.bp_period ? vs->bp_count / st->cfg.bp_period : 0);
	ju(o, "signals", vs->got);
	ju(o, "signals_on_other_threads", vs->on_other);
	json_object_object_add(o, "ok", json_object_new_boolean(route_ok(st, v, why,
									 sizeof(why))));
	json_object_object_add(o, "why", why[0] ? jstr(why) : NULL);
	return o;
}

/* The Arm SPE part: where it could run, and what each session saw. */

/* Judge one session's Context packets; false when there was nothing to judge. */
static bool spe_judge_one(const struct pn_state *st, const struct pidns_spe_session *ses,
			  enum pn_view v, struct pidns_spe_verdict *vd)
{
	uint32_t root[1] = { (uint32_t)st->main_tid[PN_ROOT] };
	uint32_t ns[1] = { (uint32_t)st->main_tid[PN_INSIDE] };
	struct pidns_spe_expect e = {
		.root_pids = root, .nr_root = 1, .ns_pids = ns, .nr_ns = 1,
		/* pid 1 is in a child namespace; this process may itself be in one */
		.opener_in_root_ns = v == PN_ROOT && st->our_ns_initial,
		.pid_in_contextidr = st->pid_in_contextidr,
		.perfmon_capable = st->capable && !(v == PN_INSIDE && st->userns),
	};

	memset(vd, 0, sizeof(*vd));
	if (ses->err)
		return false;
	pidns_spe_judge(&ses->sum, &e, vd);
	return true;
}

static json_object *spe_session_json(const struct pn_state *st,
				     const struct pidns_spe_session *ses, enum pn_view v)
{
	json_object *o = json_object_new_object(), *arr;
	struct pidns_spe_verdict vd;
	size_t i;

	json_object_object_add(o, "error", ses->err ? jstr(pms_errno_name(-ses->err)) : NULL);
	json_object_object_add(o, "step", ses->err ? jstr(ses->step) : NULL);
	json_object_object_add(o, "why", jstr(ses->why));
	json_object_object_add(o, "stop", jstr(pidns_spe_stop_name(ses->stop)));
	ju(o, "ns", ses->ns);
	ju(o, "aux_bytes", ses->aux_bytes);
	ju(o, "aux_records", ses->aux_records);
	ju(o, "truncated", ses->truncated);
	ju(o, "collision", ses->collision);
	ju(o, "lost", ses->lost);
	ju(o, "records", ses->sum.records);
	ju(o, "records_with_context", ses->sum.records_ctx);
	arr = json_object_new_array();
	for (i = 0; i < ses->sum.nctx && i < 16; i++) {
		json_object *c = json_object_new_object();

		ju(c, "value", ses->sum.ctx[i].value);
		ju(c, "records", ses->sum.ctx[i].records);
		json_object_array_add(arr, c);
	}
	json_object_object_add(o, "context_values", arr);
	if (spe_judge_one(st, ses, v, &vd)) {
		json_object_object_add(o, "class", jstr(pidns_spe_class_name(vd.cls)));
		json_object_object_add(o, "judgement", jstr(vd.why));
		json_object_object_add(o, "unexpected", json_object_new_boolean(vd.unexpected));
		json_object_object_add(o, "anomaly", jstr(vd.anomaly));
		ju(o, "records_root_pids", vd.rec_root);
		ju(o, "records_namespace_pids", vd.rec_ns);
		ju(o, "records_foreign", vd.rec_foreign);
	}
	return o;
}

static json_object *spe_json(const struct pms_run *run, const struct pn_state *st)
{
	json_object *o = json_object_new_object(), *x;
	bool ran_root = st->spe && st->spe_root_started && st->v[PN_ROOT].on;
	bool measured = (ran_root && !st->spe_root.out.err) ||
			(st->spe_inside_ran && !st->spe_inside.err);

	/* As the host block has them (value, source): one read of the configuration. */
	json_object_object_add(o, "config_pid_in_contextidr", json_object_get(
		pms_json_get(run->host, "config_pid_in_contextidr")));
	json_object_object_add(o, "pmus", json_object_get(st->spe_pmus));
	json_object_object_add(o, "ran", json_object_new_boolean(measured));
	json_object_object_add(o, "reason", jstr(st->spe ? "SPE sessions from each observer in "
		"turn, on the workload's main thread" : st->spe_why));
	if (st->spe)
		json_object_object_add(o, "config", jstr(st->spe_root.cfg.why));
	x = json_object_new_object();
	json_object_object_add(x, "root", ran_root ?
			       spe_session_json(st, &st->spe_root.out, PN_ROOT) : NULL);
	json_object_object_add(x, "inside", st->spe_inside_ran ?
			       spe_session_json(st, &st->spe_inside, PN_INSIDE) : NULL);
	json_object_object_add(o, "sessions", x);
	return o;
}

/*
 * What the SPE sessions say against the kernel: a session inside the
 * namespace given root-namespace pids (the known issue), values of nobody,
 * a mix, or anything mainline would not do for these inputs.  Return: the
 * sentence, or NULL when nothing is wrong (or nothing was measured).
 */
static const char *spe_finding(const struct pn_state *st, char *buf, size_t len)
{
	const struct pidns_spe_session *ses[PN_NR_VIEWS] = {
		st->spe_root_started ? &st->spe_root.out : NULL,
		st->spe_inside_ran ? &st->spe_inside : NULL,
	};
	struct pidns_spe_verdict vd;
	int v;

	for (v = 0; v < PN_NR_VIEWS; v++) {
		if (!ses[v] || !spe_judge_one(st, ses[v], (enum pn_view)v, &vd))
			continue;
		if (vd.cls == PIDNS_SPE_CONTEXT_ROOT_PIDS_IN_CHILD_NS ||
		    vd.cls == PIDNS_SPE_CONTEXT_FOREIGN || vd.cls == PIDNS_SPE_CONTEXT_MIXED ||
		    vd.unexpected) {
			snprintf(buf, len, "SPE, %s session: %s: %s%s%s", pn_view_name((enum pn_view)v),
				 pidns_spe_class_name(vd.cls), vd.why, vd.anomaly ? "; " : "",
				 vd.anomaly ? vd.anomaly : "");
			return buf;
		}
	}
	return NULL;
}

/* Why an observer without privileges was refused, in the sysctl's words. */
static const char *paranoid_note(const struct pn_state *st, enum pn_view v)
{
	static char buf[200];
	char val[16] = "?";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	if (f) {
		if (!fgets(val, sizeof(val), f))
			snprintf(val, sizeof(val), "?");
		val[strcspn(val, "\n")] = '\0';
		fclose(f);
	}
	snprintf(buf, sizeof(buf), "kernel.perf_event_paranoid is %s%s", val,
		 v == PN_INSIDE && st->userns ? "; with --userns pid 1 has no capability in the "
		 "root user namespace, so above 2 it may open nothing" : "");
	return buf;
}

/* Each SPE session's length: short, the workload only has to run under it. */
static uint64_t spe_ns(const struct pn_state *st)
{
	uint64_t ns = st->cfg.duration_ns / 4;

	return ns > 300 * NS_PER_MS ? 300 * NS_PER_MS : ns;
}

/* Both sessions have ended (or will not run): the workload may stop. */
static bool spe_settled(const struct pn_state *st)
{
	if (!st->spe)
		return true;
	if (st->v[PN_ROOT].on && !__atomic_load_n(&st->spe_root.done, __ATOMIC_ACQUIRE))
		return false;
	return !st->v[PN_INSIDE].on || st->spe_inside_ran;
}

/*
 * Make the namespace and attach both observers before the workload does
 * anything: part of set-up, so that what cannot run here skips as set-up.
 */
static enum pms_status start_namespace(struct pms_run *run, struct pn_state *st)
{
	uint64_t deadline;
	int v, ret;

	ret = spawn_init(run, st);
	if (ret) {
		if (ret == -EPERM || ret == -EINVAL || ret == -ENOSPC) {
			snprintf(run->reason, sizeof(run->reason), "cannot make a PID namespace "
				 "here (clone CLONE_NEWPID%s: %s): run as root, or with --userns "
				 "where unprivileged user namespaces are allowed",
				 st->userns ? "|CLONE_NEWUSER" : "", pms_errno_name(-ret));
			return PMS_E_SKIP;
		}
		snprintf(run->reason, sizeof(run->reason), "cannot start the namespace: %s",
			 pms_errno_name(-ret));
		return PMS_E_SETUP;
	}
	{
		char p[64];

		snprintf(p, sizeof(p), "/proc/%d/ns/pid", st->init_pid);
		st->their_ns_known = !stat(p, &st->their_ns);
		if (st->their_ns_known) {
			st->truth.ns_known = true;
			st->truth.ns_dev = st->their_ns.st_dev;
			st->truth.ns_ino = st->their_ns.st_ino;
		}
	}
	/* Set-up: both observers attached before the workload does anything. */
	deadline = pms_now_ns() + 5 * NS_PER_S;
	while (!(st->have_main && st->ready) && !st->fail[0] && pms_now_ns() < deadline &&
	       !pms_run_wait(run, 0))
		if (!pump(run, st, 10))
			break;
	if (!st->have_main || !st->ready) {
		snprintf(run->reason, sizeof(run->reason), "the namespace did not come up: %s",
			 st->fail[0] ? st->fail : "no word from its pid 1 within 5 s");
		return PMS_E_SETUP;
	}
	if (st->v[PN_ROOT].on) {
		obs_open(&st->root, &st->cfg, st->main_pid[PN_ROOT]);
		memcpy(st->v[PN_ROOT].err, st->root.err, sizeof(st->root.err));
		st->v[PN_ROOT].namespaces = st->root.namespaces;
		st->v[PN_ROOT].cpu_wide = st->root.ncpu > 0;
	}
	for (v = 0; v < PN_NR_VIEWS; v++) {
		if (!st->v[v].on)
			continue;
		if (st->v[v].err[ERR_TASK]) {
			bool refused = st->v[v].err[ERR_TASK] == -EACCES ||
				       st->v[v].err[ERR_TASK] == -EPERM;

			snprintf(run->reason, sizeof(run->reason), "the %s observer cannot open "
				 "its sampling event on the workload: %s", pn_view_name(v),
				 pms_errno_name(-st->v[v].err[ERR_TASK]));
			if (!refused)
				return PMS_E_SETUP;
			pms_run_append_reason(run, "%s", paranoid_note(st, (enum pn_view)v));
			return PMS_E_SKIP;
		}
		if (st->cw_mode == CW_ON && !st->v[v].cpu_wide) {
			snprintf(run->reason, sizeof(run->reason), "--cpu-wide on: the %s observer "
				 "cannot open CPU-wide events: %s", pn_view_name(v),
				 pms_errno_name(-st->v[v].err[ERR_CPUWIDE]));
			return PMS_E_SETUP;
		}
	}
	return PMS_OK;
}

static void pn_run(struct pms_run *run)
{
	struct pn_state *st = run->priv;
	struct pn_judgement *j = calloc(1, sizeof(*j));
	json_object *o, *x, *arr;
	bool exact[PN_NR_VIEWS], cw[PN_NR_VIEWS], any_bad, route_bad = false;
	const char *spe_bad;
	char spe_why[512];
	uint64_t deadline, hard;
	char why[256];
	size_t i;
	int v;

	if (!j) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "out of memory");
		return;
	}
	{
		struct pn_msg go = { .type = M_GO };

		st->go_ns = pms_now_ns();
		send_msg(st->sock, &go, NULL, 0);
		st->go_sent = true;
	}
	st->start_ns = pms_now_ns();
	deadline = st->start_ns + st->cfg.duration_ns;
	hard = deadline + PN_GRACE_NS;
	while (!st->done) {
		uint64_t now = pms_now_ns();

		if (!pump(run, st, 5))
			break;
		if (obs_drain(&st->root, root_chunk, st, st->drain_buf))
			snprintf(st->fail, sizeof(st->fail), "the root observer's ring holds a "
				 "record the kernel cannot have written");
		if (st->spe && !st->spe_root_started && st->v[PN_ROOT].on) {
			spe_start(&st->spe_root, run->devices, st->main_tid[PN_ROOT], spe_ns(st));
			st->spe_root_started = true;
		}
		if (st->spe && st->v[PN_INSIDE].on && !st->spe_inside_sent &&
		    (!st->v[PN_ROOT].on || __atomic_load_n(&st->spe_root.done, __ATOMIC_ACQUIRE))) {
			struct pn_msg sm = { .type = M_SPE_START, .a = (uint32_t)st->main_tid[PN_INSIDE],
					     .x = spe_ns(st) };

			send_msg(st->sock, &sm, NULL, 0);
			st->spe_inside_sent = true;
		}
		if (!st->stop_sent && ((now >= deadline && spe_settled(st)) || pms_run_wait(run, 0) ||
				       st->fail[0])) {
			struct pn_msg stop = { .type = M_STOP };

			busy_cpu_time(st);
			send_msg(st->sock, &stop, NULL, 0);
			st->stop_sent = true;
		}
		if (now >= hard)
			break;
		if (run->progress && st->start_ns) {
			char line[160];

			snprintf(line, sizeof(line), "pidns: %.1f s, %" PRIu64 " children, %" PRIu64
				 " root / %" PRIu64 " inside records", (double)(now - st->start_ns) /
				 1e9, st->children_reported, st->v[PN_ROOT].bytes / 32,
				 st->v[PN_INSIDE].bytes / 32);
			run->progress(run, line);
		}
	}
	st->end_ns = pms_now_ns();
	spe_join(&st->spe_root);	/* bounded: its length plus 100 ms */
	/* The workload has exited: the root rings hold their last records. */
	obs_drain(&st->root, root_chunk, st, st->drain_buf);
	if (st->root.bp_fd >= 0)
		pms_perf_read(st->root.bp_fd, &st->v[PN_ROOT].bp_count);
	reap_init(st, NS_PER_S);
	pump(run, st, 0);
	if (!st->done && !st->fail[0])
		snprintf(st->fail, sizeof(st->fail), "the namespace did not finish within "
			 "--duration + %d s and was killed", (int)(PN_GRACE_NS / NS_PER_S));

	/* ---- judge */
	for (v = 0; v < PN_NR_VIEWS; v++) {
		struct pn_view_state *vs = &st->v[v];

		if (!vs->on)
			continue;
		for (i = 0; i < vs->nside; i++)
			pn_judge_record(&st->truth, (enum pn_view)v, &vs->side[i], j);
		pn_judge_tally(&st->truth, (enum pn_view)v, &vs->tally, j);
		pn_judge_cpu_tally(&st->truth, (enum pn_view)v, &vs->cpu, j);
		/*
		 * Lost CPU-wide records only stop the CPU-wide counts from being
		 * compared; every record that came is still judged.
		 */
		exact[v] = !vs->lost_records && !vs->tally.dropped && !vs->side_dropped &&
			   !vs->bad_bytes;
		cw[v] = vs->cpu_wide && !vs->lost_cpu_records && !vs->cpu.dropped;
	}
	for (v = 0; v < PN_NR_VIEWS; v++)
		if (!st->v[v].on)
			exact[v] = cw[v] = false;
	{
		bool views[PN_NR_VIEWS] = { st->v[PN_ROOT].on, st->v[PN_INSIDE].on };

		st->truth.ns_records[PN_ROOT] = st->v[PN_ROOT].namespaces;
		st->truth.ns_records[PN_INSIDE] = st->v[PN_INSIDE].namespaces;

		pn_judge_finish(&st->truth, exact, cw, views, j);
	}
	/* Both busy threads must have been sampled in every view. */
	for (i = 0; i < st->truth.n; i++) {
		const struct pn_task *t = &st->truth.t[i];

		if (t->role != PN_MAIN && t->role != PN_THREAD)
			continue;
		for (v = 0; v < PN_NR_VIEWS; v++)
			if (st->v[v].on && exact[v] && !t->samples[v] && t->cpu_known &&
			    t->cpu_ns >= busy_floor_ns(st)) {
				j->cls[PN_MISSING][v]++;
				j->bad++;
				if (j->nkept < PN_KEPT) {
					struct pn_anomaly *a = &j->kept[j->nkept++];

					memset(a, 0, sizeof(*a));
					a->view = (enum pn_view)v;
					a->kind = PERF_RECORD_SAMPLE;
					a->cls = PN_MISSING;
					a->pid = t->pid[v];
					a->tid = t->tid[v];
					a->task = (int)i;
					a->count = 1;
					snprintf(a->detail, sizeof(a->detail), "no sample of the busy "
						 "%s %u/%u", t->role == PN_MAIN ? "main thread" :
						 "second thread", t->pid[v], t->tid[v]);
				}
			}
	}

	/* ---- the result */
	o = json_object_new_object();
	x = json_object_new_object();
	json_object_object_add(x, "observer", ns_json(&st->our_ns));
	json_object_object_add(x, "workload", st->their_ns_known ? ns_json(&st->their_ns) : NULL);
	ju(x, "init_root_pid", (uint64_t)st->init_pid);
	json_object_object_add(o, "namespaces", x);
	x = json_object_new_object();
	json_object_object_add(x, "spec", jstr(st->ev.spec));
	json_object_object_add(x, "pmu", jstr(st->ev.pmu));
	json_object_object_add(x, "exclude_source", jstr(st->exclude_source));
	json_object_object_add(x, "user_namespace", json_object_new_boolean(st->userns));
	{
		struct perf_event_attr a;

		task_attr(&a, &st->cfg, st->v[PN_ROOT].namespaces || st->v[PN_INSIDE].namespaces);
		json_object_object_add(x, "attr", pms_attr_to_json(&a));
		arr = json_object_new_object();
		json_object_object_add(arr, "inherit", json_object_new_boolean(a.inherit));
		json_object_object_add(arr, "comm", json_object_new_boolean(a.comm));
		json_object_object_add(arr, "task", json_object_new_boolean(a.task));
		json_object_object_add(arr, "namespaces", json_object_new_boolean(a.namespaces));
		json_object_object_add(arr, "context_switch",
				       json_object_new_boolean(a.context_switch));
		json_object_object_add(arr, "sample_id_all",
				       json_object_new_boolean(a.sample_id_all));
		json_object_object_add(x, "sideband_bits", arr);
	}
	json_object_object_add(x, "note", jstr("pidns needs no hardware PMU: the sampling "
				    "event only has to produce samples of the workload's threads"));
	json_object_object_add(o, "event", x);
	x = json_object_new_object();
	for (v = 0; v < PN_NR_VIEWS; v++)
		json_object_object_add(x, pn_view_name((enum pn_view)v), st->v[v].on ?
				       view_json(st, (enum pn_view)v, j, exact[v]) : NULL);
	json_object_object_add(o, "views", x);
	x = json_object_new_object();
	arr = NULL;
	for (i = 0; i < st->truth.n; i++) {
		const struct pn_task *t = &st->truth.t[i];

		if (t->role == PN_INIT)
			json_object_object_add(x, "init", task_json(t));
		else if (t->role == PN_MAIN)
			json_object_object_add(x, "main", task_json(t));
		else if (t->role == PN_THREAD)
			json_object_object_add(x, "thread", task_json(t));
	}
	ju(x, "children_forked", st->children_forked);
	ju(x, "children_reported", st->children_reported);
	json_object_object_add(o, "tasks", x);
	x = json_object_new_object();
	for (v = 0; v < PN_NR_VIEWS; v++)
		json_object_object_add(x, pn_view_name((enum pn_view)v), st->v[v].on ?
				       route_json(st, (enum pn_view)v) : NULL);
	json_object_object_add(o, "routing", x);
	arr = json_object_new_array();
	for (i = 0; i < j->nkept; i++) {
		const struct pn_anomaly *a = &j->kept[i];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "view", jstr(pn_view_name(a->view)));
		json_object_object_add(e, "record", jstr(a->kind == PN_KIND_NEXT_PREV ?
							 "switch_cpu_wide" : pn_rec_name(a->kind)));
		json_object_object_add(e, "class", jstr(pn_class_name(a->cls)));
		ju(e, "pid", a->pid);
		ju(e, "tid", a->tid);
		ju(e, "count", a->count);
		json_object_object_add(e, "detail", jstr(a->detail));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "anomalies", arr);
	ju(o, "anomalies_total", j->bad);
	json_object_object_add(o, "rule", jstr("every record names a workload task by its numbers "
		"in the observer's PID namespace (0 only for tasks that namespace cannot see); FORK "
		"names the forking thread, EXIT the real parent; COMM, FORK, NAMESPACES and EXIT come "
		"once per task made during the run, NAMESPACES with the workload's PID namespace; "
		"both observers count each task's switches alike; each observer's watchpoint signals "
		"reach the thread it named with F_SETOWN_EX, one per overflow"));
	x = json_object_new_object();
	ju(x, "wrong_ns_every", st->inject);
	ju(x, "samples_altered", st->injected);
	json_object_object_add(o, "fault_injection", x);
	json_object_object_add(o, "spe", spe_json(run, st));
	json_object_object_add(run->result, "pidns", o);

	/* ---- verdict */
	any_bad = j->bad > 0;
	why[0] = '\0';
	for (v = 0; v < PN_NR_VIEWS; v++)
		if (st->v[v].on && !route_ok(st, (enum pn_view)v, why, sizeof(why))) {
			route_bad = true;
			break;
		}
	spe_bad = spe_finding(st, spe_why, sizeof(spe_why));
	if (st->fail[0]) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", st->fail);
	} else if (spe_bad && !any_bad && !route_bad) {
		run->verdict = PMS_VERDICT_FAIL;
		snprintf(run->reason, sizeof(run->reason), "%s", spe_bad);
	} else if (any_bad || route_bad) {
		run->verdict = PMS_VERDICT_FAIL;
		if (any_bad)
			snprintf(run->reason, sizeof(run->reason), "%" PRIu64 " record(s) wrong "
				 "for the observer's namespace; first: %s view, %s", j->bad,
				 pn_view_name(j->kept[0].view), j->kept[0].detail);
		if (route_bad) {
			if (any_bad)
				pms_run_append_reason(run, "%s", why);
			else
				snprintf(run->reason, sizeof(run->reason), "%s", why);
		}
	} else if ((st->v[PN_ROOT].on && !exact[PN_ROOT]) ||
		   (st->v[PN_INSIDE].on && !exact[PN_INSIDE])) {
		run->verdict = PMS_VERDICT_ENVIRONMENT;
		snprintf(run->reason, sizeof(run->reason), "no record was wrong, but the rings "
			 "lost records (root %" PRIu64 ", inside %" PRIu64 "): counts of owed "
			 "records were not judged; the reader was too slow for this machine",
			 st->v[PN_ROOT].lost, st->v[PN_INSIDE].lost);
	} else if (!st->children_reported || !st->have_thread) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "the workload did not run: %" PRIu64
			 " children, second thread %s", st->children_reported,
			 st->have_thread ? "seen" : "never seen");
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "every record named the workload by "
			 "its numbers in the observer's namespace");
	}
	for (v = 0; v < PN_NR_VIEWS; v++) {
		const struct pn_view_state *vs = &st->v[v];

		if (!vs->on)
			continue;
		pms_run_append_reason(run, "%s view: %" PRIu64 " samples, %" PRIu64 " switches, %"
				      PRIu64 " CPU-wide switches, %" PRIu64 " fork/%" PRIu64
				      " exit/%" PRIu64 " comm/%" PRIu64 " namespaces records%s",
				      pn_view_name((enum pn_view)v), vs->kinds[PERF_RECORD_SAMPLE],
				      vs->kinds[PERF_RECORD_SWITCH],
				      vs->kinds[PERF_RECORD_SWITCH_CPU_WIDE],
				      vs->kinds[PERF_RECORD_FORK], vs->kinds[PERF_RECORD_EXIT],
				      vs->kinds[PERF_RECORD_COMM], vs->kinds[PERF_RECORD_NAMESPACES],
				      vs->bp_open && st->route_done ? ", routing checked" : "");
	}
	for (v = 0; v < PN_NR_VIEWS; v++)
		if (st->v[v].on && st->v[v].lost_cpu_records)
			pms_run_append_reason(run, "%s CPU-wide rings lost %" PRIu64 " records (the "
					      "reader was too slow): CPU-wide switch counts not "
					      "compared", pn_view_name((enum pn_view)v),
					      st->v[v].lost_cpu);
	if (spe_bad && (any_bad || route_bad))
		pms_run_append_reason(run, "%s", spe_bad);
	if (st->spe && st->spe_root_started && st->spe_root.out.err)
		pms_run_append_reason(run, "SPE not measured from the root: %s (%s)",
				      st->spe_root.out.why, pms_errno_name(-st->spe_root.out.err));
	if (st->spe_inside_ran && st->spe_inside.err)
		pms_run_append_reason(run, "SPE not measured from inside: %s (%s)",
				      st->spe_inside.why, pms_errno_name(-st->spe_inside.err));
	pms_run_append_reason(run, "%" PRIu64 " children in %.1f s", st->children_reported,
			      (double)(st->end_ns - st->start_ns) / 1e9);
	if (st->inject)
		pms_run_append_reason(run, "FAULT INJECTION (--inject-wrong-ns %" PRIu64 "): %"
				      PRIu64 " root-view samples were given the namespace's numbers",
				      st->inject, st->injected);
	/* An SPE finding is the SPE PMU's: the known table names its driver. */
	pms_run_known_issues_pmu(run, run->verdict != PMS_VERDICT_FAIL ? NULL :
				 st->inject ? "injected" : "unexplained",
				 st->ev.attr.exclude_kernel,
				 spe_bad && !any_bad && !route_bad ? st->spe_root.cfg.pmu : NULL);
	if (!st->init_reaped && st->init_pid > 0) {
		if (st->go_sent && !st->stop_sent) {
			struct pn_msg stop = { .type = M_STOP };

			send_msg(st->sock, &stop, NULL, 0);
		}
		reap_init(st, st->go_sent ? NS_PER_S : 0);
	}
	free(j);
}

static void pn_teardown(struct pms_run *run)
{
	struct pn_state *st = run->priv;
	int v;

	if (st->init_pid > 0 && !st->init_reaped)
		reap_init(st, 0);
	spe_join(&st->spe_root);
	json_object_put(st->spe_pmus);
	obs_close(&st->root);
	if (st->sock >= 0)
		close(st->sock);
	if (st->child_sock >= 0)
		close(st->child_sock);
	for (v = 0; v < PN_NR_VIEWS; v++) {
		free(st->v[v].side);
		pn_tally_fini(&st->v[v].tally);
		pn_tally_fini(&st->v[v].cpu);
	}
	pn_truth_fini(&st->truth);
}

const struct pms_scenario pms_scenario_pidns = {
	.name = "pidns",
	.summary = "every sample and side-band record names the workload's tasks in the "
		   "observer's PID namespace, from the root and from inside; signals reach the "
		   "thread named across namespaces",
	.seed = "Arm SPE CONTEXTIDR discussion (Context packets carry root-namespace PIDs; "
		"James Clark's 2020 proposal); no suite checks PID attribution across namespaces",
	.needs = "CAP_SYS_ADMIN (a PID namespace); hardware breakpoints for the routing check; "
		 "an arm_spe PMU for the SPE part",
	.priv_size = sizeof(struct pn_state),
	PMS_SCENARIO_OPTS(pn_opts),
	.setup = pn_setup,
	.run = pn_run,
	.teardown = pn_teardown,
	.helper = pn_helper,
};
