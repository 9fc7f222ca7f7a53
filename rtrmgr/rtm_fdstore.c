/* rtrmgr/rtm_fdstore.c: the fds each component keeps across its own restarts
 * (libcommon/lc_fdstore.h has the records): a channel per instance, the
 * handover at its start, the crash-loop rule, and the copy in systemd's fd
 * store that outlives rtrmgr itself (docs/rtrmgr.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "libcommon/lc_log.h"
#include "rtm_int.h"

/* Records handled in one loop turn of one channel. */
#define FDS_TURN 64

void
rtm_fds_init(struct rtm_fds *s, const char *comp)
{
	memset(s, 0, sizeof(*s));
	s->sock = -1;
	s->pending = -1;
	snprintf(s->comp, sizeof(s->comp), "%s", comp);
}

/* systemd's copy: FDNAME=COMP/NAME (no ':' allowed there; '/' is). Only
 * under systemd (NOTIFY_SOCKET); the unit's FileDescriptorStoreMax= bounds
 * it, and systemd closes what it does not keep. */
static void
mirror_put(const struct rtm_fds *s, const char *name, int fd)
{
	char msg[160];
	int rv;

	if (getenv("NOTIFY_SOCKET") == NULL)
		return;
	snprintf(msg, sizeof(msg), "FDSTORE=1\nFDNAME=%s/%s", s->comp, name);
	if ((rv = sd_pid_notify_with_fds(0, 0, msg, &fd, 1)) < 0)
		lc_log_warnx("%s: state fd %s not given to systemd: %s",
		    s->comp, name, strerror(-rv));
}

static void
mirror_del(const struct rtm_fds *s, const char *name)
{
	char msg[160];
	int rv;

	if (getenv("NOTIFY_SOCKET") == NULL)
		return;
	snprintf(msg, sizeof(msg), "FDSTOREREMOVE=1\nFDNAME=%s/%s", s->comp,
	    name);
	if ((rv = sd_notify(0, msg)) < 0)
		lc_log_warnx("%s: state fd %s not removed from systemd: %s",
		    s->comp, name, strerror(-rv));
}

static int
find(const struct rtm_fds *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->ent[i].name, name) == 0)
			return ((int)i);
	return (-1);
}

static void
remove_at(struct rtm_fds *s, unsigned i, bool mirror)
{
	if (mirror)
		mirror_del(s, s->ent[i].name);
	close(s->ent[i].fd);
	s->ent[i] = s->ent[--s->n];
}

/* Keeps fd (taking ownership) as name: 0, -ENOSPC (fd closed). */
static int
keep(struct rtm_fds *s, const char *name, int fd, bool mirror)
{
	int i = find(s, name);

	if (i >= 0) {
		close(s->ent[i].fd);
		s->ent[i].fd = fd;
	} else if (s->n == LC_FDSTORE_MAX) {
		close(fd);
		return (-ENOSPC);
	} else {
		i = (int)s->n++;
		snprintf(s->ent[i].name, sizeof(s->ent[i].name), "%s", name);
		s->ent[i].fd = fd;
	}
	if (mirror)
		mirror_put(s, name, fd);
	return (0);
}

int
rtm_fds_keep(struct rtm_fds *s, const char *name, int fd)
{
	if (!lc_fdstore_name_ok(name)) {
		close(fd);
		return (-EINVAL);
	}
	return (keep(s, name, fd, false));
}

void
rtm_fds_discard(struct rtm_fds *s, const char *why)
{
	if (s->n > 0 && why != NULL)
		lc_log_notice("%s: its kept state (%u fds) discarded: %s",
		    s->comp, s->n, why);
	while (s->n > 0)
		remove_at(s, s->n - 1, true);
	s->crashes = 0;
}

static void
reply(struct rtm_fds *s, const char *msg)
{
	int rv;

	if (s->sock >= 0 && (rv = lc_fdstore_send(s->sock, msg, -1)) != 0 &&
	    rv != -EPIPE && rv != -ECONNRESET)
		lc_log_warnx("%s: state channel: %s", s->comp, strerror(-rv));
}

/* A record the instance sent. Every refusal is answered, counted and
 * logged, and changes nothing. */
static void
record(struct rtm_fds *s, const char *buf, size_t len, int fd, bool extra)
{
	char name[LC_FDSTORE_NAME_MAX], ans[LC_FDSTORE_MSG_MAX];
	enum lc_fdstore_op op;
	struct lc_err err;
	unsigned cnt;
	int i, rv;

	ans[0] = '\0';
	if (extra) {
		snprintf(ans, sizeof(ans),
		    "err more than one fd, or cut short");
	} else if (lc_fdstore_parse(buf, len, &op, name, &cnt, &err) != 0) {
		snprintf(ans, sizeof(ans), "err %.60s", err.msg);
	} else if (op != LC_FDS_PUT && op != LC_FDS_DEL && op != LC_FDS_CLEAR) {
		snprintf(ans, sizeof(ans), "err not a request");
	} else if ((op == LC_FDS_PUT) != (fd >= 0)) {
		snprintf(ans, sizeof(ans),
		    op == LC_FDS_PUT ? "err put without an fd" :
				       "err an fd where none belongs");
	}
	if (ans[0] != '\0') {
		if (fd >= 0)
			close(fd);
		s->refused++;
		lc_log_warnx("%s: state channel: refused: %s", s->comp,
		    ans + 4);
		reply(s, ans);
		return;
	}
	switch (op) {
	case LC_FDS_PUT:
		if ((rv = keep(s, name, fd, true)) != 0) {
			s->refused++;
			lc_log_warnx("%s: state fd %s refused: already %d "
				     "kept",
			    s->comp, name, LC_FDSTORE_MAX);
			snprintf(ans, sizeof(ans), "err full (%d fds)",
			    LC_FDSTORE_MAX);
			reply(s, ans);
			return;
		}
		s->puts++;
		lc_log_info("%s: keeps state fd %s (%u kept)", s->comp, name,
		    s->n);
		break;
	case LC_FDS_DEL:
		if ((i = find(s, name)) < 0) {
			s->refused++;
			snprintf(ans, sizeof(ans), "err no %s", name);
			reply(s, ans);
			return;
		}
		remove_at(s, (unsigned)i, true);
		s->dels++;
		break;
	default: /* LC_FDS_CLEAR */
		while (s->n > 0)
			remove_at(s, s->n - 1, true);
		s->dels++;
		break;
	}
	reply(s, "ok");
}

static void
channel_close(struct rtm_fds *s, struct ev_loop *loop)
{
	if (s->sock < 0)
		return;
	ev_io_stop(loop, &s->io);
	close(s->sock);
	s->sock = -1;
}

/* Reads what is there (at most max records): false when the channel ended. */
static bool
drain(struct rtm_fds *s, unsigned max)
{
	char buf[LC_FDSTORE_MSG_MAX + 1];

	for (unsigned k = 0; k < max; k++) {
		bool extra;
		ssize_t n;
		int fd;

		n = lc_fdstore_recv(s->sock, buf, sizeof(buf) - 1, &fd, &extra);
		if (n == -EAGAIN)
			return (true);
		if (n <= 0) {
			if (fd >= 0)
				close(fd);
			return (false);
		}
		record(s, buf, (size_t)n, fd, extra);
	}
	return (true);
}

static void
channel_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct rtm_fds *s = w->data;

	if (!drain(s, FDS_TURN))
		channel_close(s, loop);
}

int
rtm_fds_channel(struct rtm_fds *s, int *child)
{
	int sv[2], c;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return (-errno);
	/* the child's end becomes its fd 3: never one of 0..2 here, which
	 * the child replaces first */
	if ((c = fcntl(sv[1], F_DUPFD_CLOEXEC, 3)) < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return (-e);
	}
	close(sv[1]);
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0) {
		int e = errno;

		close(sv[0]);
		close(c);
		return (-e);
	}
	s->pending = sv[0];
	*child = c;
	return (0);
}

void
rtm_fds_abandon(struct rtm_fds *s)
{
	if (s->pending >= 0 && s->pending != s->sock)
		close(s->pending);
	s->pending = -1;
}

int
rtm_fds_handover(struct rtm_fds *s, struct ev_loop *loop)
{
	char msg[LC_FDSTORE_MSG_MAX + 1];
	int rv = 0;

	channel_close(s, loop); /* an earlier instance's, if left */
	s->sock = s->pending;
	s->pending = -1;
	s->handed = 0;
	if (s->sock < 0)
		return (-EBADF);
	for (unsigned i = 0; i < s->n && rv == 0; i++) {
		snprintf(msg, sizeof(msg), "fd %s", s->ent[i].name);
		if ((rv = lc_fdstore_send(s->sock, msg, s->ent[i].fd)) == 0)
			s->handed++;
	}
	snprintf(msg, sizeof(msg), "end %u", s->handed);
	if (rv != 0 || (rv = lc_fdstore_send(s->sock, msg, -1)) != 0) {
		lc_log_warnx("%s: state not handed over: %s", s->comp,
		    strerror(-rv));
		close(s->sock);
		s->sock = -1;
		return (rv);
	}
	if (s->handed > 0)
		lc_log_info("%s: handed its kept state (%u fds)", s->comp,
		    s->handed);
	ev_io_init(&s->io, channel_cb, s->sock, EV_READ);
	s->io.data = s;
	ev_io_start(loop, &s->io);
	return (0);
}

void
rtm_fds_ended(struct rtm_fds *s, struct ev_loop *loop, bool crashed,
    bool stable)
{
	/* what it sent before it ended still counts (a put just before a
	 * crash): the records stay readable after the peer is gone */
	if (s->sock >= 0)
		(void)drain(s, LC_FDSTORE_MAX * 4);
	channel_close(s, loop);
	if (!crashed) {
		s->crashes = 0;
		return;
	}
	if (s->handed == 0)
		return; /* it did not start from kept state */
	s->crashes = stable ? 1 : s->crashes + 1;
	if (s->crashes >= RTM_FDS_CRASHES)
		rtm_fds_discard(s,
		    "it crashed twice in a row after starting from it");
}

void
rtm_fds_fini(struct rtm_fds *s, struct ev_loop *loop, bool mirror)
{
	rtm_fds_abandon(s);
	channel_close(s, loop);
	while (s->n > 0)
		remove_at(s, s->n - 1, mirror);
}

static void
forget_in_systemd(const char *fdname)
{
	char msg[200];

	if (fdname == NULL || getenv("NOTIFY_SOCKET") == NULL)
		return;
	snprintf(msg, sizeof(msg), "FDSTOREREMOVE=1\nFDNAME=%s", fdname);
	(void)sd_notify(0, msg);
}

int
rtm_fds_restore(struct rtm *rtm)
{
	char **names = NULL;
	int n, kept = 0;

	if ((n = sd_listen_fds_with_names(1, &names)) <= 0)
		return (n);
	for (int i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;
		const char *nm = names != NULL ? names[i] : NULL;
		const char *slash = nm != NULL ? strchr(nm, '/') : NULL;
		char comp[RTM_NAME_MAX];
		struct rtm_fds *s = NULL;
		size_t cl;

		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		if (slash != NULL && (cl = (size_t)(slash - nm)) > 0 &&
		    cl < sizeof(comp)) {
			memcpy(comp, nm, cl);
			comp[cl] = '\0';
			s = rtm_comp_fds(rtm, comp);
		}
		if (s == NULL || !lc_fdstore_name_ok(slash + 1)) {
			lc_log_notice("fd %s from systemd: no component of "
				      "that name keeps it: closed",
			    nm != NULL ? nm : "(unnamed)");
			close(fd);
			forget_in_systemd(nm);
			continue;
		}
		if (keep(s, slash + 1, fd, false) != 0) { /* closed it */
			lc_log_notice("fd %s from systemd: %s keeps %d "
				      "already: closed",
			    nm, comp, LC_FDSTORE_MAX);
			forget_in_systemd(nm);
			continue;
		}
		kept++;
	}
	if (names != NULL) {
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	if (kept > 0)
		lc_log_info("%d state fds back from systemd's fd store", kept);
	return (kept);
}
