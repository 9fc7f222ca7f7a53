/* rtrmgr/rtm_proc.c: starting a child (fork, privileges, exec, error report
 * through a pipe) and identifying a live process through /proc. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cap-ng.h>

#include "libcommon/lc_proc.h"
#include "rtm_int.h"

/* What the child reports when it cannot exec. */
struct spawn_err {
	int err;
	char what[96];
};

static void __attribute__((noreturn))
child_fail(int fd, int err, const char *what)
{
	struct spawn_err se;
	ssize_t n;

	memset(&se, 0, sizeof(se));
	se.err = err;
	snprintf(se.what, sizeof(se.what), "%s", what);
	do {
		n = write(fd, &se, sizeof(se));
	} while (n < 0 && errno == EINTR);
	_exit(127);
}

/* Drops to ident's uid/gid keeping only caps, as ambient capabilities so
 * that they survive the exec of an ordinary (no file caps) binary. */
static void
child_privileges(int errfd, const struct rtm_spawn *sp)
{
	const struct rtm_ident *id = sp->ident;
	int rc;

	capng_clear(CAPNG_SELECT_ALL);
	for (unsigned i = 0; i < sp->ncaps; i++)
		if (capng_update(CAPNG_ADD,
			CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_INHERITABLE |
			    CAPNG_BOUNDING_SET | CAPNG_AMBIENT,
			(unsigned)sp->caps[i]) != 0)
			child_fail(errfd, EINVAL, "capng_update");
	/* The bounding set first, while we still hold CAP_SETPCAP. */
	if (capng_apply(CAPNG_SELECT_BOUNDS) != 0)
		child_fail(errfd, EPERM, "cannot set the bounding set");
	/* libcap-ng leaves it as it is, and says nothing, without
	 * CAP_SETPCAP (a unit's CapabilityBoundingSet= without it). */
	for (int cap = 0; cap < 64; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		bool want = false;

		if (in < 0)
			break; /* past the kernel's last capability */
		for (unsigned i = 0; i < sp->ncaps; i++)
			want |= sp->caps[i] == cap;
		if (in == 1 && !want)
			child_fail(errfd, EPERM,
			    "cannot reduce the bounding set (no CAP_SETPCAP)");
	}
	/* Supplementary groups: none, or exactly the ones given (root's own
	 * never leak into the component). */
	if (id->ngroups > 0 && setgroups(id->ngroups, id->groups) != 0)
		child_fail(errfd, errno, "setgroups");
	rc = capng_change_id((int)id->uid, (int)id->gid,
	    id->ngroups > 0 ? CAPNG_NO_FLAG : CAPNG_DROP_SUPP_GRP);
	if (rc != 0)
		child_fail(errfd, EPERM,
		    "cannot change uid/gid (capng_change_id)");
	if (sp->ncaps > 0 && capng_apply(CAPNG_SELECT_AMBIENT) != 0)
		child_fail(errfd, EPERM, "cannot raise ambient capabilities");
	if (getuid() != id->uid || geteuid() != id->uid || getgid() != id->gid)
		child_fail(errfd, EPERM, "uid/gid did not change");
	/* Nothing this child execs can gain privileges again. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		child_fail(errfd, errno, "PR_SET_NO_NEW_PRIVS");
}

static void __attribute__((noreturn))
child(int errfd, const struct rtm_spawn *sp)
{
	sigset_t all;
	int nullfd;

	/* Own session: a terminal's ^C or hang-up reaches rtrmgr only, which
	 * then stops the components in order. */
	setsid();
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL); /* SIGPIPE was ignored in rtrmgr */

	if ((nullfd = open("/dev/null", O_RDWR)) < 0)
		child_fail(errfd, errno, "open /dev/null");
	if (dup2(nullfd, 0) < 0)
		child_fail(errfd, errno, "dup2 stdin");
	if (sp->out_fd >= 0 &&
	    (dup2(sp->out_fd, 1) < 0 || dup2(sp->out_fd, 2) < 0))
		child_fail(errfd, errno, "dup2 stdout/stderr");
	/* Nothing else of rtrmgr's (lock, pidfds, loop fds) may leak: the lock
	 * especially, or a new rtrmgr could not take the rundir. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		child_fail(errfd, errno, "close_range");
	/* but the fd store's channel, as fd 3 (TERN_STATE_FD=3) */
	if (sp->state_fd > 2) {
		/* the error pipe may be fd 3 itself: out of the way first */
		if (errfd == 3 && (errfd = fcntl(3, F_DUPFD_CLOEXEC, 4)) < 0)
			_exit(127);
		if (sp->state_fd != 3 && dup2(sp->state_fd, 3) != 3)
			child_fail(errfd, errno, "dup2 state channel");
		if (fcntl(3, F_SETFD, 0) != 0)
			child_fail(errfd, errno, "state channel");
		if (putenv("TERN_STATE_FD=3") != 0)
			child_fail(errfd, errno, "putenv");
	} else {
		unsetenv("TERN_STATE_FD");
	}
	if (sp->ident != NULL && sp->ident->drop)
		child_privileges(errfd, sp);
	/* systemd's notification socket and watchdog are rtrmgr's own
	 * (NotifyAccess=main): a component must not speak for the unit. */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	for (unsigned i = 0; sp->envp_extra != NULL && sp->envp_extra[i]; i++)
		if (putenv((char *)sp->envp_extra[i]) != 0)
			child_fail(errfd, errno, "putenv");
	execv(sp->binary, (char *const *)sp->argv);
	child_fail(errfd, errno, "exec");
}

int
rtm_spawn(const struct rtm_spawn *sp, pid_t *pidp, int *pidfdp,
    struct lc_err *err)
{
	struct spawn_err se;
	int fds[2], pidfd, e;
	ssize_t n;
	pid_t pid;

	lc_err_clear(err);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return (-errno);
	if ((pid = fork()) < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		lc_err_set(err, -e, LC_ERR_NOINDEX, "fork: %s", strerror(e));
		return (-e);
	}
	if (pid == 0)
		child(fds[1], sp);
	close(fds[1]);
	/* The child is not reaped until we wait for it, so the pid is ours. */
	pidfd = pidfd_open(pid, 0);
	e = errno;
	/* EOF: exec succeeded (the CLOEXEC write end closed); else a report. */
	do {
		n = read(fds[0], &se, sizeof(se));
	} while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof(se)) {
		if (pidfd >= 0)
			close(pidfd);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		se.what[sizeof(se.what) - 1] = '\0';
		return (
		    lc_err_set(err, se.err > 0 ? -se.err : -EIO, LC_ERR_NOINDEX,
			"%s %s: %s", se.what, sp->binary, strerror(se.err)));
	}
	if (pidfd < 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return (lc_err_set(err, -e, LC_ERR_NOINDEX, "pidfd_open: %s",
		    strerror(e)));
	}
	*pidp = pid;
	*pidfdp = pidfd;
	return (0);
}

uint64_t
rtm_proc_starttime(pid_t pid)
{
	return (lc_proc_starttime(pid));
}

bool
rtm_proc_matches(pid_t pid, const char *binary)
{
	char path[64], exe[PATH_MAX], real[PATH_MAX], cmd[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		/* replaced on disk since (an upgrade): still the same program
		 */
		if (n > 10 && strcmp(exe + n - 10, " (deleted)") == 0)
			exe[n - 10] = '\0';
		if (strcmp(exe, binary) == 0 ||
		    (realpath(binary, real) != NULL && strcmp(exe, real) == 0))
			return (true);
	}
	/* Scripts run under their interpreter: "sh /path/script ...". */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (false);
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return (false);
	cmd[n] = '\0';
	if (strcmp(cmd, binary) == 0)
		return (true);
	if (strlen(cmd) + 1 < (size_t)n &&
	    strcmp(cmd + strlen(cmd) + 1, binary) == 0)
		return (true);
	return (false);
}
