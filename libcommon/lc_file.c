/* libcommon/lc_file.c: see lc_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcommon/lc_file.h"

int
lc_write_all(int fd, const void *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, (const char *)p + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (n < 0 ? -errno : -EIO);
		off += (size_t)n;
	}
	return (0);
}

int
lc_fsync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, rv = 0;

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return (-errno);
	if (fsync(fd) != 0)
		rv = -errno;
	close(fd);
	return (rv);
}

int
lc_open_regular(const char *path, int flags, uint64_t max, int *fd,
    struct stat *st)
{
	struct stat sb;
	int f, rv;

	if (st == NULL)
		st = &sb;
	*fd = -1;
	if ((f = open(path,
		 O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags)) < 0)
		return (-errno);
	if (fstat(f, st) != 0) {
		rv = -errno;
		close(f);
		return (rv);
	}
	if (!S_ISREG(st->st_mode)) {
		close(f);
		return (S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL);
	}
	if ((uint64_t)st->st_size > max) {
		close(f);
		return (-EFBIG);
	}
	*fd = f;
	return (0);
}

const char *
lc_open_regular_str(int rv)
{
	switch (rv) {
	case -EISDIR:
		return ("is a directory");
	case -EINVAL:
		return ("not a regular file");
	case -EFBIG:
		return ("too big");
	default:
		return (strerror(-rv));
	}
}
