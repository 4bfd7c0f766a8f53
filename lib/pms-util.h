/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_UTIL_H
#define PMS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define PMS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* CLOCK_MONOTONIC in ns: the one clock signals, rebinds and samples share. */
/* Nanoseconds per microsecond, millisecond and second. */
#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

uint64_t pms_now_ns(void);

/* "2026-11-21T22:11:57Z" into @buf (>= 21 bytes); compact=true gives "20261121T221157Z". */
void pms_utc_string(char *buf, size_t len, bool compact);

/* "ENOENT" etc., or "E<num>". */
const char *pms_errno_name(int err);

/**
 * pms_json_write_atomic - write @obj to @path.  A regular file (or a new one)
 * is written through a temp file in the same directory, fsynced and renamed
 * over it, so a reader never sees a partial result; through a symlink, its
 * target is replaced and the link kept.  A FIFO or a character device is a
 * stream: opened and written into, never replaced (a FIFO's open waits for
 * its reader).  "-" writes to stdout.
 *
 * Return: 0 or -errno.
 */
int pms_json_write_atomic(json_object *obj, const char *path);

/*
 * pms_write_atomic - @len bytes of @buf to @path, the way
 * pms_json_write_atomic() writes a result: "-" is stdout, a FIFO or a
 * character device is written into, a directory is -EISDIR, anything else
 * is replaced whole (temp file beside it, synced, renamed).
 * Return: 0 or -errno.
 */
int pms_write_atomic(const char *path, const void *buf, size_t len);

/*
 * pms_json_get - the member at a dotted @path ("host.kernel.release"), or
 * NULL when a step is missing or not an object; pms_json_get_str - the
 * same, when it is a string.
 */
json_object *pms_json_get(json_object *o, const char *path);
const char *pms_json_get_str(json_object *o, const char *path);

/**
 * pms_json_write_new - like pms_json_write_atomic(), but never replaces a
 * file: when @path ("NAME.json") exists, NAME-2.json, NAME-3.json, ... are
 * tried, and @path (@len bytes) gets the name written.  For default result
 * names, which two runs started in the same second share.
 *
 * Return: 0 or -errno (-EINVAL when @path does not end in ".json").
 */
int pms_json_write_new(json_object *obj, char *path, size_t len);

/**
 * pms_path_writable - whether pms_json_write_atomic() can write @path, found
 * out before a run rather than after it, leaving nothing behind.  A
 * directory, a socket or a block device is refused; a FIFO or character
 * device must be writable; a regular file must be writable and replaceable
 * (its directory must take a new file); a new file must be creatable.  "-"
 * is always writable.
 * @why: on failure, the reason as the message's tail ("Is a directory")
 *
 * Return: 0 or -errno (EISDIR, EACCES, EROFS, ENOENT, EINVAL...).
 */
int pms_path_writable(const char *path, char *why, size_t len);

/*
 * The most a JSON input may have: a result of a 24-hour run with every
 * anomaly listed is a few MiB, so a bigger input is not one.  A pipe or a
 * device (/dev/zero) is read up to this and no further.
 */
#define PMS_JSON_MAX_BYTES	(256 << 20)

/**
 * pms_json_read_file - parse a JSON file; on failure @err gets one line with
 * the file name and the problem (json-c's description for malformed JSON).
 * A regular file larger than PMS_JSON_MAX_BYTES is refused unread; a FIFO
 * or device is read up to that, and input that cannot begin a JSON text is
 * refused at its first byte.
 *
 * Return: the object, or NULL with errno set (EINVAL for malformed JSON,
 * EFBIG past the cap, EISDIR for a directory).
 */
json_object *pms_json_read_file(const char *path, char *err, size_t errlen);

/* Read a small text file into @buf, trailing newline stripped. Return length or -errno. */
int pms_read_text(const char *path, char *buf, size_t len);

/*
 * pms_read_line - a one-line file (sysfs) into @buf, without its trailing
 * white space.  Return: 0, -errno of open/read, or -EOVERFLOW when more
 * than @len - 1 bytes are there (@buf holds the first of them).
 */
int pms_read_line(const char *path, char *buf, size_t len);

/**
 * pms_parse_duration_ns - "10", "10s", "500ms", "250us", "100ns", "2m".
 * A bare number means @bare_unit_ns units.
 *
 * Return: 0 or -EINVAL.
 */
int pms_parse_duration_ns(const char *s, uint64_t bare_unit_ns, uint64_t *out);

/* Parse a non-negative integer (decimal or 0x hex) with no trailing junk. */
int pms_parse_u64(const char *s, uint64_t *out);

/**
 * pms_upper_bound_u64 - binary search of an array kept in ascending order of
 * a uint64_t member (a log by time)
 * @base: @n elements of @size bytes
 * @off: offset of the member in an element
 * @x: the key
 *
 * Return: the index of the first element whose member is above @x, or @n.
 */
size_t pms_upper_bound_u64(const void *base, size_t n, size_t size, size_t off, uint64_t x);

/* pms_upper_bound_u64() over array @a of @n by its member @m. */
#define PMS_UPPER_BOUND(a, n, m, x)						\
	pms_upper_bound_u64((a), (n), sizeof(*(a)), offsetof(__typeof__(*(a)), m), (x))

/*
 * Append a formatted string at *@pos of @buf (@len bytes); a full buffer
 * truncates, and *@pos never passes @len.
 */
void pms_append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * json-c builders: each takes ownership of @val, including on failure, and a
 * NULL @val (a failed allocation) is an error, never a silent JSON null.
 * Return: 0 or -ENOMEM.
 */
int pms_json_add(json_object *obj, const char *key, json_object *val);
int pms_json_push(json_object *arr, json_object *val);

#define PMS_TRACEFS_DEFAULT "/sys/kernel/tracing"

/**
 * pms_tracefs_acquire - the tracefs mount point in @path; when tracefs is not
 * mounted anywhere, mount it at /sys/kernel/tracing and set @mounted, so that
 * pms_tracefs_release() puts the system back as found.
 * Return: 0 or -errno (EPERM without CAP_SYS_ADMIN).
 */
int pms_tracefs_acquire(char *path, size_t len, bool *mounted);

/*
 * Give tracefs back: it is unmounted when a pmustress mounted it and no
 * other pmustress run still uses it (the last one out unmounts).
 */
void pms_tracefs_release(const char *path, bool mounted);

#endif
