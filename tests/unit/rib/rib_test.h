/* tests/unit/rib/rib_test.h: helpers shared by the rib unit tests: a tiny script language for tables of route steps, and a FIB delta recorder. */
#ifndef RIB_TEST_H
#define RIB_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libcommon/lc_addr.h"
#include "rib/rib.h"

/* The IPv4 tests' positional initializers of struct rib_nexthop,
 * rib_route_upd and rib_fib_delta predate the IPv6 fields appended to them
 * (left zero: IPv4), so they stay as written. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static inline struct lc_prefix4
P(const char *s) {
	struct lc_prefix4 p;

	if (lc_prefix4_parse(s, &p) != 0)
		fail_msg("bad prefix in test: %s", s);
	return (p);
}

static inline struct lc_ip4
IP(const char *s) {
	struct lc_ip4 a;

	if (lc_ip4_parse(s, &a) != 0)
		fail_msg("bad address in test: %s", s);
	return (a);
}

/* "198.18.0.1%2" (ifindex 2), "198.18.0.1" (recursive), "%3" (attached) */
static inline struct rib_nexthop
NH(const char *s) {
	struct rib_nexthop h = {{0}, 0};
	char buf[32];
	const char *pct = strchr(s, '%');
	size_t n = pct ? (size_t)(pct - s) : strlen(s);

	if (n > 0) {
		memcpy(buf, s, n);
		buf[n] = 0;
		h.addr = IP(buf);
	}
	if (pct)
		h.ifindex = (uint32_t)atoi(pct + 1);
	return (h);
}

/* hops as "a%i a%i", sorted as rib sorts them */
static inline void
hops_str(const struct rib_nexthop *h, unsigned n, char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (unsigned i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, len - o, "%s%s%%%u",
		    i ? " " : "", lc_ip4_ntoa(h[i].addr), h[i].ifindex);
}

static inline void
delta_str(const struct rib_fib_delta *d, char *out, size_t len)
{
	static const char *ops[] = {"add", "replace", "delete"};
	char hs[512];

	if (d->op == RIB_FIB_DELETE)
		snprintf(out, len, "delete %s", lc_prefix4_ntoa(&d->pfx));
	else if (d->type == RIB_RT_BLACKHOLE)
		snprintf(out, len, "%s %s blackhole", ops[d->op],
		    lc_prefix4_ntoa(&d->pfx));
	else if (d->type == RIB_RT_REJECT)
		snprintf(out, len, "%s %s reject", ops[d->op],
		    lc_prefix4_ntoa(&d->pfx));
	else {
		hops_str(d->nh, d->n_nh, hs, sizeof(hs));
		snprintf(out, len, "%s %s %s", ops[d->op],
		    lc_prefix4_ntoa(&d->pfx), hs);
	}
}

/* ---- FIB recorder -------------------------------------------------------- */
#define REC_MAX 4096
struct rec {
	char line[REC_MAX][128];
	unsigned n;
	unsigned nbatch;
	uint64_t seq[REC_MAX];
	unsigned bsize[REC_MAX];
	int fail; /* return this from the callback */
	unsigned calls;
};

static inline int
rec_cb(void *arg, uint64_t seq, const struct rib_fib_delta *d, unsigned n)
{
	struct rec *r = arg;

	r->calls++;
	if (r->fail)
		return (r->fail);
	if (r->nbatch < REC_MAX) {
		r->seq[r->nbatch] = seq;
		r->bsize[r->nbatch] = n;
		r->nbatch++;
	}
	for (unsigned i = 0; i < n; i++)
		if (r->n < REC_MAX)
			delta_str(&d[i], r->line[r->n++], sizeof(r->line[0]));
	return (0);
}

static inline void
rec_reset(struct rec *r)
{
	r->n = r->nbatch = r->calls = 0;
	r->fail = 0;
}

static int
rec_line_cmp(const void *a, const void *b)
{
	return (strcmp(a, b));
}

/* the recorded deltas, sorted, must be exactly these (NULL-terminated) */
static inline void
rec_expect(struct rec *r, const char *const *want)
{
	unsigned nw = 0;

	qsort(r->line, r->n, sizeof(r->line[0]), rec_line_cmp);
	while (want[nw] != NULL)
		nw++;
	for (unsigned i = 0; i < r->n || i < nw; i++) {
		const char *got = i < r->n ? r->line[i] : "(nothing)";
		const char *exp = i < nw ? want[i] : "(nothing)";

		if (strcmp(got, exp) != 0) {
			for (unsigned j = 0; j < r->n; j++)
				print_message("  got: %s\n", r->line[j]);
			fail_msg("delta %u: got '%s' want '%s'", i, got, exp);
		}
	}
}

/* ---- wanted FIB state of one prefix -------------------------------------- */
struct want_q {
	struct lc_prefix4 pfx;
	char out[512];
	int found;
};

static inline int
want_cb(void *arg, const struct rib_fib_delta *d)
{
	struct want_q *q = arg;

	if (!lc_prefix4_eq(&d->pfx, &q->pfx))
		return (0);
	q->found = 1;
	if (d->type == RIB_RT_BLACKHOLE)
		snprintf(q->out, sizeof(q->out), "blackhole");
	else if (d->type == RIB_RT_REJECT)
		snprintf(q->out, sizeof(q->out), "reject");
	else
		hops_str(d->nh, d->n_nh, q->out, sizeof(q->out));
	return (1);
}

static inline const char *
fib_state(struct rib *rib, enum rib_fib_view v, const char *pfx, char *buf,
    size_t len)
{
	struct want_q q;

	memset(&q, 0, sizeof(q));
	q.pfx = P(pfx);
	rib_fib_walk(rib, v, want_cb, &q);
	snprintf(buf, len, "%s", q.found ? q.out : "none");
	return (buf);
}

/* ---- one route's state --------------------------------------------------- */
struct route_q {
	unsigned src;
	int found;
	struct rib_route_info info;
	char res[512];
};

static inline int
route_cb(void *arg, const struct rib_route_info *ri)
{
	struct route_q *q = arg;

	if (ri->src != q->src)
		return (0);
	q->found = 1;
	q->info = *ri;
	hops_str(ri->res, ri->n_res, q->res, sizeof(q->res));
	q->info.nh = NULL;
	q->info.res = NULL;
	return (1);
}

/* "active usable", "usable", "inactive" (not usable), + " stale" " loop" */
static inline const char *
route_state(struct rib *rib, unsigned src, const char *pfx, char *buf,
    size_t len)
{
	struct rib_query qq;
	struct route_q q;

	memset(&qq, 0, sizeof(qq));
	memset(&q, 0, sizeof(q));
	qq.match = RIB_MATCH_EXACT;
	qq.pfx = P(pfx);
	q.src = src;
	rib_route_walk(rib, &qq, route_cb, &q, NULL);
	if (!q.found) {
		snprintf(buf, len, "absent");
		return (buf);
	}
	snprintf(buf, len, "%s%s%s%s",
	    (q.info.flags & RIB_RI_ACTIVE) ? "active " : "",
	    (q.info.flags & RIB_RI_USABLE) ? "usable" : "inactive",
	    (q.info.flags & RIB_RI_STALE) ? " stale" : "",
	    (q.info.flags & RIB_RI_LOOP) ? " loop" : "");
	return (buf);
}

/* ---- script -------------------------------------------------------------------------
 * if N up|down
 * src NAME DIST                         register a protocol source
 * add SRC PFX [d=N] [m=N] HOP...|blackhole|reject
 * del SRC PFX
 * want PFX none|blackhole|reject|HOP...  (wanted FIB, hops sorted)
 * state SRC PFX WORDS...                 (route_state() text)
 * stale SRC / sweep SRC
 */
static inline unsigned
script_src(struct rib *rib, const char *name)
{
	int id = rib_source_find(rib, name);

	if (id <= 0)
		fail_msg("unknown source %s", name);
	return ((unsigned)id);
}

static inline void
script_run(struct rib *rib, const char *const *steps)
{
	for (unsigned s = 0; steps[s] != NULL; s++) {
		char line[512], *tok[64], *sp = NULL, buf[512], exp[512];
		unsigned nt = 0;

		snprintf(line, sizeof(line), "%s", steps[s]);
		for (char *t = strtok_r(line, " ", &sp); t && nt < 64;
		     t = strtok_r(NULL, " ", &sp))
			tok[nt++] = t;
		if (nt == 0)
			continue;
		exp[0] = 0;
		for (unsigned i = 3; i < nt; i++)
			snprintf(exp + strlen(exp), sizeof(exp) - strlen(exp),
			    "%s%s", i > 3 ? " " : "", tok[i]);
		if (strcmp(tok[0], "if") == 0) {
			if (rib_if_set(rib, (uint32_t)atoi(tok[1]),
				strcmp(tok[2], "up") == 0) != 0)
				fail_msg("step %u '%s' failed", s, steps[s]);
		} else if (strcmp(tok[0], "src") == 0) {
			struct rib_source_conf c = {tok[1], atoi(tok[2]), 0};

			if (rib_source_add(rib, &c, NULL, NULL) != 0)
				fail_msg("step %u '%s' failed", s, steps[s]);
		} else if (strcmp(tok[0], "add") == 0 ||
		    strcmp(tok[0], "del") == 0) {
			struct rib_route_upd u;
			struct rib_nexthop h[RIB_NH_MAX];
			struct lc_err err;

			memset(&u, 0, sizeof(u));
			u.pfx = P(tok[2]);
			u.distance = -1;
			u.op = tok[0][0] == 'a' ? RIB_OP_ADD : RIB_OP_DELETE;
			for (unsigned i = 3; i < nt; i++) {
				if (strncmp(tok[i], "d=", 2) == 0)
					u.distance = (int16_t)atoi(tok[i] + 2);
				else if (strncmp(tok[i], "m=", 2) == 0)
					u.metric = (uint32_t)atoi(tok[i] + 2);
				else if (strcmp(tok[i], "blackhole") == 0)
					u.type = RIB_RT_BLACKHOLE;
				else if (strcmp(tok[i], "reject") == 0)
					u.type = RIB_RT_REJECT;
				else
					h[u.n_nh++] = NH(tok[i]);
			}
			u.nh = h;
			if (rib_route_batch(rib, script_src(rib, tok[1]), &u, 1,
				&err) != 0)
				fail_msg("step %u '%s': %s", s, steps[s],
				    err.msg);
		} else if (strcmp(tok[0], "want") == 0) {
			snprintf(exp, sizeof(exp), "%s", "");
			for (unsigned i = 2; i < nt; i++)
				snprintf(exp + strlen(exp),
				    sizeof(exp) - strlen(exp), "%s%s",
				    i > 2 ? " " : "", tok[i]);
			fib_state(rib, RIB_FIB_WANT, tok[1], buf, sizeof(buf));
			if (strcmp(buf, exp) != 0)
				fail_msg("step %u '%s': want is '%s'", s,
				    steps[s], buf);
		} else if (strcmp(tok[0], "state") == 0) {
			route_state(rib, script_src(rib, tok[1]), tok[2], buf,
			    sizeof(buf));
			if (strcmp(buf, exp) != 0)
				fail_msg("step %u '%s': state is '%s'", s,
				    steps[s], buf);
		} else if (strcmp(tok[0], "stale") == 0) {
			if (rib_source_stale(rib, script_src(rib, tok[1])) < 0)
				fail_msg("step %u failed", s);
		} else if (strcmp(tok[0], "sweep") == 0) {
			if (rib_source_sweep(rib, script_src(rib, tok[1])) < 0)
				fail_msg("step %u failed", s);
		} else
			fail_msg("bad step %u '%s'", s, steps[s]);
	}
}

#endif /* RIB_TEST_H */
