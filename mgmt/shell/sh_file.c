/* mgmt/shell/sh_file.c: save FILE and load FILE with the user's own file: ternsh reads and writes it (as the user, relative to its directory) and tern-mgmt sends or takes the text. */
#include "sh.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libcommon/lc_file.h"
#include "mgmt/mgmt.h"
#include "mgmt/mgmt_conf.h"

/* "~/x" is $HOME/x, as in a shell; anything else is as given (relative to
 * our directory) */
static const char *
expand_home(const char *path, char *buf, size_t len)
{
	const char *home = getenv("HOME");

	if (path[0] != '~' || (path[1] != '/' && path[1] != '\0') ||
	    home == NULL || home[0] == '\0')
		return (path);
	if (snprintf(buf, len, "%s%s", home, path + 1) >= (int)len)
		return (path);
	return (buf);
}

/* mgmt's answer to a part: 0, or 1 with the error printed */
static int
part_failed(struct sh_session *s, int rv, const struct sh_result *res,
    FILE *out, FILE *err)
{
	sh_print_notes(s, err);
	if (rv == 0 && res->code == 0)
		return (0);
	if (res->text != NULL && res->text[0] != '\0')
		fputs(res->text, out);
	fprintf(err, "error: %s\n",
	    res->error != NULL && res->error[0] ? res->error :
						  "command failed");
	return (1);
}

/* The whole file into *buf (*len bytes); 0, or -1 with why set. Refuses
 * what cannot be a config: not a regular file, over MGMT_LOAD_MAX, a NUL
 * byte (a binary; a gzip file, a commit of the history, is mgmt's to
 * inflate). */
static int
read_all(const char *path, char **buf, size_t *len, char *why, size_t whylen)
{
	struct stat st;
	size_t off = 0, size;
	const char *nul;
	int fd, rv;

	/* a FIFO must not hang the shell in open(), nor /dev/zero in read */
	if ((rv = lc_open_regular(path, 0, MGMT_LOAD_MAX, &fd, &st)) != 0) {
		if (rv == -EFBIG)
			snprintf(why, whylen,
			    "%.1f MiB, over the %u MiB a load takes; nothing "
			    "changed",
			    (double)st.st_size / (1 << 20),
			    MGMT_LOAD_MAX >> 20);
		else
			snprintf(why, whylen, "%s", lc_open_regular_str(rv));
		return (-1);
	}
	size = (size_t)st.st_size;
	if ((*buf = malloc(size + 1)) == NULL) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		close(fd);
		return (-1);
	}
	while (off < size) {
		ssize_t n = read(fd, *buf + off, size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, whylen, "read: %s", strerror(errno));
			free(*buf);
			close(fd);
			return (-1);
		}
		if (n == 0)
			break; /* shrank meanwhile: what is there */
		off += (size_t)n;
	}
	close(fd);
	*len = off;
	if (!(off >= 2 && (unsigned char)(*buf)[0] == 0x1f &&
		(unsigned char)(*buf)[1] == 0x8b) &&
	    (nul = memchr(*buf, '\0', off)) != NULL) {
		snprintf(why, whylen,
		    "not a text file (a NUL byte at offset %zu); nothing "
		    "changed",
		    (size_t)(nul - *buf));
		free(*buf);
		return (-1);
	}
	return (0);
}

static int
do_load(struct sh_session *s, const char *line, const char *mode,
    const char *name, FILE *out, FILE *err)
{
	struct sh_result res;
	struct sh_io io;
	char why[256], home[PATH_MAX], *buf;
	size_t len, off = 0;
	int rv;

	if (read_all(expand_home(name, home, sizeof(home)), &buf, &len, why,
		sizeof(why)) != 0) {
		fprintf(err, "error: load %s %s: %s\n", mode, name, why);
		return (1);
	}
	do {
		size_t n = len - off > MGMT_XFER_PART ? MGMT_XFER_PART :
							len - off;

		memset(&io, 0, sizeof(io));
		io.data = buf + off;
		io.len = n;
		io.offset = off;
		io.more = off + n < len;
		rv = sh_session_exec_io(s, line, false, &io, &res);
		if (part_failed(s, rv, &res, out, err)) {
			free(buf);
			return (1);
		}
		off += n;
	} while (off < len);
	free(buf);
	if (res.text != NULL)
		fputs(res.text, out);
	return (0);
}

/*
 * The temp file is made first: a place we may not write fails before
 * tern-mgmt prints anything. A crash leaves FILE as it was (and a temp
 * file beside it); a symlink is written through, to its target.
 */
static int
do_save(struct sh_session *s, const char *line, const char *name, FILE *out,
    FILE *err)
{
	char home[PATH_MAX], real[PATH_MAX], tmp[PATH_MAX + 32];
	const char *target = expand_home(name, home, sizeof(home));
	struct sh_result res;
	struct sh_io io;
	struct stat st;
	uint64_t off = 0, total = 0;
	int fd, rv, e = 0;

	if (lstat(target, &st) == 0 && S_ISLNK(st.st_mode) &&
	    realpath(target, real) != NULL)
		target = real;
	if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(err, "error: save %s: %s\n", name,
		    S_ISDIR(st.st_mode) ? "is a directory" :
					  "not a regular file");
		return (1);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", target, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) <
	    0) {
		fprintf(err, "error: save %s: %s\n", name, strerror(errno));
		return (1);
	}
	do {
		memset(&io, 0, sizeof(io));
		io.offset = off;
		rv = sh_session_exec_io(s, line, false, &io, &res);
		if (part_failed(s, rv, &res, out, err))
			goto fail;
		if (off == 0)
			total = io.out_total;
		if (io.out_total != total || (io.out_len == 0 && off < total)) {
			fprintf(err,
			    "error: save %s: tern-mgmt's text changed size "
			    "or stopped (%llu of %llu bytes)\n",
			    name, (unsigned long long)off,
			    (unsigned long long)total);
			goto fail;
		}
		if ((e = lc_write_all(fd, io.out, io.out_len)) != 0)
			break;
		off += io.out_len;
	} while (off < total);
	if (e == 0 && fsync(fd) != 0)
		e = -errno;
	if (close(fd) != 0 && e == 0)
		e = -errno;
	fd = -1;
	if (e == 0 && rename(tmp, target) != 0)
		e = -errno;
	if (e != 0) {
		fprintf(err, "error: save %s: %s\n", name, strerror(-e));
		goto fail;
	}
	(void)lc_fsync_dir_of(target);
	fprintf(out, "wrote %s\n", name);
	return (0);
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return (1);
}

bool
sh_file_cmd(struct sh_session *s, const char *command, FILE *out, FILE *err,
    int *rv)
{
	const char *w[4];
	char buf[8192];
	int n;

	if (!sh_session_configuring(s))
		return (false);
	if ((n = mgmt_conf_split(command, buf, sizeof(buf), w, 4)) < 1)
		return (false);
	if (n == 2 && strcmp(w[0], "save") == 0) {
		*rv = do_save(s, command, w[1], out, err);
		return (true);
	}
	if (n == 3 && strcmp(w[0], "load") == 0 &&
	    (strcmp(w[1], "merge") == 0 || strcmp(w[1], "replace") == 0)) {
		*rv = do_load(s, command, w[1], w[2], out, err);
		return (true);
	}
	return (false);
}
