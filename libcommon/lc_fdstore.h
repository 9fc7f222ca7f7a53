/* libcommon/lc_fdstore.h: file descriptors that outlive the process that made
 * them: a component hands named fds (memfds of its state, its sockets) to
 * tern-rtrmgr, which keeps them and gives them to the component's next
 * instance (docs/rtrmgr.md, "State that outlives a component"). */
#ifndef LC_FDSTORE_H
#define LC_FDSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lc_err.h"

/*
 * The channel is an AF_UNIX SOCK_SEQPACKET socket, one record a message,
 * ASCII text, at most LC_FDSTORE_MSG_MAX bytes, an fd (SCM_RIGHTS) on the
 * records that carry one:
 *   component -> store:  "put NAME" + fd   keep fd as NAME (replacing one)
 *                        "del NAME"        forget NAME (closed)
 *                        "clear"           forget every one
 *   store -> component:  "fd NAME" + fd    at the start, one each, then
 *                        "end N"           N = how many were sent
 *                        "ok" | "err TEXT" the answer to each put/del/clear,
 *                                          in order
 * NAME: 1..LC_FDSTORE_NAME_MAX-1 of [A-Za-z0-9._-]. The component finds
 * its end in the environment: TERN_STATE_FD=N.
 */
#define LC_FDSTORE_NAME_MAX 64 /* with the NUL */
#define LC_FDSTORE_MAX	    64 /* fds kept for one component */
#define LC_FDSTORE_MSG_MAX  128
#define LC_FDSTORE_ENV	    "TERN_STATE_FD"

enum lc_fdstore_op {
	LC_FDS_PUT = 1,
	LC_FDS_DEL,
	LC_FDS_CLEAR,
	LC_FDS_FD,
	LC_FDS_END,
	LC_FDS_OK,
	LC_FDS_ERR,
};

/* Is name a valid NAME? */
bool lc_fdstore_name_ok(const char *name);

/*
 * Parses one record of len bytes (no NUL needed): 0 with *op, and name
 * (PUT, DEL, FD), *n (END) or text (ERR, into name, truncated); -EINVAL with
 * err saying what is wrong. name has LC_FDSTORE_NAME_MAX bytes.
 */
int lc_fdstore_parse(const char *msg, size_t len, enum lc_fdstore_op *op,
    char *name, unsigned *n, struct lc_err *err);

/* Sends one record, with fd (-1: none). 0 or -errno (-EMSGSIZE when too
 * long). The fd stays the caller's. */
int lc_fdstore_send(int sock, const char *msg, int fd);

/*
 * Receives one record into buf (len >= LC_FDSTORE_MSG_MAX): its length, 0
 * at EOF, -errno (-EAGAIN on a non-blocking socket with none). *fd: the fd
 * it carried, the caller's now, or -1; *extra true when it carried more
 * than one or was cut short (the others are closed here, the record should
 * be refused).
 */
ssize_t lc_fdstore_recv(int sock, char *buf, size_t len, int *fd, bool *extra);

/* The component's side. */
struct lc_fdstore {
	int sock; /* -1: not run with a store */
	unsigned n;
	struct {
		char name[LC_FDSTORE_NAME_MAX];
		int fd; /* -1 once taken */
	} ent[LC_FDSTORE_MAX];
};

/*
 * Opens the channel named by TERN_STATE_FD and receives what the store
 * hands over (until "end", within timeout_ms). 0; -ENOENT when the process
 * was not started with a store (s->sock is -1 then, and the other calls
 * return -ENOTCONN); -errno with err otherwise (nothing kept).
 */
int lc_fdstore_open(struct lc_fdstore *, unsigned timeout_ms,
    struct lc_err *err);
/* The fd handed over as name, now the caller's; -ENOENT if none. */
int lc_fdstore_take(struct lc_fdstore *, const char *name);
/*
 * Asks the store to keep fd as name (a duplicate of it: fd stays the
 * caller's) and waits for its answer (at most 2 s). 0, or -errno with err
 * (the store's refusal in its words).
 */
int lc_fdstore_put(struct lc_fdstore *, const char *name, int fd,
    struct lc_err *err);
int lc_fdstore_del(struct lc_fdstore *, const char *name, struct lc_err *err);
int lc_fdstore_clear(struct lc_fdstore *, struct lc_err *err);
/* Closes the fds not taken and the channel (the store keeps what it has). */
void lc_fdstore_close(struct lc_fdstore *);

#endif /* LC_FDSTORE_H */
