/* libcommon/lc_seg.c: shared memory segments that outlive their writer:
 * create, check and adopt, the update epoch, huge pages. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lc_huge.h"
#include "lc_seg.h"
#include "lc_time.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define SEG_MAGIC   "TERNSEG"
#define SEG_HDR_V   1u
#define SEG_HDR_LEN 4096u
#define SEG_ALIGN   ((size_t)LC_HUGE_PAGE)

struct lc_seg_reg {
	char name[LC_SEG_NAME_MAX];
	uint64_t off, len;
};

struct lc_seg_hdr {
	char magic[8];
	uint32_t hdr_version;
	uint32_t kind;
	uint32_t version;
	uint32_t nreg;
	uint64_t total;
	uint64_t created_ns;
	struct lc_seg_reg reg[LC_SEG_REGIONS_MAX];
	uint64_t sum; /* FNV-1a of everything above */
	/* what changes, after the sum */
	uint64_t epoch;
	uint64_t updates;
};
_Static_assert(sizeof(struct lc_seg_hdr) <= SEG_HDR_LEN, "one page");

static uint64_t
hdr_sum(const struct lc_seg_hdr *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint64_t x = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < offsetof(struct lc_seg_hdr, sum); i++)
		x = (x ^ p[i]) * 0x100000001b3ULL;
	return (x);
}

static size_t
align_up(size_t v, size_t a)
{
	return ((v + a - 1) & ~(a - 1));
}

/* Offsets of a layout; the total in *total. -EINVAL if it does not fit. */
static int
layout(const struct lc_seg_spec *sp, unsigned n, uint64_t *off, size_t *total,
    struct lc_err *err)
{
	size_t at = SEG_ALIGN;

	if (n == 0 || n > LC_SEG_REGIONS_MAX)
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%u regions (1 to %d)", n, LC_SEG_REGIONS_MAX));
	for (unsigned i = 0; i < n; i++) {
		if (sp[i].name == NULL ||
		    strlen(sp[i].name) >= LC_SEG_NAME_MAX || sp[i].len == 0 ||
		    sp[i].len > ((size_t)1 << 40))
			return (lc_err_set(err, -EINVAL, (long)i,
			    "region %u: bad name or length", i));
		off[i] = at;
		at = align_up(at + sp[i].len, SEG_ALIGN);
	}
	*total = at;
	return (0);
}

/* Maps len bytes of fd at a 2 MiB aligned address. */
static int
map_aligned(struct lc_seg *s, size_t len)
{
	void *r, *b;

	r = mmap(NULL, len + SEG_ALIGN, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return (-errno);
	b = (void *)align_up((uintptr_t)r, SEG_ALIGN);
	if (mmap(b, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, s->fd,
		0) == MAP_FAILED) {
		int e = errno;

		munmap(r, len + SEG_ALIGN);
		return (-e);
	}
	s->map = r;
	s->map_len = len + SEG_ALIGN;
	s->base = b;
	s->len = len;
	s->hdr = b;
	return (0);
}

static void
regions_set(struct lc_seg *s, const struct lc_seg_spec *sp, unsigned n)
{
	s->n = n;
	for (unsigned i = 0; i < n; i++) {
		s->reg[i] = (uint8_t *)s->base + s->hdr->reg[i].off;
		s->reg_len[i] = sp[i].len;
		/* without effect on shmem while shmem_enabled is "never";
		 * lc_seg_collapse is what works there */
		if (sp[i].huge)
			(void)madvise(s->reg[i], align_up(sp[i].len, SEG_ALIGN),
			    MADV_HUGEPAGE);
	}
}

int
lc_seg_create(struct lc_seg *s, const char *name, uint32_t kind,
    uint32_t version, const struct lc_seg_spec *sp, unsigned n,
    struct lc_err *err)
{
	uint64_t off[LC_SEG_REGIONS_MAX];
	struct lc_seg_hdr *h;
	size_t total;
	int rv;

	lc_err_clear(err);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if ((rv = layout(sp, n, off, &total, err)) != 0)
		return (rv);
	if ((s->fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0)
		return (lc_err_set(err, -errno, LC_ERR_NOINDEX,
		    "memfd_create: %s", strerror(errno)));
	if (ftruncate(s->fd, (off_t)total) != 0 ||
	    fcntl(s->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
		rv = -errno;
		goto fail;
	}
	if ((rv = map_aligned(s, total)) != 0)
		goto fail;
	h = s->hdr;
	memcpy(h->magic, SEG_MAGIC, sizeof(SEG_MAGIC));
	h->hdr_version = SEG_HDR_V;
	h->kind = kind;
	h->version = version;
	h->nreg = n;
	h->total = total;
	h->created_ns = lc_time_real_ns();
	for (unsigned i = 0; i < n; i++) {
		snprintf(h->reg[i].name, sizeof(h->reg[i].name), "%s",
		    sp[i].name);
		h->reg[i].off = off[i];
		h->reg[i].len = sp[i].len;
	}
	h->sum = hdr_sum(h);
	regions_set(s, sp, n);
	return (0);
fail:
	lc_err_set(err, rv, LC_ERR_NOINDEX, "segment %s of %zu bytes: %s", name,
	    total, strerror(-rv));
	close(s->fd);
	s->fd = -1;
	return (rv);
}

int
lc_seg_adopt(struct lc_seg *s, int fd, uint32_t kind, uint32_t version,
    const struct lc_seg_spec *sp, unsigned n, struct lc_err *err)
{
	uint64_t off[LC_SEG_REGIONS_MAX];
	struct lc_seg_hdr h;
	struct stat st;
	size_t total;
	int rv, seals;

	lc_err_clear(err);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if ((rv = layout(sp, n, off, &total, err)) != 0)
		return (rv);
	if (fstat(fd, &st) != 0)
		return (lc_err_set(err, -errno, LC_ERR_NOINDEX, "fstat: %s",
		    strerror(errno)));
	seals = fcntl(fd, F_GET_SEALS);
	if (!S_ISREG(st.st_mode) || seals < 0 ||
	    (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) !=
		(F_SEAL_SHRINK | F_SEAL_GROW))
		return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "not a sealed memfd"));
	if ((size_t)st.st_size < SEG_HDR_LEN ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "shorter than a header"));
	if (memcmp(h.magic, SEG_MAGIC, sizeof(SEG_MAGIC)) != 0 ||
	    h.hdr_version != SEG_HDR_V || h.sum != hdr_sum(&h))
		return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "not a segment (bad magic, header version or checksum)"));
	if (h.kind != kind)
		return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "a segment of another kind (%08x, not %08x)", h.kind,
		    kind));
	if (h.version != version)
		return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "layout version %u, this binary's is %u", h.version,
		    version));
	if (h.nreg != n || h.total != total || (uint64_t)st.st_size != total)
		return (lc_err_set(err, -EPROTO, LC_ERR_NOINDEX,
		    "another layout (%u regions, %llu bytes; expected %u, %zu)",
		    h.nreg, (unsigned long long)h.total, n, total));
	for (unsigned i = 0; i < n; i++)
		if (strncmp(h.reg[i].name, sp[i].name, LC_SEG_NAME_MAX) != 0 ||
		    h.reg[i].off != off[i] || h.reg[i].len != sp[i].len)
			return (lc_err_set(err, -EPROTO, (long)i,
			    "another layout: region %u is %.23s of %llu bytes, "
			    "expected %s of %zu",
			    i, h.reg[i].name, (unsigned long long)h.reg[i].len,
			    sp[i].name, sp[i].len));
	if ((s->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return (lc_err_set(err, -errno, LC_ERR_NOINDEX, "dup: %s",
		    strerror(errno)));
	if ((rv = map_aligned(s, total)) != 0) {
		close(s->fd);
		s->fd = -1;
		return (lc_err_set(err, rv, LC_ERR_NOINDEX, "mmap: %s",
		    strerror(-rv)));
	}
	/* the epoch as of now, in the mapping (the writer is gone) */
	if (__atomic_load_n(&s->hdr->epoch, __ATOMIC_ACQUIRE) & 1) {
		lc_seg_close(s);
		return (lc_err_set(err, -EAGAIN, LC_ERR_NOINDEX,
		    "an update was in progress when its writer ended"));
	}
	regions_set(s, sp, n);
	return (0);
}

void
lc_seg_begin(struct lc_seg *s)
{
	if (s->depth++ != 0)
		return;
	__atomic_store_n(&s->hdr->epoch, s->hdr->epoch | 1, __ATOMIC_RELAXED);
	/* the odd epoch is visible before any write of the update */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void
lc_seg_end(struct lc_seg *s)
{
	if (s->depth == 0 || --s->depth != 0)
		return;
	s->hdr->updates++;
	__atomic_store_n(&s->hdr->epoch, s->hdr->epoch + 1, __ATOMIC_RELEASE);
}

uint64_t
lc_seg_updates(const struct lc_seg *s)
{
	return (s->hdr->updates);
}

int
lc_seg_collapse_range(struct lc_seg *s, unsigned i, size_t off, size_t len)
{
	size_t lo, hi;

	if (i >= s->n || off >= s->reg_len[i] || len == 0)
		return (-EINVAL);
	if (len > s->reg_len[i] - off)
		len = s->reg_len[i] - off;
	lo = off & ~(SEG_ALIGN - 1);
	hi = align_up(off + len, SEG_ALIGN);
	if (madvise((uint8_t *)s->reg[i] + lo, hi - lo, MADV_COLLAPSE) != 0)
		return (-errno);
	return (0);
}

int
lc_seg_collapse(struct lc_seg *s, unsigned i)
{
	if (i >= s->n)
		return (-EINVAL);
	return (lc_seg_collapse_range(s, i, 0, s->reg_len[i]));
}

void
lc_seg_close(struct lc_seg *s)
{
	if (s->map != NULL)
		munmap(s->map, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
