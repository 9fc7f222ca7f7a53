/* mgmt/mgmt_int.h: tern-mgmt's private state shared by its files. */
#ifndef MGMT_INT_H
#define MGMT_INT_H

#include "mgmt/mgmt.h"
#include "mgmt/mgmt_conf.h"

#include <sys/queue.h>

struct ipc_server;
struct ipc_peer;

struct mgmt_session {
	LIST_ENTRY(mgmt_session) link;
	uint64_t		 id;
	char			 user[32];
	bool			 read_only;
	bool			 configure;	/* in configuration mode */
	struct mgmt_conf	*candidate;	/* in configure mode */
	struct ipc_peer		*peer;		/* the shell's connection, or NULL */
};

struct mgmt {
	struct ev_loop		*loop;
	struct ipc_server	*server;
	struct mgmt_opts	 opts;
	char			 store_dir[4096];
	struct mgmt_conf	*running;
	LIST_HEAD(, mgmt_session) sessions;
	uint64_t		 next_session;
	struct mgmt_session	*lock;		/* the session in configure mode */
	/* commit confirmed: rolled back when the timer fires */
	ev_timer		 confirm_timer;
	bool			 confirm_pending;
	struct mgmt_conf	*confirm_prev;	/* what to go back to */
	char			 host_name[64];
};

/* mgmt_commit.c: makes conf running (validate, diff, push to components,
 * store). 0, or -EINVAL/-EIO with err set; running unchanged on error. */
int	mgmt_commit_apply(struct mgmt *, const struct mgmt_conf *conf,
	    bool check_only, char *err, size_t errlen);
int	mgmt_commit_confirmed(struct mgmt *, const struct mgmt_conf *conf,
	    unsigned minutes, char *err, size_t errlen);
void	mgmt_commit_confirm_cancel(struct mgmt *);
void	mgmt_commit_fini(struct mgmt *);

#endif
