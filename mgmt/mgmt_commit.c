/* mgmt/mgmt_commit.c: commit, commit check and commit confirmed: validate, diff, store atomically, then make running. */
#include "mgmt_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_log.h"

/*
 * Milliseconds in a "minute" of commit confirmed. 60000, except when the
 * test hook TERN_MGMT_MINUTE_MS is set (tests cannot wait minutes).
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
mgmt_commit_apply(struct mgmt *m, const struct mgmt_conf *conf,
    bool check_only, char *err, size_t errlen)
{
	struct mgmt_changes chg = { 0 };
	struct mgmt_err merr;
	int rv;

	mgmt_conf_diff(m->running, conf, &chg);
	if ((rv = mgmt_conf_validate_changes(conf, &chg, &merr)) != 0) {
		snprintf(err, errlen, "commit failed: %s", merr.msg);
		mgmt_changes_fini(&chg);
		return (rv);
	}
	if (check_only) {
		mgmt_changes_fini(&chg);
		return (0);
	}
	/*
	 * The components' parts: tern-fwd and tern-rib take their
	 * configuration from mgmt when they start; pushing each commit's
	 * change set to them as one transaction (and rolling the others back
	 * when one refuses) comes with their IPC services (issues 4 and 5).
	 * Until then a commit changes the running config and the disk only.
	 */
	if ((rv = mgmt_store_commit(m->store_dir, conf)) != 0) {
		snprintf(err, errlen, "commit failed: writing %s: %s",
		    m->store_dir, strerror(-rv));
		mgmt_changes_fini(&chg);
		return (rv);
	}
	lc_log_info("commit: %zu change%s", chg.n, chg.n == 1 ? "" : "s");
	mgmt_changes_fini(&chg);
	mgmt_conf_assign(m->running, conf);
	/* A plain commit while a commit confirmed is pending confirms it. */
	mgmt_commit_confirm_cancel(m);
	{
		struct mgmt_system_conf sys;

		mgmt_conf_system_get(m->running, &sys);
		snprintf(m->host_name, sizeof(m->host_name), "%s",
		    sys.host_name[0] != '\0' ? sys.host_name : "tern");
	}
	return (0);
}

static void
confirm_expired(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mgmt *m = w->data;
	struct mgmt_conf *prev = m->confirm_prev;
	char err[512];

	m->confirm_prev = NULL;
	m->confirm_pending = false;
	lc_log_notice("commit confirmed was not confirmed in time: rolling back");
	if (mgmt_commit_apply(m, prev, false, err, sizeof(err)) != 0)
		lc_log_err("rollback after commit confirmed: %s", err);
	mgmt_conf_free(prev);
}

int
mgmt_commit_confirmed(struct mgmt *m, const struct mgmt_conf *conf,
    unsigned minutes, char *err, size_t errlen)
{
	struct mgmt_conf *prev = mgmt_conf_dup(m->running);
	int rv;

	if ((rv = mgmt_commit_apply(m, conf, false, err, errlen)) != 0) {
		mgmt_conf_free(prev);
		return (rv);
	}
	/* mgmt_commit_apply cancelled any earlier pending confirm */
	m->confirm_prev = prev;
	m->confirm_pending = true;
	ev_timer_init(&m->confirm_timer, confirm_expired,
	    minute_s() * minutes, 0.);
	m->confirm_timer.data = m;
	ev_timer_start(m->loop, &m->confirm_timer);
	return (0);
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
