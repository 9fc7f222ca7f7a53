/* libcommon/lc_page.h: one page of a big listing in key order without
 * sorting it all (rib's show route, tern-bgp's show bgp route). */
#ifndef LC_PAGE_H
#define LC_PAGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * v[0..n) distinct keys in any order: afterwards v[*lo .. *hi) holds the
 * keys that rank off .. off + limit - 1 in ascending order, sorted (*lo =
 * min(off, n), *hi = min(*lo + limit, n)). Linear selection around the
 * window, then only the window sorted: O(n + limit log limit).
 */
void lc_page_u64(uint64_t *v, size_t n, size_t off, size_t limit, size_t *lo,
    size_t *hi);

#endif /* LC_PAGE_H */
