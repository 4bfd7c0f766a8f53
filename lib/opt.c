// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven option parsing: the table is the single description of a
 * scenario's options, for parsing, help and results alike.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pms-opt.h"
#include "pms-util.h"

int pms_opts_add(struct pms_opts *o, const struct pms_opt_desc *table, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (o->n >= PMS_ARRAY_SIZE(o->desc))
			return -E2BIG;
		for (j = 0; j < o->n; j++)
			if (!strcmp(o->desc[j]->name, table[i].name))
				return -EEXIST;
		o->desc[o->n] = &table[i];
		memset(&o->val[o->n], 0, sizeof(o->val[0]));
		o->n++;
	}
	return 0;
}

static int find(const struct pms_opts *o, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (strlen(o->desc[i]->name) == len && !strncmp(o->desc[i]->name, name, len))
			return (int)i;
	return -1;
}

static int set_value(const struct pms_opt_desc *d, struct pms_opt_value *v, const char *text,
		     char *err, size_t errlen)
{
	uint64_t u;
	char *end;
	double x;
	size_t i;

	v->text = text;
	switch (d->type) {
	case PMS_OPT_FLAG:
		v->u = text && !strcmp(text, "1");
		return 0;
	case PMS_OPT_U64:
		if (pms_parse_u64(text, &u) || u < d->min || u > d->max) {
			snprintf(err, errlen, "bad value '%s' for --%s: expected an integer from "
				 "%llu to %llu", text, d->name, (unsigned long long)d->min,
				 (unsigned long long)d->max);
			return -EINVAL;
		}
		v->u = u;
		return 0;
	case PMS_OPT_DOUBLE:
		errno = 0;
		x = strtod(text, &end);
		if (errno || end == text || *end || !isfinite(x) || x < d->dmin || x > d->dmax) {
			snprintf(err, errlen, "bad value '%s' for --%s: expected a number from "
				 "%g to %g", text, d->name, d->dmin, d->dmax);
			return -EINVAL;
		}
		v->d = x;
		return 0;
	case PMS_OPT_DURATION:
	case PMS_OPT_INTERVAL:
		if (pms_parse_duration_ns(text, d->type == PMS_OPT_DURATION ? 1000000000ull : 1000,
					  &u) || u < d->min || u > d->max) {
			snprintf(err, errlen, "bad value '%s' for --%s: expected a duration such as "
				 "%s, from %gs to %gs", text, d->name,
				 d->type == PMS_OPT_DURATION ? "10s or 500ms" : "100us or 0",
				 (double)d->min / 1e9, (double)d->max / 1e9);
			return -EINVAL;
		}
		v->u = u;
		return 0;
	case PMS_OPT_STRING:
		if (!*text) {
			snprintf(err, errlen, "empty value for --%s", d->name);
			return -EINVAL;
		}
		return 0;
	case PMS_OPT_CHOICE:
		for (i = 0; d->choices[i]; i++) {
			if (!strcmp(d->choices[i], text)) {
				v->u = i;
				return 0;
			}
		}
		{
			char list[256] = "";

			for (i = 0; d->choices[i]; i++) {
				strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
				strncat(list, d->choices[i], sizeof(list) - strlen(list) - 1);
			}
			snprintf(err, errlen, "bad value '%s' for --%s: expected one of %s", text,
				 d->name, list);
		}
		return -EINVAL;
	}
	return -EINVAL;
}

int pms_opts_parse(struct pms_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	size_t i;
	int a, ret;

	for (a = 0; a < argc; a++) {
		const char *arg = argv[a], *eq, *val;
		const struct pms_opt_desc *d;
		int idx;

		if (strncmp(arg, "--", 2) || !arg[2]) {
			snprintf(err, errlen, "unexpected argument '%s' (options start with --)", arg);
			return -E2BIG;
		}
		arg += 2;
		eq = strchr(arg, '=');
		idx = find(o, arg, eq ? (size_t)(eq - arg) : strlen(arg));
		if (idx < 0) {
			snprintf(err, errlen, "unknown option '--%.*s'",
				 (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
			return -ENOENT;
		}
		d = o->desc[idx];
		if (d->type == PMS_OPT_FLAG) {
			if (eq) {
				snprintf(err, errlen, "option --%s takes no value", d->name);
				return -EINVAL;
			}
			val = "1";
		} else if (eq) {
			val = eq + 1;
		} else if (a + 1 < argc) {
			val = argv[++a];
		} else {
			snprintf(err, errlen, "option --%s needs a value (%s)", d->name,
				 d->arg ? d->arg : "see pmustress help");
			return -EINVAL;
		}
		ret = set_value(d, &o->val[idx], val, err, errlen);
		if (ret)
			return ret;
		o->val[idx].given = o->val[idx].set = true;
	}
	for (i = 0; i < o->n; i++) {
		if (o->val[i].set || !o->desc[i]->def)
			continue;
		ret = set_value(o->desc[i], &o->val[i], o->desc[i]->def, err, errlen);
		if (ret)
			return ret;	/* a bad default is a bug: say so loudly */
		o->val[i].set = true;
	}
	return 0;
}

const struct pms_opt_value *pms_opt(const struct pms_opts *o, const char *name)
{
	int idx = find(o, name, strlen(name));

	return idx < 0 ? NULL : &o->val[idx];
}

uint64_t pms_opt_u64(const struct pms_opts *o, const char *name)
{
	const struct pms_opt_value *v = pms_opt(o, name);

	return v && v->set ? v->u : 0;
}

double pms_opt_double(const struct pms_opts *o, const char *name)
{
	const struct pms_opt_value *v = pms_opt(o, name);

	return v && v->set ? v->d : 0;
}

const char *pms_opt_str(const struct pms_opts *o, const char *name)
{
	const struct pms_opt_value *v = pms_opt(o, name);

	return v && v->set ? v->text : NULL;
}

bool pms_opt_given(const struct pms_opts *o, const char *name)
{
	const struct pms_opt_value *v = pms_opt(o, name);

	return v && v->given;
}

json_object *pms_opts_to_json(const struct pms_opts *o)
{
	json_object *obj = json_object_new_object(), *given = json_object_new_array();
	size_t i;

	for (i = 0; i < o->n; i++) {
		const struct pms_opt_desc *d = o->desc[i];
		const struct pms_opt_value *v = &o->val[i];
		json_object *j = NULL;

		if (v->given)
			json_object_array_add(given, json_object_new_string(d->name));
		if (!v->set && d->type != PMS_OPT_FLAG) {
			json_object_object_add(obj, d->name, NULL);
			continue;
		}
		switch (d->type) {
		case PMS_OPT_FLAG:
			j = json_object_new_boolean(v->u);
			break;
		case PMS_OPT_U64:
		case PMS_OPT_DURATION:
		case PMS_OPT_INTERVAL:
			j = json_object_new_uint64(v->u);
			break;
		case PMS_OPT_DOUBLE:
			j = json_object_new_double(v->d);
			break;
		case PMS_OPT_STRING:
		case PMS_OPT_CHOICE:
			j = json_object_new_string(v->text);
			break;
		}
		json_object_object_add(obj, d->name, j);
	}
	json_object_object_add(obj, "_given", given);
	return obj;
}
