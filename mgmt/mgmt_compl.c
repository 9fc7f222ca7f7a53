/* mgmt/mgmt_compl.c: values that complete operational commands from live data: configured interfaces and prefixes, tern-rtrmgr's components, the shell's pipe stages. */
#include "mgmt_int.h"

#include <stdio.h>
#include <string.h>

#include "ipc/ipc.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_addr.h"

#define COMPL_TIMEOUT_MS 2000

int
mgmt_compl_add(struct mgmt_cand *out, unsigned max, int k, const char *word,
    const char *help, bool hint)
{
	if ((unsigned)k >= max)
		return (k);
	for (int i = 0; i < k; i++)
		if (strcmp(out[i].word, word) == 0)
			return (k);
	snprintf(out[k].word, sizeof(out[k].word), "%s", word);
	out[k].help = help;
	out[k].hint = hint;
	return (k + 1);
}

/* A walk over configured entries adding those that start with partial. */
struct compl_walk {
	const char *partial;
	struct mgmt_cand *out;
	unsigned max;
	int k;
};

static bool
starts(const char *w, const char *p)
{
	return (strncmp(w, p, strlen(p)) == 0);
}

static int
iface_cb(const struct mgmt_node *node, void *arg)
{
	struct compl_walk *cw = arg;
	const char *name = mgmt_node_value(node);

	if (starts(name, cw->partial))
		cw->k = mgmt_compl_add(cw->out, cw->max, cw->k, name,
		    "configured interface", false);
	return ((unsigned)cw->k >= cw->max);
}

int
mgmt_compl_ifaces(const struct mgmt_conf *conf, const char *partial,
    struct mgmt_cand *out, unsigned max, int k)
{
	struct compl_walk cw = {partial, out, max, k};

	if (conf != NULL)
		(void)mgmt_conf_foreach(conf, MGMT_S_IFACE, iface_cb, &cw);
	return (cw.k);
}

static int
subnet_cb(const struct mgmt_node *node, void *arg)
{
	struct compl_walk *cw = arg;
	struct mgmt_iface_conf c;

	if (mgmt_conf_iface_get(node, &c) != 0)
		return (0);
	for (unsigned i = 0; i < c.naddr; i++) {
		const char *p = lc_prefix4_ntoa(&c.addr[i]);

		if (starts(p, cw->partial))
			cw->k = mgmt_compl_add(cw->out, cw->max, cw->k, p,
			    "connected subnet", false);
	}
	for (unsigned i = 0; i < c.naddr6; i++) {
		const char *p = lc_prefix6_ntoa(&c.addr6[i]);

		if (starts(p, cw->partial))
			cw->k = mgmt_compl_add(cw->out, cw->max, cw->k, p,
			    "connected IPv6 subnet", false);
	}
	return ((unsigned)cw->k >= cw->max);
}

static int
route_cb(const struct mgmt_node *node, void *arg)
{
	struct compl_walk *cw = arg;
	const char *p = mgmt_node_value(node);

	if (starts(p, cw->partial))
		cw->k = mgmt_compl_add(cw->out, cw->max, cw->k, p,
		    "static route", false);
	return ((unsigned)cw->k >= cw->max);
}

int
mgmt_compl_prefixes(const struct mgmt_conf *conf, const char *partial,
    struct mgmt_cand *out, unsigned max, int k)
{
	struct compl_walk cw = {partial, out, max, k};

	if (conf == NULL)
		return (k);
	/* the walks stop when out is full: a 1M-route config costs no more
	 * than the candidates it gives */
	(void)mgmt_conf_foreach(conf, MGMT_S_IFACE, subnet_cb, &cw);
	(void)mgmt_conf_foreach(conf, MGMT_S_ROUTE, route_cb, &cw);
	return (cw.k);
}

/* ---- tern-rtrmgr's components ------------------------------------------------ */

static void
comps_reply(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct mgmt *m = arg;
	const Rtrmgr__ComponentList *l = (const Rtrmgr__ComponentList *)msg;

	(void)ierr;
	if (status != IPC_OK || l == NULL)
		return; /* keep what we knew */
	m->ncomps = 0;
	for (size_t i = 0; i < l->n_components && m->ncomps < MGMT_COMPS_MAX;
	     i++)
		if (l->components[i]->name != NULL &&
		    l->components[i]->name[0] != '\0')
			snprintf(m->comps[m->ncomps++], sizeof(m->comps[0]),
			    "%s", l->components[i]->name);
}

void
mgmt_compl_comps_refresh(struct mgmt *m)
{
	struct ipc_client *cl = mgmt_peer_client(m, MGMT_PEER_RTRMGR);

	if (cl != NULL && ipc_client_connected(cl))
		(void)ipc_call(cl, RTRMGR__METHOD__LIST, NULL, comps_reply, m,
		    COMPL_TIMEOUT_MS);
}

void
mgmt_compl_rtrmgr_connected(struct ipc_client *cl, uint64_t gen, void *arg)
{
	(void)cl;
	(void)gen;
	mgmt_compl_comps_refresh(arg);
}

int
mgmt_compl_comps(struct mgmt *m, const char *partial, struct mgmt_cand *out,
    unsigned max, int k)
{
	for (unsigned i = 0; i < m->ncomps; i++)
		if (starts(m->comps[i], partial))
			k = mgmt_compl_add(out, max, k, m->comps[i],
			    "tern component (tern-rtrmgr's)", false);
	/* components come and go with rtrmgr's config: ask again, for the
	 * next time */
	mgmt_compl_comps_refresh(m);
	return (k);
}

/* ---- pipes ------------------------------------------------------------------- */

int
mgmt_compl_pipe(bool config_show, bool first, const char *const *w, unsigned nw,
    const char *partial, struct mgmt_cand *out, unsigned max, int k)
{
	static const struct {
		const char *word, *help;
		bool config; /* show configuration's, right after the command */
	} stages[] = {
	    {"match", "keep the lines that match a regular expression", false},
	    {"except", "drop the lines that match a regular expression", false},
	    {"count", "count the lines instead of showing them", false},
	    {"json", "the answer in JSON", false},
	    {"no-more", "do not page the output", false},
	    {"compare", "the changes against running", true},
	    {"display", "display set: the configuration as set commands", true},
	};

	if (nw == 0) {
		for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
			if ((!stages[i].config || (config_show && first)) &&
			    starts(stages[i].word, partial))
				k = mgmt_compl_add(out, max, k, stages[i].word,
				    stages[i].help, false);
		return (k);
	}
	if (nw == 1 &&
	    (strcmp(w[0], "match") == 0 || strcmp(w[0], "except") == 0) &&
	    partial[0] == '\0')
		return (mgmt_compl_add(out, max, k, "REGEX",
		    "a POSIX extended regular expression (quote one with blanks)",
		    true));
	if (nw == 1 && strcmp(w[0], "display") == 0 && config_show && first &&
	    starts("set", partial))
		return (mgmt_compl_add(out, max, k, "set",
		    "the configuration as set commands", false));
	return (k);
}
