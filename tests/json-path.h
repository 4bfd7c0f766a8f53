/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading nested JSON in the unit tests. */
#ifndef PMS_TEST_JSON_H
#define PMS_TEST_JSON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

/* Walk "a.b.c"; an array step is a decimal index. */
static inline json_object *jget(json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array)) {
			o = json_object_array_get_idx(o, strtoul(tok, NULL, 10));
		} else if (json_object_is_type(o, json_type_object)) {
			/* Key fields have dots of their own: try the rest whole first. */
			json_object *v;
			char *rest = tok + strlen(tok);

			if (save && *save) {
				*rest = '.';
				if (json_object_object_get_ex(o, tok, &v))
					return v;
				*rest = '\0';
			}
			if (!json_object_object_get_ex(o, tok, &o))
				return NULL;
		} else {
			return NULL;
		}
	}
	return o;
}

#endif
