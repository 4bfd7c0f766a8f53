// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/util.c: result files are never half written and default names never
 * replace an earlier result; the string and JSON helpers the oracles share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int main(void)
{
	test_write_new();
	test_helpers();
	return tap_done();
}
