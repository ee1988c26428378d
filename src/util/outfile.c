/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - write an output file whole, through devices, past symlinks
 * (outfile.h).
 */
#include "config.h"
#include "util/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS	40	/* as the kernel's ELOOP limit */

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Follow @path's symbolic links to the name that is really written; a
 * dangling link resolves to the name it points at (created then).  The
 * result is malloc'ed; NULL with errno set on failure.
 */
static char *resolve_links(const char *path)
{
	char *cur = strdup(path);
	struct stat st;

	for (int hops = 0; cur; hops++) {
		char target[PATH_MAX], *next;
		const char *slash;
		ssize_t n;

		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return cur;	/* not a link (or not there): write it */
		if (hops == MAX_LINKS) {
			free(cur);
			errno = ELOOP;
			return NULL;
		}
		n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0) {
			free(cur);
			return NULL;
		}
		target[n] = '\0';
		slash = strrchr(cur, '/');
		if (target[0] == '/' || !slash) {
			next = strdup(target);
		} else {	/* relative to the link's directory */
			size_t dl = (size_t)(slash - cur) + 1;

			next = malloc(dl + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dl);
				memcpy(next + dl, target, (size_t)n + 1);
			}
		}
		free(cur);
		cur = next;
	}
	return NULL;
}

/* Write through to a device or FIFO: no temporary, no rename. */
static int write_through(const char *path,
			 int (*fill)(FILE *, void *, char *, size_t),
			 void *arg, char *err, size_t errlen)
{
	char msg[256] = "";
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	FILE *f;

	if (fd < 0) {
		seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (fill(f, arg, msg, sizeof(msg))) {
		fclose(f);
		seterr(err, errlen, "%s: %s", path, msg);
		return -1;
	}
	if (fflush(f) || ferror(f)) {
		seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	if (fclose(f)) {
		seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Make a rename in @path's directory durable; best effort. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	int fd;

	if (slash) {
		char *dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));

		fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		free(dir);
	} else {
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* The signals held while a temporary exists (see write_temp). */
static void hold_signals(sigset_t *saved)
{
	sigset_t hold;

	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, saved);
}

/*
 * Fill "@path.tmp.PID" whole and sync it; returns its malloc'ed name, or
 * NULL with @err set (naming @path, the file the user asked for).  The
 * caller holds SIGINT, SIGTERM and SIGHUP until the temporary is renamed,
 * linked or removed, so an interrupt never leaves one behind.
 */
static char *write_temp(const char *path, const struct stat *old,
			int (*fill)(FILE *, void *, char *, size_t),
			void *arg, char *err, size_t errlen)
{
	char msg[256] = "", *tmp;
	size_t n = strlen(path) + 32;
	FILE *f = NULL;
	int fd;

	if (!(tmp = malloc(n))) {
		seterr(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  old ? (old->st_mode & 07777) : 0666);
	if (fd < 0) {
		seterr(err, errlen, "%s: cannot create: %s", path,
		       strerror(errno));
		free(tmp);
		return NULL;
	}
	if (old)	/* a replaced file keeps its permissions */
		(void)fchmod(fd, old->st_mode & 07777);
	if (!(f = fdopen(fd, "w"))) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	if (fill(f, arg, msg, sizeof(msg))) {
		seterr(err, errlen, "%s: %s", path, msg);
		goto fail;
	}
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		seterr(err, errlen, "%s: cannot write: %s", path,
		       strerror(errno));
		goto fail;
	}
	n = (size_t)fclose(f);
	f = NULL;
	if (n) {
		seterr(err, errlen, "%s: cannot write: %s", path,
		       strerror(errno));
		goto fail;
	}
	return tmp;
fail:
	if (f)
		fclose(f);
	unlink(tmp);
	free(tmp);
	return NULL;
}

/* A regular file: TARGET.tmp.PID, then rename over TARGET. */
static int write_replace(const char *path, const struct stat *old,
			 int (*fill)(FILE *, void *, char *, size_t),
			 void *arg, char *err, size_t errlen)
{
	sigset_t saved;
	char *tmp;
	int rc = -1;

	hold_signals(&saved);
	tmp = write_temp(path, old, fill, arg, err, errlen);
	if (!tmp)
		goto out;
	if (rename(tmp, path)) {
		seterr(err, errlen, "%s: cannot rename %s over it: %s", path,
		       tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	sync_dir(path);
	rc = 0;
out:
	sigprocmask(SIG_SETMASK, &saved, NULL);
	free(tmp);
	return rc;
}

/* Are @a and @b both regular files with the same bytes? */
static int same_bytes(const char *a, const char *b)
{
	struct stat sa, sb;
	FILE *fa = NULL, *fb = NULL;
	int same = 0, ca, cb;

	if (lstat(a, &sa) || lstat(b, &sb) || !S_ISREG(sa.st_mode) ||
	    !S_ISREG(sb.st_mode) || sa.st_size != sb.st_size)
		return 0;
	fa = fopen(a, "rb");
	fb = fopen(b, "rb");
	if (!fa || !fb)
		goto out;
	do {
		ca = getc(fa);
		cb = getc(fb);
	} while (ca == cb && ca != EOF);
	same = ca == cb && !ferror(fa) && !ferror(fb);
out:
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * Give @tmp the name @name without replacing anything: link(2) fails
 * with EEXIST where rename(2) would replace.  On a file system without
 * hard links, an O_EXCL placeholder claims the name first.  Returns 0,
 * 1 if the name is taken, -1 on another error (errno set).
 */
static int claim_name(const char *tmp, const char *name)
{
	int fd;

	if (!link(tmp, name))
		return 0;
	if (errno == EEXIST)
		return 1;
	if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP &&
	    errno != EMLINK)
		return -1;
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0666);
	if (fd < 0)
		return errno == EEXIST ? 1 : -1;
	close(fd);
	return rename(tmp, name) ? -1 : 0;
}

int pr_outfile_write_new(char *path, size_t pathlen, const char *ext,
			 int (*fill)(FILE *f, void *arg, char *msg, size_t msglen),
			 void *arg, char *err, size_t errlen)
{
	size_t plen = strlen(path), elen = strlen(ext), stem;
	char *name = NULL, *tmp;
	sigset_t saved;
	int rc = -1, taken;

	if (!plen) {
		seterr(err, errlen, "an empty file name");
		return -1;
	}
	stem = plen >= elen && !strcmp(path + plen - elen, ext) ? plen - elen
								 : plen;
	hold_signals(&saved);
	tmp = write_temp(path, NULL, fill, arg, err, errlen);
	if (!tmp)
		goto out;
	if (!(name = malloc(pathlen))) {
		seterr(err, errlen, "%s: out of memory", path);
		goto drop;
	}
	for (unsigned k = 1; ; k++) {
		if (k == 1)
			snprintf(name, pathlen, "%s", path);
		else if ((size_t)snprintf(name, pathlen, "%.*s-%u%s", (int)stem,
					  path, k, path + stem) >= pathlen ||
			 k == 100000) {
			seterr(err, errlen, "%s: no free name beside it", path);
			goto drop;
		}
		taken = claim_name(tmp, name);
		if (taken < 0) {
			seterr(err, errlen, "%s: cannot create: %s", name,
			       strerror(errno));
			goto drop;
		}
		if (!taken || same_bytes(tmp, name))
			break;
	}
	snprintf(path, pathlen, "%s", name);
	sync_dir(path);
	rc = 0;
drop:
	unlink(tmp);	/* a link's other name, or the unused temporary */
out:
	sigprocmask(SIG_SETMASK, &saved, NULL);
	free(name);
	free(tmp);
	return rc;
}

int pr_outfile_write(const char *path,
		     int (*fill)(FILE *f, void *arg, char *msg, size_t msglen),
		     void *arg, char *err, size_t errlen)
{
	struct stat st;
	char *real;
	int rc;

	if (!path[0]) {
		seterr(err, errlen, "an empty file name");
		return -1;
	}
	real = resolve_links(path);
	if (!real) {
		seterr(err, errlen, "%s: cannot follow the link: %s", path,
		       strerror(errno));
		return -1;
	}
	if (stat(real, &st)) {
		if (errno != ENOENT) {
			seterr(err, errlen, "%s: %s", path, strerror(errno));
			free(real);
			return -1;
		}
		rc = write_replace(real, NULL, fill, arg, err, errlen);
	} else if (S_ISREG(st.st_mode)) {
		rc = write_replace(real, &st, fill, arg, err, errlen);
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		rc = write_through(real, fill, arg, err, errlen);
	} else {
		seterr(err, errlen, "%s: is %s, not a file to write to", path,
		       S_ISDIR(st.st_mode) ? "a directory" :
		       S_ISBLK(st.st_mode) ? "a block device" :
		       S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
		rc = -1;
	}
	free(real);
	return rc;
}

int pr_outfile_is(const char *out, const char *in)
{
	struct stat so, si;

	return !stat(out, &so) && !stat(in, &si) && so.st_dev == si.st_dev &&
	       so.st_ino == si.st_ino;
}

int pr_outfile_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		const char *t = strstr(e->d_name, ".tmp.");
		char *end, *p;
		long pid;
		size_t n;

		/* The last ".tmp." is ours: NAME.trace.tmp.PID, PID all digits. */
		while (t && strstr(t + 1, ".tmp."))
			t = strstr(t + 1, ".tmp.");
		if (!t || !t[5] || t - e->d_name < 6 ||
		    strncmp(t - 6, ".trace", 6))
			continue;
		errno = 0;
		pid = strtol(t + 5, &end, 10);
		if (*end || errno || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* alive (or not ours to know) */
		n = strlen(dir) + strlen(e->d_name) + 2;
		if (!(p = malloc(n)))
			break;
		snprintf(p, n, "%s/%s", dir, e->d_name);
		if (!unlink(p))
			removed++;
		free(p);
	}
	closedir(d);
	return removed;
}
