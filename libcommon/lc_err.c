/* libcommon/lc_err.c: the error carrier and the out-of-memory path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_err.h"
#include "lc_log.h"

void
lc_err_clear(struct lc_err *e)
{
	if (e == NULL)
		return;
	e->code = 0;
	e->index = LC_ERR_NOINDEX;
	e->msg[0] = '\0';
}

int
lc_err_set(struct lc_err *e, int code, long index, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return (code);
	e->code = code;
	e->index = index;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return (code);
}

int
lc_err_prefix(struct lc_err *e, const char *fmt, ...)
{
	char ctx[LC_ERR_MSG_MAX], old[LC_ERR_MSG_MAX];
	va_list ap;

	if (e == NULL)
		return (0);
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	if (e->msg[0] == '\0') {
		snprintf(e->msg, sizeof(e->msg), "%s", ctx);
		return (e->code);
	}
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s: %s", ctx, old);
	return (e->code);
}

void
lc_oom(const char *what)
{
	lc_log_err("out of memory: %s", what != NULL ? what : "?");
	abort();
}

void *
lc_xmalloc(size_t n, const char *what)
{
	void *p = malloc(n != 0 ? n : 1);

	if (p == NULL)
		lc_oom(what);
	return (p);
}

void *
lc_xcalloc(size_t nmemb, size_t size, const char *what)
{
	void *p = calloc(nmemb != 0 ? nmemb : 1, size != 0 ? size : 1);

	if (p == NULL)
		lc_oom(what);
	return (p);
}

void *
lc_xrealloc(void *p, size_t n, const char *what)
{
	void *q = realloc(p, n != 0 ? n : 1);

	if (q == NULL)
		lc_oom(what);
	return (q);
}

char *
lc_xstrdup(const char *s, const char *what)
{
	char *p = strdup(s);

	if (p == NULL)
		lc_oom(what);
	return (p);
}
