// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/util.c: result files are never half written and default names never
 * replace an earlier result; the string and JSON helpers the oracles share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "tap.h"
#include "pms-util.h"

static json_object *doc(int n)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int(n));
	return o;
}

static int read_n(const char *path)
{
	char err[256];
	json_object *o = pms_json_read_file(path, err, sizeof(err)), *v;
	int n = -1;

	if (o && json_object_object_get_ex(o, "n", &v))
		n = json_object_get_int(v);
	json_object_put(o);
	return n;
}

static void test_write_new(void)
{
	char dir[] = "/tmp/pms-util-XXXXXX", path[512], first[512], cmd[600];
	json_object *a = doc(1), *b = doc(2), *c = doc(3);

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(first, sizeof(first), "%s/run-20261122T000000Z.json", dir);
	snprintf(path, sizeof(path), "%s", first);
	ok(!pms_json_write_new(a, path, sizeof(path)), "first write");
	is_str(path, first, "the first takes the name asked for");
	ok(!pms_json_write_new(b, path, sizeof(path)), "second write, same name");
	ok(strstr(path, "run-20261122T000000Z-2.json") != NULL, "the second gets -2 (%s)", path);
	is_u64(read_n(first), 1, "the first result is intact");
	is_u64(read_n(path), 2, "the second is there too");
	snprintf(path, sizeof(path), "%s", first);
	ok(!pms_json_write_new(c, path, sizeof(path)) && strstr(path, "-3.json"), "then -3");
	snprintf(path, sizeof(path), "%s/run.txt", dir);
	ok(pms_json_write_new(a, path, sizeof(path)) == -EINVAL, "a name without .json: EINVAL");
	ok(!pms_json_write_atomic(c, first) && read_n(first) == 3,
	   "write_atomic (an explicit --json PATH) does replace");
	snprintf(cmd, sizeof(cmd), "test $(ls '%s' | wc -l) -eq 3", dir);
	ok(!system(cmd), "no temp file left behind: 3 results and nothing else");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
	json_object_put(a);
	json_object_put(b);
	json_object_put(c);
}

/* The refusals --json gets before a run: one errno and one reason each. */
static void test_targets_refused(const char *dir)
{
	char path[512], why[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	ok(pms_path_writable(dir, why, sizeof(why)) == -EISDIR &&
	   !strcmp(why, "Is a directory"), "a directory is refused: %s", why);
	ok(pms_path_writable("/", why, sizeof(why)) == -EISDIR, "/ is refused: %s", why);
	/* procfs takes no new file beside it, so it cannot be replaced. */
	ok(pms_path_writable("/proc/version", why, sizeof(why)) == -EACCES &&
	   strstr(why, "Permission denied"), "/proc/version is refused: %s", why);
	snprintf(path, sizeof(path), "%s/no/such/r.json", dir);
	ok(pms_path_writable(path, why, sizeof(why)) == -ENOENT &&
	   strstr(why, "No such file"), "a missing directory is named: %s", why);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	   pms_path_writable(sa.sun_path, why, sizeof(why)) == -EINVAL && strstr(why, "socket"),
	   "a socket is refused: %s", why);
	if (fd >= 0)
		close(fd);
	ok(pms_path_writable("-", why, sizeof(why)) == 0, "- is always writable");
}

/* A FIFO is written into, not replaced: its reader gets the result. */
static void test_fifo(const char *dir)
{
	char path[512], buf[256], why[256];
	json_object *o = doc(7);
	struct stat st;
	ssize_t n;
	int rd;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (!ok(!mkfifo(path, 0600), "mkfifo"))
		return;
	ok(!pms_path_writable(path, why, sizeof(why)), "a FIFO is writable");
	/* Reader first (non-blocking), so the writer's open finds it. */
	rd = open(path, O_RDONLY | O_NONBLOCK);
	ok(rd >= 0 && !pms_json_write_atomic(o, path), "write into the FIFO");
	json_object_put(o);
	n = rd >= 0 ? read(rd, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	ok(strstr(buf, "\"n\":7") != NULL, "its reader got the result");
	ok(!lstat(path, &st) && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
	if (rd >= 0)
		close(rd);
}

/* A character device (here a private /dev/null) is written into, not replaced. */
static void test_chardev(const char *dir)
{
	char path[512], why[256];
	json_object *o;
	struct stat st;

	snprintf(path, sizeof(path), "%s/null", dir);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
		ok(1, "character device # SKIP mknod: %s", strerror(errno));
		return;
	}
	ok(!pms_path_writable(path, why, sizeof(why)), "a character device is writable");
	o = doc(8);
	ok(!pms_json_write_atomic(o, path), "write into the character device");
	json_object_put(o);
	ok(!lstat(path, &st) && S_ISCHR(st.st_mode), "it is still a character device");
}

/* Through a symlink the target is replaced and the link kept. */
static void test_symlink(const char *dir)
{
	char link[512], target[512];
	json_object *a = doc(9), *b = doc(10);
	struct stat st;

	snprintf(target, sizeof(target), "%s/target.json", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	ok(!pms_json_write_atomic(a, target) && !symlink("target.json", link),
	   "a result and a link to it");
	ok(!pms_json_write_atomic(b, link), "write through the link");
	json_object_put(a);
	json_object_put(b);
	ok(!lstat(link, &st) && S_ISLNK(st.st_mode), "the link is still a link");
	is_u64(read_n(target), 10, "its target has the new result");
}

static void test_targets(void)
{
	char dir[] = "/tmp/pms-util-XXXXXX", cmd[600];

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	test_targets_refused(dir);
	test_fifo(dir);
	test_chardev(dir);
	test_symlink(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
}

static void test_helpers(void)
{
	char buf[8];
	size_t pos = 0;
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	pms_append(buf, sizeof(buf), &pos, "%s", "abc");
	pms_append(buf, sizeof(buf), &pos, "%d", 12345);
	is_str(buf, "abc1234", "append truncates at the buffer's end");
	is_u64(pos, sizeof(buf), "and its position stops there");
	pms_append(buf, sizeof(buf), &pos, "more");
	is_str(buf, "abc1234", "a full buffer is left alone");
	ok(pms_json_add(o, "k", NULL) == -ENOMEM, "a NULL value (failed allocation) is an error");
	ok(!pms_json_add(o, "k", json_object_new_int(7)), "add takes a value");
	ok(pms_json_push(arr, NULL) == -ENOMEM && !pms_json_push(arr, json_object_new_int(1)) &&
	   json_object_array_length(arr) == 1, "push: NULL refused, a value appended");
	json_object_put(o);
	json_object_put(arr);
}

static void test_upper_bound(void)
{
	/* a log with a member before the key and a repeated time */
	struct { uint32_t tag; uint64_t t; } log[] = { { 1, 100 }, { 2, 200 }, { 3, 200 },
						       { 4, 300 } };

	is_u64(PMS_UPPER_BOUND(log, 4, t, 99), 0, "upper bound: before the first: 0");
	is_u64(PMS_UPPER_BOUND(log, 4, t, 100), 1, "upper bound: at the first: past it");
	is_u64(PMS_UPPER_BOUND(log, 4, t, 200), 3, "upper bound: past every equal time");
	is_u64(PMS_UPPER_BOUND(log, 4, t, 250), 3, "upper bound: between: the later");
	is_u64(PMS_UPPER_BOUND(log, 4, t, 1000), 4, "upper bound: after the last: n");
	is_u64(PMS_UPPER_BOUND(log, 0, t, 1000), 0, "upper bound: empty: 0");
}

static void test_bytes_and_paths(void)
{
	char dir[] = "/tmp/pms-util-XXXXXX", path[600], buf[64] = "", cmd[600];
	json_object *o = json_tokener_parse("{\"host\": {\"kernel\": {\"release\": \"6.1\", "
					    "\"n\": 3}}, \"s\": \"x\"}");
	FILE *f;

	is_str(pms_json_get_str(o, "host.kernel.release"), "6.1", "get_str: a dotted path");
	ok(pms_json_get(o, "host.kernel.n") && !pms_json_get_str(o, "host.kernel.n"),
	   "get finds a number, get_str refuses it");
	ok(!pms_json_get(o, "host.nope.release") && !pms_json_get(o, "s.deeper"),
	   "a missing step, or a step through a string: NULL");
	ok(pms_json_get(o, "") == o, "the empty path is the object itself");
	json_object_put(o);
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	ok(!pms_write_atomic(path, "first\n", 6) && !pms_write_atomic(path, "second", 6),
	   "write_atomic: a file written, then replaced");
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	is_str(buf, "second", "the replacement is whole");
	ok(pms_write_atomic(dir, "x", 1) == -EISDIR, "a directory: EISDIR, nothing written");
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq 1 && rm -rf '%s'", dir, dir);
	ok(!system(cmd), "no temp file left beside it");
}

int main(void)
{
	test_write_new();
	test_bytes_and_paths();
	test_targets();
	test_helpers();
	test_upper_bound();
	return tap_done();
}
