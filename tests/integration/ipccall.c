/* tests/integration/ipccall.c: one call of any method of any tern socket, by
 * name, for the integration tests of who may call what (issue 24): prints
 * the status, the server's message and how long it took. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipc/ipc.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"

static int
usage(void)
{
	fprintf(stderr,
	    "usage: ipccall RUNDIR SERVICE[-ro] METHOD [ARG] [--random N] "
	    "[--timeout MS] [--as NAME]\n"
	    "  SERVICE: rtrmgr, mgmt, rib, fwd, bgp; METHOD: a name of its "
	    "table (restart, resync-begin, ...) or of lifecycle (status, "
	    "shutdown)\n"
	    "  ARG: the component of rtrmgr's requests, the reason of "
	    "shutdown\n"
	    "  --random N: N random bytes as the payload instead\n");
	return (2);
}

struct res {
	bool done;
	int status;
	char err[512];
	char text[1024];
};

static void
done_cb(void *arg, int status, const struct lc_err *err,
    const ProtobufCMessage *msg)
{
	struct res *r = arg;

	r->done = true;
	r->status = status;
	snprintf(r->err, sizeof(r->err), "%s", err->msg);
	if (status != IPC_OK || msg == NULL)
		return;
	if (msg->descriptor == &lifecycle__status__descriptor) {
		const Lifecycle__Status *st = (const void *)msg;
		size_t o;

		o = (size_t)snprintf(r->text, sizeof(r->text),
		    "component %s pid %u state %s", st->component, st->pid,
		    st->state);
		for (size_t i = 0; i < st->n_counters && o < sizeof(r->text);
		     i++)
			o += (size_t)snprintf(r->text + o, sizeof(r->text) - o,
			    " %s=%llu", st->counters[i]->name,
			    (unsigned long long)st->counters[i]->value);
	} else if (msg->descriptor == &rtrmgr__component__descriptor) {
		const Rtrmgr__Component *c = (const void *)msg;

		snprintf(r->text, sizeof(r->text),
		    "component %s state %d pid %u", c->name, c->state, c->pid);
	}
}

static const struct ipc_service_desc *
svc_named(const char *n)
{
	const struct ipc_service_desc *all[] = {&ipc_svc_rtrmgr, &ipc_svc_mgmt,
	    &ipc_svc_rib, &ipc_svc_fwd, &ipc_svc_bgp};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->name, n) == 0)
			return (all[i]);
	return (NULL);
}

static int
method_named(const struct ipc_service_desc *svc, const char *n, unsigned *m)
{
	for (unsigned i = 1; i < svc->n_methods; i++)
		if (svc->methods[i].name != NULL &&
		    strcmp(svc->methods[i].name, n) == 0) {
			*m = i;
			return (0);
		}
	for (unsigned i = 1; i < ipc_svc_lifecycle.n_methods; i++)
		if (ipc_svc_lifecycle.methods[i].name != NULL &&
		    strcmp(ipc_svc_lifecycle.methods[i].name, n) == 0) {
			*m = IPC_LC(i);
			return (0);
		}
	return (-ENOENT);
}

int
main(int argc, char **argv)
{
	struct ipc_opts o = {0};
	const struct ipc_service_desc *svc;
	char name[32], *dash;
	const char *arg = NULL;
	unsigned method, timeout = 5000;
	size_t nrandom = 0;
	uint8_t *payload = NULL;
	bool ro = false;
	struct ev_loop *loop;
	struct ipc_client *cl;
	struct res r = {0};
	uint64_t t0;
	int rv;

	if (argc < 4)
		return (usage());
	o.component = "ipccall";
	for (int i = 5; i <= argc; i++) {
		const char *a = argv[i - 1];

		if (i == 5 && a[0] != '-') {
			arg = a;
		} else if (strcmp(a, "--random") == 0 && i < argc) {
			nrandom = (size_t)atol(argv[i++]);
		} else if (strcmp(a, "--timeout") == 0 && i < argc) {
			timeout = (unsigned)atoi(argv[i++]);
		} else if (strcmp(a, "--as") == 0 && i < argc) {
			o.component = argv[i++];
		} else {
			return (usage());
		}
	}
	snprintf(name, sizeof(name), "%s", argv[2]);
	if ((dash = strstr(name, "-ro")) != NULL && dash[3] == '\0') {
		*dash = '\0';
		ro = true;
	}
	if ((svc = svc_named(name)) == NULL ||
	    method_named(svc, argv[3], &method) != 0)
		return (usage());
	o.rundir = argv[1];
	o.timeout_ms = timeout;
	loop = lc_loop_new();
	if ((cl = ipc_client_new(loop, svc, &o, ro)) == NULL) {
		perror("ipccall: ipc_client_new");
		return (1);
	}
	lc_now_update();
	ev_now_update(loop);
	t0 = lc_time_mono_ns();
	if (nrandom > 0) {
		srandom((unsigned)t0);
		if ((payload = malloc(nrandom)) == NULL)
			return (1);
		for (size_t i = 0; i < nrandom; i++)
			payload[i] = (uint8_t)random();
		rv = ipc_call_raw(cl, method, payload, nrandom, done_cb, &r,
		    timeout);
	} else if (method == IPC_LC(LIFECYCLE__METHOD__SHUTDOWN)) {
		Lifecycle__ShutdownRequest q =
		    LIFECYCLE__SHUTDOWN_REQUEST__INIT;

		q.reason = (char *)(arg != NULL ? arg : "ipccall");
		rv = ipc_call(cl, method, &q.base, done_cb, &r, timeout);
	} else if (svc == &ipc_svc_rtrmgr && arg != NULL) {
		Rtrmgr__ComponentRequest q = RTRMGR__COMPONENT_REQUEST__INIT;

		q.name = (char *)arg;
		rv = ipc_call(cl, method, &q.base, done_cb, &r, timeout);
	} else {
		rv = ipc_call(cl, method, NULL, done_cb, &r, timeout);
	}
	if (rv != 0) {
		fprintf(stderr, "ipccall: %s\n", strerror(-rv));
		return (1);
	}
	while (!r.done)
		ev_run(loop, EVRUN_ONCE);
	printf("%s%s%s%s%s (%llu ms)\n", ipc_status_str(r.status),
	    r.text[0] ? " " : "", r.text, r.err[0] ? ": " : "", r.err,
	    (unsigned long long)((lc_time_mono_ns() - t0) / 1000000));
	ipc_client_free(cl);
	lc_loop_free(loop);
	free(payload);
	return (r.status == IPC_OK ? 0 : 1);
}
