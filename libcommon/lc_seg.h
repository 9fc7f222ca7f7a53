/* libcommon/lc_seg.h: a shared memory segment that outlives the process that
 * made it: one memfd of named regions behind a checked header, adopted by
 * the next instance of a component (its fd kept in tern-rtrmgr's fd store,
 * lc_fdstore.h), for the state it must not lose in a crash (issue 26: the
 * FIB, the adjacencies, the neighbours). */
#ifndef LC_SEG_H
#define LC_SEG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lc_err.h"

#define LC_SEG_REGIONS_MAX 16
#define LC_SEG_NAME_MAX	   24 /* a region's name, with the NUL */

/* One region as its user lays it out. */
struct lc_seg_spec {
	const char *name;
	size_t len;
	bool huge; /* read at random: ask for huge pages (MADV_HUGEPAGE) */
};

/*
 * Layout: a 4 KiB header, then each region at a 2 MiB aligned offset (so
 * it can be mapped with huge pages), the file as long as the last one's
 * end (sparse: a page costs memory once written). The size is sealed
 * (F_SEAL_SHRINK | F_SEAL_GROW), so no holder of the fd can truncate it
 * under a reader. The header names the user's kind and layout version and
 * every region's name, offset and length, with a checksum over all of it;
 * then an epoch: even while the contents are consistent, odd during an
 * update (lc_seg_begin .. lc_seg_end), which a crash leaves odd.
 */
struct lc_seg {
	int fd;
	void *base; /* the whole file, 2 MiB aligned */
	size_t len;
	void *map; /* what to munmap */
	size_t map_len;
	struct lc_seg_hdr *hdr;
	unsigned n;
	void *reg[LC_SEG_REGIONS_MAX];
	size_t reg_len[LC_SEG_REGIONS_MAX];
	unsigned depth; /* lc_seg_begin calls not ended yet */
};

/*
 * A new segment (memfd name, for /proc/PID/fd and the fd store) of the
 * regions, zeroed; kind and version are the user's (a different layout
 * must change version). 0 or -errno with err.
 */
int lc_seg_create(struct lc_seg *, const char *name, uint32_t kind,
    uint32_t version, const struct lc_seg_spec *, unsigned n,
    struct lc_err *err);

/*
 * Maps the segment of fd (which stays the caller's: the segment takes a
 * duplicate) if it is one of kind and version with exactly these regions,
 * sealed, its checksum right and its epoch even. 0; -EPROTO (not a
 * segment, or another kind, version or layout: err says which), -EAGAIN
 * (an update was in progress when its writer died), -errno. Nothing is
 * mapped on failure.
 */
int lc_seg_adopt(struct lc_seg *, int fd, uint32_t kind, uint32_t version,
    const struct lc_seg_spec *, unsigned n, struct lc_err *err);

/* Region i's memory and length. */
static inline void *
lc_seg_region(const struct lc_seg *s, unsigned i)
{
	return (s->reg[i]);
}

/* The segment's fd (for the fd store; still the segment's). */
static inline int
lc_seg_fd(const struct lc_seg *s)
{
	return (s->fd);
}

/* An update starts (the epoch goes odd) / ends (even again). Release
 * ordered: what was written before lc_seg_end is seen by whoever adopts
 * the segment and finds the epoch even. Nested calls count: the epoch is
 * odd from the outermost begin to its end. */
void lc_seg_begin(struct lc_seg *);
void lc_seg_end(struct lc_seg *);
/* Updates completed since the segment was made. */
uint64_t lc_seg_updates(const struct lc_seg *);

/*
 * Huge pages for region i now (MADV_COLLAPSE, Linux 6.1): shared memory
 * gets none from MADV_HUGEPAGE while shmem_enabled is "never" (Debian's
 * default), but a collapse works regardless, and a new mapping of pages
 * already huge is collapsed again in about a millisecond. 0 or -errno
 * (-EINVAL: the kernel has no MADV_COLLAPSE). Best effort: the caller
 * logs and goes on.
 */
int lc_seg_collapse(struct lc_seg *, unsigned i);
/* The same for bytes [off, off + len) of region i (rounded out to 2 MiB). */
int lc_seg_collapse_range(struct lc_seg *, unsigned i, size_t off, size_t len);

/* Unmaps and closes the segment's fd (a copy in the fd store lives on). */
void lc_seg_close(struct lc_seg *);

#endif /* LC_SEG_H */
