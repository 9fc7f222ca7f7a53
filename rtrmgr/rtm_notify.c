/* rtrmgr/rtm_notify.c: tern-rtrmgr under systemd (Type=notify): READY=1 once
 * every component answers, STATUS= lines, RELOADING=1 around a reload,
 * STOPPING=1, and WATCHDOG=1 from the supervisor's own event loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "libcommon/lc_log.h"
#include "rtm_int.h"

struct rtm_notify {
	struct rtm *rtm;
	struct ev_loop *loop;
	bool ready;    /* READY=1 sent since the start or the last reload */
	bool stopping; /* STOPPING=1 sent */
	char status[256];
	ev_timer wd; /* WATCHDOG=1 every half of WATCHDOG_USEC */
};

static void
sd_send(struct rtm_notify *n, const char *state)
{
	int rv;

	if ((rv = sd_notify(0, state)) < 0)
		lc_log_warnx("sd_notify: %s", strerror(-rv));
}

static void
set_status(struct rtm_notify *n, const char *status, const char *also)
{
	char msg[384];

	if (also == NULL && strcmp(status, n->status) == 0)
		return;
	snprintf(n->status, sizeof(n->status), "%s", status);
	snprintf(msg, sizeof(msg), "%s%sSTATUS=%s", also ? also : "",
	    also ? "\n" : "", status);
	sd_send(n, msg);
}

static void
on_change(struct rtm *rtm, void *arg)
{
	struct rtm_notify *n = arg;
	char status[256];
	enum rtm_overall ov = rtm_overall(rtm, status, sizeof(status));

	if (ov == RTM_OV_STOPPING && !n->stopping) {
		n->stopping = true;
		set_status(n, status, "STOPPING=1");
	} else if (ov == RTM_OV_UP && !n->ready && !n->stopping) {
		n->ready = true;
		lc_log_info("ready: %s", status);
		set_status(n, status, "READY=1");
	} else {
		set_status(n, status, NULL);
	}
}

static void
wd_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	/* From the loop that runs the health checks and reaps the
	 * components: when it is stuck, this stops and systemd kills us. */
	sd_send(w->data, "WATCHDOG=1");
}

struct rtm_notify *
rtm_notify_new(struct rtm *rtm, struct ev_loop *loop)
{
	struct rtm_notify *n;
	uint64_t usec = 0;
	int rv;

	errno = 0;
	if (getenv("NOTIFY_SOCKET") == NULL)
		return (NULL); /* not under systemd's notify: as before */
	if ((n = calloc(1, sizeof(*n))) == NULL)
		return (NULL);
	n->rtm = rtm;
	n->loop = loop;
	ev_init(&n->wd, wd_cb);
	n->wd.data = n;
	if ((rv = sd_watchdog_enabled(0, &usec)) < 0)
		lc_log_warnx("watchdog: %s (WATCHDOG_USEC, WATCHDOG_PID): not "
			     "pinging",
		    strerror(-rv));
	if (rv > 0 && usec > 0) {
		double half = (double)usec / 2e6;

		ev_timer_set(&n->wd, half, half);
		ev_timer_start(loop, &n->wd);
		ev_unref(loop); /* never keeps ev_run alive by itself */
		lc_log_info("systemd watchdog: %.3f s, pinging every %.3f s",
		    (double)usec / 1e6, half);
		sd_send(n, "WATCHDOG=1");
	}
	rtm_set_change_cb(rtm, on_change, n);
	on_change(rtm, n);
	return (n);
}

void
rtm_notify_reloading(struct rtm_notify *n, const char *path)
{
	struct timespec ts;
	char msg[128], status[256];

	if (n == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* MONOTONIC_USEC: what systemd 253's Type=notify-reload wants */
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)ts.tv_sec * 1000000ULL +
		(unsigned long long)ts.tv_nsec / 1000);
	snprintf(status, sizeof(status), "Reloading %s", path);
	n->ready = false;
	set_status(n, status, msg);
}

void
rtm_notify_reloaded(struct rtm_notify *n, const struct lc_err *err)
{
	char status[256];

	if (n == NULL)
		return;
	if (err != NULL && err->code != 0) {
		/* Nothing changed: ready as before (when it was), saying why. */
		snprintf(status, sizeof(status),
		    "Reload refused, running as before: %.200s", err->msg);
		if (rtm_overall(n->rtm, NULL, 0) == RTM_OV_UP) {
			n->ready = true;
			set_status(n, status, "READY=1");
		} else {
			set_status(n, status, NULL);
		}
		return;
	}
	on_change(n->rtm, n); /* READY=1 once the added ones answer */
}

void
rtm_notify_free(struct rtm_notify *n)
{
	if (n == NULL)
		return;
	rtm_set_change_cb(n->rtm, NULL, NULL);
	if (ev_is_active(&n->wd)) {
		ev_ref(n->loop);
		ev_timer_stop(n->loop, &n->wd);
	}
	free(n);
}
