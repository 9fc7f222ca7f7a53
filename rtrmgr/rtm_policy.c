/* rtrmgr/rtm_policy.c: the restart policy arithmetic: exponential backoff and
 * the N-failures-in-T window. */
#include <string.h>

#include "rtm_int.h"

uint64_t
rtm_backoff_delay_ms(uint32_t initial_ms, uint32_t max_ms, unsigned consecutive)
{
	uint64_t d;

	if (consecutive == 0)
		return (0);
	if (initial_ms > max_ms)
		initial_ms = max_ms;
	d = initial_ms;
	/* Double without overflowing: stop as soon as the cap is reached. */
	for (unsigned i = 1; i < consecutive && d < max_ms; i++)
		d *= 2;
	return (d > max_ms ? max_ms : d);
}

void
rtm_failwin_reset(struct rtm_failwin *w)
{
	memset(w, 0, sizeof(*w));
}

bool
rtm_failwin_add(struct rtm_failwin *w, uint64_t now_ms, unsigned limit,
    uint64_t window_ms)
{
	unsigned oldest;

	if (limit == 0)
		return (false);
	if (limit > RTM_FAILWIN_MAX)
		limit = RTM_FAILWIN_MAX;
	/* Keep only the last `limit` failures: the ring is sized by the limit.
	 */
	if (w->count >= limit) {
		/* Drop the oldest entries beyond limit-1 so the new one fits.
		 */
		w->count = limit - 1;
	}
	w->t_ms[w->head] = now_ms;
	w->head = (w->head + 1) % RTM_FAILWIN_MAX;
	w->count++;
	if (w->count < limit)
		return (false);
	oldest = (w->head + RTM_FAILWIN_MAX - w->count) % RTM_FAILWIN_MAX;
	return (now_ms - w->t_ms[oldest] <= window_ms);
}

unsigned
rtm_failwin_count(const struct rtm_failwin *w, uint64_t now_ms,
    uint64_t window_ms)
{
	unsigned n = 0;

	for (unsigned i = 0; i < w->count; i++) {
		unsigned k = (w->head + RTM_FAILWIN_MAX - 1 - i) %
		    RTM_FAILWIN_MAX;

		if (now_ms - w->t_ms[k] <= window_ms)
			n++;
	}
	return (n);
}
