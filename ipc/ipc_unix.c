/* ipc/ipc_unix.c: the Unix stream socket transport (the default and only one): listen with stale-socket takeover, accept, connect, read, writev. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc_int.h"

static int
unix_addr(struct sockaddr_un *sa, const char *path)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (n >= sizeof(sa->sun_path))
		return (-ENAMETOOLONG);
	memcpy(sa->sun_path, path, n + 1);
	return (0);
}

/* A non-blocking stream socket and the address of path: fd or -errno. */
static int
unix_socket(const char *path, struct sockaddr_un *sa)
{
	int fd, rv;

	if ((rv = unix_addr(sa, path)) != 0)
		return (rv);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	return (fd >= 0 ? fd : -errno);
}

static int
unix_listen(const char *path, unsigned mode)
{
	struct sockaddr_un sa;
	int fd, rv;

	if ((fd = unix_socket(path, &sa)) < 0)
		return (fd);
	/* A stale socket file from a dead server is replaced; a live one is not. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return (-EADDRINUSE);
	}
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(path, mode) != 0 || listen(fd, 128) != 0) {
		rv = -errno;
		close(fd);
		return (rv);
	}
	return (fd);
}

static int
unix_accept(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	return (fd >= 0 ? fd : -errno);
}

static int
unix_connect(const char *path)
{
	struct sockaddr_un sa;
	int fd, rv;

	if ((fd = unix_socket(path, &sa)) < 0)
		return (fd);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rv = -errno;
		close(fd);
		return (rv);
	}
	return (fd);
}

static void
unix_tune(int fd, int bufsz)
{
	/* Larger kernel buffers: fewer wake-ups per MiB (capped by wmem_max/rmem_max). */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
}

static ssize_t
unix_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return (n >= 0 ? n : -errno);
}

/* sendmsg with MSG_NOSIGNAL, so a peer that went away is an EPIPE for the
 * caller to see, never a SIGPIPE that kills a process that did not ignore it. */
static ssize_t
unix_writev(int fd, const struct iovec *iov, int cnt)
{
	struct msghdr mh = {.msg_iov = (struct iovec *)iov,
	    .msg_iovlen = (size_t)cnt};
	ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);

	return (n >= 0 ? n : -errno);
}

static int
unix_wait_writable(int fd, int timeout_ms)
{
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	int n = poll(&pf, 1, timeout_ms);

	if (n < 0)
		return (errno == EINTR ? 0 : -errno);
	return (n > 0 && (pf.revents & POLLOUT) ? 1 : n > 0 ? -EPIPE : 0);
}

static void
unix_close(int fd)
{
	(void)close(fd);
}

/* The kernel's record of who connected (taken at connect(), so it cannot be
 * forged by what the peer sends later). */
static int
unix_peer_cred(int fd, struct ipc_cred *c)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return (-errno);
	if (len != sizeof(uc))
		return (-EINVAL);
	c->pid = uc.pid;
	c->uid = uc.uid;
	c->gid = uc.gid;
	return (0);
}

const struct ipc_transport ipc_transport_unix = {
    .name = "unix",
    .listen = unix_listen,
    .accept = unix_accept,
    .connect = unix_connect,
    .tune = unix_tune,
    .read = unix_read,
    .writev = unix_writev,
    .wait_writable = unix_wait_writable,
    .close = unix_close,
    .peer_cred = unix_peer_cred,
};
