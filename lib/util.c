// SPDX-License-Identifier: GPL-2.0-only
/*
 * Small helpers shared by every module: clocks, errno names, atomic result
 * files, number parsing, binary search of a time-ordered log.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <sys/file.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <tracefs.h>

#include "pms-util.h"

uint64_t pms_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pms_utc_string(char *buf, size_t len, bool compact)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" }, { EXDEV, "EXDEV" }, { ENODEV, "ENODEV" }, { ENFILE, "ENFILE" }, { ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" }, { EINVAL, "EINVAL" }, { EMFILE, "EMFILE" }, { ENOSPC, "ENOSPC" },
	{ EROFS, "EROFS" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EOVERFLOW, "EOVERFLOW" },
};

const char *pms_errno_name(int err)
{
	static __thread char buf[16];
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < PMS_ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The text and its newline into @fd, which the caller owns. */
static int write_text(int fd, json_object *obj)
{
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = write_all(fd, text, strlen(text));
	return ret ? ret : write_all(fd, "\n", 1);
}

/* What goes into a file: a JSON object (and a newline), or plain bytes. */
struct payload {
	json_object *obj;
	const void *buf;
	size_t len;
};

static int write_payload(int fd, const struct payload *p)
{
	return p->obj ? write_text(fd, p->obj) : write_all(fd, p->buf, p->len);
}

/* Write @p to a fresh temp file beside @path, synced; *@tmp gets its name. */
static int write_temp(const struct payload *p, const char *path, char **tmp)
{
	int fd, ret;

	if (asprintf(tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(*tmp);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		return ret;
	}
	ret = write_payload(fd, p);
	/* Results are for sharing: readable by others, like any report. */
	if (!ret && fchmod(fd, 0644))
		ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		unlink(*tmp);
		free(*tmp);
	}
	return ret;
}

/*
 * A FIFO or a character device is a stream somebody reads (a pipe to
 * another tool, /dev/null, a tty): written into, never replaced.
 */
static bool is_stream(mode_t mode)
{
	return S_ISFIFO(mode) || S_ISCHR(mode);
}

/*
 * The file a regular result replaces: through a symlink, its target, so the
 * link survives (and /dev/stdout, a link in /dev, is never replaced).
 */
static char *replace_path(const char *path)
{
	struct stat st;
	char *real;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		return real;
	return strdup(path);
}

/* Open @path as a stream: 1 with *@fd when it is one, 0 when it is not (any more). */
static int open_stream(const char *path, int *fd)
{
	struct stat st;

	if (stat(path, &st) || !is_stream(st.st_mode))
		return 0;
	/* A FIFO waits here for its reader, as any writer of one does. */
	*fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	/* Replaced by a file meanwhile: no writing into it in place. */
	if (fstat(*fd, &st) || !is_stream(st.st_mode)) {
		close(*fd);
		return 0;
	}
	return 1;
}

static int write_atomic(const struct payload *p, const char *path)
{
	struct stat st;
	char *tmp, *dest;
	int ret, fd;

	if (!strcmp(path, "-"))
		return write_payload(STDOUT_FILENO, p);
	ret = open_stream(path, &fd);
	if (ret < 0)
		return ret;
	if (ret) {
		ret = write_payload(fd, p);
		if (close(fd) && !ret)
			ret = -errno;
		return ret;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	dest = replace_path(path);
	if (!dest)
		return -ENOMEM;
	ret = write_temp(p, dest, &tmp);
	if (!ret) {
		if (rename(tmp, dest)) {
			ret = -errno;
			unlink(tmp);
		}
		free(tmp);
	}
	free(dest);
	return ret;
}

int pms_json_write_atomic(json_object *obj, const char *path)
{
	struct payload p = { .obj = obj };

	return write_atomic(&p, path);
}

int pms_write_atomic(const char *path, const void *buf, size_t len)
{
	struct payload p = { .buf = buf, .len = len };

	return write_atomic(&p, path);
}

json_object *pms_json_get(json_object *o, const char *path)
{
	char key[128];
	const char *dot;
	size_t n;

	while (o && path && *path) {
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : NULL;
	}
	return o;
}

const char *pms_json_get_str(json_object *o, const char *path)
{
	json_object *v = pms_json_get(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int pms_json_write_new(json_object *obj, char *path, size_t len)
{
	char base[4096], *tmp;
	size_t blen = strlen(path);
	int ret, n;

	if (blen >= sizeof(base) || blen < 5 || strcmp(path + blen - 5, ".json"))
		return -EINVAL;
	snprintf(base, sizeof(base), "%.*s", (int)(blen - 5), path);
	ret = write_temp(&(struct payload){ .obj = obj }, path, &tmp);
	if (ret)
		return ret;
	/* link() never replaces: the first free name wins, atomically. */
	for (n = 1; n <= 1000; n++) {
		if (n > 1 && snprintf(path, len, "%s-%d.json", base, n) >= (int)len) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (!link(tmp, path)) {
			ret = 0;
			break;
		}
		ret = -errno;
		if (ret != -EEXIST)
			break;
	}
	unlink(tmp);
	free(tmp);
	return ret;
}

/* Whether a file can be made beside @path (in its directory), leaving nothing. */
static int can_create_beside(const char *path)
{
	char *tmp;
	int fd, ret = 0;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
	} else {
		close(fd);
		unlink(tmp);
	}
	free(tmp);
	return ret;
}

int pms_path_writable(const char *path, char *why, size_t len)
{
	struct stat st;
	char *dest;
	int ret;

	why[0] = '\0';
	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st)) {
		/* Nothing there yet (or a dangling link): a new file beside. */
		ret = can_create_beside(path);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto out;
	}
	if (is_stream(st.st_mode)) {
		ret = access(path, W_OK) ? -errno : 0;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "a %s: a result goes to a file, a FIFO or a character device",
			 S_ISSOCK(st.st_mode) ? "socket" : "block device");
		return -EINVAL;
	}
	/* Write protection on a result is respected, though rename would pass it. */
	if (access(path, W_OK)) {
		ret = -errno;
		goto out;
	}
	dest = replace_path(path);
	if (!dest)
		return -ENOMEM;
	ret = can_create_beside(dest);
	free(dest);
	/* It exists, so its directory does: that directory takes no new files
	 * (procfs, sysfs), and the file cannot be replaced. */
	if (ret == -ENOENT) {
		snprintf(why, len, "%s (its directory takes no new files, so it cannot be "
			 "replaced)", strerror(EACCES));
		return -EACCES;
	}
out:
	if (ret)
		snprintf(why, len, "%s", strerror(-ret));
	return ret;
}

/* JSON's white space; strchr() would also match the NUL that ends its set. */
static bool json_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether @c can begin a JSON text (after white space). */
static bool json_start(char c)
{
	return c && strchr("{[\"-0123456789tfn", c);
}

/*
 * Read all of @fd into *@text (NUL-terminated), at most PMS_JSON_MAX_BYTES.
 * A pipe or a device has no size to check first, so the cap is what ends
 * /dev/zero; and a first byte that cannot begin JSON ends it at once.
 * Return: 0, or -errno with the reason in @err.
 */
static int read_capped(int fd, const char *path, char **text, size_t *len, char *err,
		       size_t errlen)
{
	size_t cap = 0, seen = 0;
	char *buf = NULL, *n;
	ssize_t got;

	*len = 0;
	for (;;) {
		if (cap - *len < 4096) {
			n = realloc(buf, cap + 65536);
			if (!n) {
				free(buf);
				snprintf(err, errlen, "%s: out of memory", path);
				return -ENOMEM;
			}
			buf = n;
			cap += 65536;
		}
		got = read(fd, buf + *len, cap - *len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(buf);
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			return -e;
		}
		if (!got)
			break;
		*len += (size_t)got;
		while (seen < *len && json_ws(buf[seen]))
			seen++;
		if (seen < *len && !json_start(buf[seen])) {
			free(buf);
			snprintf(err, errlen, "%s: malformed JSON at byte %zu: not the start of a "
				 "JSON value", path, seen);
			return -EINVAL;
		}
		if (*len > PMS_JSON_MAX_BYTES) {
			free(buf);
			snprintf(err, errlen, "%s: more than %d MiB: larger than any result, not read "
				 "further", path, PMS_JSON_MAX_BYTES >> 20);
			return -EFBIG;
		}
	}
	buf[*len] = '\0';
	*text = buf;
	return 0;
}

json_object *pms_json_read_file(const char *path, char *err, size_t errlen)
{
	json_tokener *tok;
	json_object *obj = NULL;
	char *text = NULL;
	struct stat st;
	size_t len;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
	} else if (S_ISREG(st.st_mode) && st.st_size > PMS_JSON_MAX_BYTES) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s: %lld bytes, larger than any result (at most %d MiB "
			 "are read)", path, (long long)st.st_size, PMS_JSON_MAX_BYTES >> 20);
	} else {
		ret = read_capped(fd, path, &text, &len, err, errlen);
	}
	close(fd);
	if (ret) {
		errno = -ret;
		return NULL;
	}

	tok = json_tokener_new();
	if (!tok) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	obj = json_tokener_parse_ex(tok, text, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset < (int)len) {
		enum json_tokener_error jerr = json_tokener_get_error(tok);
		size_t off = tok->char_offset;

		/* Trailing white space after a complete value is fine. */
		while (obj && off < len && json_ws(text[off]))
			off++;
		if (!obj || jerr != json_tokener_success || off < len) {
			snprintf(err, errlen, "%s: malformed JSON at byte %zu: %s", path, off,
				 obj && jerr == json_tokener_success ? "trailing data" :
				 !obj && jerr == json_tokener_continue ? "unexpected end of file" :
				 json_tokener_error_desc(jerr));
			json_object_put(obj);
			obj = NULL;
		}
	}
	json_tokener_free(tok);
	free(text);
	if (!obj)
		errno = EINVAL;
	return obj;
}

int pms_read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int pms_read_line(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used < len - 1) {
		n = read(fd, buf + used, len - 1 - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		used += n;
	}
	buf[used] = '\0';
	if (used == len - 1) {
		char extra;

		if (read(fd, &extra, 1) > 0)
			ret = -EOVERFLOW;
	}
	while (used && isspace((unsigned char)buf[used - 1]))
		buf[--used] = '\0';
out:
	close(fd);
	return ret;
}

int pms_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

size_t pms_upper_bound_u64(const void *base, size_t n, size_t size, size_t off, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * size + off, sizeof(v));
		if (v <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pms_parse_duration_ns(const char *s, uint64_t bare_unit_ns, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "h", 3600000000000ull },
	};
	char *end;
	double v;
	size_t i;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0 && v <= 1e7))	/* NaN too */
		return -EINVAL;
	if (!*end) {
		*out = (uint64_t)(v * (double)bare_unit_ns + 0.5);
		return 0;
	}
	for (i = 0; i < PMS_ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*out = (uint64_t)(v * (double)units[i].ns + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Several pmustress runs may trace at once.  The users lock's shared
 * holders are the runs using tracefs; the marker says a pmustress mounted
 * it, so whichever run is last out (it alone gets the users lock
 * exclusively) unmounts it, and the machine is left as found even when the
 * run that mounted it ended first, or was killed.  The mount lock is held
 * only while one run decides to mount or unmount: a run never waits for
 * another run to end (an hour-long run once held every later run at its
 * start).
 */
#define PMS_RUN_DIR		"/run/pmustress"
#define PMS_TRACEFS_LOCK	PMS_RUN_DIR "/tracefs.users.lock"
#define PMS_TRACEFS_MOUNT_LOCK	PMS_RUN_DIR "/tracefs.mount.lock"
#define PMS_TRACEFS_MARKER	PMS_RUN_DIR "/tracefs.mounted-by-pmustress"

static int tracefs_lock_fd = -1;

static bool tracefs_mount_point(char *path, size_t len)
{
	char line[1024], dev[256], dir[512], type[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) != 3 || strcmp(type, "tracefs"))
			continue;
		/* The usual place wins over a copy under debugfs. */
		if (!found || !strcmp(dir, PMS_TRACEFS_DEFAULT))
			snprintf(path, len, "%s", dir);
		found = true;
	}
	fclose(f);
	return found;
}

static int mount_lock(void)
{
	int fd = open(PMS_TRACEFS_MOUNT_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		flock(fd, LOCK_EX);
	return fd;
}

static void mount_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int pms_tracefs_acquire(char *path, size_t len, bool *mounted)
{
	int fd, mfd, ret = 0;

	*mounted = false;
	mkdir(PMS_RUN_DIR, 0755);
	mfd = mount_lock();
	fd = open(PMS_TRACEFS_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (!tracefs_mount_point(path, len)) {
		if (mount("nodev", PMS_TRACEFS_DEFAULT, "tracefs", 0, NULL)) {
			ret = -errno;
		} else {
			int m = open(PMS_TRACEFS_MARKER, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

			if (m >= 0)
				close(m);
			*mounted = true;
			snprintf(path, len, "%s", PMS_TRACEFS_DEFAULT);
		}
	}
	if (fd >= 0 && !ret) {
		flock(fd, LOCK_SH);
		tracefs_lock_fd = fd;
	} else if (fd >= 0) {
		close(fd);
	}
	mount_unlock(mfd);
	return ret;
}

void pms_tracefs_release(const char *path, bool mounted)
{
	if (tracefs_lock_fd < 0) {
		/* No lock to share (not root?): only what this run mounted. */
		if (mounted)
			umount2(path, MNT_DETACH);
		return;
	}
	{
		int mfd = mount_lock();

		if (!flock(tracefs_lock_fd, LOCK_EX | LOCK_NB) && !access(PMS_TRACEFS_MARKER, F_OK) &&
		    !umount2(path, MNT_DETACH))
			unlink(PMS_TRACEFS_MARKER);
		close(tracefs_lock_fd);
		tracefs_lock_fd = -1;
		mount_unlock(mfd);
	}
}

void pms_append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*pos >= len)
		return;
	va_start(ap, fmt);
	r = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (r > 0)
		*pos = *pos + (size_t)r < len ? *pos + (size_t)r : len;
}

int pms_json_add(json_object *obj, const char *key, json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

int pms_json_push(json_object *arr, json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_array_add(arr, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}
