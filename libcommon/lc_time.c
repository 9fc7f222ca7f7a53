/* libcommon/lc_time.c: clock reads and the per-thread cached loop-turn clock.
 */
#include <time.h>

#include "lc_time.h"

static _Thread_local uint64_t lc_now_cache;

static uint64_t
lc_time_read(clockid_t id)
{
	struct timespec ts;

	/* Only fails for an invalid clock id, which these are not. */
	(void)clock_gettime(id, &ts);
	return ((uint64_t)ts.tv_sec * LC_NS_PER_SEC + (uint64_t)ts.tv_nsec);
}

uint64_t
lc_time_mono_ns(void)
{
	return (lc_time_read(CLOCK_MONOTONIC));
}

uint64_t
lc_time_real_ns(void)
{
	return (lc_time_read(CLOCK_REALTIME));
}

uint64_t
lc_now_ns(void)
{
	if (lc_now_cache == 0)
		lc_now_update();
	return (lc_now_cache);
}

void
lc_now_update(void)
{
	lc_now_cache = lc_time_mono_ns();
}

void
lc_now_set(uint64_t ns)
{
	lc_now_cache = ns;
}
