/* libcommon/lc_log.c: leveled logging to stderr (one write per line), the
 * journal (when stderr is systemd's journal stream: native, with fields) or
 * syslog, and per-call-site rate limiting. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <systemd/sd-journal.h>

#include "lc_log.h"

enum lc_log_level lc_log__level = LC_LOG_INFO;

static char lc_log_progname[64] = "tern";
static int lc_log_dest = LC_LOG_STDERR;
static lc_log_hook_fn *lc_log_hook;
static void *lc_log_hook_arg;
/*
 * Stderr is the journal (JOURNAL_STREAM names its device and inode, as
 * systemd sets it for a service and its children that keep the stream):
 * JRN_NATIVE sends each line to journald with its fields (sd_journal_send);
 * JRN_PREFIX, when journald's socket is not there or a send fails, writes
 * "<prio>" lines
 * without a timestamp on the stream, which journald reads as the priority
 * and stamps itself.
 */
enum { JRN_OFF, JRN_NATIVE, JRN_PREFIX };
static _Atomic int lc_log_jrn = JRN_OFF;
static char lc_log_comp[32];
static unsigned long long lc_log_gen;

static const char *const lc_log_names[] = {
    [LC_LOG_ERR] = "err",
    [LC_LOG_WARNING] = "warning",
    [LC_LOG_NOTICE] = "notice",
    [LC_LOG_INFO] = "info",
    [LC_LOG_DEBUG] = "debug",
};

static const int lc_log_prio[] = {
    [LC_LOG_ERR] = LOG_ERR,
    [LC_LOG_WARNING] = LOG_WARNING,
    [LC_LOG_NOTICE] = LOG_NOTICE,
    [LC_LOG_INFO] = LOG_INFO,
    [LC_LOG_DEBUG] = LOG_DEBUG,
};

void
lc_log_init(const char *progname, enum lc_log_level level, int dest)
{
	const char *base;

	if (progname != NULL && *progname != '\0') {
		base = strrchr(progname, '/');
		base = base != NULL && base[1] != '\0' ? base + 1 : progname;
		snprintf(lc_log_progname, sizeof(lc_log_progname), "%s", base);
	}
	lc_log_set_level(level);
	dest &= LC_LOG_STDERR | LC_LOG_SYSLOG;
	if (dest == 0)
		dest = LC_LOG_STDERR;
	if ((lc_log_dest & LC_LOG_SYSLOG) && !(dest & LC_LOG_SYSLOG))
		closelog();
	lc_log_dest = dest;
	if (dest & LC_LOG_SYSLOG)
		openlog(lc_log_progname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	/* sd_journal_send drops a line quietly when journald's socket is not
	 * there: looked for here, the stream used instead */
	lc_log_jrn = !(dest & LC_LOG_STDERR) || !lc_log_stderr_is_journal() ?
	    JRN_OFF :
	    access("/run/systemd/journal/socket", W_OK) == 0 ? JRN_NATIVE :
							       JRN_PREFIX;
}

bool
lc_log_stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (e == NULL || sscanf(e, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st) != 0)
		return (false);
	return ((unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino);
}

void
lc_log_set_context(const char *component, unsigned long long generation)
{
	snprintf(lc_log_comp, sizeof(lc_log_comp), "%s",
	    component != NULL ? component : "");
	lc_log_gen = generation;
}

/* Line (stamp..n) to the journal: native, else prefixed on stderr. */
static bool
lc_log_journal(enum lc_log_level level, char *line, size_t start, size_t msg,
    size_t n)
{
	char p[4];

	if (lc_log_jrn == JRN_NATIVE) {
		if (sd_journal_send("MESSAGE=%s", line + msg, "PRIORITY=%d",
			lc_log_prio[level], "SYSLOG_IDENTIFIER=%s",
			lc_log_progname, "TERN_COMPONENT=%s",
			lc_log_comp[0] != '\0' ? lc_log_comp : lc_log_progname,
			"TERN_GENERATION=%llu", lc_log_gen, "TERN_LEVEL=%s",
			lc_log_names[level], NULL) >= 0)
			return (true);
		lc_log_jrn = JRN_PREFIX; /* no journald: the stream, then */
	}
	/* "<6>" over the last bytes of the timestamp, written as one */
	snprintf(p, sizeof(p), "<%d>", lc_log_prio[level]);
	memcpy(line + start - 3, p, 3);
	line[n++] = '\n';
	for (size_t off = start - 3; off < n;) {
		ssize_t w = write(STDERR_FILENO, line + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	return (true);
}

void
lc_log_set_level(enum lc_log_level level)
{
	if ((int)level < LC_LOG_ERR)
		level = LC_LOG_ERR;
	if (level > LC_LOG_DEBUG)
		level = LC_LOG_DEBUG;
	lc_log__level = level;
}

enum lc_log_level
lc_log_get_level(void)
{
	return (lc_log__level);
}

int
lc_log_level_parse(const char *s, enum lc_log_level *out)
{
	if (s == NULL || out == NULL)
		return (-EINVAL);
	for (int i = LC_LOG_ERR; i <= LC_LOG_DEBUG; i++) {
		if (strcasecmp(s, lc_log_names[i]) == 0) {
			*out = (enum lc_log_level)i;
			return (0);
		}
	}
	if (strcasecmp(s, "warn") == 0) {
		*out = LC_LOG_WARNING;
		return (0);
	}
	return (-EINVAL);
}

const char *
lc_log_level_name(enum lc_log_level level)
{
	if ((int)level < LC_LOG_ERR || level > LC_LOG_DEBUG)
		return ("unknown");
	return (lc_log_names[level]);
}

void
lc_log_set_hook(lc_log_hook_fn *fn, void *arg)
{
	lc_log_hook = fn;
	lc_log_hook_arg = arg;
}

/* Formats and emits one line; suffix (may be NULL) is appended as ": suffix".
 */
static void
lc_log_emit(enum lc_log_level level, const char *suffix, const char *fmt,
    va_list ap)
{
	char line[LC_LOG_LINE_MAX];
	size_t stamp, start, msg, n;
	struct timespec ts;
	struct tm tm;
	int r;

	if (!lc_log_enabled(level))
		return;
	if ((int)level < LC_LOG_ERR || level > LC_LOG_DEBUG)
		level = LC_LOG_ERR;

	/* "<timestamp> " (stderr only), then "<progname>[<pid>]: <level>: msg"
	 */
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	stamp = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	r = snprintf(line + stamp, sizeof(line) - stamp, ".%03ldZ ",
	    ts.tv_nsec / 1000000);
	stamp += r > 0 ? (size_t)r : 0;
	start = stamp;
	n = stamp;
	r = snprintf(line + n, sizeof(line) - n,
	    "%s[%ld]: %s: ", lc_log_progname, (long)getpid(),
	    lc_log_names[level]);
	n += r > 0 ? (size_t)r : 0;
	msg = n < sizeof(line) ? n : sizeof(line) - 1;
	if (n < sizeof(line)) {
		r = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		n += r > 0 ? (size_t)r : 0;
	}
	if (suffix != NULL && n < sizeof(line)) {
		r = snprintf(line + n, sizeof(line) - n, ": %s", suffix);
		n += r > 0 ? (size_t)r : 0;
	}
	/* Keep room for "\n"; mark truncation with "...". */
	if (n >= sizeof(line) - 1) {
		n = sizeof(line) - 2;
		memcpy(line + n - 3, "...", 3);
	}
	line[n] = '\0';

	if (lc_log_hook != NULL) {
		lc_log_hook(level, line + start, lc_log_hook_arg);
		return;
	}
	if (lc_log_dest & LC_LOG_SYSLOG) {
		/* syslog adds its own name, pid and time: send the message
		 * part. */
		syslog(lc_log_prio[level], "%s", line + msg);
	}
	if ((lc_log_dest & LC_LOG_STDERR) && lc_log_jrn != JRN_OFF)
		(void)lc_log_journal(level, line, start, msg, n);
	else if (lc_log_dest & LC_LOG_STDERR) {
		line[n++] = '\n';
		/* One write per line: concurrent writers to a shared stderr do
		 * not interleave. */
		for (size_t off = 0; off < n;) {
			ssize_t w = write(STDERR_FILENO, line + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
}

void
lc_vlog(enum lc_log_level level, const char *fmt, va_list ap)
{
	int saved = errno;

	lc_log_emit(level, NULL, fmt, ap);
	errno = saved;
}

void
lc_log(enum lc_log_level level, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	lc_log_emit(level, NULL, fmt, ap);
	va_end(ap);
	errno = saved;
}

void
lc_log_errno(enum lc_log_level level, const char *fmt, ...)
{
	int saved = errno;
	char ebuf[128];
	va_list ap;

	snprintf(ebuf, sizeof(ebuf), "%s", strerror(saved));
	va_start(ap, fmt);
	lc_log_emit(level, ebuf, fmt, ap);
	va_end(ap);
	errno = saved;
}

/*
 * The state is shared by every thread logging from one call site, so its
 * fields are accessed atomically (the header keeps plain types so the
 * static instance needs no initialiser).
 */
#define RL_ATOMIC(p) ((_Atomic __typeof__(*(p)) *)(p))

bool
lc_log_ratelimit_check(struct lc_log_ratelimit *rl, uint64_t now_ns,
    unsigned interval_s, unsigned burst, enum lc_log_level level)
{
	uint64_t start, interval = (uint64_t)interval_s * 1000000000ULL;
	unsigned long supp;

	start = atomic_load_explicit(RL_ATOMIC(&rl->window_start_ns),
	    memory_order_acquire);
	if (start == 0 || now_ns - start >= interval || now_ns < start) {
		/* The window (re)opens: one thread wins and reports the drops.
		 */
		if (atomic_compare_exchange_strong(RL_ATOMIC(
						       &rl->window_start_ns),
			&start, now_ns == 0 ? 1 : now_ns)) {
			supp = atomic_exchange(RL_ATOMIC(&rl->suppressed), 0UL);
			atomic_store(RL_ATOMIC(&rl->count), 0U);
			if (supp > 0)
				lc_log(level, "%lu messages suppressed", supp);
		}
	}
	/* Check first so that count cannot wrap around in a long window. */
	if (atomic_load(RL_ATOMIC(&rl->count)) < burst &&
	    atomic_fetch_add(RL_ATOMIC(&rl->count), 1U) < burst)
		return (true);
	atomic_fetch_add(RL_ATOMIC(&rl->suppressed), 1UL);
	return (false);
}
