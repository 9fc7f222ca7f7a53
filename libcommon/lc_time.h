/* libcommon/lc_time.h: monotonic and real clocks in ns, and a per-thread clock
 * cached once per loop turn. */
#ifndef LC_TIME_H
#define LC_TIME_H

#include <stdint.h>

#define LC_NS_PER_SEC  1000000000ULL
#define LC_NS_PER_MSEC 1000000ULL
#define LC_NS_PER_USEC 1000ULL

/* CLOCK_MONOTONIC in ns (vDSO read, no syscall). Never fails. */
uint64_t lc_time_mono_ns(void);
/* CLOCK_REALTIME in ns since the epoch. Never fails. */
uint64_t lc_time_real_ns(void);

/*
 * The cached monotonic clock of the calling thread: the value read at the
 * start of this loop turn (lc_loop refreshes it when the loop wakes up), so
 * all callbacks of one turn see the same time. Outside any loop it is read
 * lazily on first use and stays until lc_now_update().
 */
uint64_t lc_now_ns(void);
/* Refreshes the calling thread's cache from lc_time_mono_ns(). */
void lc_now_update(void);
/* Sets the calling thread's cache (tests); the next lc_now_update() overrides
 * it. */
void lc_now_set(uint64_t ns);

#endif /* LC_TIME_H */
