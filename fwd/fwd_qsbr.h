/* fwd/fwd_qsbr.h: quiescent-state-based reclamation for lock-free readers. */
#ifndef FWD_QSBR_H
#define FWD_QSBR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Readers (forwarding workers) never lock. A writer that unpublishes memory
 * (for example a FIB tbl8 group replaced by a single tbl24 entry) may only free
 * or reuse it once every registered reader has passed a quiescent point after
 * the unpublishing store, i.e. has finished every lookup that could have seen
 * the old pointer.
 *
 * Readers:  t = fwd_qsbr_register(q);  loop { burst...; fwd_qsbr_quiescent(t); }
 *           fwd_qsbr_offline(t) before sleeping, fwd_qsbr_online(t) after;
 *           fwd_qsbr_unregister(t) at exit.
 * Writer:   unpublish; tok = fwd_qsbr_start(q); ... later
 *           if (fwd_qsbr_check(q, tok)) free it;   (or fwd_qsbr_synchronize)
 *
 * Memory ordering: the writer's unpublishing store happens before the epoch
 * increment (seq_cst RMW); a reader loads the epoch with acquire and publishes
 * what it saw with a release store, so every load it made before the quiescent
 * point is finished, and every later load sees the unpublished state.
 * An offline reader holds no references and never delays the writer.
 */

#define FWD_QSBR_MAX_READERS 64

struct fwd_qsbr;

/* One reader's slot, on its own cache line. Owned by the qsbr. */
struct fwd_qsbr_thread {
	uint64_t seen; /* epoch seen at the last quiescent point; 0 offline */
	const uint64_t *epoch; /* the qsbr's shared epoch */
	struct fwd_qsbr *q;
	unsigned id;
	bool used;
} __attribute__((aligned(64)));

/* max_readers 1..FWD_QSBR_MAX_READERS (0 -> FWD_QSBR_MAX_READERS).
 * NULL + errno (EINVAL, ENOMEM). */
struct fwd_qsbr *fwd_qsbr_new(unsigned max_readers);
void fwd_qsbr_free(struct fwd_qsbr *);

/* Register the calling reader; it starts online at the current epoch.
 * NULL + errno ENOSPC when all slots are taken. Thread-safe. */
struct fwd_qsbr_thread *fwd_qsbr_register(struct fwd_qsbr *);
/* Give the slot back (the reader goes offline first). */
void fwd_qsbr_unregister(struct fwd_qsbr_thread *);

/* Number of registered readers (diagnostics). */
unsigned fwd_qsbr_readers(const struct fwd_qsbr *);

/* Writer side: advance the epoch after unpublishing; returns the token that
 * every online reader must reach before the unpublished memory may be freed. */
uint64_t fwd_qsbr_start(struct fwd_qsbr *);
/* true when every reader is offline or has passed a quiescent point since the
 * fwd_qsbr_start that returned tok. Never blocks. */
bool fwd_qsbr_check(struct fwd_qsbr *, uint64_t tok);
/* Wait (yielding) until fwd_qsbr_check(tok) is true or timeout_ns elapses
 * (0 = wait forever). 0, or -ETIMEDOUT. */
int fwd_qsbr_wait(struct fwd_qsbr *, uint64_t tok, uint64_t timeout_ns);
/* fwd_qsbr_start then fwd_qsbr_wait(forever). */
void fwd_qsbr_synchronize(struct fwd_qsbr *);

/* Reader: "I hold no references into shared tables now". Call between bursts.
 * Two plain moves on x86. */
static inline void
fwd_qsbr_quiescent(struct fwd_qsbr_thread *t)
{
	uint64_t e = __atomic_load_n(t->epoch, __ATOMIC_ACQUIRE);

	__atomic_store_n(&t->seen, e, __ATOMIC_RELEASE);
}

/* Reader going to sleep (no references held until fwd_qsbr_online). */
static inline void
fwd_qsbr_offline(struct fwd_qsbr_thread *t)
{
	__atomic_store_n(&t->seen, 0, __ATOMIC_RELEASE);
}

/* Reader waking up: online again before its next lookup. The seq_cst store
 * followed by the fence keeps the next lookups from being ordered before it. */
static inline void
fwd_qsbr_online(struct fwd_qsbr_thread *t)
{
	uint64_t e = __atomic_load_n(t->epoch, __ATOMIC_ACQUIRE);

	__atomic_store_n(&t->seen, e, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif /* FWD_QSBR_H */
