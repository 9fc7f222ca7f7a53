/* libcommon/lc_log.h: leveled logging to stderr or syslog, with a rate-limited
 * form for hot paths. */
#ifndef LC_LOG_H
#define LC_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "lc_time.h"

enum lc_log_level {
	LC_LOG_ERR,
	LC_LOG_WARNING,
	LC_LOG_NOTICE,
	LC_LOG_INFO,
	LC_LOG_DEBUG,
};

#define LC_LOG_STDERR 0x1
#define LC_LOG_SYSLOG 0x2

/*
 * Sets the program name (its basename is kept), the level and the
 * destinations (LC_LOG_STDERR | LC_LOG_SYSLOG; 0 means stderr).
 * May be called again (e.g. after option parsing). Before any call, the
 * defaults are progname "tern", level LC_LOG_INFO, stderr.
 * Stderr lines: "<UTC timestamp> <progname>[<pid>]: <level>: message\n",
 * each written with a single write(2) so concurrent writers do not interleave.
 * Lines longer than LC_LOG_LINE_MAX are truncated (ending in "...").
 * Syslog gets the message part only (syslog adds name, pid and time), with
 * facility LOG_DAEMON. lc_log*() may be called from any thread and preserve
 * errno; lc_log_init(), lc_log_set_level() and lc_log_set_hook() are meant
 * for start-up (not synchronised with concurrent logging).
 */
#define LC_LOG_LINE_MAX 1024
void lc_log_init(const char *progname, enum lc_log_level level, int dest);
/*
 * Stderr is systemd's journal stream (JOURNAL_STREAM holds its device and
 * inode): lc_log_init then sends stderr's lines to journald natively, with
 * PRIORITY, SYSLOG_IDENTIFIER (the program), TERN_COMPONENT, TERN_GENERATION
 * and TERN_LEVEL, and no timestamp of its own; when journald cannot be
 * reached it writes "<priority>progname[pid]: level: message" lines on the
 * stream instead. A component whose stderr is a file (rtrmgr's `output
 * file`) is not affected.
 */
bool lc_log_stderr_is_journal(void);
/* The journal's TERN_COMPONENT and TERN_GENERATION (lc_daemon sets them from
 * the daemon's name and --generation). */
void lc_log_set_context(const char *component, unsigned long long generation);
void lc_log_set_level(enum lc_log_level);
enum lc_log_level lc_log_get_level(void);
/* "err", "warning" (or "warn"), "notice", "info", "debug": 0; else -EINVAL,
 * *out unchanged. */
int lc_log_level_parse(const char *s, enum lc_log_level *out);
/* "err".."debug"; "unknown" for values out of range. Never NULL. */
const char *lc_log_level_name(enum lc_log_level);

void lc_log(enum lc_log_level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lc_vlog(enum lc_log_level, const char *fmt, va_list);
/* As lc_log() but appends ": strerror(errno)" (errno read on entry, preserved).
 */
void lc_log_errno(enum lc_log_level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Current threshold, read by the macros so that filtered levels cost no
 * formatting. */
extern enum lc_log_level lc_log__level;
static inline bool
lc_log_enabled(enum lc_log_level level)
{
	return (level <= lc_log__level);
}

#define lc_log_err(...)	   lc_log(LC_LOG_ERR, __VA_ARGS__)
#define lc_log_warnx(...)  lc_log(LC_LOG_WARNING, __VA_ARGS__)
#define lc_log_warn(...)   lc_log_errno(LC_LOG_WARNING, __VA_ARGS__)
#define lc_log_notice(...) lc_log(LC_LOG_NOTICE, __VA_ARGS__)
#define lc_log_info(...)                                  \
	do {                                              \
		if (lc_log_enabled(LC_LOG_INFO))          \
			lc_log(LC_LOG_INFO, __VA_ARGS__); \
	} while (0)
#define lc_log_debug(...)                                  \
	do {                                               \
		if (lc_log_enabled(LC_LOG_DEBUG))          \
			lc_log(LC_LOG_DEBUG, __VA_ARGS__); \
	} while (0)

/*
 * Test/embedding hook: when set, every emitted line (without timestamp and
 * newline: "<progname>[<pid>]: <level>: message") is passed to fn instead of
 * stderr/syslog. NULL restores the normal destinations.
 */
typedef void lc_log_hook_fn(enum lc_log_level, const char *line, void *arg);
void lc_log_set_hook(lc_log_hook_fn *fn, void *arg);

/*
 * Rate limiting: at most `burst` lines per `interval_s` seconds per call
 * site; the first line after the window reopens is preceded by one
 * "N messages suppressed" line at the same level. Thread-safe (atomics).
 */
struct lc_log_ratelimit {
	uint64_t window_start_ns; /* _Atomic in the .c; 0 = never */
	unsigned count;		  /* lines emitted in this window */
	unsigned long suppressed; /* lines dropped in this window */
};
/*
 * true if the caller may log now; when a window reopens with suppressed
 * lines, logs the "N messages suppressed" line itself first.
 * now_ns is a CLOCK_MONOTONIC time (lc_time_mono_ns()).
 */
bool lc_log_ratelimit_check(struct lc_log_ratelimit *, uint64_t now_ns,
    unsigned interval_s, unsigned burst, enum lc_log_level);

#define LC_LOG_RATELIMIT(level, interval_s, burst, ...)                \
	do {                                                           \
		static struct lc_log_ratelimit lc__rl;                 \
		if (lc_log_enabled(level) &&                           \
		    lc_log_ratelimit_check(&lc__rl, lc_time_mono_ns(), \
			(interval_s), (burst), (level)))               \
			lc_log((level), __VA_ARGS__);                  \
	} while (0)

#endif /* LC_LOG_H */
