/* fwd/fwd_qsbr.c: quiescent-state-based reclamation (epoch counter + reader slots). */
#include "fwd_qsbr.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fwd_qsbr {
	uint64_t epoch __attribute__((aligned(64))); /* starts at 1 */
	pthread_mutex_t reg_lock __attribute__((aligned(64)));
	unsigned max_readers;
	unsigned nreaders;
	struct fwd_qsbr_thread slot[];
};

struct fwd_qsbr *
fwd_qsbr_new(unsigned max_readers)
{
	struct fwd_qsbr *q;

	if (max_readers == 0)
		max_readers = FWD_QSBR_MAX_READERS;
	if (max_readers > FWD_QSBR_MAX_READERS) {
		errno = EINVAL;
		return (NULL);
	}
	q = aligned_alloc(64, sizeof(*q) + max_readers * sizeof(q->slot[0]));
	if (q == NULL)
		return (NULL);
	memset(q, 0, sizeof(*q) + max_readers * sizeof(q->slot[0]));
	q->epoch = 1;
	q->max_readers = max_readers;
	pthread_mutex_init(&q->reg_lock, NULL);
	for (unsigned i = 0; i < max_readers; i++) {
		q->slot[i].q = q;
		q->slot[i].epoch = &q->epoch;
		q->slot[i].id = i;
	}
	return (q);
}

void
fwd_qsbr_free(struct fwd_qsbr *q)
{
	if (q == NULL)
		return;
	pthread_mutex_destroy(&q->reg_lock);
	free(q);
}

struct fwd_qsbr_thread *
fwd_qsbr_register(struct fwd_qsbr *q)
{
	struct fwd_qsbr_thread *t = NULL;

	pthread_mutex_lock(&q->reg_lock);
	for (unsigned i = 0; i < q->max_readers; i++) {
		if (!q->slot[i].used) {
			t = &q->slot[i];
			t->used = true;
			q->nreaders++;
			break;
		}
	}
	pthread_mutex_unlock(&q->reg_lock);
	if (t == NULL) {
		errno = ENOSPC;
		return (NULL);
	}
	fwd_qsbr_online(t);
	return (t);
}

void
fwd_qsbr_unregister(struct fwd_qsbr_thread *t)
{
	struct fwd_qsbr *q;

	if (t == NULL)
		return;
	q = t->q;
	fwd_qsbr_offline(t);
	pthread_mutex_lock(&q->reg_lock);
	t->used = false;
	q->nreaders--;
	pthread_mutex_unlock(&q->reg_lock);
}

unsigned
fwd_qsbr_readers(const struct fwd_qsbr *q)
{
	return (__atomic_load_n(&q->nreaders, __ATOMIC_RELAXED));
}

uint64_t
fwd_qsbr_start(struct fwd_qsbr *q)
{
	return (__atomic_add_fetch(&q->epoch, 1, __ATOMIC_SEQ_CST));
}

bool
fwd_qsbr_check(struct fwd_qsbr *q, uint64_t tok)
{
	/* Unused slots stay at seen == 0 (offline), so scanning all is safe. */
	for (unsigned i = 0; i < q->max_readers; i++) {
		uint64_t s = __atomic_load_n(&q->slot[i].seen,
		    __ATOMIC_SEQ_CST);

		if (s != 0 && s < tok)
			return (false);
	}
	return (true);
}

static inline void
qsbr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static uint64_t
qsbr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

int
fwd_qsbr_wait(struct fwd_qsbr *q, uint64_t tok, uint64_t timeout_ns)
{
	uint64_t deadline = 0;
	unsigned spins = 0;

	while (!fwd_qsbr_check(q, tok)) {
		if (++spins < 64) {
			qsbr_cpu_relax();
			continue;
		}
		if (timeout_ns != 0) {
			uint64_t now = qsbr_now_ns();

			if (deadline == 0)
				deadline = now + timeout_ns;
			else if (now >= deadline)
				return (-ETIMEDOUT);
		}
		sched_yield();
	}
	return (0);
}

void
fwd_qsbr_synchronize(struct fwd_qsbr *q)
{
	(void)fwd_qsbr_wait(q, fwd_qsbr_start(q), 0);
}
