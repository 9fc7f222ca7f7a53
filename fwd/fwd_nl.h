/* fwd/fwd_nl.h: the few rtnetlink requests the host path makes (links and
 * IPv4 addresses), over libmnl; control thread only, blocking, one request
 * at a time (the kernel answers these at once). */
#ifndef FWD_NL_H
#define FWD_NL_H

#include <stdbool.h>
#include <stdint.h>

struct fwd_nl;

/* A NETLINK_ROUTE socket in the caller's network namespace. NULL and
 * errno. */
struct fwd_nl *fwd_nl_new(void);
void fwd_nl_free(struct fwd_nl *);

/*
 * Set what is given of link ifindex: mac (6 bytes, NULL: unchanged), mtu
 * (0: unchanged), alias (IFLA_IFALIAS; NULL: unchanged), administratively
 * up or down. 0 or -errno (the kernel's answer).
 */
int fwd_nl_link_set(struct fwd_nl *, uint32_t ifindex, const uint8_t *mac,
    unsigned mtu, const char *alias, bool up);
/* Delete link ifindex. 0 or -errno (-ENODEV: not there). */
int fwd_nl_link_del(struct fwd_nl *, uint32_t ifindex);

/* One link of a dump: alias and kind are "" when the link has none. */
struct fwd_nl_link {
	uint32_t ifindex;
	const char *name, *alias, *kind;
};
/* cb for every link of the namespace; a non-zero return stops the walk and
 * is returned. 0 or -errno. */
int fwd_nl_link_walk(struct fwd_nl *,
    int (*cb)(const struct fwd_nl_link *, void *), void *arg);

/*
 * Make link ifindex's IPv4 addresses exactly addr[i]/plen[i] (host order,
 * n of them, at most 64): addresses it has and n does not list are
 * deleted, missing ones added (with the subnet's broadcast when plen <=
 * 30). *added and *deleted (may be NULL) count the changes. 0, or the
 * first -errno (the rest is still tried).
 */
int fwd_nl_addr_sync(struct fwd_nl *, uint32_t ifindex, const uint32_t *addr,
    const uint8_t *plen, unsigned n, unsigned *added, unsigned *deleted);

#endif /* FWD_NL_H */
