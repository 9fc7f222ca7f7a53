/* libcommon/lc_huge.c: zeroed tables on (transparent) huge pages. */
#include "lc_huge.h"

#include <stdint.h>
#include <sys/mman.h>

void *
lc_huge_map(size_t len, bool huge, size_t *maplen, void **mapbase)
{
	/* Over-reserve by one huge page so the table can start 2 MiB aligned;
	 * + one page: 4-byte gathers may read 2 bytes past the last entry. */
	size_t ml = len + 4096 + (huge ? LC_HUGE_PAGE : 0);
	uint8_t *p = mmap(NULL, ml, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint8_t *a;

	if (p == MAP_FAILED)
		return (NULL);
	a = p;
	if (huge) {
		a = (uint8_t *)(((uintptr_t)p + LC_HUGE_PAGE - 1) &
		    ~(uintptr_t)(LC_HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
		(void)madvise(a, len, MADV_HUGEPAGE);
#endif
	}
	*maplen = ml;
	*mapbase = p;
	return (a);
}

void
lc_huge_unmap(void *mapbase, size_t maplen)
{
	if (mapbase != NULL)
		(void)munmap(mapbase, maplen);
}
