/* mgmt/mgmt_conf_store.c: atomic config files and the numbered commit history
 * behind rollback. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <json-c/json.h>

#include "libcommon/lc_file.h"
#include "mgmt/mgmt_conf_int.h"

struct wr_mem {
	const void *data;
	size_t len;
};

static int
wr_mem(int fd, void *arg)
{
	const struct wr_mem *m = arg;

	return (lc_write_all(fd, m->data, m->len));
}

int
mgmt_store_write_atomic(const char *path, const void *data, size_t len)
{
	struct wr_mem m = {data, len};

	return (mgmt_store_write_atomic_fn(path, wr_mem, &m));
}

int
mgmt_store_write_atomic_fn(const char *path, int (*wr)(int fd, void *arg),
    void *arg)
{
	char tmp[PATH_MAX];
	int fd, rv;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return (-ENAMETOOLONG);
	/* 0640: a config may hold secrets (BGP keys); group: the
	 * components' user's. A temp file left by a writer of our pid that
	 * died is ours to replace; O_EXCL and O_NOFOLLOW: never through
	 * something else put there (a FIFO would block the open) */
	(void)unlink(tmp);
	if ((fd = open(tmp,
		 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		 MGMT_STORE_FILE_MODE)) < 0)
		return (-errno);
	if ((rv = wr(fd, arg)) != 0)
		goto fail;
	if (fsync(fd) != 0) {
		rv = -errno;
		goto fail;
	}
	if (close(fd) != 0) {
		rv = -errno;
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		rv = -errno;
		goto fail;
	}
	return (lc_fsync_dir_of(path));
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return (rv);
}

struct wr_two {
	const struct lc_buf *a, *b;
};

static int
wr_two(int fd, void *arg)
{
	const struct wr_two *w = arg;
	int rv = lc_write_all(fd, lc_buf_head(w->a), lc_buf_avail(w->a));

	return (rv != 0 ?
		rv :
		lc_write_all(fd, lc_buf_head(w->b), lc_buf_avail(w->b)));
}

struct wr_conf {
	const struct mgmt_conf *conf;
	const struct lc_buf *head;
};

static int
wr_conf(int fd, void *arg)
{
	const struct wr_conf *w = arg;

	return (mgmt_conf_print_fd(w->conf, fd, lc_buf_head(w->head),
	    lc_buf_avail(w->head)));
}

int
mgmt_conf_save(const struct mgmt_conf *conf, const char *path)
{
	struct lc_buf b = {0};
	struct wr_conf wc = {conf, &b};

	return (mgmt_store_write_atomic_fn(path, wr_conf, &wc));
}

static int
seq_desc(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a,
		      y = *(const unsigned long *)b;

	return (x < y ? 1 : x > y ? -1 : 0);
}

/* The (at most max) newest sequence numbers of commit.<seq> in dir, newest
 * first. */
static int
list_commits(const char *dir, unsigned long *seq, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned long *all = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL)
		return (errno == ENOENT ? 0 : -errno);
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		char *end;
		unsigned long v;

		if (strncmp(s, "commit.", 7) != 0 || s[7] < '0' || s[7] > '9')
			continue;
		v = strtoul(s + 7, &end, 10);
		if (*end != '\0' && strcmp(end, ".gz") != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			all = mgmt_xrealloc(all, cap * sizeof(*all));
		}
		all[n++] = v;
	}
	closedir(d);
	if (n > 0)
		qsort(all, n, sizeof(*all), seq_desc);
	/* a crash while compressing can leave commit.N and commit.N.gz */
	if (n > 1) {
		size_t u = 1;

		for (size_t i = 1; i < n; i++)
			if (all[i] != all[u - 1])
				all[u++] = all[i];
		n = u;
	}
	if (n > (size_t)max)
		n = (size_t)max;
	if (n > 0)
		memcpy(seq, all, n * sizeof(*seq));
	free(all);
	return ((int)n);
}

int
mgmt_store_count(const char *dir)
{
	unsigned long seq[MGMT_STORE_KEEP];
	int n = list_commits(dir, seq, MGMT_STORE_KEEP);

	return (n);
}

int
mgmt_store_path(const char *dir, unsigned n, char *buf, size_t bufsz)
{
	unsigned long seq[MGMT_STORE_KEEP];
	int c = list_commits(dir, seq, MGMT_STORE_KEEP);

	if (c < 0)
		return (c);
	if (n >= (unsigned)c)
		return (-ENOENT);
	/* the plain file while it exists (it is complete), else the .gz */
	if (snprintf(buf, bufsz, "%s/commit.%lu", dir, seq[n]) >= (int)bufsz)
		return (-ENAMETOOLONG);
	if (access(buf, F_OK) != 0 &&
	    snprintf(buf, bufsz, "%s/commit.%lu.gz", dir, seq[n]) >= (int)bufsz)
		return (-ENAMETOOLONG);
	return (0);
}

/* ---- commit metadata: the first line of a commit's file ---- */

#define META_TAG "#tern-commit "

void
mgmt_commit_meta_init(struct mgmt_commit_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->uid = -1;
	m->added = m->removed = -1;
	snprintf(m->user, sizeof(m->user), "unknown");
}

/* The line: META_TAG, one JSON object (json-c escapes every control
 * character, so it stays one line), '\n'. */
static void
meta_print(const struct mgmt_commit_meta *m, struct lc_buf *b)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "time", json_object_new_int64(m->time));
	json_object_object_add(o, "user", json_object_new_string(m->user));
	json_object_object_add(o, "uid", json_object_new_int64(m->uid));
	json_object_object_add(o, "pid", json_object_new_int64(m->pid));
	json_object_object_add(o, "via", json_object_new_string(m->via));
	json_object_object_add(o, "from", json_object_new_string(m->from));
	json_object_object_add(o, "comment",
	    json_object_new_string(m->comment));
	json_object_object_add(o, "confirm", json_object_new_int64(m->confirm));
	json_object_object_add(o, "added", json_object_new_int64(m->added));
	json_object_object_add(o, "removed", json_object_new_int64(m->removed));
	if (m->confirm > 0) {
		json_object_object_add(o, "confirm_deadline_ms",
		    json_object_new_int64(m->confirm_deadline_ms));
		json_object_object_add(o, "confirm_to",
		    json_object_new_int64((int64_t)m->confirm_to));
	}
	lc_buf_printf(b, "%s%s\n", META_TAG,
	    json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void
meta_str(struct json_object *o, const char *key, char *dst, size_t len)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_string))
		snprintf(dst, len, "%s", json_object_get_string(v));
}

static int64_t
meta_int(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, key, &v) &&
	    json_object_is_type(v, json_type_int))
		return (json_object_get_int64(v));
	return (dflt);
}

/* line: the file's first line; leaves m unknown unless it is ours */
static void
meta_parse(const char *line, struct mgmt_commit_meta *m)
{
	struct json_object *o;

	if (strncmp(line, META_TAG, strlen(META_TAG)) != 0 ||
	    (o = json_tokener_parse(line + strlen(META_TAG))) == NULL)
		return;
	if (json_object_is_type(o, json_type_object)) {
		m->known = true;
		m->time = meta_int(o, "time", 0);
		m->uid = (long)meta_int(o, "uid", -1);
		m->pid = (long)meta_int(o, "pid", 0);
		meta_str(o, "user", m->user, sizeof(m->user));
		meta_str(o, "via", m->via, sizeof(m->via));
		meta_str(o, "from", m->from, sizeof(m->from));
		meta_str(o, "comment", m->comment, sizeof(m->comment));
		m->confirm = (unsigned)meta_int(o, "confirm", 0);
		m->added = (long)meta_int(o, "added", -1);
		m->removed = (long)meta_int(o, "removed", -1);
		m->confirm_deadline_ms = meta_int(o, "confirm_deadline_ms", 0);
		m->confirm_to = (unsigned long)meta_int(o, "confirm_to", 0);
	}
	json_object_put(o);
}

int
mgmt_store_meta(const char *dir, unsigned n, struct mgmt_commit_meta *out)
{
	char path[PATH_MAX], line[8192];
	const char *base;
	gzFile gz;
	int fd, rv;

	mgmt_commit_meta_init(out);
	if ((rv = mgmt_store_path(dir, n, path, sizeof(path))) != 0)
		return (rv);
	base = strrchr(path, '/');
	out->seq = strtoul(base != NULL ? base + 8 : path + 7, NULL, 10);
	/* zlib reads a plain file as it is: only the first line is
	 * inflated, not the 76 MB of a 1M-route commit. Opened so that a
	 * FIFO put in the store cannot block the loop (show system commit) */
	if ((rv = lc_open_regular(path, O_NOFOLLOW, MGMT_FILE_MAX, &fd,
		 NULL)) != 0)
		return (rv);
	if ((gz = gzdopen(fd, "rb")) == NULL) {
		close(fd);
		return (-ENOMEM);
	}
	if (gzgets(gz, line, sizeof(line)) != NULL)
		meta_parse(line, out);
	(void)gzclose(gz);
	return (0);
}

void
mgmt_commit_meta_summary(struct mgmt_commit_meta *meta,
    const struct mgmt_conf *old, const struct mgmt_conf *new)
{
	struct lc_buf b;
	const char *p, *end;

	lc_buf_init(&b);
	mgmt_conf_compare(old, new, &b);
	meta->added = meta->removed = 0;
	if (lc_buf_avail(&b) == 0) {
		lc_buf_fini(&b);
		return;
	}
	p = (const char *)lc_buf_head(&b);
	end = p + lc_buf_avail(&b);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		meta->added += *p == '+';
		meta->removed += *p == '-';
		p = nl != NULL ? nl + 1 : end;
	}
	lc_buf_fini(&b);
}

int
mgmt_store_commit(const char *dir, const struct mgmt_conf *conf)
{
	return (mgmt_store_commit_meta(dir, conf, NULL));
}

int
mgmt_store_commit_meta(const char *dir, const struct mgmt_conf *conf,
    const struct mgmt_commit_meta *meta)
{
	unsigned long seq[MGMT_STORE_KEEP], oldest;
	struct mgmt_commit_meta mm;
	char path[PATH_MAX];
	struct lc_buf b = {0};
	DIR *d;
	struct dirent *e;
	int n, rv;

	if (mkdir(dir, MGMT_STORE_DIR_MODE) != 0 && errno != EEXIST)
		return (-errno);
	if ((n = list_commits(dir, seq, 1)) < 0)
		return (n);
	if (snprintf(path, sizeof(path), "%s/commit.%lu", dir,
		n ? seq[0] + 1 : 1) >= (int)sizeof(path))
		return (-ENAMETOOLONG);
	/* a commit confirmed goes back to the commit before it (running
	 * until now), recorded with it: the next tern-mgmt resumes it */
	if (meta != NULL && meta->confirm > 0) {
		mm = *meta;
		mm.confirm_to = n ? seq[0] : 0;
		meta = &mm;
	}
	/* the metadata and the config in one atomic write */
	if (meta != NULL && meta->added == MGMT_META_ADDED_ALL) {
		struct mgmt_commit_meta all = *meta;
		struct lc_buf text = {0};
		const char *p, *end;

		mgmt_conf_print(conf, &text);
		all.added = all.removed = 0;
		p = (const char *)lc_buf_head(&text);
		end = p != NULL ? p + lc_buf_avail(&text) : NULL;
		for (; p != NULL && p < end; all.added++) {
			p = memchr(p, '\n', (size_t)(end - p));
			p = p != NULL ? p + 1 : end;
		}
		meta_print(&all, &b);
		{
			/* the line counted first: the text, kept whole, goes
			 * after the metadata line as it is */
			struct wr_two w2 = {&b, &text};

			rv = mgmt_store_write_atomic_fn(path, wr_two, &w2);
		}
		lc_buf_fini(&text);
	} else {
		/* the metadata line, then the config as it is printed (no
		 * 50 MB text in memory for 1M routes) */
		struct wr_conf wc = {conf, &b};

		if (meta != NULL)
			meta_print(meta, &b);
		rv = mgmt_store_write_atomic_fn(path, wr_conf, &wc);
	}
	lc_buf_fini(&b);
	if (rv != 0)
		return (rv);
	/* drop what falls out of the history, and temp files of writers
	 * that crashed (best effort) */
	n = list_commits(dir, seq, MGMT_STORE_KEEP);
	oldest = n == MGMT_STORE_KEEP ? seq[MGMT_STORE_KEEP - 1] : 0;
	if ((d = opendir(dir)) == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		char *end;
		unsigned long v;

		if (strncmp(e->d_name, "commit.", 7) != 0 ||
		    e->d_name[7] < '0' || e->d_name[7] > '9')
			continue;
		v = strtoul(e->d_name + 7, &end, 10);
		if (strncmp(end, ".gz.tmp.", 8) == 0)
			end += 3;
		if (strncmp(end, ".tmp.", 5) == 0 &&
		    strtol(end + 5, NULL, 10) != (long)getpid() &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
			(int)sizeof(path)) {
			unlink(path);
			continue;
		}
		if ((*end == '\0' || strcmp(end, ".gz") == 0) && v < oldest &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
			(int)sizeof(path))
			unlink(path);
	}
	closedir(d);
	return (0);
}

/* dir/commit.<seq> -> dir/commit.<seq>.gz, atomically; 0 or -errno */
static int
compress_one(const char *dir, unsigned long seq)
{
	char src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX], buf[1 << 16];
	int in = -1, out = -1, rv = 0;
	gzFile gz = NULL;
	ssize_t n;

	if (snprintf(src, sizeof(src), "%s/commit.%lu", dir, seq) >=
		(int)sizeof(src) ||
	    snprintf(dst, sizeof(dst), "%s.gz", src) >= (int)sizeof(dst) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", dst, (long)getpid()) >=
		(int)sizeof(tmp))
		return (-ENAMETOOLONG);
	if ((rv = lc_open_regular(src, O_NOFOLLOW, MGMT_FILE_MAX, &in, NULL)) !=
	    0)
		return (rv);
	(void)unlink(tmp);
	if ((out = open(tmp,
		 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		 MGMT_STORE_FILE_MODE)) < 0) {
		rv = -errno;
		goto done;
	}
	/* level 1: 76 MB of 1M routes -> 9.5 MB in ~1 s; -6 gains 14% for
	 * 2.5x the time */
	if ((gz = gzdopen(dup(out), "wb1")) == NULL) {
		rv = -ENOMEM;
		goto done;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || gzwrite(gz, buf, (unsigned)n) != (int)n) {
			rv = n < 0 ? -errno : -EIO;
			goto done;
		}
	}
	rv = gzclose(gz) == Z_OK ? 0 : -EIO;
	gz = NULL;
	if (rv == 0 && fsync(out) != 0)
		rv = -errno;
	if (close(out) != 0 && rv == 0)
		rv = -errno;
	out = -1;
	if (rv == 0 && rename(tmp, dst) != 0)
		rv = -errno;
	if (rv == 0)
		rv = lc_fsync_dir_of(dst);
	if (rv == 0 && unlink(src) != 0)
		rv = -errno;
done:
	if (gz != NULL)
		(void)gzclose(gz);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (rv != 0)
		unlink(tmp);
	return (rv);
}

int
mgmt_store_compress(const char *dir)
{
	unsigned long seq[MGMT_STORE_KEEP];
	char path[PATH_MAX];
	int n = list_commits(dir, seq, MGMT_STORE_KEEP), done = 0, rv;

	if (n < 0)
		return (n);
	for (int i = 1; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/commit.%lu", dir,
			seq[i]) >= (int)sizeof(path) ||
		    access(path, F_OK) != 0)
			continue; /* compressed already */
		/* gone meanwhile, or not a file (a FIFO, left as it is) */
		if ((rv = compress_one(dir, seq[i])) != 0 && rv != -ENOENT &&
		    rv != -EINVAL && rv != -EISDIR)
			return (rv);
		done += rv == 0;
	}
	return (done);
}

int
mgmt_store_rollback(const char *dir, unsigned n, struct mgmt_conf **out,
    struct lc_err *err)
{
	char path[PATH_MAX];
	int c = mgmt_store_count(dir), rv;

	if (c < 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "%s: %s", dir,
		    strerror(-c));
		return (c);
	}
	if ((rv = mgmt_store_path(dir, n, path, sizeof(path))) != 0) {
		if (rv == -ENOENT)
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "rollback %u: no such commit (%d "
			    "stored: 0..%d)",
			    n, c, c - 1);
		else
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "rollback %u: %s", n, strerror(-rv));
		return (rv);
	}
	return (mgmt_conf_load_file(path, out, err));
}

int
mgmt_store_newest(const char *dir, unsigned long *seq)
{
	unsigned long s[1];
	int n = list_commits(dir, s, 1);

	if (n < 0)
		return (n);
	*seq = n > 0 ? s[0] : 0;
	return (0);
}

int
mgmt_store_load_seq(const char *dir, unsigned long seq, struct mgmt_conf **out,
    struct lc_err *err)
{
	char path[PATH_MAX];

	if (seq == 0) {
		*out = mgmt_conf_new();
		return (0);
	}
	if (snprintf(path, sizeof(path), "%s/commit.%lu", dir, seq) >=
	    (int)sizeof(path))
		return (lc_err_set(err, -ENAMETOOLONG, LC_ERR_NOINDEX,
		    "%s: path too long", dir));
	/* the plain file while it exists (it is complete), else the .gz */
	if (access(path, F_OK) != 0 &&
	    snprintf(path, sizeof(path), "%s/commit.%lu.gz", dir, seq) >=
		(int)sizeof(path))
		return (lc_err_set(err, -ENAMETOOLONG, LC_ERR_NOINDEX,
		    "%s: path too long", dir));
	if (access(path, F_OK) != 0)
		return (lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
		    "commit %lu is no longer in %s", seq, dir));
	return (mgmt_conf_load_file(path, out, err));
}

int
mgmt_store_tighten(const char *dir)
{
	struct dirent *e;
	struct stat st;
	int n = 0, dfd;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return (errno == ENOENT ? 0 : -errno);
	dfd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "commit.", 7) != 0 ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) ||
		    (st.st_mode & 07777 & ~MGMT_STORE_FILE_MODE) == 0)
			continue;
		if (fchmodat(dfd, e->d_name,
			st.st_mode & 07777 & MGMT_STORE_FILE_MODE, 0) == 0)
			n++;
	}
	closedir(d);
	return (n);
}
