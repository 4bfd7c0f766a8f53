// SPDX-License-Identifier: GPL-2.0-only
/*
 * Option tables, durations, tolerances, CPU lists and the JSON file helpers:
 * no PMU, no root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tap.h"
#include "pms-cpus.h"
#include "pms-opt.h"
#include "pms-scenario.h"
#include "pms-util.h"

static const char *const colours[] = { "red", "green", NULL };
static const struct pms_opt_desc table[] = {
	{ .name = "count", .type = PMS_OPT_U64, .def = "5", .min = 1, .max = 100 },
	{ .name = "ratio", .type = PMS_OPT_DOUBLE, .def = "0.5", .dmin = 0, .dmax = 1 },
	{ .name = "time", .type = PMS_OPT_DURATION, .def = "2s", .min = 1000, .max = 60000000000ull },
	{ .name = "gap", .type = PMS_OPT_INTERVAL, .def = "0", .min = 0, .max = 1000000000 },
	{ .name = "name", .type = PMS_OPT_STRING },
	{ .name = "colour", .type = PMS_OPT_CHOICE, .def = "red", .choices = colours },
	{ .name = "flag", .type = PMS_OPT_FLAG },
};

static int parse(struct pms_opts *o, char *err, size_t len, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;
	char *a;

	memset(o, 0, sizeof(*o));
	pms_opts_add(o, table, sizeof(table) / sizeof(table[0]));
	va_start(ap, len);
	while ((a = va_arg(ap, char *)) && argc < 16)
		argv[argc++] = a;
	va_end(ap);
	err[0] = '\0';
	return pms_opts_parse(o, argc, argv, err, len);
}

static void test_opts(void)
{
	struct pms_opts o;
	char err[256];
	json_object *j, *v;

	ok(parse(&o, err, sizeof(err), NULL) == 0, "defaults parse");
	is_u64(pms_opt_u64(&o, "count"), 5, "default count");
	ok(pms_opt_double(&o, "ratio") == 0.5, "default ratio");
	is_u64(pms_opt_u64(&o, "time"), 2000000000ull, "default duration 2s in ns");
	ok(pms_opt_str(&o, "name") == NULL, "unset string is NULL");
	ok(!pms_opt_given(&o, "count"), "default is not 'given'");

	ok(parse(&o, err, sizeof(err), "--count", "7", "--time=500ms", "--gap", "100",
		 "--colour", "green", "--flag", "--name=x", NULL) == 0, "values parse (%s)", err);
	is_u64(pms_opt_u64(&o, "count"), 7, "--count 7");
	is_u64(pms_opt_u64(&o, "time"), 500000000ull, "--time=500ms");
	is_u64(pms_opt_u64(&o, "gap"), 100000, "--gap 100: bare interval is microseconds");
	is_u64(pms_opt_u64(&o, "colour"), 1, "--colour green is choice 1");
	is_u64(pms_opt_u64(&o, "flag"), 1, "--flag sets it");
	is_str(pms_opt_str(&o, "name"), "x", "--name=x");
	ok(pms_opt_given(&o, "count"), "--count is 'given'");

	ok(parse(&o, err, sizeof(err), "--count", "0", NULL) == -EINVAL &&
	   strstr(err, "bad value '0' for --count") && strstr(err, "from 1 to 100"),
	   "below min: %s", err);
	ok(parse(&o, err, sizeof(err), "--count", "101", NULL) == -EINVAL, "above max");
	ok(parse(&o, err, sizeof(err), "--count", "-3", NULL) == -EINVAL, "negative count");
	ok(parse(&o, err, sizeof(err), "--count", "3x", NULL) == -EINVAL, "trailing junk");
	ok(parse(&o, err, sizeof(err), "--ratio", "1.5", NULL) == -EINVAL, "double above max");
	ok(parse(&o, err, sizeof(err), "--ratio", "nan", NULL) == -EINVAL, "double nan");
	ok(parse(&o, err, sizeof(err), "--time", "1h", NULL) == -EINVAL, "unknown unit");
	ok(parse(&o, err, sizeof(err), "--time", "2m", NULL) == -EINVAL, "duration above max");
	ok(parse(&o, err, sizeof(err), "--colour", "blue", NULL) == -EINVAL &&
	   strstr(err, "expected one of red, green"), "bad choice lists choices: %s", err);
	ok(parse(&o, err, sizeof(err), "--nope", NULL) == -ENOENT &&
	   !strcmp(err, "unknown option '--nope'"), "unknown option: %s", err);
	ok(parse(&o, err, sizeof(err), "--nope=1", NULL) == -ENOENT &&
	   !strcmp(err, "unknown option '--nope'"), "unknown option with =value: %s", err);
	ok(parse(&o, err, sizeof(err), "--count", NULL) == -EINVAL &&
	   strstr(err, "needs a value"), "missing value: %s", err);
	ok(parse(&o, err, sizeof(err), "--flag=1", NULL) == -EINVAL, "flag takes no value");
	ok(parse(&o, err, sizeof(err), "stray", NULL) == -E2BIG, "positional argument");
	ok(parse(&o, err, sizeof(err), "--name", "", NULL) == -EINVAL, "empty string");
	ok(pms_opts_add(&o, table, 1) == -EEXIST, "a repeated option name is refused");

	ok(parse(&o, err, sizeof(err), "--count", "9", NULL) == 0, "parse for JSON");
	j = pms_opts_to_json(&o);
	ok(json_object_object_get_ex(j, "count", &v) && json_object_get_uint64(v) == 9,
	   "json: count 9");
	ok(json_object_object_get_ex(j, "time", &v) && json_object_get_uint64(v) == 2000000000ull,
	   "json: duration in ns");
	ok(json_object_object_get_ex(j, "colour", &v) && !strcmp(json_object_get_string(v), "red"),
	   "json: choice by name");
	ok(json_object_object_get_ex(j, "name", &v) && v == NULL, "json: unset string is null");
	ok(json_object_object_get_ex(j, "_given", &v) && json_object_array_length(v) == 1,
	   "json: _given lists one option");
	json_object_put(j);
}

static void test_numbers(void)
{
	uint64_t v;

	ok(!pms_parse_duration_ns("10", 1000000000ull, &v) && v == 10000000000ull, "10 -> 10 s");
	ok(!pms_parse_duration_ns("1.5ms", 1, &v) && v == 1500000, "1.5ms");
	ok(!pms_parse_duration_ns("250us", 1, &v) && v == 250000, "250us");
	ok(!pms_parse_duration_ns("2m", 1, &v) && v == 120000000000ull, "2m");
	ok(!pms_parse_duration_ns("1h", 1, &v) && v == 3600000000000ull, "1h");
	ok(!pms_parse_duration_ns("8h", 1, &v) && v == 28800000000000ull, "8h");
	ok(pms_parse_duration_ns("", 1, &v) == -EINVAL, "empty duration");
	ok(pms_parse_duration_ns("nan", 1, &v) == -EINVAL && pms_parse_duration_ns("nanms", 1, &v) == -EINVAL &&
	   pms_parse_duration_ns("inf", 1, &v) == -EINVAL, "nan and inf refused (no undefined NaN to integer)");
	ok(pms_parse_duration_ns("5 s", 1, &v) == -EINVAL, "space before unit");
	ok(!pms_parse_u64("0x10", &v) && v == 16, "hex integer");
	ok(pms_parse_u64("99999999999999999999999", &v) == -EINVAL, "overflowing integer");

	ok(!pms_parse_tolerance("10%", 10000, &v) && v == 1000, "10%% of 10000 is 1000");
	ok(!pms_parse_tolerance("1000", 10000, &v) && v == 1000, "absolute 1000");
	ok(!pms_parse_tolerance("0", 10000, &v) && v == 0, "zero tolerance");
	ok(!pms_parse_tolerance("12.5%", 100, &v) && v == 12, "12.5%% of 100 rounds down");
	ok(pms_parse_tolerance("10000", 10000, &v) == -EINVAL, "tolerance == period refused");
	ok(pms_parse_tolerance("100%", 10000, &v) == -EINVAL, "100%% refused");
	ok(pms_parse_tolerance("-5%", 10000, &v) == -EINVAL, "negative percent refused");
	ok(pms_parse_tolerance("%", 10000, &v) == -EINVAL, "bare percent refused");
	is_str(pms_errno_name(ENOENT), "ENOENT", "errno name ENOENT");
	is_str(pms_errno_name(-EOPNOTSUPP), "EOPNOTSUPP", "errno name of a negative errno");
}

static void test_cpus(void)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char err[256], buf[64];

	hwloc_topology_init(&topo);
	hwloc_topology_load(topo);
	ok(!pms_cpus_parse(topo, "0", set, err, sizeof(err)) && hwloc_bitmap_weight(set) == 1,
	   "CPU list 0");
	pms_cpus_format(set, buf, sizeof(buf));
	is_str(buf, "0", "formats back as 0");
	ok(pms_cpus_parse(topo, "0-", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "bad CPU list '0-'"), "trailing dash: %s", err);
	ok(pms_cpus_parse(topo, "a", set, err, sizeof(err)) == -EINVAL, "letters");
	ok(pms_cpus_parse(topo, "0,,1", set, err, sizeof(err)) == -EINVAL, "double comma");
	ok(pms_cpus_parse(topo, "100000", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "does not exist"), "nonexistent CPU: %s", err);
	/* Bounds hwloc's own parser cannot count: refused, never an assertion. */
	ok(pms_cpus_parse(topo, "0-4294967295", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "-4294967295 do not exist"), "range to 2^32 - 1: %s", err);
	ok(pms_cpus_parse(topo, "1-18446744073709551615", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "-18446744073709551615 do not exist"), "range to 2^64 - 1: %s", err);
	ok(pms_cpus_parse(topo, "4294967295", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "CPU 4294967295 does not exist"), "CPU 2^32 - 1 is named: %s", err);
	ok(pms_cpus_parse(topo, "0-18446744073709551616", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "no CPU has a number that large"), "past 2^64 - 1: %s", err);
	ok(pms_cpus_parse(topo, "0-1-0", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "one dash"), "two dashes: %s", err);
	ok(pms_cpus_parse(topo, "1-0", set, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "backwards"), "backwards range: %s", err);
	ok(pms_cpus_parse(topo, "0x1", set, err, sizeof(err)) == -EINVAL, "hex refused");
	ok(!pms_cpus_parse(topo, "0,0-0,0", set, err, sizeof(err)) &&
	   hwloc_bitmap_weight(set) == 1, "repeats of one CPU are one CPU");
	if (hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo)) >= 1) {
		ok(!pms_cpus_parse(topo, "1,0", set, err, sizeof(err)) &&
		   hwloc_bitmap_weight(set) == 2, "1,0 is CPUs 0 and 1");
		pms_cpus_format(set, buf, sizeof(buf));
		is_str(buf, "0-1", "formats back as 0-1");
	} else {
		ok(1, "1,0 is CPUs 0 and 1 # SKIP one CPU here");
		ok(1, "formats back as 0-1 # SKIP one CPU here");
	}
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(topo);
}

static void test_json_files(void)
{
	char dir[] = "/tmp/pms-test-XXXXXX", path[128], err[256];
	json_object *o, *back;
	FILE *f;

	ok(mkdtemp(dir) != NULL, "temp dir");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	o = json_object_new_object();
	json_object_object_add(o, "big", json_object_new_uint64(18446744073709551615ull));
	json_object_object_add(o, "neg", json_object_new_int64(-5));
	json_object_object_add(o, "path", json_object_new_string("results/a/b"));
	json_object_object_add(o, "null", NULL);
	ok(pms_json_write_atomic(o, path) == 0, "atomic write");
	back = pms_json_read_file(path, err, sizeof(err));
	ok(back && json_object_equal(o, back), "round trip is equal (u64 max, negatives, null)");
	json_object_put(back);
	ok(pms_path_writable(path, err, sizeof(err)) == 0, "existing dir is writable");
	snprintf(path, sizeof(path), "%s/no/such/r.json", dir);
	ok(pms_path_writable(path, err, sizeof(err)) == -ENOENT, "missing dir is not");
	ok(pms_json_write_atomic(o, path) == -ENOENT, "atomic write into a missing dir fails");

	snprintf(path, sizeof(path), "%s/bad.json", dir);
	f = fopen(path, "w");
	fputs("{\"a\": 1,", f);
	fclose(f);
	ok(!pms_json_read_file(path, err, sizeof(err)) && errno == EINVAL &&
	   strstr(err, "malformed JSON") && strstr(err, "bad.json"), "truncated JSON: %s", err);
	f = fopen(path, "w");
	fputs("{\"a\": 1} trailing", f);
	fclose(f);
	ok(!pms_json_read_file(path, err, sizeof(err)) && strstr(err, "malformed JSON"),
	   "trailing garbage: %s", err);
	f = fopen(path, "w");
	fputs("{\"a\": 1}\n\n", f);
	fclose(f);
	back = pms_json_read_file(path, err, sizeof(err));
	ok(back != NULL, "trailing newlines are fine");
	json_object_put(back);
	f = fopen(path, "w");
	fwrite("{\"a\": 1}\0\0", 1, 10, f);
	fclose(f);
	ok(!pms_json_read_file(path, err, sizeof(err)) && strstr(err, "trailing data"),
	   "NUL bytes after the value are not white space: %s", err);
	ok(!pms_json_read_file("/dev/zero", err, sizeof(err)) && errno == EINVAL &&
	   strstr(err, "at byte 0"), "/dev/zero ends at its first byte: %s", err);
	ok(!pms_json_read_file(dir, err, sizeof(err)) && errno == EISDIR,
	   "a directory: %s", err);
	snprintf(path, sizeof(path), "%s/none.json", dir);
	ok(!pms_json_read_file(path, err, sizeof(err)) && errno == ENOENT &&
	   strstr(err, "none.json"), "missing file names the file: %s", err);
	json_object_put(o);
	{
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		ok(system(cmd) == 0, "clean up");
	}
}

int main(void)
{
	test_opts();
	test_numbers();
	test_cpus();
	test_json_files();
	return tap_done();
}
