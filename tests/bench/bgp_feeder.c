/* tests/bench/bgp_feeder.c: bgp-feeder, bench-bgp's BGP speaker: sends the standard prefix set with a few thousand attribute sets (tests/lib/bgpfeed.h) as UPDATEs encoded before the session starts, as fast as the receiver reads, then End-of-RIB; keeps the session up, counts what the receiver sends, and on demand re-announces prefixes with a changed next hop at a fixed rate (churn), logging when each was sent. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bgp/bgp_msg.h"
#include "libcommon/lc_time.h"
#include "tests/lib/bgpfeed.h"

/*
 * Why it is built this way: the figure measured is the receiver's, so the
 * feeder must cost as little as possible and never be the bottleneck. All
 * UPDATEs are encoded into one buffer before connecting, then written with
 * large write()s (256 KiB) straight from it; a KEEPALIVE or churn UPDATE
 * waits for the end of the message being written. One thread, poll().
 */

#define WRITE_MAX (256 * 1024)
#define RX_BUF	  (64 * 1024)
#define CTL_BUF	  (512 * 1024)

enum fstate {
	F_READY,
	F_CONNECT,
	F_OPENSENT,
	F_OPENCONFIRM,
	F_ESTABLISHED,
	F_CLOSED,
};
static const char *const fstate_names[] = {"ready", "connecting", "opensent",
    "openconfirm", "established", "closed"};

static struct {
	/* options */
	struct sockaddr_in peer, local, listen_on;
	bool do_listen, have_local, wait_go, gr, quiet;
	uint32_t as, peer_as, id, nexthop, churn_nh;
	unsigned hold, churn_rate, connect_s;
	uint64_t churn_count, churn_seed;
	double duration;
	const char *status_path, *churn_path;
	struct tt_feed_conf fc;
	/* the session */
	struct tt_feed f;
	int fd, lfd;
	enum fstate st;
	struct bgp_open lopen, popen;
	struct bgp_codec codec;
	unsigned hold_neg;
	uint64_t t_last_rx, t_last_ka;
	/* a session lost before Established starts again until then (the
	 * receiver may accept before it knows us: tern-bgp before mgmt's
	 * config reaches it) */
	uint64_t connect_deadline;
	jmp_buf again;
	int again_why; /* setjmp's: 1 before Established, 2 after */
	unsigned attempts;
	bool reconnect;	   /* --reconnect: a lost session starts again */
	unsigned sessions; /* Established so far */
	uint64_t t_lost;   /* the last Established session lost */
	/* sending: the table, then the small messages of ctl */
	size_t off, boundary; /* bytes of the table written; a message
			       * boundary <= off */
	bool table_done, eor_done;
	uint8_t *ctl;
	size_t ctl_len, ctl_off;
	/* receiving */
	uint8_t rx[RX_BUF];
	size_t rlen;
	uint8_t scratch[BGP_ASPATH_SCRATCH];
	/* times (CLOCK_MONOTONIC ns) and counters for the status file */
	uint64_t t_start, t_established, t_go, t_first, t_sent, t_eor, t_rx_eor,
	    t_rx_last, t_churn;
	uint64_t bytes_sent, rx_msgs, rx_updates, rx_prefixes, rx_withdrawn,
	    rx_rr, churn_sent;
	bool rx_eor;
	char error[256];
	/* churn */
	struct bgp_upd_builder b;
	struct tt_rng crng;
	uint8_t *nh_alt; /* a bit per prefix: sent with churn_nh now */
	FILE *clog;
	bool churning;
	uint64_t churn_base; /* churn_sent when this spell began */
	uint64_t status_at;
	bool status_dirty;
} F;

static volatile sig_atomic_t sig_go, sig_churn, sig_stop;

static void
on_signal(int s)
{
	if (s == SIGUSR1)
		sig_go = 1;
	else if (s == SIGUSR2)
		sig_churn = 1;
	else
		sig_stop = 1;
}

static void
ip_str(uint32_t host, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", host >> 24, (host >> 16) & 255,
	    (host >> 8) & 255, host & 255);
}

/* The status file, rewritten whole (renamed into place) so that the bench
 * never reads half of one. */
static void
status_write(void)
{
	char tmp[4096], a[16];
	FILE *s;

	F.status_dirty = false;
	F.status_at = lc_time_mono_ns();
	if (F.status_path == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", F.status_path);
	if ((s = fopen(tmp, "w")) == NULL)
		return;
	ip_str(ntohl(F.popen.id.s_addr), a);
	fprintf(s,
	    "state %s\npid %d\nprefixes %zu\nupdates %zu\ntable_bytes %zu\n"
	    "t_start %llu\nt_established %llu\nt_go %llu\nt_first %llu\n"
	    "t_sent %llu\nt_eor %llu\nbytes_sent %llu\npeer_as %u\n"
	    "peer_id %s\nhold %u\nrx_msgs %llu\nrx_updates %llu\n"
	    "rx_prefixes %llu\nrx_withdrawn %llu\nrx_route_refresh %llu\n"
	    "rx_eor %d\nt_rx_eor %llu\nt_rx_last %llu\nchurn_sent %llu\n"
	    "t_churn %llu\nsessions %u\nt_lost %llu\nerror %s\n",
	    fstate_names[F.st], (int)getpid(), F.f.ps.n, F.f.nmsgs, F.f.len,
	    (unsigned long long)F.t_start, (unsigned long long)F.t_established,
	    (unsigned long long)F.t_go, (unsigned long long)F.t_first,
	    (unsigned long long)F.t_sent, (unsigned long long)F.t_eor,
	    (unsigned long long)F.bytes_sent, F.popen.as, a, F.hold_neg,
	    (unsigned long long)F.rx_msgs, (unsigned long long)F.rx_updates,
	    (unsigned long long)F.rx_prefixes,
	    (unsigned long long)F.rx_withdrawn, (unsigned long long)F.rx_rr,
	    F.rx_eor ? 1 : 0, (unsigned long long)F.t_rx_eor,
	    (unsigned long long)F.t_rx_last, (unsigned long long)F.churn_sent,
	    (unsigned long long)F.t_churn, F.sessions,
	    (unsigned long long)F.t_lost, F.error[0] ? F.error : "-");
	if (fclose(s) == 0)
		(void)rename(tmp, F.status_path);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(F.error, sizeof(F.error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "bgp-feeder: %s\n", F.error);
	F.st = F_CLOSED;
	status_write();
	exit(1);
}

/* The session ended: before Established and the connect deadline, try
 * again from the start (longjmp to main's loop: every caller is below it
 * and holds nothing that would leak); else fail. */
static void lost(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
lost(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(F.error, sizeof(F.error), fmt, ap);
	va_end(ap);
	if (F.st == F_ESTABLISHED && F.reconnect) {
		/* --reconnect: a new session, the whole table again */
		F.t_lost = lc_time_mono_ns();
		F.connect_deadline = F.t_lost +
		    (uint64_t)F.connect_s * 1000000000;
		F.st = F_CONNECT;
		longjmp(F.again, 2);
	}
	if (F.st < F_ESTABLISHED && lc_time_mono_ns() < F.connect_deadline)
		longjmp(F.again, 1);
	fail("%s", F.error);
}

static void
state(enum fstate s)
{
	F.st = s;
	status_write();
}

/* ---- sending ---------------------------------------------------------------------- */

static void
ctl_put(const uint8_t *msg, size_t len)
{
	if (F.ctl_off > 0 && F.ctl_off == F.ctl_len)
		F.ctl_off = F.ctl_len = 0;
	if (F.ctl_len + len > CTL_BUF) {
		/* compact; the rest waits in the socket's buffer */
		memmove(F.ctl, F.ctl + F.ctl_off, F.ctl_len - F.ctl_off);
		F.ctl_len -= F.ctl_off;
		F.ctl_off = 0;
		if (F.ctl_len + len > CTL_BUF)
			fail("the receiver reads nothing: %zu bytes queued",
			    F.ctl_len);
	}
	memcpy(F.ctl + F.ctl_len, msg, len);
	F.ctl_len += len;
}

static void
send_keepalive(void)
{
	uint8_t m[BGP_HDR_LEN];

	(void)bgp_keepalive_encode(m, sizeof(m));
	ctl_put(m, sizeof(m));
	F.t_last_ka = lc_time_mono_ns();
}

static void
send_notification(uint8_t code, uint8_t sub)
{
	uint8_t m[64];
	int n = bgp_notification_encode(m, sizeof(m), code, sub, NULL, 0);

	/* best effort, blocking for a moment: the session ends anyway */
	if (n > 0 && F.fd >= 0) {
		int fl = fcntl(F.fd, F_GETFL);

		(void)fcntl(F.fd, F_SETFL, fl & ~O_NONBLOCK);
		(void)write(F.fd, m, (size_t)n);
	}
}

/* Writes what may go now: ctl's messages at a boundary of the table's,
 * else the table (when table_ok, or to finish a message begun) up to the
 * end of the message being written when ctl has something waiting. false
 * when the socket is full. */
static bool
flush(bool table_ok)
{
	ssize_t n;

	for (;;) {
		bool mid = F.off != F.boundary;
		size_t want;
		const uint8_t *p;

		if (!F.table_done && F.off < F.f.len &&
		    (mid || (table_ok && F.ctl_off == F.ctl_len))) {
			/* the table; up to the end of the current message
			 * when ctl waits */
			want = F.f.len - F.off;
			if (F.ctl_off != F.ctl_len)
				want = F.boundary +
				    bgp_get16(F.f.msgs + F.boundary + 16) -
				    F.off;
			if (want > WRITE_MAX)
				want = WRITE_MAX;
			p = F.f.msgs + F.off;
			if (F.t_first == 0)
				F.t_first = lc_time_mono_ns();
			if ((n = write(F.fd, p, want)) < 0)
				break;
			F.off += (size_t)n;
			F.bytes_sent += (uint64_t)n;
			while (F.boundary < F.off &&
			    F.boundary +
				    bgp_get16(F.f.msgs + F.boundary + 16) <=
				F.off)
				F.boundary += bgp_get16(
				    F.f.msgs + F.boundary + 16);
			if (F.off == F.f.len) {
				F.table_done = true;
				F.t_sent = lc_time_mono_ns();
				F.status_dirty = true;
			}
			continue;
		}
		if (F.ctl_off == F.ctl_len)
			return (true);
		if ((n = write(F.fd, F.ctl + F.ctl_off,
			 F.ctl_len - F.ctl_off)) < 0)
			break;
		F.ctl_off += (size_t)n;
		F.bytes_sent += (uint64_t)n;
	}
	if (errno == EAGAIN || errno == EINTR)
		return (false);
	lost("write: %s", strerror(errno));
	return (false);
}

/* ---- the session ---------------------------------------------------------------------- */

static void
send_open(void)
{
	uint8_t m[BGP_MAX_LEN];
	int n;

	memset(&F.lopen, 0, sizeof(F.lopen));
	F.lopen.version = BGP_VERSION;
	F.lopen.as = F.as;
	F.lopen.hold = (uint16_t)F.hold;
	F.lopen.id.s_addr = htonl(F.id);
	F.lopen.caps = BGP_OPEN_F_MP | BGP_OPEN_F_RR | BGP_OPEN_F_AS4;
	F.lopen.mp = BGP_AF_BIT(BGP_AF_IPV4);
	if (F.gr) {
		F.lopen.caps |= BGP_OPEN_F_GR;
		F.lopen.gr_time = 120;
		F.lopen.gr_afs = BGP_AF_BIT(BGP_AF_IPV4);
	}
	if ((n = bgp_open_encode(m, sizeof(m), &F.lopen)) < 0)
		fail("OPEN: %s", strerror(-n));
	ctl_put(m, (size_t)n);
	state(F_OPENSENT);
}

static void
established(void)
{
	bgp_codec_init(&F.codec, &F.lopen, &F.popen, F.fc.ebgp);
	if (!(F.codec.afs & BGP_AF_BIT(BGP_AF_IPV4)))
		fail("the receiver does not do IPv4 unicast");
	/* encoded for a 4-octet session: a 2-octet one takes AS4_PATH */
	if (!F.codec.as4) {
		int rv;

		if (!F.quiet)
			fprintf(stderr,
			    "bgp-feeder: 2-octet session: the table "
			    "is encoded again\n");
		if ((rv = tt_feed_encode(&F.f, &F.codec)) != 0)
			fail("encode: %s", strerror(-rv));
	}
	bgp_upd_init(&F.b, &F.codec, BGP_AF_IPV4);
	F.hold_neg = bgp_open_hold(&F.lopen, &F.popen);
	F.error[0] = '\0'; /* what the retries said */
	F.t_established = lc_time_mono_ns();
	F.sessions++;
	state(F_ESTABLISHED);
	if (!F.quiet)
		fprintf(stderr, "bgp-feeder: Established with AS %u, hold %u\n",
		    F.popen.as, F.hold_neg);
}

static void
rx_update(const uint8_t *m, size_t len)
{
	struct bgp_update u;
	struct bgp_err err;
	struct lc_prefix4 p;

	F.rx_updates++;
	F.t_rx_last = lc_time_mono_ns();
	if (bgp_update_parse(m, len, &F.codec, F.scratch, &u, &err) != 0) {
		uint8_t n[BGP_MAX_LEN];
		int k = bgp_err_encode(n, sizeof(n), &err);

		if (k > 0)
			ctl_put(n, (size_t)k);
		(void)flush(false);
		fail("UPDATE from the receiver refused: %s", err.reason);
	}
	if (u.eor == BGP_AF_IPV4 && !F.rx_eor) {
		F.rx_eor = true;
		F.t_rx_eor = F.t_rx_last;
	}
	for (unsigned i = 0; i < u.n_unreach; i++) {
		struct bgp_nlri_iter it;

		bgp_nlri_iter_init(&it, &u.unreach[i]);
		while (bgp_nlri_next4(&it, &p) == 1)
			F.rx_withdrawn++;
	}
	for (unsigned i = 0; i < u.n_reach; i++) {
		struct bgp_nlri_iter it;

		bgp_nlri_iter_init(&it, &u.reach[i]);
		while (bgp_nlri_next4(&it, &p) == 1)
			F.rx_prefixes++;
	}
}

static void
rx_msg(uint8_t type, const uint8_t *m, size_t len)
{
	struct bgp_notification n;
	struct bgp_err err;
	int sub;

	F.rx_msgs++;
	F.t_last_rx = lc_time_mono_ns();
	F.status_dirty = true;
	switch (type) {
	case BGP_OPEN:
		if (F.st != F_OPENSENT)
			fail("OPEN in state %s", fstate_names[F.st]);
		if (bgp_open_parse(m, len, &F.popen, &err) != 0) {
			uint8_t b[BGP_MAX_LEN];
			int k = bgp_err_encode(b, sizeof(b), &err);

			if (k > 0)
				ctl_put(b, (size_t)k);
			(void)flush(false);
			fail("OPEN refused: %s", err.reason);
		}
		if (F.peer_as != 0 &&
		    (sub = bgp_open_check_as(&F.popen, F.peer_as)) != 0) {
			send_notification(BGP_ERR_OPEN, (uint8_t)sub);
			fail("the receiver is AS %u, not %u", F.popen.as,
			    F.peer_as);
		}
		send_keepalive();
		state(F_OPENCONFIRM);
		break;
	case BGP_KEEPALIVE:
		if (F.st == F_OPENCONFIRM)
			established();
		break;
	case BGP_UPDATE:
		if (F.st != F_ESTABLISHED)
			fail("UPDATE in state %s", fstate_names[F.st]);
		rx_update(m, len);
		break;
	case BGP_NOTIFICATION:
		(void)bgp_notification_parse(m, len, &n);
		lost("received NOTIFICATION %u/%u (%s: %s)", n.code, n.subcode,
		    bgp_err_code_str(n.code),
		    bgp_err_subcode_str(n.code, n.subcode));
		break;
	case BGP_ROUTE_REFRESH:
		/* counted only: the bench never asks for a refresh */
		F.rx_rr++;
		break;
	}
}

static void
do_read(void)
{
	ssize_t n;

	while ((n = read(F.fd, F.rx + F.rlen, sizeof(F.rx) - F.rlen)) > 0) {
		size_t o = 0;

		F.rlen += (size_t)n;
		for (;;) {
			struct bgp_err err;
			uint8_t type;
			int len = bgp_msg_check_hdr(F.rx + o, F.rlen - o, &type,
			    &err);

			if (len == -EAGAIN)
				break;
			if (len < 0) {
				uint8_t b[BGP_MAX_LEN];
				int k = bgp_err_encode(b, sizeof(b), &err);

				if (k > 0)
					ctl_put(b, (size_t)k);
				(void)flush(false);
				fail("bad message header: %s", err.reason);
			}
			if (F.rlen - o < (size_t)len)
				break;
			rx_msg(type, F.rx + o, (size_t)len);
			o += (size_t)len;
		}
		memmove(F.rx, F.rx + o, F.rlen - o);
		F.rlen -= o;
	}
	if (n == 0)
		lost("the receiver closed the connection");
	if (errno != EAGAIN && errno != EINTR)
		lost("read: %s", strerror(errno));
}

/* ---- churn ------------------------------------------------------------------------------ */

/* Queues the churn UPDATEs due by now (rate per second since t_churn). */
static void
churn_tick(uint64_t now)
{
	uint64_t due = F.churn_base +
	    (now - F.t_churn) / 1000 * F.churn_rate / 1000000;
	char a[16], h[16];

	if (F.churn_count > 0 && due > F.churn_count)
		due = F.churn_count;
	while (F.churn_sent < due && F.ctl_len - F.ctl_off < CTL_BUF / 2) {
		size_t i = tt_rng_below(&F.crng, F.f.ps.n);
		bool alt = !(F.nh_alt[i / 8] & (1u << (i % 8)));
		uint32_t nh = alt ? F.churn_nh : F.nexthop;
		const uint8_t *m;
		int len = tt_feed_one(&F.f, &F.b, i, nh, &m);

		if (len <= 0)
			fail("churn UPDATE: %s", strerror(-len));
		ctl_put(m, (size_t)len);
		F.nh_alt[i / 8] ^= (uint8_t)(1u << (i % 8));
		F.churn_sent++;
		if (F.clog != NULL) {
			ip_str(F.f.ps.p[i].addr, a);
			ip_str(nh, h);
			fprintf(F.clog, "%llu %s/%u %s\n",
			    (unsigned long long)now, a, F.f.ps.p[i].len, h);
		}
	}
	if (F.clog != NULL)
		fflush(F.clog);
	F.status_dirty = true;
	if (F.churn_count > 0 && F.churn_sent >= F.churn_count) {
		F.churning = false;
		F.status_dirty = true;
	}
}

/* ---- setup ---------------------------------------------------------------------------------- */

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bgp-feeder (--connect A[:PORT] [--local A] | --listen "
	    "A[:PORT])\n"
	    "    --as N --peer-as N [--id A] [--next-hop A] [--hold S] [--gr]\n"
	    "    [--count N] [--seed S] [--sets N] [--attr-seed S]\n"
	    "    [--peers P --index K] [--status FILE] [--wait-go]\n"
	    "    [--churn RATE [--churn-nexthop A] [--churn-count N] "
	    "[--churn-log FILE] [--churn-seed S]]\n"
	    "    [--duration S] [--connect-timeout S] [--reconnect] "
	    "[--quiet]\n"
	    "Sends the table once Established (after SIGUSR1 with "
	    "--wait-go), then End-of-RIB;\nSIGUSR2 starts and stops the churn; SIGTERM "
	    "ends the session with a Cease.\n");
	exit(2);
}

static void
parse_addr(const char *s, struct sockaddr_in *sa, uint16_t port)
{
	char buf[64], *c;

	snprintf(buf, sizeof(buf), "%s", s);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if ((c = strchr(buf, ':')) != NULL) {
		*c = '\0';
		sa->sin_port = htons((uint16_t)atoi(c + 1));
	}
	if (inet_pton(AF_INET, buf, &sa->sin_addr) != 1) {
		fprintf(stderr, "bgp-feeder: bad address %s\n", s);
		exit(2);
	}
}

static uint32_t
parse_ip(const char *s)
{
	struct sockaddr_in sa;

	parse_addr(s, &sa, 0);
	return (ntohl(sa.sin_addr.s_addr));
}

static void
options(int argc, char **argv)
{
	enum {
		O_CONNECT = 256,
		O_LOCAL,
		O_LISTEN,
		O_AS,
		O_PEER_AS,
		O_ID,
		O_NH,
		O_HOLD,
		O_GR,
		O_COUNT,
		O_SEED,
		O_SETS,
		O_ASEED,
		O_PEERS,
		O_INDEX,
		O_STATUS,
		O_GO,
		O_CHURN,
		O_CNH,
		O_CCOUNT,
		O_CLOG,
		O_CSEED,
		O_DUR,
		O_CTMO,
		O_QUIET,
		O_RECONNECT,
	};
	static const struct option lo[] = {{"connect", 1, NULL, O_CONNECT},
	    {"local", 1, NULL, O_LOCAL}, {"listen", 1, NULL, O_LISTEN},
	    {"as", 1, NULL, O_AS}, {"peer-as", 1, NULL, O_PEER_AS},
	    {"id", 1, NULL, O_ID}, {"next-hop", 1, NULL, O_NH},
	    {"hold", 1, NULL, O_HOLD}, {"gr", 0, NULL, O_GR},
	    {"count", 1, NULL, O_COUNT}, {"seed", 1, NULL, O_SEED},
	    {"sets", 1, NULL, O_SETS}, {"attr-seed", 1, NULL, O_ASEED},
	    {"peers", 1, NULL, O_PEERS}, {"index", 1, NULL, O_INDEX},
	    {"status", 1, NULL, O_STATUS}, {"wait-go", 0, NULL, O_GO},
	    {"churn", 1, NULL, O_CHURN}, {"churn-nexthop", 1, NULL, O_CNH},
	    {"churn-count", 1, NULL, O_CCOUNT}, {"churn-log", 1, NULL, O_CLOG},
	    {"churn-seed", 1, NULL, O_CSEED}, {"duration", 1, NULL, O_DUR},
	    {"connect-timeout", 1, NULL, O_CTMO}, {"quiet", 0, NULL, O_QUIET},
	    {"reconnect", 0, NULL, O_RECONNECT}, {"help", 0, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	bool have_peer = false;
	int o;

	F.hold = 90;
	F.connect_s = 60;
	F.churn_seed = 42;
	F.fc.n = TT_PFX_FULL;
	F.fc.seed = TT_PFX_SEED;
	F.fc.nsets = TT_FEED_SETS;
	F.fc.attr_seed = TT_FEED_SEED;
	F.fc.peers = 1;
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case O_CONNECT:
			parse_addr(optarg, &F.peer, BGP_PORT);
			have_peer = true;
			break;
		case O_LOCAL:
			parse_addr(optarg, &F.local, 0);
			F.have_local = true;
			break;
		case O_LISTEN:
			parse_addr(optarg, &F.listen_on, BGP_PORT);
			F.do_listen = true;
			break;
		case O_AS:
			F.as = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case O_PEER_AS:
			F.peer_as = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case O_ID:
			F.id = parse_ip(optarg);
			break;
		case O_NH:
			F.nexthop = parse_ip(optarg);
			break;
		case O_HOLD:
			F.hold = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_GR:
			F.gr = true;
			break;
		case O_COUNT:
			F.fc.n = strtoul(optarg, NULL, 10);
			break;
		case O_SEED:
			F.fc.seed = strtoull(optarg, NULL, 0);
			break;
		case O_SETS:
			F.fc.nsets = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_ASEED:
			F.fc.attr_seed = strtoull(optarg, NULL, 0);
			break;
		case O_PEERS:
			F.fc.peers = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_INDEX:
			F.fc.index = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_STATUS:
			F.status_path = optarg;
			break;
		case O_GO:
			F.wait_go = true;
			break;
		case O_CHURN:
			F.churn_rate = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_CNH:
			F.churn_nh = parse_ip(optarg);
			break;
		case O_CCOUNT:
			F.churn_count = strtoull(optarg, NULL, 10);
			break;
		case O_CLOG:
			F.churn_path = optarg;
			break;
		case O_CSEED:
			F.churn_seed = strtoull(optarg, NULL, 0);
			break;
		case O_DUR:
			F.duration = strtod(optarg, NULL);
			break;
		case O_CTMO:
			F.connect_s = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_QUIET:
			F.quiet = true;
			break;
		case O_RECONNECT:
			F.reconnect = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || have_peer == F.do_listen || F.as == 0 ||
	    F.peer_as == 0 || F.hold == 1 || F.hold == 2 || F.hold > 65535)
		usage();
	if (F.id == 0)
		F.id = F.have_local ? ntohl(F.local.sin_addr.s_addr) :
		    F.do_listen	    ? ntohl(F.listen_on.sin_addr.s_addr) :
				      0;
	F.fc.as = F.as;
	F.fc.ebgp = F.as != F.peer_as;
}

/* Connects (retrying while the receiver is not listening yet) or accepts
 * one connection; the socket non-blocking. */
static void
open_session(void)
{
	uint64_t end = F.connect_deadline;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1, fd;

	state(F_CONNECT);
	if (F.do_listen) {
		struct pollfd pf;

		if ((F.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) <
			0 ||
		    setsockopt(F.lfd, SOL_SOCKET, SO_REUSEADDR, &one,
			sizeof(one)) != 0 ||
		    bind(F.lfd, (struct sockaddr *)&F.listen_on,
			sizeof(F.listen_on)) != 0 ||
		    listen(F.lfd, 4) != 0)
			fail("listen: %s", strerror(errno));
		pf.fd = F.lfd;
		pf.events = POLLIN;
		while ((fd = poll(&pf, 1, 100)) <= 0) {
			if (sig_stop || lc_time_mono_ns() > end)
				fail("nobody connected in %u s", F.connect_s);
		}
		if ((fd = accept4(F.lfd, (struct sockaddr *)&sa, &sl,
			 SOCK_CLOEXEC)) < 0)
			fail("accept: %s", strerror(errno));
		close(F.lfd);
		F.lfd = -1;
	} else {
		for (;;) {
			if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC,
				 0)) < 0)
				fail("socket: %s", strerror(errno));
			if (F.have_local &&
			    bind(fd, (struct sockaddr *)&F.local,
				sizeof(F.local)) != 0)
				fail("bind: %s", strerror(errno));
			if (connect(fd, (struct sockaddr *)&F.peer,
				sizeof(F.peer)) == 0)
				break;
			close(fd);
			if (sig_stop || lc_time_mono_ns() > end)
				fail("connect: %s (for %u s)", strerror(errno),
				    F.connect_s);
			usleep(100000);
		}
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sl = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0) {
		if (F.id == 0)
			F.id = ntohl(sa.sin_addr.s_addr);
		if (F.nexthop == 0)
			F.nexthop = ntohl(sa.sin_addr.s_addr);
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	F.fd = fd;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	struct bgp_codec assumed;
	int rv;

	F.fd = F.lfd = -1;
	F.t_start = lc_time_mono_ns();
	options(argc, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((F.ctl = malloc(CTL_BUF)) == NULL)
		fail("out of memory");
	/* the next hop must be known before encoding: the local address
	 * given, else the one of the socket (the table is encoded again) */
	if (F.nexthop == 0 && F.have_local)
		F.nexthop = ntohl(F.local.sin_addr.s_addr);
	if (F.nexthop == 0 && F.do_listen && F.listen_on.sin_addr.s_addr != 0)
		F.nexthop = ntohl(F.listen_on.sin_addr.s_addr);
	F.fc.nexthop = F.nexthop;
	if ((rv = tt_feed_init(&F.f, &F.fc)) != 0)
		fail("prefix set of %zu: %s", F.fc.n, strerror(-rv));
	assumed = (struct bgp_codec){true, F.fc.ebgp, BGP_AF_BIT(BGP_AF_IPV4),
	    0};
	if (F.nexthop != 0 && (rv = tt_feed_encode(&F.f, &assumed)) != 0)
		fail("encode: %s", strerror(-rv));
	if (F.churn_rate > 0) {
		if ((F.nh_alt = calloc((F.f.ps.n + 7) / 8, 1)) == NULL)
			fail("out of memory");
		tt_rng_seed(&F.crng, F.churn_seed);
		if (F.churn_path != NULL &&
		    (F.clog = fopen(F.churn_path, "w")) == NULL)
			fail("%s: %s", F.churn_path, strerror(errno));
	}
	state(F_READY);
	F.connect_deadline = lc_time_mono_ns() +
	    (uint64_t)F.connect_s * 1000000000;
	if ((F.again_why = setjmp(F.again)) != 0) {
		/* lost before Established (or after, with --reconnect):
		 * F.error says why */
		if (!F.quiet && (F.again_why == 2 || F.attempts++ < 3))
			fprintf(stderr, "bgp-feeder: %s: again\n", F.error);
		if (F.fd >= 0)
			close(F.fd);
		F.fd = -1;
		F.rlen = F.ctl_len = F.ctl_off = 0;
		F.off = F.boundary = 0;
		F.table_done = F.eor_done = F.rx_eor = false;
		F.t_first = F.t_sent = F.t_eor = F.t_rx_eor = 0;
		F.hold_neg = 0;
		memset(&F.popen, 0, sizeof(F.popen));
		status_write();
		usleep(F.again_why == 2 ? 20000 : 200000);
	}
	open_session();
	if (F.fc.nexthop == 0) {
		F.fc.nexthop = F.f.c.nexthop = F.nexthop;
		if (F.churn_nh == 0)
			F.churn_nh = F.nexthop + 1;
		if ((rv = tt_feed_encode(&F.f, &assumed)) != 0)
			fail("encode: %s", strerror(-rv));
	}
	if (F.churn_nh == 0)
		F.churn_nh = F.nexthop + 1;
	if (!F.quiet)
		fprintf(stderr,
		    "bgp-feeder: %zu prefixes in %zu UPDATEs (%zu bytes, "
		    "%u attribute sets), ready in %.2f s\n",
		    F.f.ps.n, F.f.nmsgs, F.f.len, F.fc.nsets,
		    (double)(lc_time_mono_ns() - F.t_start) / 1e9);
	send_open();
	F.t_last_rx = lc_time_mono_ns();
	for (;;) {
		struct pollfd pf = {.fd = F.fd, .events = POLLIN};
		uint64_t now = lc_time_mono_ns();
		bool sending = F.st == F_ESTABLISHED &&
		    (!F.wait_go || sig_go) && !F.table_done;
		int tmo = F.churning ? 1 : 50;

		if (sig_stop) {
			send_notification(BGP_ERR_CEASE, BGP_CEASE_SHUTDOWN);
			F.st = F_CLOSED;
			break;
		}
		if (sig_go && F.t_go == 0 && F.st == F_ESTABLISHED) {
			F.t_go = now;
			F.status_dirty = true;
		}
		if (F.st == F_ESTABLISHED && F.table_done && !F.eor_done) {
			uint8_t m[64];
			int n = bgp_eor_encode(m, sizeof(m), BGP_AF_IPV4);

			ctl_put(m, (size_t)n);
			F.eor_done = true;
			F.t_eor = now;
			F.status_dirty = true;
			if (!F.quiet)
				fprintf(stderr,
				    "bgp-feeder: table sent in %.3f s, "
				    "End-of-RIB\n",
				    (double)(F.t_sent - F.t_first) / 1e9);
		}
		/* SIGUSR2 starts the churn, the next one stops it */
		if (sig_churn && F.churn_rate > 0 && F.eor_done) {
			sig_churn = 0;
			F.churning = !F.churning;
			if (F.churning) {
				F.t_churn = now;
				F.churn_base = F.churn_sent;
			}
			F.status_dirty = true;
		}
		if (F.churning)
			churn_tick(now);
		if (F.hold_neg > 0) {
			if (now - F.t_last_ka >
			    (uint64_t)F.hold_neg * 333333333)
				send_keepalive();
			if (now - F.t_last_rx >
			    (uint64_t)F.hold_neg * 1000000000) {
				send_notification(BGP_ERR_HOLD, 0);
				fail("hold timer expired (%u s)", F.hold_neg);
			}
		}
		if (F.eor_done && F.duration > 0 &&
		    now - F.t_eor > (uint64_t)(F.duration * 1e9)) {
			send_notification(BGP_ERR_CEASE, BGP_CEASE_SHUTDOWN);
			F.st = F_CLOSED;
			break;
		}
		if ((sending || F.ctl_off != F.ctl_len) && !flush(sending))
			pf.events |= POLLOUT;
		if (F.status_dirty && now - F.status_at > 100000000)
			status_write();
		if (poll(&pf, 1, tmo) > 0 &&
		    (pf.revents & (POLLIN | POLLHUP | POLLERR)))
			do_read();
	}
	status_write();
	if (!F.quiet)
		fprintf(stderr,
		    "bgp-feeder: sent %zu prefixes in %zu UPDATEs, %llu churn "
		    "UPDATEs; received %llu messages, %llu prefixes\n",
		    F.table_done ? F.f.ps.n : 0, F.f.nmsgs,
		    (unsigned long long)F.churn_sent,
		    (unsigned long long)F.rx_msgs,
		    (unsigned long long)F.rx_prefixes);
	if (F.clog != NULL)
		fclose(F.clog);
	tt_feed_fini(&F.f);
	return (0);
}
