/* libcommon/lc_huge.h: big zeroed tables that are read at random (FIB and
 * RIB hash tables, DIR-24-8 arrays), mapped so that transparent huge pages
 * can back them: with THP in "madvise" mode (Debian's default) memory from
 * malloc never gets huge pages, and a random probe of a 16 MiB table then
 * takes a TLB miss as well as a cache miss. */
#ifndef LC_HUGE_H
#define LC_HUGE_H

#include <stdbool.h>
#include <stddef.h>

#define LC_HUGE_PAGE (2u << 20)

/*
 * Zeroed memory of len bytes plus one readable page past the end (for wide
 * loads at the last entries). huge: start 2 MiB aligned and ask for huge
 * pages (MADV_HUGEPAGE). Untouched pages cost nothing (MAP_NORESERVE).
 * Returns the table, or NULL with errno; *mapbase and *maplen are what
 * lc_huge_unmap() takes.
 */
void *lc_huge_map(size_t len, bool huge, size_t *maplen, void **mapbase);
void lc_huge_unmap(void *mapbase, size_t maplen);

#endif
