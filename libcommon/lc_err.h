/* libcommon/lc_err.h: the one error carrier of the tree (a code, the index of
 * the bad entry of a batch, a message for the operator), and the one path a
 * failed allocation takes. */
#ifndef LC_ERR_H
#define LC_ERR_H

#include <stddef.h>

#define LC_ERR_MSG_MAX 512
#define LC_ERR_NOINDEX (-1L) /* the error is not about one entry */

/*
 * Filled by the function that finds the error, read by the one that reports
 * it (a log line, an IPC error reply, the shell). code is 0 or -errno, as the
 * function returned; index is the batch entry at fault or LC_ERR_NOINDEX; msg
 * is "" when code is 0. Small enough for the stack; callers that want no
 * message pass NULL.
 */
struct lc_err {
	int code;
	long index;
	char msg[LC_ERR_MSG_MAX];
};

/* Clears *e (code 0, no index, empty message). NULL is accepted. */
void lc_err_clear(struct lc_err *e);

/*
 * Sets code, index and the formatted message (truncated to fit) and returns
 * code, so a check reads `return (lc_err_set(e, -EINVAL, i, "bad %s", x));`.
 * NULL e only returns code.
 */
int lc_err_set(struct lc_err *e, int code, long index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Puts "<context>: " before the message already set (when there is one;
 * else makes the context the message), keeping code and index. Returns the
 * code. NULL e returns 0.
 */
int lc_err_prefix(struct lc_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The one fatal path for memory that cannot be had: logs "out of memory:
 * <what>" at err level and aborts. For allocations whose failure leaves
 * nothing sensible to do (start-up tables, a message arena); code that can
 * refuse one request and go on returns -ENOMEM instead.
 */
__attribute__((noreturn)) void lc_oom(const char *what);

/* malloc, calloc, realloc and strdup that call lc_oom(what) on failure. */
void *lc_xmalloc(size_t n, const char *what);
void *lc_xcalloc(size_t nmemb, size_t size, const char *what);
void *lc_xrealloc(void *p, size_t n, const char *what);
char *lc_xstrdup(const char *s, const char *what);

#endif /* LC_ERR_H */
