/* libcommon/lc_fdstore.c: the fd store's records (both sides) and the
 * component's client of it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lc_fdstore.h"
#include "lc_time.h"

bool
lc_fdstore_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0'; i++) {
		char c = name[i];

		if (i >= LC_FDSTORE_NAME_MAX - 1)
			return (false);
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '.' || c == '_' ||
			c == '-'))
			return (false);
	}
	return (i > 0);
}

/* The word after "op " as a NAME into name. */
static int
parse_name(const char *p, size_t len, char *name, struct lc_err *err)
{
	if (len == 0)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "no name"));
	if (len >= LC_FDSTORE_NAME_MAX)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "name longer than %d characters", LC_FDSTORE_NAME_MAX - 1));
	memcpy(name, p, len);
	name[len] = '\0';
	if (!lc_fdstore_name_ok(name)) {
		name[0] = '\0';
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "bad name (only A-Z a-z 0-9 . _ -)"));
	}
	return (0);
}

int
lc_fdstore_parse(const char *msg, size_t len, enum lc_fdstore_op *op,
    char *name, unsigned *n, struct lc_err *err)
{
	static const struct {
		const char *word;
		enum lc_fdstore_op op;
	} ops[] = {
	    {"put", LC_FDS_PUT},
	    {"del", LC_FDS_DEL},
	    {"clear", LC_FDS_CLEAR},
	    {"fd", LC_FDS_FD},
	    {"end", LC_FDS_END},
	    {"ok", LC_FDS_OK},
	    {"err", LC_FDS_ERR},
	};
	size_t w, i;

	lc_err_clear(err);
	name[0] = '\0';
	*n = 0;
	if (len > LC_FDSTORE_MSG_MAX)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "record of %zu bytes (at most %d)", len,
		    LC_FDSTORE_MSG_MAX));
	for (w = 0; w < len && msg[w] != ' '; w++)
		;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strlen(ops[i].word) == w &&
		    memcmp(ops[i].word, msg, w) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "unknown record '%.*s'", (int)(w > 16 ? 16 : w), msg));
	*op = ops[i].op;
	/* after the word: " ARG" for those with one, nothing for the others */
	switch (*op) {
	case LC_FDS_PUT:
	case LC_FDS_DEL:
	case LC_FDS_FD:
		if (w == len)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s without a name", ops[i].word));
		return (parse_name(msg + w + 1, len - w - 1, name, err));
	case LC_FDS_END: {
		unsigned v = 0;
		size_t j;

		if (w == len || len - w - 1 == 0)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "end without a count"));
		if (len - w - 1 > 3)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "end with a bad count"));
		for (j = w + 1; j < len; j++) {
			if (msg[j] < '0' || msg[j] > '9')
				return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
				    "end with a bad count"));
			v = v * 10 + (unsigned)(msg[j] - '0');
		}
		if (v > LC_FDSTORE_MAX)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "end count %u over %d", v, LC_FDSTORE_MAX));
		*n = v;
		return (0);
	}
	case LC_FDS_ERR: {
		size_t t = w < len ? len - w - 1 : 0;

		if (t >= LC_FDSTORE_NAME_MAX)
			t = LC_FDSTORE_NAME_MAX - 1;
		memcpy(name, msg + w + (w < len), t);
		name[t] = '\0';
		for (size_t j = 0; j < t; j++)
			if ((unsigned char)name[j] < 0x20 ||
			    (unsigned char)name[j] > 0x7e)
				name[j] = '?';
		return (0);
	}
	default:
		if (w != len)
			return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s takes nothing after it", ops[i].word));
		return (0);
	}
}

int
lc_fdstore_send(int sock, const char *msg, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} cm;
	size_t len = strlen(msg);
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (len == 0 || len > LC_FDSTORE_MSG_MAX)
		return (-EMSGSIZE);
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.b;
		mh.msg_controllen = sizeof(cm.b);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return (-errno);
	return (n == (ssize_t)len ? 0 : -EIO);
}

ssize_t
lc_fdstore_recv(int sock, char *buf, size_t len, int *fd, bool *extra)
{
	/* room for a few, so that a record with too many is seen as such and
	 * its fds closed rather than left in flight */
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(8 * sizeof(int))];
	} cm;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = cm.b,
	    .msg_controllen = sizeof(cm.b),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	*extra = false;
	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return (-errno);
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		size_t nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0) {
				*fd = f;
			} else {
				close(f);
				*extra = true;
			}
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		*extra = true;
	return (n);
}

/* ---- the component's side ------------------------------------------------ */

/* Waits up to ms for sock to be readable: 0, -ETIMEDOUT, -errno. */
static int
wait_readable(int sock, int64_t deadline_ms)
{
	for (;;) {
		struct pollfd p = {.fd = sock, .events = POLLIN};
		int64_t left = deadline_ms -
		    (int64_t)(lc_time_mono_ns() / LC_NS_PER_MSEC);
		int rv;

		if (left <= 0)
			return (-ETIMEDOUT);
		rv = poll(&p, 1, (int)left);
		if (rv > 0)
			return (0);
		if (rv == 0)
			return (-ETIMEDOUT);
		if (errno != EINTR)
			return (-errno);
	}
}

static void
ents_close(struct lc_fdstore *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->ent[i].fd >= 0)
			close(s->ent[i].fd);
	s->n = 0;
}

int
lc_fdstore_open(struct lc_fdstore *s, unsigned timeout_ms, struct lc_err *err)
{
	const char *v = getenv(LC_FDSTORE_ENV);
	int64_t deadline = (int64_t)(lc_time_mono_ns() / LC_NS_PER_MSEC) +
	    timeout_ms;
	char *end, buf[LC_FDSTORE_MSG_MAX + 1], name[LC_FDSTORE_NAME_MAX];
	long fdv;
	int rv;

	lc_err_clear(err);
	memset(s, 0, sizeof(*s));
	s->sock = -1;
	if (v == NULL || *v == '\0')
		return (-ENOENT);
	errno = 0;
	fdv = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || fdv < 0 || fdv > 65535)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s=%.32s: not an fd", LC_FDSTORE_ENV, v));
	{
		int type = 0;
		socklen_t tl = sizeof(type);

		if (getsockopt((int)fdv, SOL_SOCKET, SO_TYPE, &type, &tl) !=
			0 ||
		    type != SOCK_SEQPACKET)
			return (lc_err_set(err, -ENOTSOCK, LC_ERR_NOINDEX,
			    "%s=%ld: not the store's socket", LC_FDSTORE_ENV,
			    fdv));
	}
	/* not to be inherited by what this process runs */
	(void)fcntl((int)fdv, F_SETFD, FD_CLOEXEC);
	for (;;) {
		enum lc_fdstore_op op;
		unsigned cnt;
		bool extra;
		ssize_t n;
		int fd;

		if ((rv = wait_readable((int)fdv, deadline)) != 0) {
			ents_close(s);
			return (lc_err_set(err, rv, LC_ERR_NOINDEX,
			    "the store sent no end of its fds: %s",
			    strerror(-rv)));
		}
		n = lc_fdstore_recv((int)fdv, buf, sizeof(buf) - 1, &fd,
		    &extra);
		if (n <= 0) {
			ents_close(s);
			return (lc_err_set(err, n == 0 ? -ECONNRESET : (int)n,
			    LC_ERR_NOINDEX, "the store's channel: %s",
			    n == 0 ? "closed" : strerror((int)-n)));
		}
		if (extra ||
		    lc_fdstore_parse(buf, (size_t)n, &op, name, &cnt, err) !=
			0 ||
		    (op != LC_FDS_FD && op != LC_FDS_END) ||
		    (op == LC_FDS_FD) != (fd >= 0) ||
		    (op == LC_FDS_FD && s->n == LC_FDSTORE_MAX)) {
			if (fd >= 0)
				close(fd);
			ents_close(s);
			if (err != NULL && err->code == 0)
				lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
				    "unexpected record from the store");
			return (err != NULL ? err->code : -EPROTO);
		}
		if (op == LC_FDS_END) {
			if (cnt != s->n) {
				ents_close(s);
				return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
				    "the store said %u fds, sent %u", cnt,
				    s->n));
			}
			break;
		}
		snprintf(s->ent[s->n].name, sizeof(s->ent[0].name), "%s", name);
		s->ent[s->n].fd = fd;
		s->n++;
	}
	s->sock = (int)fdv;
	return (0);
}

int
lc_fdstore_take(struct lc_fdstore *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->ent[i].fd >= 0 && strcmp(s->ent[i].name, name) == 0) {
			int fd = s->ent[i].fd;

			s->ent[i].fd = -1;
			return (fd);
		}
	return (-ENOENT);
}

/* Sends msg (with fd) and waits for the store's answer. */
static int
request(struct lc_fdstore *s, const char *msg, int fd, struct lc_err *err)
{
	int64_t deadline = (int64_t)(lc_time_mono_ns() / LC_NS_PER_MSEC) + 2000;
	char buf[LC_FDSTORE_MSG_MAX + 1], text[LC_FDSTORE_NAME_MAX];
	enum lc_fdstore_op op;
	unsigned cnt;
	bool extra;
	ssize_t n;
	int rv, rfd;

	lc_err_clear(err);
	if (s->sock < 0)
		return (lc_err_set(err, -ENOTCONN, LC_ERR_NOINDEX,
		    "not run with a store"));
	if ((rv = lc_fdstore_send(s->sock, msg, fd)) != 0)
		return (lc_err_set(err, rv, LC_ERR_NOINDEX, "to the store: %s",
		    strerror(-rv)));
	if ((rv = wait_readable(s->sock, deadline)) != 0)
		return (lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "no answer from the store: %s", strerror(-rv)));
	n = lc_fdstore_recv(s->sock, buf, sizeof(buf) - 1, &rfd, &extra);
	if (rfd >= 0)
		close(rfd);
	if (n <= 0)
		return (lc_err_set(err, n == 0 ? -ECONNRESET : (int)n,
		    LC_ERR_NOINDEX, "the store's channel: %s",
		    n == 0 ? "closed" : strerror((int)-n)));
	if (lc_fdstore_parse(buf, (size_t)n, &op, text, &cnt, err) != 0)
		return (err != NULL ? err->code : -EPROTO);
	if (op == LC_FDS_OK)
		return (0);
	if (op == LC_FDS_ERR)
		return (lc_err_set(err, -EREMOTEIO, LC_ERR_NOINDEX,
		    "the store refused: %s", text));
	return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
	    "unexpected answer from the store"));
}

int
lc_fdstore_put(struct lc_fdstore *s, const char *name, int fd,
    struct lc_err *err)
{
	char msg[LC_FDSTORE_MSG_MAX + 1];

	if (!lc_fdstore_name_ok(name) || fd < 0)
		return (
		    lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "bad name or fd"));
	snprintf(msg, sizeof(msg), "put %s", name);
	return (request(s, msg, fd, err));
}

int
lc_fdstore_del(struct lc_fdstore *s, const char *name, struct lc_err *err)
{
	char msg[LC_FDSTORE_MSG_MAX + 1];

	if (!lc_fdstore_name_ok(name))
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "bad name"));
	snprintf(msg, sizeof(msg), "del %s", name);
	return (request(s, msg, -1, err));
}

int
lc_fdstore_clear(struct lc_fdstore *s, struct lc_err *err)
{
	return (request(s, "clear", -1, err));
}

void
lc_fdstore_close(struct lc_fdstore *s)
{
	ents_close(s);
	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
}
