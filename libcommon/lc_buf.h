/* libcommon/lc_buf.h: growable byte buffer with a consumed prefix, for I/O
 * framing. */
#ifndef LC_BUF_H
#define LC_BUF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Bytes [off, len) of data are the content; [0, off) has been consumed,
 * [len, cap) is free. Pointers into data are invalidated by anything that
 * may grow or compact the buffer (reserve, append, tail, printf).
 */
struct lc_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t off; /* consumed prefix */
};

/* An empty buffer, no allocation. Also a zeroed struct is a valid empty buffer.
 */
void lc_buf_init(struct lc_buf *);
/* Frees the memory; the buffer is empty again (init state). */
void lc_buf_fini(struct lc_buf *);
/* Makes room for `extra` more bytes (may compact the consumed prefix). 0 or
 * -ENOMEM. */
int lc_buf_reserve(struct lc_buf *, size_t extra);
/* 0 or -ENOMEM (buffer unchanged). */
int lc_buf_append(struct lc_buf *, const void *, size_t);
/* printf-appends (no NUL counted in len). 0, -ENOMEM, -EINVAL on a format
 * error. */
int lc_buf_printf(struct lc_buf *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reserves n and returns where to write them; then lc_buf_commit(b, n). NULL on
 * ENOMEM (errno set). */
void *lc_buf_tail(struct lc_buf *, size_t n);
/* Adds n written bytes (n <= cap - len; larger is clamped). */
void lc_buf_commit(struct lc_buf *, size_t n);
/* Drops n bytes from the front (n > avail drops all). */
void lc_buf_consume(struct lc_buf *, size_t n);
/* len = off = 0; keeps the memory. */
void lc_buf_reset(struct lc_buf *);

/*
 * Appends a printf'ed line and '\n' to the C string in buf[size] when the
 * whole line fits (a cut line would say half a thing: notices kept for
 * later keep the first ones). 0, or -ENOSPC with buf unchanged.
 */
int lc_str_addline(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Unconsumed bytes. */
static inline size_t
lc_buf_avail(const struct lc_buf *b)
{
	return (b->len - b->off);
}
/* First unconsumed byte (NULL for a never-allocated buffer). */
static inline uint8_t *
lc_buf_head(const struct lc_buf *b)
{
	return (b->data != NULL ? b->data + b->off : NULL);
}

/*
 * Makes room for need elements of elem bytes in the malloc'ed array *p of
 * *cap elements (doubling from 64; contents kept). 0, or -ENOMEM with *p
 * and *cap unchanged.
 */
int lc_array_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif /* LC_BUF_H */
