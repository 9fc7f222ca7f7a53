/* tests/unit/fwd/test_afp_forward.c: the whole packet path on real veths:
 * client -> fwd (AF_PACKET ports, fast path, ARP, ICMP) -> server, with ping
 * (root only; skipped otherwise). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "fwd/fwd_dp.h"
#include "fwd/fwd_slow.h"
#include "tests/unit/fwd/fwd_test_frames.h"
#include "fwd_test_netns.h"

#define PUNTQ 64

struct router {
	struct fwd_fib *fib;
	struct fwd_adj_tbl *adj;
	struct fwd_local local;
	struct fwd_port *port[2];
	struct fwd_dp dp;
	struct fwd_arp *arp;
	struct fwd_icmp icmp;
	struct fwd_slow slow;
	struct fwd_out out;
	/* punted packets, copied: handled after each poll on this thread */
	unsigned npunt;
	uint8_t pq[PUNTQ][FWD_FRAME_MAX];
	uint16_t pqlen[PUNTQ], pqin[PUNTQ];
	uint8_t pqwhy[PUNTQ];
	unsigned pqaux[PUNTQ];
	volatile int stop;
	pthread_t thr;
};

static struct router *R;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}

static bool
punt(void *arg, struct fwd_pkt *p, enum fwd_reason why, unsigned aux)
{
	struct router *r = arg;
	unsigned k;

	if (r->npunt == PUNTQ)
		return (false);
	k = r->npunt++;
	memcpy(r->pq[k], p->data, p->len);
	r->pqlen[k] = p->len;
	r->pqin[k] = p->port;
	r->pqwhy[k] = (uint8_t)why;
	r->pqaux[k] = aux;
	fwd_pkt_release(&p, 1);
	return (true);
}

/* One thread does it all here; tern-fwd splits workers and control. */
static void *
router_main(void *arg)
{
	struct router *r = arg;
	uint64_t last_tick = 0;

	while (!r->stop) {
		unsigned n = 0;
		uint64_t t = now_ms();

		for (int i = 0; i < 2; i++)
			n += fwd_dp_poll(&r->dp, r->port[i]);
		for (unsigned k = 0; k < r->npunt; k++) {
			(void)fwd_slow_input(&r->slow, r->pqin[k], r->pqwhy[k],
			    r->pqaux[k], r->pq[k], r->pqlen[k], t, &r->out);
			if (r->out.n > FWD_OUT_MAX - 8)
				fwd_out_send(&r->out, r->port, 2);
		}
		r->npunt = 0;
		if (t - last_tick >= 100) {
			fwd_arp_tick(r->arp, t, &r->icmp, &r->out);
			last_tick = t;
		}
		if (r->out.n > 0)
			fwd_out_send(&r->out, r->port, 2);
		if (n == 0)
			usleep(200);
	}
	return (NULL);
}

static int
setup(void **st)
{
	struct fwd_fib_conf fc = {.max_nh = 256, .flags = FWD_FIB_F_MARTIAN};
	struct fwd_arp_conf ac = {0};
	struct fwd_icmp_conf ic = {.rate = 1000, .burst = 100};
	struct fwd_dp_conf dc;
	struct router *r;

	(void)st;
	if (geteuid() != 0 || system("ping -V >/dev/null 2>&1") != 0) {
		fprintf(stderr,
		    "test_afp_forward: not root or no ping, "
		    "skipping\n");
		return (0);
	}
	if (tn_create('f') != 0)
		return (0);
	assert_int_equal(enter_ns(ns_router), 0);
	R = r = calloc(1, sizeof(*r));
	assert_non_null(r);
	r->fib = fwd_fib_new(&fc);
	r->adj = fwd_adj_tbl_new(256, 0);
	assert_non_null(r->fib);
	assert_non_null(r->adj);
	for (int i = 0; i < 2; i++) {
		struct fwd_port_afp_conf pc = {.ifname = i ? "rs0" : "rc0",
		    .id = (uint16_t)i,
		    .ring_frames = 256};

		r->port[i] = fwd_port_afp_new(&pc);
		assert_non_null(r->port[i]);
		assert_int_equal(fwd_adj_port_set(r->adj, (uint16_t)i,
				     r->port[i]->mac, r->port[i]->mtu, true),
		    0);
	}
	/* adj 0..9 for "the RIB"; connected subnets glean */
	for (int i = 0; i < 10; i++)
		assert_int_equal(fwd_adj_alloc(r->adj), i);
	assert_int_equal(fwd_adj_set_glean(r->adj, 1, 0), 0);
	assert_int_equal(fwd_adj_set_glean(r->adj, 2, 1), 0);
	assert_int_equal(fwd_fib_add(r->fib, TF_IP(1, 0), 24, 1), 0);
	assert_int_equal(fwd_fib_add(r->fib, TF_IP(2, 0), 24, 2), 0);
	assert_int_equal(fwd_adj_set_local(r->adj, 3), 0);
	assert_int_equal(fwd_local_bind(&r->local, r->fib, 3), 0);
	ac.local = &r->local;
	ac.fib = r->fib;
	r->arp = fwd_arp_new(&ac, r->adj);
	assert_non_null(r->arp);
	assert_int_equal(fwd_icmp_init(&r->icmp, &ic), 0);
	assert_int_equal(fwd_arp_addr_add(r->arp, 0, TF_IP(1, 1), 24, 0,
			     &r->out),
	    0);
	assert_int_equal(fwd_arp_addr_add(r->arp, 1, TF_IP(2, 1), 24, 0,
			     &r->out),
	    0);
	r->slow.arp = r->arp;
	r->slow.icmp = &r->icmp;
	r->slow.adj = r->adj;
	memset(&dc, 0, sizeof(dc));
	dc.fib = r->fib;
	dc.adj = r->adj;
	dc.local = &r->local;
	dc.ports = r->port;
	dc.nports = 2;
	dc.punt = punt;
	dc.punt_arg = r;
	assert_int_equal(fwd_dp_init(&r->dp, &dc), 0);
	assert_int_equal(pthread_create(&r->thr, NULL, router_main, r), 0);
	assert_int_equal(enter_ns(NULL), 0);
	return (0);
}

static int
teardown(void **st)
{

	(void)st;
	if (R != NULL) {
		R->stop = 1;
		pthread_join(R->thr, NULL);
		fwd_dp_fini(&R->dp);
		fwd_arp_free(R->arp);
		fwd_port_free(R->port[0]);
		fwd_port_free(R->port[1]);
		fwd_adj_tbl_free(R->adj);
		fwd_fib_free(R->fib);
		free(R);
		R = NULL;
	}
	tn_destroy();
	return (0);
}

#define SKIP_UNLESS_NS()                            \
	do {                                        \
		if (suffix[0] == '\0' || R == NULL) \
			skip();                     \
	} while (0)

/* Run a command in the client namespace; returns its exit status and
 * (optionally) whether its output contains want. */
static int
client(const char *args, const char *want, bool *found)
{
	char cmd[512], line[512];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout 20 ip netns exec %s %s 2>&1",
	    ns_client, args);
	if ((p = popen(cmd, "r")) == NULL)
		return (-1);
	if (found != NULL)
		*found = false;
	while (fgets(line, sizeof(line), p) != NULL)
		if (want != NULL && strstr(line, want) != NULL && found != NULL)
			*found = true;
	st = pclose(p);
	return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void
dump(void)
{
	const struct fwd_arp_stats *a = fwd_arp_stats(R->arp);

	fprintf(stderr, "dp rx %lu fwd %lu punt_refused %lu\n",
	    (unsigned long)R->dp.st.rx, (unsigned long)R->dp.st.fwd,
	    (unsigned long)R->dp.st.punt_refused);
	for (unsigned i = 1; i < FWD_R__COUNT; i++)
		if (R->dp.st.reason[i])
			fprintf(stderr, "  %s %lu\n", fwd_reason_str(i),
			    (unsigned long)R->dp.st.reason[i]);
	fprintf(stderr,
	    "arp rx %lu bad %lu rep %lu req %lu res %lu q %lu "
	    "rel %lu qd %lu; icmp echo %lu err %lu rl %lu sup %lu bad %lu "
	    "frags %lu; out overflow %lu\n",
	    (unsigned long)a->rx, (unsigned long)a->rx_bad,
	    (unsigned long)a->replies_sent, (unsigned long)a->requests_sent,
	    (unsigned long)a->resolved, (unsigned long)a->queued,
	    (unsigned long)a->released, (unsigned long)a->queue_drops,
	    (unsigned long)R->icmp.st.echo_replies,
	    (unsigned long)R->icmp.st.errors_sent,
	    (unsigned long)R->icmp.st.rate_limited,
	    (unsigned long)R->icmp.st.suppressed, (unsigned long)R->icmp.st.bad,
	    (unsigned long)R->icmp.st.frags_sent,
	    (unsigned long)R->out.overflow);
}

static void
test_ping_through(void **st)
{
	struct fwd_neigh_info ni;

	(void)st;
	SKIP_UNLESS_NS();
	/* host to host through fwd (ARP both sides, glean host routes) */
	if (client("ping -c 3 -i 0.2 -W 2 198.18.2.2", NULL, NULL) != 0 ||
	    getenv("FWD_TEST_DUMP") != NULL)
		dump();
	assert_int_equal(client("ping -c 3 -i 0.2 -W 2 198.18.2.2", NULL, NULL),
	    0);
	assert_true(R->dp.st.fwd >= 6);
	assert_int_equal(fwd_arp_get(R->arp, 1, TF_IP(2, 2), &ni), 0);
	assert_int_equal(ni.state, FWD_NEIGH_REACHABLE);
	assert_int_equal(fwd_arp_get(R->arp, 0, TF_IP(1, 2), &ni), 0);
	assert_true(fwd_fib_lookup(R->fib, TF_IP(2, 2)) >= 10);
}

static void
test_ping_router(void **st)
{
	(void)st;
	SKIP_UNLESS_NS();
	assert_int_equal(client("ping -c 2 -i 0.2 -W 2 198.18.1.1", NULL, NULL),
	    0);
	/* the router's far address, a TTL-1 ping to it included */
	assert_int_equal(client("ping -c 2 -i 0.2 -W 2 -t 1 198.18.2.1", NULL,
			     NULL),
	    0);
	assert_true(R->icmp.st.echo_replies >= 4);
}

static void
test_icmp_errors(void **st)
{
	bool found;
	uint64_t ttl0 = R != NULL ? R->dp.st.reason[FWD_R_TTL] : 0;

	(void)st;
	SKIP_UNLESS_NS();
	assert_int_not_equal(client("ping -c 1 -W 2 -t 1 198.18.2.2",
				 "Time to live exceeded", &found),
	    0);
	assert_true(found);
	assert_int_equal(R->dp.st.reason[FWD_R_TTL], ttl0 + 1);
	assert_int_not_equal(client("ping -c 1 -W 2 198.19.5.5", "Unreachable",
				 &found),
	    0);
	assert_true(found);
	/* DF over the egress MTU: frag-needed with the MTU; no DF: fragmented
	 */
	assert_int_equal(fwd_adj_port_set(R->adj, 1, R->port[1]->mac, 1000,
			     true),
	    0);
	/* (no DF first: after a frag-needed the client would fragment) */
	assert_int_equal(client("ping -c 2 -i 0.2 -W 2 -M dont -s 1200 "
				"198.18.2.2",
			     NULL, NULL),
	    0);
	assert_true(R->icmp.st.frags_sent >= 4);
	assert_int_not_equal(client("ping -c 1 -W 2 -M do -s 1200 198.18.2.2",
				 "mtu = 1000", &found),
	    0);
	assert_true(found);
	assert_int_equal(fwd_adj_port_set(R->adj, 1, R->port[1]->mac, 1500,
			     true),
	    0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ping_through),
	    cmocka_unit_test(test_ping_router),
	    cmocka_unit_test(test_icmp_errors),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
