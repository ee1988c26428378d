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

/*
 * A regular file: TARGET.tmp.PID, then rename.  SIGINT, SIGTERM and
 * SIGHUP are held while the temporary exists, so an interrupt never
 * leaves one behind: it is delivered once the file is renamed or removed.
 */
static int write_replace(const char *path, const struct stat *old,
			 int (*fill)(FILE *, void *, char *, size_t),
			 void *arg, char *err, size_t errlen)
{
	char msg[256] = "", *tmp;
	size_t n = strlen(path) + 32;
	sigset_t hold, saved;
	FILE *f = NULL;
	int fd, rc = -1;

	if (!(tmp = malloc(n))) {
		seterr(err, errlen, "%s: out of memory", path);
		return -1;
	}
	snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &saved);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  old ? (old->st_mode & 07777) : 0666);
	if (fd < 0) {
		/* Name the file the user asked for, not our temporary. */
		seterr(err, errlen, "%s: cannot create: %s", path,
		       strerror(errno));
		goto out;
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
	if (rename(tmp, path)) {
		seterr(err, errlen, "%s: cannot rename %s over it: %s", path,
		       tmp, strerror(errno));
		goto fail;
	}
	sync_dir(path);
	rc = 0;
	goto out;
fail:
	if (f)
		fclose(f);
	unlink(tmp);
out:
	sigprocmask(SIG_SETMASK, &saved, NULL);
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
