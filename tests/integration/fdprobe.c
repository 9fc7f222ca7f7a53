/* tests/integration/fdprobe.c: a component for test_rtrmgr_fdstore.sh: it
 * keeps a counter in a memfd in tern-rtrmgr's fd store, so each instance
 * says whether it started from the state the last one left.
 *
 * fdprobe MODE OUT [rtrmgr's options...]; one line a start appended to OUT:
 *   "gen=G store=yes|no handed=N counter=C"
 * MODE run: then waits for a signal; crash: aborts when it got the counter
 * (state that crashes it); bad: sends malformed records and writes each
 * answer to OUT, then fills the store to its limit and one more. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libcommon/lc_fdstore.h"

static FILE *out;

/* One raw record and the store's answer, as a line of OUT. */
static void
raw(int sock, const char *what, const char *msg, size_t len, int fd)
{
	char buf[LC_FDSTORE_MSG_MAX + 1];
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	bool extra;
	ssize_t n;
	int rfd;

	if (fd >= 0) {
		struct cmsghdr *c;
		int two[2] = {fd, fd};
		bool dbl = strcmp(what, "two-fds") == 0;

		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.b;
		mh.msg_controllen = dbl ? CMSG_SPACE(2 * sizeof(int)) :
					  CMSG_SPACE(sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((dbl ? 2 : 1) * sizeof(int));
		memcpy(CMSG_DATA(c), two, (dbl ? 2 : 1) * sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0) {
		fprintf(out, "%s: send: %s\n", what, strerror(errno));
		return;
	}
	n = lc_fdstore_recv(sock, buf, sizeof(buf) - 1, &rfd, &extra);
	if (rfd >= 0)
		close(rfd);
	buf[n > 0 ? n : 0] = '\0';
	fprintf(out, "%s: %s\n", what, n > 0 ? buf : "(no answer)");
}

static void
bad(struct lc_fdstore *s, int mfd)
{
	char big[300], name[32];
	struct lc_err err;
	int ok = 0;

	raw(s->sock, "unknown", "bogus x", 7, -1);
	raw(s->sock, "put-no-fd", "put a", 5, -1);
	raw(s->sock, "del-with-fd", "del a", 5, mfd);
	raw(s->sock, "bad-name", "put a/b", 7, mfd);
	raw(s->sock, "two-fds", "put two", 7, mfd);
	raw(s->sock, "fd-record", "fd a", 4, mfd);
	raw(s->sock, "del-absent", "del nothere", 11, -1);
	memset(big, 'a', sizeof(big));
	memcpy(big, "put ", 4);
	raw(s->sock, "too-long", big, sizeof(big), mfd);
	/* the store to its limit (the counter is one), then one more */
	for (int i = 1; i < LC_FDSTORE_MAX; i++) {
		snprintf(name, sizeof(name), "extra%02d", i);
		if (lc_fdstore_put(s, name, mfd, &err) == 0)
			ok++;
	}
	fprintf(out, "filled: %d ok\n", ok);
	if (lc_fdstore_put(s, "onemore", mfd, &err) != 0)
		fprintf(out, "onemore: %s\n", err.msg);
	else
		fprintf(out, "onemore: ok\n");
	if (lc_fdstore_del(s, "extra01", &err) == 0)
		fprintf(out, "del extra01: ok\n");
}

int
main(int argc, char **argv)
{
	const char *gen = getenv("TERN_GENERATION");
	struct lc_fdstore s;
	struct lc_err err;
	uint32_t counter = 0;
	unsigned handed;
	int rv, mfd;

	if (argc < 3) {
		fprintf(stderr, "usage: fdprobe run|crash|bad OUT ...\n");
		return (2);
	}
	if ((out = fopen(argv[2], "a")) == NULL)
		return (1);
	setvbuf(out, NULL, _IOLBF, 0);
	rv = lc_fdstore_open(&s, 2000, &err);
	if (rv != 0 && rv != -ENOENT) {
		fprintf(out, "gen=%s open: %s\n", gen ? gen : "?", err.msg);
		return (1);
	}
	handed = s.n;
	if ((mfd = lc_fdstore_take(&s, "counter")) >= 0) {
		if (pread(mfd, &counter, sizeof(counter), 0) !=
		    (ssize_t)sizeof(counter))
			counter = 0;
	} else if ((mfd = memfd_create("fdprobe", MFD_CLOEXEC)) < 0 ||
	    ftruncate(mfd, 4096) != 0) {
		fprintf(out, "memfd: %s\n", strerror(errno));
		return (1);
	}
	counter++;
	if (pwrite(mfd, &counter, sizeof(counter), 0) !=
	    (ssize_t)sizeof(counter))
		return (1);
	fprintf(out, "gen=%s store=%s handed=%u counter=%u\n", gen ? gen : "?",
	    rv == 0 ? "yes" : "no", handed, counter);
	if (strcmp(argv[1], "crash") == 0 && handed > 0 && counter > 1)
		abort();
	if (rv == 0 && handed == 0 &&
	    lc_fdstore_put(&s, "counter", mfd, &err) != 0)
		fprintf(out, "put: %s\n", err.msg);
	if (strcmp(argv[1], "bad") == 0 && rv == 0 && handed == 0)
		bad(&s, mfd);
	fprintf(out, "gen=%s waiting\n", gen ? gen : "?");
	for (;;)
		pause();
}
