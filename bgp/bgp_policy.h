/* bgp/bgp_policy.h: routing policy (issue 21): the policy-options of a
 * BgpConfig compiled into prefix tries, regexes and community sets, and run
 * per route for a neighbour's import or export (docs/bgp.md "Policy"). */
#ifndef BGP_POLICY_H
#define BGP_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc/proto/bgp.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_err.h"

#include "bgp_attr.h"

/*
 * How to call it (the Loc-RIB side, bgp_rib.c / bgp_peer.c):
 *
 *   At a commit, bgp_d.c compiles the new set (d->pol, swapped at apply;
 *   the old one is freed after the swap). A neighbour resolves its names
 *   once per commit:
 *       imp = bgp_policy_find(d->pol, p->c.import);   NULL: none
 *   and a neighbour whose policy changed is the one for which
 *       bgp_policy_changed(old, d->pol, p->c.import)  (or a changed name)
 *   is true: its Adj-RIB-In (kept before policy) is run through the new
 *   import policy again, or its Adj-RIB-Out through the new export
 *   policy. No session is reset.
 *
 *   Per route (a prefix received, or a best path to advertise):
 *       struct bgp_policy_route rt = {.af = BGP_AF_IPV4, .p4 = pfx,
 *           .set = set, .from = learned_from_addr};
 *       struct bgp_policy_peer pp = {p->c.addr, p->c.remote_as, las,
 *           p->codec.ebgp};
 *       struct bgp_aset *out;
 *       int rv = bgp_policy_eval(imp, BGP_POL_IMPORT, &pp, &rt, scr, &out);
 *       if (rv == BGP_POLICY_ACCEPT) { store out (a reference you own;
 *           == set when nothing changed) } else { rejected; rv < 0: an
 *           error (-ENOSPC: the changed attributes do not fit, -ENOMEM),
 *           count it and treat the route as rejected }
 *   imp NULL is RFC 8212's default: an eBGP neighbour's route is
 *   rejected, an iBGP one's accepted unchanged.
 *
 *   scr is the caller's (60 KiB; one per daemon is enough, the loop
 *   is single-threaded). Steady state allocates nothing: a changed route
 *   is built in scr and interned (bgp_intern_get: the same changes to the
 *   same set give the same pointer). Not thread-safe: the set's cache is
 *   written by eval.
 *
 *   Export: the policy's as-path-prepend adds our AS; the one prepend
 *   every eBGP UPDATE needs is still the sender's to do. The well-known
 *   communities' rules (RFC 1997) are not a policy: check
 *   bgp_policy_export_ok() before an export policy runs.
 *
 *   The cache holds references on attribute sets: call
 *   bgp_policy_set_free() (or bgp_policy_set_flush()) before
 *   bgp_intern_free().
 */

struct bgp_policy_set; /* every policy of one configuration */
struct bgp_policy;     /* one policy-statement of a set */

enum bgp_policy_dir {
	BGP_POL_IMPORT, /* as-path-prepend adds the neighbour's AS */
	BGP_POL_EXPORT, /* as-path-prepend adds ours (peer.local_as) */
};

#define BGP_POLICY_REJECT 0
#define BGP_POLICY_ACCEPT 1

/* The neighbour whose import or export policy runs. */
struct bgp_policy_peer {
	uint32_t addr; /* network order */
	uint32_t remote_as;
	uint32_t local_as; /* ours towards it */
	bool ebgp;
};

/* The route a policy looks at. */
struct bgp_policy_route {
	uint8_t af; /* enum bgp_af; prefix lists match IPv4 only yet */
	union {
		struct lc_prefix4 p4;
		struct lc_prefix6 p6;
	};
	struct bgp_aset *set; /* its attributes, interned */
	uint32_t from; /* the neighbour it was learned from (network order),
			* what `from neighbor` matches; 0: none (local) */
};

/* Where a changed route is built: the caller's, never shared by two evals
 * at once. */
#define BGP_POLICY_GROW (4 * 1024) /* what actions may add to a field */
struct bgp_policy_scratch {
	uint8_t canon[BGP_ATTR_CANON_MAX];
	uint8_t aspath[BGP_ATTR_CANON_MAX + BGP_POLICY_GROW];
	uint8_t comm[BGP_ATTR_CANON_MAX + BGP_POLICY_GROW];
	uint8_t large[BGP_ATTR_CANON_MAX + BGP_POLICY_GROW];
};

/*
 * Compiles po (NULL: no policy-options, an empty set) into *out: prefix
 * lists into tries, regexes (regcomp, POSIX extended), community lists,
 * policy-statements whose names are resolved. Sets built by actions are
 * interned in it, the table whose sets eval will see. 0; -EINVAL with err
 * naming the path ("policy-statement IN term t1: prefix-list CUST is not
 * defined"), nothing made; -ENOMEM.
 */
int bgp_policy_set_compile(const Bgp__PolicyOptions *po, struct bgp_intern *it,
    struct bgp_policy_set **out, struct lc_err *err);
/* Frees the set (its cache's references dropped). NULL is a no-op. */
void bgp_policy_set_free(struct bgp_policy_set *);
/* Drops the cache (and the references it holds on attribute sets). */
void bgp_policy_set_flush(struct bgp_policy_set *);

/* The policy-statement called name, or NULL (none, name NULL or ""). O(log
 * n). Valid as long as the set. */
struct bgp_policy *bgp_policy_find(struct bgp_policy_set *, const char *name);
const char *bgp_policy_name(const struct bgp_policy *);

/*
 * true when policy name does not do the same in a and b (either may be
 * NULL: no set): there in one only, or its terms, its default, or what the
 * prefix lists, regexes and community lists it uses hold differ. Term names
 * do not count. false when neither has it.
 */
bool bgp_policy_changed(const struct bgp_policy_set *a,
    const struct bgp_policy_set *b, const char *name);

/*
 * Runs pol (NULL: RFC 8212's default) on rt for peer. BGP_POLICY_ACCEPT with
 * *out a reference the caller owns (rt->set itself when no action changed
 * it, else the changed set, interned); BGP_POLICY_REJECT (*out untouched);
 * -ENOSPC when the changed attributes do not fit, -ENOMEM: the caller
 * counts these as rejected. Conditions see the route as given, never what
 * an earlier term's actions changed.
 */
int bgp_policy_eval(struct bgp_policy *pol, enum bgp_policy_dir dir,
    const struct bgp_policy_peer *peer, const struct bgp_policy_route *rt,
    struct bgp_policy_scratch *scr, struct bgp_aset **out);

/* RFC 1997's well-known communities: false when s may not go to peer
 * (NO_ADVERTISE; NO_EXPORT and NO_EXPORT_SUBCONFED to eBGP). */
bool bgp_policy_export_ok(const struct bgp_aset *s,
    const struct bgp_policy_peer *peer);

struct bgp_policy_stats {
	uint64_t hits, misses; /* of the per (set, condition) cache */
	uint64_t regexec;      /* regexes run (misses of as-path conditions) */
	size_t slots;	       /* the cache's size */
};
void bgp_policy_set_stats(const struct bgp_policy_set *,
    struct bgp_policy_stats *);

#endif /* BGP_POLICY_H */
