/* tests/lib/netns.h: from C tests and benchmarks, enter and leave the network namespaces that tests/lib/netns.sh makes (/run/netns/NAME). */
#ifndef TT_NETNS_H
#define TT_NETNS_H

/* Enters namespace name. Returns an fd of the namespace left (for
 * tt_netns_leave, or close it to stay), or -1 with errno set and nothing
 * changed. */
int tt_netns_enter(const char *name);

/* Back to the namespace of fd (from tt_netns_enter), which is closed either
 * way. 0, or -1 with errno set. */
int tt_netns_leave(int fd);

#endif
