/* rtrmgr/rtm_rundir.c: the runtime directory: creation with its permissions,
 * the flock that makes one rtrmgr per rundir, and the atomic state file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtm_int.h"

#define RTM_STATE_FILE	"rtrmgr.state"
#define RTM_LOCK_FILE	"rtrmgr.lock"
#define RTM_STATE_MAGIC "tern-rtrmgr-state 2"

int
rtm_rundir_prepare(const char *dir, uid_t uid, gid_t gid, mode_t mode)
{
	struct stat sb;

	if (mkdir(dir, 0750) != 0 && errno != EEXIST)
		return (-errno);
	if (lstat(dir, &sb) != 0)
		return (-errno);
	if (S_ISLNK(sb.st_mode))
		return (-ELOOP);
	if (!S_ISDIR(sb.st_mode))
		return (-ENOTDIR);
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) &&
	    (sb.st_uid != uid || sb.st_gid != gid) && chown(dir, uid, gid) != 0)
		return (-errno);
	if ((sb.st_mode & 07777) != mode && chmod(dir, mode) != 0)
		return (-errno);
	return (0);
}

int
rtm_rundir_lock(const char *dir, pid_t *holder)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd, e;

	*holder = 0;
	if (snprintf(path, sizeof(path), "%s/%s", dir, RTM_LOCK_FILE) >=
	    (int)sizeof(path))
		return (-ENAMETOOLONG);
	/* O_NOFOLLOW: the directory may be writable by the component user. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return (-errno);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		e = errno;
		if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) > 0) {
			buf[n] = '\0';
			*holder = (pid_t)atoi(buf);
		}
		close(fd);
		return (e == EWOULDBLOCK ? -EBUSY : -e);
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		e = errno;
		close(fd);
		return (-e);
	}
	return (fd);
}

int
rtm_state_write(const char *dir, const struct rtm_state_rec *r, unsigned n)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;
	int fd, e;

	if (snprintf(path, sizeof(path), "%s/%s", dir, RTM_STATE_FILE) >=
		(int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, RTM_STATE_FILE) >=
		(int)sizeof(tmp))
		return (-ENAMETOOLONG);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0640);
	if (fd < 0)
		return (-errno);
	if ((f = fdopen(fd, "w")) == NULL) {
		e = errno;
		close(fd);
		unlink(tmp);
		return (-e);
	}
	fprintf(f,
	    "%s\n# written by tern-rtrmgr %d; replaced atomically, do "
	    "not edit\n# comp NAME GENERATION PID STARTTIME STARTED_MS "
	    "HELD BINARY\n",
	    RTM_STATE_MAGIC, (int)getpid());
	for (unsigned i = 0; i < n; i++)
		fprintf(f,
		    "comp %s %" PRIu64 " %d %" PRIu64 " %" PRIu64 " %d %s\n",
		    r[i].name, r[i].generation, (int)r[i].pid, r[i].starttime,
		    r[i].started_ms, r[i].held ? 1 : 0,
		    r[i].binary[0] ? r[i].binary : "-");
	/* No fsync: the file must survive the death of rtrmgr, not of the
	 * machine (after a reboot its pids mean nothing), and the rename
	 * alone is atomic for that. fsync cost ~4 ms per state change on
	 * ext4 here, on the path from a crash to its restart. */
	if (fflush(f) != 0) {
		e = errno;
		fclose(f);
		unlink(tmp);
		return (-e);
	}
	if (fclose(f) != 0) {
		e = errno;
		unlink(tmp);
		return (-e);
	}
	if (rename(tmp, path) != 0) {
		e = errno;
		unlink(tmp);
		return (-e);
	}
	return (0);
}

int
rtm_state_read(const char *dir, struct rtm_state_rec *r, unsigned max)
{
	char path[PATH_MAX], line[512];
	unsigned n = 0;
	FILE *f;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, RTM_STATE_FILE) >=
	    (int)sizeof(path))
		return (-ENAMETOOLONG);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return (errno == ENOENT ? 0 : -errno);
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return (-ENOMEM);
	}
	if (fgets(line, sizeof(line), f) == NULL ||
	    strcmp(line, RTM_STATE_MAGIC "\n") != 0) {
		fclose(f);
		return (-EINVAL);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		struct rtm_state_rec rec;
		int pid, held, off = 0;

		if (line[0] == '#')
			continue;
		memset(&rec, 0, sizeof(rec));
		if (strchr(line, '\n') == NULL ||
		    sscanf(line,
			"comp %31s %" SCNu64 " %d %" SCNu64 " %" SCNu64
			" %d %n",
			rec.name, &rec.generation, &pid, &rec.starttime,
			&rec.started_ms, &held, &off) != 6 ||
		    off == 0 || pid < 0 || (held != 0 && held != 1)) {
			fclose(f);
			return (-EINVAL);
		}
		line[strcspn(line, "\n")] = '\0';
		snprintf(rec.binary, sizeof(rec.binary), "%s",
		    strcmp(line + off, "-") == 0 ? "" : line + off);
		rec.pid = (pid_t)pid;
		rec.held = held == 1;
		if (n < max)
			r[n++] = rec;
	}
	fclose(f);
	return ((int)n);
}
