/* libcommon/lc_buf.c: growable byte buffer (amortised doubling, compaction of
 * the consumed prefix). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lc_buf.h"

#define LC_BUF_MIN_CAP 256

void
lc_buf_init(struct lc_buf *b)
{
	b->data = NULL;
	b->len = b->cap = b->off = 0;
}

void
lc_buf_fini(struct lc_buf *b)
{
	free(b->data);
	lc_buf_init(b);
}

int
lc_buf_reserve(struct lc_buf *b, size_t extra)
{
	size_t live, need, ncap;
	uint8_t *nd;

	if (b->cap - b->len >= extra)
		return (0);
	live = b->len - b->off;
	if (extra > SIZE_MAX - live)
		return (-ENOMEM);
	need = live + extra;
	/* Compacting is enough when the consumed prefix makes the room. */
	if (need <= b->cap) {
		memmove(b->data, b->data + b->off, live);
		b->len = live;
		b->off = 0;
		return (0);
	}
	ncap = b->cap < LC_BUF_MIN_CAP ? LC_BUF_MIN_CAP : b->cap;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) {
			ncap = need;
			break;
		}
		ncap *= 2;
	}
	if (b->off == 0) {
		if ((nd = realloc(b->data, ncap)) == NULL)
			return (-ENOMEM);
	} else {
		if ((nd = malloc(ncap)) == NULL)
			return (-ENOMEM);
		if (live > 0)
			memcpy(nd, b->data + b->off, live);
		free(b->data);
	}
	b->data = nd;
	b->cap = ncap;
	b->len = live;
	b->off = 0;
	return (0);
}

int
lc_buf_append(struct lc_buf *b, const void *p, size_t n)
{
	int rv;

	if (n == 0)
		return (0);
	if ((rv = lc_buf_reserve(b, n)) != 0)
		return (rv);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return (0);
}

int
lc_buf_printf(struct lc_buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n, rv;

	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(room > 0 ? (char *)b->data + b->len : NULL, room, fmt,
	    ap);
	va_end(ap);
	if (n < 0)
		return (-EINVAL);
	if ((size_t)n < room) {
		b->len += (size_t)n;
		return (0);
	}
	if ((rv = lc_buf_reserve(b, (size_t)n + 1)) != 0)
		return (rv);
	va_start(ap, fmt);
	n = vsnprintf((char *)b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return (-EINVAL);
	b->len += (size_t)n;
	return (0);
}

void *
lc_buf_tail(struct lc_buf *b, size_t n)
{
	int rv;

	if ((rv = lc_buf_reserve(b, n)) != 0) {
		errno = -rv;
		return (NULL);
	}
	/* n == 0 on a never-allocated buffer: still hand out a valid pointer.
	 */
	if (b->data == NULL && lc_buf_reserve(b, 1) != 0) {
		errno = ENOMEM;
		return (NULL);
	}
	return (b->data + b->len);
}

void
lc_buf_commit(struct lc_buf *b, size_t n)
{
	if (n > b->cap - b->len)
		n = b->cap - b->len;
	b->len += n;
}

void
lc_buf_consume(struct lc_buf *b, size_t n)
{
	if (n >= b->len - b->off) {
		b->len = b->off = 0;
		return;
	}
	b->off += n;
}

void
lc_buf_reset(struct lc_buf *b)
{
	b->len = b->off = 0;
}

int
lc_array_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return (0);
	if (elem == 0 || need > SIZE_MAX / 2 / elem)
		return (-ENOMEM); /* nc * elem would overflow */
	while (nc < need)
		nc *= 2;
	if ((np = realloc(*p, nc * elem)) == NULL)
		return (-ENOMEM);
	*p = np;
	*cap = nc;
	return (0);
}

int
lc_str_addline(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(buf, size);
	va_list ap;
	int n;

	if (len + 1 >= size)
		return (-ENOSPC);
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 1 >= size - len) {
		buf[len] = '\0'; /* it did not fit whole, with its '\n' */
		return (-ENOSPC);
	}
	buf[len + (size_t)n] = '\n';
	buf[len + (size_t)n + 1] = '\0';
	return (0);
}
