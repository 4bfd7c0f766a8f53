/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_EXPORT_H
#define PMS_EXPORT_H

/*
 * A suite's run directory (index.json plus one result JSON per run) in the
 * formats other tools read: KTAP for kselftest runners and LAVA, JUnit XML
 * for Jenkins and GitLab, a KCIDB I/O document for KernelCI.  How each
 * verdict maps to each format's statuses is in DESIGN ("Exported results").
 */

#include <stdio.h>
#include <json-c/json.h>

/* The KCIDB I/O schema version the export claims (kcidb-io's latest). */
#define PMS_KCIDB_MAJOR		5
#define PMS_KCIDB_MINOR		3
#define PMS_KCIDB_VERSION_TEXT	"5.3"

/* The most of a run's reason a KCIDB log_excerpt carries, in bytes. */
#define PMS_KCIDB_EXCERPT_MAX	4096

/**
 * pms_export_index_check - whether @index is a suite run directory's index
 * this exporter reads (kind "pmustress-suite-run", schema_version 1, a runs
 * array).  On failure @why gets the reason as a message's tail.
 *
 * Return: 0 or -EINVAL.
 */
int pms_export_index_check(json_object *index, char *why, size_t len);

/**
 * pms_export_ktap - KTAP version 1 on @out: one test per run, each a nested
 * group of subtests (the oracle's finding classes, the scenario's own
 * sub-tests, and always "verdict"), diagnostic lines for kernel, PMU and attr.
 * @dir: the run directory, where each run's result JSON is read
 *
 * Return: 0, or -errno when writing @out failed.
 */
int pms_export_ktap(FILE *out, json_object *index, const char *dir);

/**
 * pms_export_junit - JUnit XML on @out: one <testsuite> for the run
 * directory, one <testcase> per run (name the label, classname
 * pmustress.SCENARIO), its <properties> the kernel, arch and each run's PMU,
 * attr bits and result file.
 *
 * Return: 0, or -errno when writing @out failed.
 */
int pms_export_junit(FILE *out, json_object *index, const char *dir);

/**
 * pms_export_kcidb_doc - the KCIDB I/O document (checkouts, builds, tests).
 * @url_base: URL the run directory is published under, or NULL: output
 *            files are then "file:NAME", relative to the run directory
 *
 * Return: a new object, or NULL with errno set.
 */
json_object *pms_export_kcidb_doc(json_object *index, const char *dir, const char *url_base);

/**
 * pms_export_kcidb - write the KCIDB document atomically to @outdir_or_file:
 * "-" is stdout, an existing directory gets kcidb.json, anything else is the
 * file itself.  Output file URLs are relative to @dir ("file:NAME").
 *
 * Return: 0 or -errno.
 */
int pms_export_kcidb(const char *outdir_or_file, json_object *index, const char *dir);

/* `pmustress export --ktap|--junit|--kcidb DIR [-o FILE] [--url-base URL]`. */
int cmd_export(int argc, char **argv);

#endif
