/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_OPT_H
#define PMS_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/*
 * Options are data: each scenario lists its options in a table, and `run`
 * parsing, `help SCENARIO` and the resolved options in the JSON result all
 * come from that table.
 */
enum pms_opt_type {
	PMS_OPT_FLAG,		/* no argument; true when given */
	PMS_OPT_U64,		/* integer within [min, max] */
	PMS_OPT_DOUBLE,		/* number within [min, max] */
	PMS_OPT_DURATION,	/* "10s", "500ms", "250us"; bare number in seconds; ns in [min, max] */
	PMS_OPT_INTERVAL,	/* like DURATION but a bare number is microseconds */
	PMS_OPT_STRING,		/* free text, checked by its user (event specs, CPU lists, paths) */
	PMS_OPT_CHOICE,		/* one of choices[] */
};

struct pms_opt_desc {
	const char *name;	/* long option, without "--" */
	enum pms_opt_type type;
	const char *def;	/* default as text; NULL: unset unless given */
	uint64_t min, max;	/* U64, DURATION (ns), INTERVAL (ns) */
	double dmin, dmax;	/* DOUBLE */
	const char *const *choices;	/* CHOICE: NULL-terminated */
	const char *arg;	/* metavar in help */
	const char *help;	/* one line */
};

struct pms_opt_value {
	bool given;		/* on the command line */
	bool set;		/* given, or has a default */
	const char *text;
	uint64_t u;		/* U64, DURATION/INTERVAL in ns, FLAG 0/1, CHOICE index */
	double d;
};

struct pms_opts {
	const struct pms_opt_desc *desc[64];
	struct pms_opt_value val[64];
	size_t n;
};

/* Append a table; later tables may not repeat a name. Return 0 or -E2BIG/-EEXIST. */
int pms_opts_add(struct pms_opts *o, const struct pms_opt_desc *table, size_t n);

/**
 * pms_opts_parse - parse "--name value", "--name=value" and flags from
 * @argv[0..argc), apply defaults and check ranges.
 * Return: 0; -ENOENT for an unknown option, -EINVAL for a bad value or a
 * missing argument, with a one-line reason in @err; -E2BIG for a stray
 * positional argument.
 */
int pms_opts_parse(struct pms_opts *o, int argc, char **argv, char *err, size_t errlen);

/* Look up by name; NULL if the table has no such option (a programming error). */
const struct pms_opt_value *pms_opt(const struct pms_opts *o, const char *name);
uint64_t pms_opt_u64(const struct pms_opts *o, const char *name);
double pms_opt_double(const struct pms_opts *o, const char *name);
const char *pms_opt_str(const struct pms_opts *o, const char *name);	/* NULL if unset */
bool pms_opt_given(const struct pms_opts *o, const char *name);

/* {name: value (typed), ...} plus "_given": [names given on the command line]. */
json_object *pms_opts_to_json(const struct pms_opts *o);

#endif
