/* mgmt/mgmt_commit.c: the end of a commit (store atomically, make running) and commit confirmed's timer. */
#include "mgmt_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_log.h"

/*
 * Seconds in a "minute" of commit confirmed: 60, unless the test hook
 * TERN_MGMT_MINUTE_MS is set (tests cannot wait minutes).
 */
static double
minute_s(void)
{
	const char *s = getenv("TERN_MGMT_MINUTE_MS");
	long v;

	if (s != NULL && (v = strtol(s, NULL, 10)) > 0)
		return ((double)v / 1000.0);
	return (60.0);
}

int
mgmt_commit_local(struct mgmt *m, const struct mgmt_conf *conf, char *err,
    size_t errlen)
{
	struct mgmt_system_conf sys;
	int rv;

	if ((rv = mgmt_store_commit(m->store_dir, conf)) != 0) {
		snprintf(err, errlen, "commit failed: writing %s: %s",
		    m->store_dir, strerror(-rv));
		return (rv);
	}
	mgmt_conf_assign(m->running, conf);
	/* A plain commit while a commit confirmed is pending confirms it. */
	mgmt_commit_confirm_cancel(m);
	mgmt_conf_system_get(m->running, &sys);
	snprintf(m->host_name, sizeof(m->host_name), "%s",
	    sys.host_name[0] != '\0' ? sys.host_name : "tern");
	lc_log_info("commit: stored as commit 0 of %d",
	    mgmt_store_count(m->store_dir));
	return (0);
}

static void confirm_expired(struct ev_loop *, ev_timer *, int);

static void
rollback_done(void *arg, int rv, const char *err)
{
	struct mgmt *m = arg;

	if (rv == -EBUSY) {
		/* a commit is in flight: try again shortly */
		ev_timer_set(&m->confirm_timer, 1., 0.);
		ev_timer_start(m->loop, &m->confirm_timer);
		m->confirm_pending = true;
		return;
	}
	if (rv != 0)
		lc_log_err("rollback after commit confirmed: %s", err);
	else
		lc_log_notice("commit confirmed: rolled back");
	mgmt_conf_free(m->confirm_prev);
	m->confirm_prev = NULL;
}

static void
confirm_expired(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mgmt *m = w->data;

	m->confirm_pending = false;
	lc_log_notice("commit confirmed was not confirmed in time: rolling back");
	mgmt_commit_start(m, m->confirm_prev, false, rollback_done, m);
}

void
mgmt_commit_confirm_arm(struct mgmt *m, struct mgmt_conf *prev,
    unsigned minutes)
{
	mgmt_commit_confirm_cancel(m);
	m->confirm_prev = prev;
	m->confirm_pending = true;
	ev_timer_init(&m->confirm_timer, confirm_expired,
	    minute_s() * minutes, 0.);
	m->confirm_timer.data = m;
	ev_timer_start(m->loop, &m->confirm_timer);
}

void
mgmt_commit_confirm_cancel(struct mgmt *m)
{
	if (!m->confirm_pending)
		return;
	ev_timer_stop(m->loop, &m->confirm_timer);
	m->confirm_pending = false;
	mgmt_conf_free(m->confirm_prev);
	m->confirm_prev = NULL;
	lc_log_info("commit confirmed: confirmed");
}

void
mgmt_commit_fini(struct mgmt *m)
{
	if (m->confirm_pending) {
		ev_timer_stop(m->loop, &m->confirm_timer);
		m->confirm_pending = false;
	}
	if (m->confirm_prev != NULL) {
		mgmt_conf_free(m->confirm_prev);
		m->confirm_prev = NULL;
	}
}
