/* fwd/fwd_link.h: link events from the kernel (rtnetlink RTMGRP_LINK, over
 * libmnl): a device that goes up or down, changes its MTU or MAC, is
 * deleted, renamed or created is seen as it happens, not by polling. */
#ifndef FWD_LINK_H
#define FWD_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One RTM_NEWLINK or RTM_DELLINK, pointing into the receive buffer. */
struct fwd_link_ev {
	bool del; /* RTM_DELLINK: the device is gone */
	uint32_t ifindex;
	const char *name;   /* IFLA_IFNAME; NULL when the message has none */
	unsigned flags;	    /* ifi_flags (IFF_UP, IFF_RUNNING, ...) */
	unsigned mtu;	    /* IFLA_MTU; 0 when absent */
	const uint8_t *mac; /* IFLA_ADDRESS when 6 bytes, else NULL */
};

/*
 * The link messages of one datagram of n bytes, each to cb. Anything else
 * (other types, NLMSG_DONE) is skipped; a message that is cut short or whose
 * attributes do not parse ends the walk: -EBADMSG (what was before it was
 * given to cb). 0 otherwise.
 */
int fwd_link_parse(const void *buf, size_t n,
    void (*cb)(const struct fwd_link_ev *, void *), void *arg);

struct fwd_d;

/* Subscribe to the namespace's link events and watch them on d's loop. 0,
 * or -errno (then tern-fwd polls the link state, as a fallback). */
int fwd_link_init(struct fwd_d *);
void fwd_link_fini(struct fwd_d *);

#endif /* FWD_LINK_H */
