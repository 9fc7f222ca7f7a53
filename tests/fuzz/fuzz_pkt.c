/* tests/fuzz/fuzz_pkt.c: libFuzzer harness: arbitrary frames through the
 * parser, the fast path (small FIB, in-memory ports) and the slow path (ARP,
 * ICMP, fragmentation). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fwd/fwd_dp.h"
#include "fwd/fwd_slow.h"

static const uint8_t mac[3][6] = {
    {0x02, 0, 0, 0, 0, 0x10},
    {0x02, 0, 0, 0, 0, 0x11},
    {0x02, 0, 0, 0, 0, 0x12},
};

static struct fwd_fib *fib;
static struct fwd_adj_tbl *adj;
static struct fwd_local local;
static struct fwd_port *port[3];
static struct fwd_dp dp;
static struct fwd_arp *arp;
static struct fwd_icmp icmp;
static struct fwd_slow slow;
static struct fwd_out out;
static uint64_t now_ms;

static bool
punt(void *arg, struct fwd_pkt *p, enum fwd_reason why, unsigned aux)
{
	uint8_t copy[FWD_FRAME_MAX];
	unsigned len = p->len;
	uint16_t in = p->port;

	(void)arg;
	memcpy(copy, p->data, len);
	fwd_pkt_release(&p, 1);
	(void)fwd_slow_input(&slow, in, why, aux, copy, len, now_ms, &out);
	if (out.n > FWD_OUT_MAX / 2)
		(void)fwd_out_send(&out, port, 3);
	return (true);
}

static void
init(void)
{
	struct fwd_fib_conf fc = {.max_nh = 64, .flags = FWD_FIB_F_MARTIAN};
	struct fwd_arp_conf ac = {.max_neigh = 64, .queue_len = 2};
	struct fwd_icmp_conf ic = {.rate = 1000, .burst = 1000};
	struct fwd_dp_conf dc;
	uint16_t grp[2] = {1, 3};

	fib = fwd_fib_new(&fc);
	adj = fwd_adj_tbl_new(64, 2);
	for (unsigned i = 0; i < 3; i++) {
		struct fwd_port_mem_conf pc = {.id = (uint16_t)i,
		    .nbufs = 64,
		    .capture = 8,
		    .mtu = i == 2 ? 576 : 1500};

		memcpy(pc.mac, mac[i], 6);
		port[i] = fwd_port_mem_new(&pc);
		fwd_adj_port_set(adj, (uint16_t)i, mac[i], pc.mtu, true);
		/* what Record Route options get (port 2: none) */
		if (i < 2)
			fwd_adj_port_addr_set(adj, (uint16_t)i,
			    htonl(0xc6120101u + 0x900 * i));
	}
	for (int i = 0; i < 9; i++)
		(void)fwd_adj_alloc(adj);
	fwd_adj_set_nh(adj, 1, 1, 0xc6120afe, mac[0]); /* resolved */
	fwd_adj_set_nh(adj, 2, 2, 0xc6120bfe, NULL);   /* unresolved */
	fwd_adj_set_nh(adj, 3, 2, 0xc6120cfe, mac[1]); /* small MTU */
	fwd_adj_set_glean(adj, 4, 1);
	fwd_adj_set_drop(adj, 5);
	fwd_adj_set_local(adj, 6);
	fwd_adj_set_group(adj, 7, grp, 2);
	fwd_adj_set_reject(adj, 8);
	fwd_fib_add(fib, 0, 0, 1);	     /* default */
	fwd_fib_add(fib, 0xc6130000, 16, 2); /* 198.19/16 */
	fwd_fib_add(fib, 0xc6120c00, 24, 3);
	fwd_fib_add(fib, 0xc6120a00, 24, 4); /* connected */
	fwd_fib_add(fib, 0xc6120d00, 24, 5);
	fwd_fib_add(fib, 0xc6120e01, 32, 6);
	fwd_fib_add(fib, 0xc6120f00, 25, 7);
	fwd_fib_add(fib, 0xc6121000, 24, 8); /* reject */
	fwd_local_bind(&local, fib, 6);
	ac.local = &local;
	ac.fib = fib;
	arp = fwd_arp_new(&ac, adj);
	fwd_icmp_init(&icmp, &ic);
	fwd_arp_addr_add(arp, 0, 0xc6120101, 24, 0, NULL);
	fwd_arp_addr_add(arp, 1, 0xc6120a01, 24, 0, NULL);
	slow.arp = arp;
	slow.icmp = &icmp;
	slow.adj = adj;
	memset(&dc, 0, sizeof(dc));
	dc.fib = fib;
	dc.adj = adj;
	dc.local = &local;
	dc.ports = port;
	dc.nports = 3;
	dc.punt = punt;
	fwd_dp_init(&dp, &dc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool done;
	/* the frame on a 4n+2 boundary, as ports deliver them */
	static uint8_t buf[FWD_FRAME_MAX + 8] __attribute__((aligned(8)));
	uint8_t *f = buf + 2, o[FWD_FRAME_MAX];
	struct fwd_pkt_meta m;
	enum fwd_reason r;
	unsigned len, ctl, in;
	uint32_t dst;
	unsigned iplen;
	int n;

	if (!done) {
		init();
		done = true;
	}
	if (size < 1)
		return (0);
	ctl = data[0];
	data++;
	size--;
	len = size > FWD_FRAME_MAX ? FWD_FRAME_MAX : (unsigned)size;
	memcpy(f, data, len);
	in = ctl % 3;
	/* Steer some inputs past the outer checks to reach deeper code. */
	if ((ctl & 0x10) && len >= 14) {
		memcpy(f, mac[in], 6);
		f[12] = 0x08;
		f[13] = (ctl & 0x40) ? 0x06 : 0x00;
	}
	if ((ctl & 0x20) && len >= 34 && (f[14] >> 4) == 4 &&
	    (f[14] & 0xf) >= 5 && (f[14] & 0xf) * 4u + 14 <= len)
		fwd_ipv4_cksum_set(f + 14, (f[14] & 0xf) * 4u);

	/* The quick test never accepts what the full parse rejects (but for
	 * a martian destination, which it leaves to the FIB). */
	r = fwd_pkt_parse(f, len, mac[in], &m);
	if (fwd_pkt_fast_ok(f, len, fwd_ld64(port[in]->mac), &dst, &iplen)) {
		if ((r != FWD_R_OK && r != FWD_R_MARTIAN) || dst != m.dst ||
		    iplen != m.ip_len || m.ip[FWD_IP_TTL] <= 1)
			abort();
	}

	now_ms += 10;
	dp.conf.flags = (ctl & 0x80) ? FWD_DP_F_BURST_LOOKUP : 0;
	if (fwd_port_mem_inject(port[in], f, len) == 0) {
		uint64_t fwd0 = dp.st.fwd;

		(void)fwd_dp_poll(&dp, port[in]);
		if (dp.st.fwd > fwd0 && r != FWD_R_OK)
			abort(); /* forwarded a malformed frame */
	}
	/* What came out is well formed. */
	for (unsigned p = 0; p < 3; p++)
		while ((n = fwd_port_mem_take(port[p], o, sizeof(o))) > 0) {
			if (n >= 34 && o[12] == 0x08 && o[13] == 0x00 &&
			    (o[14] & 0xf) >= 5 && (o[14] & 0xf) * 4 + 14 <= n &&
			    !fwd_ipv4_cksum_ok(o + 14, (o[14] & 0xf) * 4u))
				abort();
		}
	if ((now_ms % 1000) == 0)
		(void)fwd_arp_tick(arp, now_ms, &icmp, &out);
	(void)fwd_out_send(&out, port, 3);
	for (unsigned p = 0; p < 3; p++)
		if (fwd_port_mem_inuse(port[p]) != 0)
			abort(); /* a buffer leaked */
	return (0);
}
