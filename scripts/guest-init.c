// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the emulated-arm64 guest that scripts/kernel-matrix boots: mount
 * what pmustress needs, run each line of /pms/commands as a pmustress
 * command, stream every JSON result back over the console, power off.
 *
 * The console is shared with the kernel's printk, so a result goes out as
 * base64 lines with a prefix no kernel message has, between begin and end
 * lines that carry its name, length and exit status: the host can pick
 * them out of anything interleaved and check that nothing was cut.
 *
 * The host passes settings as /init's arguments, after a bare "--" on the
 * kernel command line (the kernel hands everything after it to init):
 *
 *	pms.sysctl=NAME=VALUE	written to /proc/sys/NAME (dots are slashes
 *				unless NAME has a slash) before any command
 *
 * A sysctl that cannot be written is an error line, and then no command
 * runs: results taken without the settings asked for would be misread.
 * Any other argument (the kernel also passes unknown bare parameters) is
 * ignored.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PREFIX "@@PMS"
#define SYSCTL_ARG "pms.sysctl="
/* Guest seconds one command may take before it is killed: a hung command
 * must not cost the results of the ones after it. */
#define COMMAND_LIMIT_S 300
#define SUITE_LIMIT_S 3600	/* a suite: each of its runs has its own limit */

static volatile pid_t child;

static void on_alarm(int sig __attribute__((unused)))
{
	if (child > 0)
		kill(child, SIGKILL);
}

static void mnt(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		printf(PREFIX " note mount %s on %s failed: %s\n", type, dst, strerror(errno));
}

static void emit_file(const char *name, const char *path, int status)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[57];
	char out[80];
	size_t n, total = 0, i, o;
	FILE *f = fopen(path, "r");

	if (!f) {
		printf(PREFIX " missing name=%s status=%d\n", name, status);
		return;
	}
	printf(PREFIX " begin name=%s status=%d\n", name, status);
	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		for (i = 0, o = 0; i < n; i += 3) {
			unsigned int v = in[i] << 16 | (i + 1 < n ? in[i + 1] << 8 : 0) |
					 (i + 2 < n ? in[i + 2] : 0);

			out[o++] = b64[v >> 18 & 63];
			out[o++] = b64[v >> 12 & 63];
			out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
			out[o++] = i + 2 < n ? b64[v & 63] : '=';
		}
		out[o] = '\0';
		printf(PREFIX " data %s\n", out);
		total += n;
	}
	fclose(f);
	printf(PREFIX " end name=%s bytes=%zu\n", name, total);
	fflush(stdout);
}

/* Write "NAME=VALUE" into /proc/sys; 0, or -1 after an error line. */
static int set_sysctl(const char *arg)
{
	char path[512], back[256], *p;
	const char *eq = strchr(arg, '='), *what;
	size_t nlen, vlen;
	ssize_t n;
	int fd, err;

	if (!eq || eq == arg || !eq[1]) {
		printf(PREFIX " error sysctl %s: not NAME=VALUE\n", arg);
		return -1;
	}
	nlen = eq - arg;
	vlen = strlen(eq + 1);
	if (nlen + sizeof("/proc/sys/") > sizeof(path)) {
		printf(PREFIX " error sysctl %s: name too long\n", arg);
		return -1;
	}
	memcpy(path, "/proc/sys/", sizeof("/proc/sys/") - 1);
	p = path + sizeof("/proc/sys/") - 1;
	memcpy(p, arg, nlen);
	p[nlen] = '\0';
	if (!memchr(arg, '/', nlen))
		for (; *p; p++)
			if (*p == '.')
				*p = '/';

	what = "open";
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		what = "write";
		n = write(fd, eq + 1, vlen);
		err = n < 0 ? errno : n != (ssize_t)vlen ? EIO : 0;
		if (close(fd) && !err) {
			what = "close";
			err = errno;
		}
	} else {
		err = errno;
	}
	if (err) {
		printf(PREFIX " error sysctl %s: %s %s: %s\n", arg, what, path, strerror(err));
		return -1;
	}

	/* Read back: a kernel may clamp or normalise what it accepts. */
	n = -1;
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, back, sizeof(back) - 1);
		close(fd);
	}
	if (n < 0) {
		printf(PREFIX " note sysctl %s: set, but %s cannot be read back\n", arg, path);
		n = 0;
	}
	back[n] = '\0';
	while (n > 0 && (back[n - 1] == '\n' || back[n - 1] == ' '))
		back[--n] = '\0';
	for (p = back; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	printf(PREFIX " sysctl name=%.*s value=%s readback=%s\n", (int)nlen, arg, eq + 1, back);
	return 0;
}

/*
 * A suite ("NAME run --suite S ..." or "NAME run all ...") writes a run
 * directory: every JSON in it (index.json and one result per run) goes out
 * as NAME/STEM.  Its logs stay in the guest.
 */
static bool is_suite(char **argv, int argc)
{
	return argc > 2 && !strcmp(argv[1], "run") &&
	       (!strcmp(argv[2], "--suite") || !strcmp(argv[2], "all"));
}

static void emit_run_dir(const char *name, const char *dir, int status)
{
	struct dirent **names = NULL;
	char path[512], out[256];
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		printf(PREFIX " missing name=%s/index status=%d\n", name, status);
		return;
	}
	for (i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		size_t len = strlen(f);

		if (len > 5 && !strcmp(f + len - 5, ".json")) {
			snprintf(path, sizeof(path), "%s/%s", dir, f);
			snprintf(out, sizeof(out), "%s/%.*s", name, (int)(len - 5), f);
			emit_file(out, path, status);
		}
		free(names[i]);
	}
	free(names);
}

/* "NAME ARG ARG ...": run /pms/pmustress ARGS --json /tmp/NAME.json. */
static void run_line(char *line)
{
	char *argv[64], *name, *tok, json[128], rundir[160];
	int argc = 0, status;
	bool suite;
	pid_t pid;

	name = strtok(line, " \t\n");
	if (!name || name[0] == '#')
		return;
	argv[argc++] = "/pms/pmustress";
	while ((tok = strtok(NULL, " \t\n")) && argc < 60)
		argv[argc++] = tok;
	snprintf(json, sizeof(json), "/tmp/%s.json", name);
	snprintf(rundir, sizeof(rundir), "/tmp/%s.d", name);
	suite = is_suite(argv, argc);
	if (suite) {
		argv[argc++] = "--out";
		argv[argc++] = rundir;
	} else if (strcmp(argv[1], "probe")) {
		argv[argc++] = "--json";
		argv[argc++] = json;
	}
	argv[argc] = NULL;
	printf(PREFIX " run name=%s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!strcmp(argv[1], "probe")) {
			int fd = open(json, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			dup2(fd, STDOUT_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0) {
		printf(PREFIX " missing name=%s status=-1\n", name);
		return;
	}
	child = pid;
	alarm(suite ? SUITE_LIMIT_S : COMMAND_LIMIT_S);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			printf(PREFIX " missing name=%s status=-1\n", name);
			return;
		}
	}
	alarm(0);
	child = 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		printf(PREFIX " note name=%s killed after %d guest seconds\n", name,
		       suite ? SUITE_LIMIT_S : COMMAND_LIMIT_S);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (suite)
		emit_run_dir(name, rundir, status);
	else
		emit_file(name, json, status);
}

int main(int argc, char **argv)
{
	char line[1024];
	FILE *cmds;
	int i, failed = 0;

	mnt("proc", "/proc", "proc");
	mnt("sysfs", "/sys", "sysfs");
	mnt("devtmpfs", "/dev", "devtmpfs");
	mnt("tmpfs", "/tmp", "tmpfs");
	mnt("tracefs", "/sys/kernel/tracing", "tracefs");
	/* pmustress's taskset mover finds taskset(1) in /usr/bin through it. */
	setenv("PATH", "/pms:/usr/bin:/bin", 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);

	printf(PREFIX " hello\n");
	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], SYSCTL_ARG, sizeof(SYSCTL_ARG) - 1) &&
		    set_sysctl(argv[i] + sizeof(SYSCTL_ARG) - 1))
			failed++;
	cmds = failed ? NULL : fopen("/pms/commands", "r");
	if (failed) {
		printf(PREFIX " error %d sysctl(s) not set: no command run\n", failed);
	} else if (!cmds) {
		printf(PREFIX " note no /pms/commands\n");
	} else {
		while (fgets(line, sizeof(line), cmds))
			run_line(line);
		fclose(cmds);
	}
	printf(PREFIX " done\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
