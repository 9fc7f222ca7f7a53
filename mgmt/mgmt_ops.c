/* mgmt/mgmt_ops.c: the router's operational commands: ping and traceroute through tern-fwd's ports, monitor log (streaming jobs of a session), show log, show system, clear interfaces statistics. */
#include "mgmt_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "ipc/proto/rtrmgr.pb-c.h"
#include "libcommon/lc_addr.h"
#include "libcommon/lc_daemon.h"
#include "libcommon/lc_file.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_time.h"

#define OPS_TIMEOUT_MS	5000
#define PING_COUNT_DFLT 5
#define PING_COUNT_MAX	100000
#define PING_SIZE_DFLT	56
#define PING_SIZE_MAX	9000
#define PING_WAIT_MS	2000 /* for the last replies after the last probe */
#define PING_SEQ_RING	1024 /* send times kept, by sequence number */
#define TRACE_HOPS_DFLT 30
#define TRACE_PROBES	3
#define TRACE_WAIT_DFLT 2 /* seconds per probe */
#define LOG_LINES_DFLT	100
#define LOG_LINES_MAX	10000
#define LOG_TAIL_MAX	(4u << 20) /* bytes of a file read for show log */
#define LOG_FILES_MAX	16
#define MON_POLL_S	0.2
#define MON_READ_MAX	(64u << 10) /* per file per poll */

enum job_kind { JOB_PING, JOB_TRACE, JOB_MONITOR };

struct mon_file {
	char name[32];
	char path[4200];
	off_t off;
	struct lc_buf part; /* a line not ended yet */
};

/* A streaming command of one session (one at a time). */
struct mgmt_job {
	struct mgmt *m;
	uint64_t sid;
	struct ipc_peer *peer;
	enum job_kind kind;
	bool started; /* streaming: its output goes as OUTPUT events */
	bool dead;    /* ended: freed when no call is in flight */
	unsigned calls;
	mgmt_reply_fn *later; /* the first reply, until started */
	void *later_arg;
	ev_timer timer;
	ev_io io;
	int fd;
	uint64_t lost; /* bytes the shell's connection had no room for */
	/* ping and traceroute */
	struct lc_ip4 dst, src; /* src 0: fwd picks the egress's */
	char ifdev[MGMT_NAME_MAX], ifname[MGMT_NAME_MAX];
	unsigned count, size, ttl, maxhops, wait_ms;
	uint16_t ident, seq;
	unsigned sent, received, errors;
	bool local; /* the router's own address: through the kernel */
	double rmin, rmax, rsum, rsq;
	uint64_t sent_ns[PING_SEQ_RING];
	uint64_t last_send_ns;
	/* traceroute: the hop being probed */
	unsigned hop, probe;
	bool answered, reached;
	uint32_t last_from;
	struct lc_buf line;
	/* monitor log */
	unsigned nfiles;
	struct mon_file files[LOG_FILES_MAX];
};

static void ping_finish(struct mgmt_job *);

/* ---- output ---------------------------------------------------------------- */

static void
job_send(struct mgmt_job *j, const char *text, bool done, int code,
    const char *error)
{
	Mgmt__Output o = MGMT__OUTPUT__INIT;
	char note[128];
	int rv;

	if (j->lost > 0 && text != NULL) {
		/* say what was missed before what follows */
		snprintf(note, sizeof(note),
		    "[%llu bytes not shown: the shell did not keep up]\n",
		    (unsigned long long)j->lost);
		j->lost = 0;
		job_send(j, note, false, 0, NULL);
	}
	if (j->peer == NULL)
		return;
	o.session = j->sid;
	o.text = (char *)(text != NULL ? text : "");
	o.done = done;
	o.code = (Mgmt__Code)code;
	o.error = (char *)(error != NULL ? error : "");
	rv = ipc_peer_send_event(j->peer, MGMT__METHOD__OUTPUT, &o.base);
	if (rv == -ENOBUFS && text != NULL)
		j->lost += strlen(text);
}

static void job_out(struct mgmt_job *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
job_out(struct mgmt_job *j, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	job_send(j, buf, false, 0, NULL);
}

static void
job_free(struct mgmt_job *j)
{
	struct mgmt_session *s = mgmt_session_find(j->m, j->sid);

	if (s != NULL && s->job == j)
		s->job = NULL;
	ev_timer_stop(j->m->loop, &j->timer);
	if (j->fd >= 0) {
		ev_io_stop(j->m->loop, &j->io);
		close(j->fd);
		j->fd = -1;
	}
	if (j->calls > 0) {
		j->dead = true; /* the last reply frees it */
		return;
	}
	for (unsigned i = 0; i < j->nfiles; i++)
		lc_buf_fini(&j->files[i].part);
	lc_buf_fini(&j->line);
	free(j);
}

/* The command's end: its last OUTPUT (or, not started yet, its reply). */
static void
job_end(struct mgmt_job *j, int code, const char *error)
{
	if (j->dead)
		return;
	if (!j->started) {
		struct lc_err e = {0};

		if (error != NULL)
			lc_err_set(&e, -EINVAL, LC_ERR_NOINDEX, "%s", error);
		j->later(j->later_arg, j->m, mgmt_session_find(j->m, j->sid),
		    code, "", &e);
	} else {
		job_send(j, NULL, true, code, error);
	}
	job_free(j);
}

/* The first reply: the command goes on, text is its first output. */
static void
job_start(struct mgmt_job *j, const char *text)
{
	struct lc_err none = {0};

	j->started = true;
	j->later(j->later_arg, j->m, mgmt_session_find(j->m, j->sid),
	    MGMT_STREAM, text, &none);
}

static struct mgmt_job *
job_new(const struct mgmt_op *op, enum job_kind kind, struct lc_err *err)
{
	struct mgmt_session *s = mgmt_session_find(op->m, op->sid);
	struct mgmt_job *j;

	if (s == NULL || s->peer == NULL || op->later == NULL) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "this command streams its output: it needs a shell's "
		    "session (ternsh)");
		return (NULL);
	}
	if (s->job != NULL) {
		lc_err_set(err, -EBUSY, LC_ERR_NOINDEX,
		    "a command of this session is still running");
		return (NULL);
	}
	if (op->json) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "this command has no JSON output");
		return (NULL);
	}
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (NULL);
	}
	j->m = op->m;
	j->sid = op->sid;
	j->peer = s->peer;
	j->kind = kind;
	j->later = op->later;
	j->later_arg = op->arg;
	j->fd = -1;
	ev_init(&j->timer, NULL);
	j->timer.data = j;
	s->job = j;
	return (j);
}

int
mgmt_ops_interrupt(struct mgmt *m, struct mgmt_session *s)
{
	struct mgmt_job *j = s->job;

	if (j == NULL || j->dead)
		return (-ENOENT);
	switch (j->kind) {
	case JOB_PING: /* the summary, as when the count is reached */
		ping_finish(j);
		break;
	case JOB_TRACE:
		if (lc_buf_avail(&j->line) > 0) {
			lc_buf_append(&j->line, "\n", 2);
			job_send(j, (char *)lc_buf_head(&j->line), false, 0,
			    NULL);
		}
		job_end(j, MGMT_OK, NULL);
		break;
	case JOB_MONITOR:
		job_end(j, MGMT_OK, NULL);
		break;
	}
	(void)m;
	return (0);
}

void
mgmt_ops_session_end(struct mgmt *m, struct mgmt_session *s)
{
	struct mgmt_job *j = s->job;

	(void)m;
	if (j == NULL)
		return;
	j->peer = NULL;	 /* its connection is gone or going */
	if (!j->started) /* the pending call gets its answer (discarded) */
		job_end(j, MGMT_E_UNAVAILABLE, "the session ended");
	else
		job_free(j);
	s->job = NULL;
}

/* ---- arguments ---------------------------------------------------------------- */

static int
ops_uint(const char *cmd, const char *what, const char *s, unsigned lo,
    unsigned hi, unsigned *out, struct lc_err *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = s != NULL && isdigit((unsigned char)s[0]) ? strtoul(s, &end, 10) :
							0;
	if (s == NULL || !isdigit((unsigned char)s[0]) || errno != 0 ||
	    *end != '\0' || v < lo || v > hi) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: %s expects a number %u..%u, got '%s'", cmd, what, lo,
		    hi, s != NULL ? s : "nothing");
		return (MGMT_E_SYNTAX);
	}
	*out = (unsigned)v;
	return (MGMT_OK);
}

/* The configured interface name (or device): device and first address. */
struct if_find {
	const char *name;
	struct mgmt_iface_conf c;
	bool found;
};

static int
if_find_cb(const struct mgmt_node *node, void *arg)
{
	struct if_find *f = arg;

	if (mgmt_conf_iface_get(node, &f->c) != 0 ||
	    (strcmp(f->c.name, f->name) != 0 &&
		strcmp(f->c.device, f->name) != 0))
		return (0);
	f->found = true;
	return (1);
}

/* Whether a is one of the configured interfaces' addresses. */
struct addr_find {
	struct lc_ip4 a;
	bool found;
};

static int
addr_find_cb(const struct mgmt_node *node, void *arg)
{
	struct addr_find *f = arg;
	struct mgmt_iface_conf c;

	if (mgmt_conf_iface_get(node, &c) != 0)
		return (0);
	for (unsigned i = 0; i < c.naddr; i++)
		if (c.host[i].s_addr == f->a.s_addr) {
			f->found = true;
			return (1);
		}
	return (0);
}

/*
 * ADDRESS [count N] [source ADDRESS | interface NAME] [size N] [ttl N]
 * (ping) or ADDRESS [source ADDRESS | interface NAME] [ttl N] [wait S]
 * (traceroute: ttl is the last hop).
 */
static int
probe_args(struct mgmt_job *j, const char *cmd, const char *const *w,
    unsigned nw, struct lc_err *err)
{
	bool ping = j->kind == JOB_PING;
	bool have_src = false;
	int rv;

	if (nw == 0 || lc_ip4_parse(w[0], &j->dst) != 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "%s: expected an IPv4 address, got '%s'", cmd,
		    nw > 0 ? w[0] : "nothing");
		return (MGMT_E_SYNTAX);
	}
	for (unsigned i = 1; i < nw; i += 2) {
		const char *k = w[i], *v = i + 1 < nw ? w[i + 1] : NULL;

		if (v == NULL) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: '%s' expects a value", cmd, k);
			return (MGMT_E_SYNTAX);
		}
		if (ping && strcmp(k, "count") == 0) {
			if ((rv = ops_uint(cmd, k, v, 1, PING_COUNT_MAX,
				 &j->count, err)) != MGMT_OK)
				return (rv);
		} else if (ping && strcmp(k, "size") == 0) {
			if ((rv = ops_uint(cmd, k, v, 0, PING_SIZE_MAX,
				 &j->size, err)) != MGMT_OK)
				return (rv);
		} else if (strcmp(k, "ttl") == 0) {
			if ((rv = ops_uint(cmd, k, v, 1, 255,
				 ping ? &j->ttl : &j->maxhops, err)) != MGMT_OK)
				return (rv);
		} else if (!ping && strcmp(k, "wait") == 0) {
			unsigned s;

			if ((rv = ops_uint(cmd, k, v, 1, 60, &s, err)) !=
			    MGMT_OK)
				return (rv);
			j->wait_ms = s * 1000;
		} else if (strcmp(k, "source") == 0 ||
		    strcmp(k, "interface") == 0) {
			if (have_src) {
				lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
				    "%s: give source or interface, once", cmd);
				return (MGMT_E_SYNTAX);
			}
			have_src = true;
			if (k[0] == 's') {
				struct addr_find af = {{0}, false};

				if (lc_ip4_parse(v, &af.a) != 0) {
					lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
					    "%s: source expects an IPv4 "
					    "address, got '%s'",
					    cmd, v);
					return (MGMT_E_SYNTAX);
				}
				(void)mgmt_conf_foreach(j->m->running,
				    MGMT_S_IFACE, addr_find_cb, &af);
				if (!af.found) {
					lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
					    "%s: source %s is not an address "
					    "of an interface",
					    cmd, v);
					return (MGMT_E_INVALID);
				}
				j->src = af.a;
			} else {
				struct if_find f = {.name = v};

				(void)mgmt_conf_foreach(j->m->running,
				    MGMT_S_IFACE, if_find_cb, &f);
				if (!f.found) {
					lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
					    "%s: no interface '%s'", cmd, v);
					return (MGMT_E_NOT_FOUND);
				}
				if (f.c.naddr == 0) {
					lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
					    "%s: interface %s has no address "
					    "to send from",
					    cmd, v);
					return (MGMT_E_INVALID);
				}
				snprintf(j->ifname, sizeof(j->ifname), "%s",
				    f.c.name);
				snprintf(j->ifdev, sizeof(j->ifdev), "%s",
				    f.c.device[0] ? f.c.device : f.c.name);
				j->src = f.c.host[0];
			}
		} else {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: unexpected '%s' (expected %s)", cmd, k,
			    ping ? "count, source, interface, size or ttl" :
				   "source, interface, ttl or wait");
			return (MGMT_E_SYNTAX);
		}
	}
	return (MGMT_OK);
}

/* ---- probes: ICMP echo requests, sent by tern-fwd ----------------------------- */

static uint16_t
icmp_csum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (htons((uint16_t)~s));
}

/*
 * The raw ICMP socket the answers come to: they arrive at the router's
 * address on a port, go up its host path to the kernel of this
 * namespace, which hands every raw ICMP socket a copy.
 */
static int
probe_socket(struct mgmt_job *j, const char *cmd, struct lc_err *err)
{
	struct icmp_filter {
		uint32_t data;
	} filt;

	j->fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    IPPROTO_ICMP);
	if (j->fd < 0) {
		lc_err_set(err, -errno, LC_ERR_NOINDEX,
		    "%s: tern-mgmt cannot open an ICMP socket: %s%s", cmd,
		    strerror(errno),
		    errno == EPERM ? " (it needs the capability net_raw: "
				     "component mgmt in the boot config of "
				     "tern-rtrmgr, docs/rtrmgr.md)" :
				     "");
		return (MGMT_E_UNAVAILABLE);
	}
	/* only what answers a probe: echo reply, unreachable, time exceeded
	 * (ICMP_FILTER, 1: a bit set drops the type) */
	filt.data = ~((1u << ICMP_ECHOREPLY) | (1u << ICMP_DEST_UNREACH) |
	    (1u << ICMP_TIME_EXCEEDED));
	(void)setsockopt(j->fd, SOL_RAW, 1 /* ICMP_FILTER */, &filt,
	    sizeof(filt));
	return (MGMT_OK);
}

static void probe_acked(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg);

/* One echo request with sequence seq and ttl: through tern-fwd's FIB and
 * port (or, to the router's own address, the kernel's). */
static int
probe_send(struct mgmt_job *j, unsigned ttl, struct lc_err *err)
{
	struct ipc_client *cl = mgmt_peer_client(j->m, MGMT_PEER_FWD);
	Fwd__Originate q = FWD__ORIGINATE__INIT;
	size_t len = 8 + j->size;
	uint8_t pkt[8 + PING_SIZE_MAX];
	uint16_t seq = j->seq++;
	int rv;

	memset(pkt, 0, len);
	pkt[0] = ICMP_ECHO;
	pkt[4] = (uint8_t)(j->ident >> 8);
	pkt[5] = (uint8_t)j->ident;
	pkt[6] = (uint8_t)(seq >> 8);
	pkt[7] = (uint8_t)seq;
	for (size_t i = 8; i < len; i++)
		pkt[i] = (uint8_t)(i - 8);
	{
		uint16_t c = icmp_csum(pkt, len);

		memcpy(pkt + 2, &c, 2);
	}
	j->sent_ns[seq % PING_SEQ_RING] = lc_time_mono_ns();
	j->last_send_ns = j->sent_ns[seq % PING_SEQ_RING];
	if (j->local) {
		struct sockaddr_in sa = {.sin_family = AF_INET,
		    .sin_addr.s_addr = j->dst.s_addr};
		int t = (int)ttl;

		(void)setsockopt(j->fd, IPPROTO_IP, IP_TTL, &t, sizeof(t));
		if (sendto(j->fd, pkt, len, 0, (struct sockaddr *)&sa,
			sizeof(sa)) < 0)
			return (lc_err_set(err, -errno, LC_ERR_NOINDEX,
			    "sending to %s: %s", lc_ip4_ntoa(j->dst),
			    strerror(errno)));
		return (0);
	}
	if (cl == NULL || !ipc_client_connected(cl))
		return (lc_err_set(err, -ENOTCONN, LC_ERR_NOINDEX,
		    "tern-fwd is not running: nothing can be sent through "
		    "its ports"));
	q.dst = j->dst.s_addr;
	q.src = j->src.s_addr;
	q.ttl = ttl;
	q.protocol = IPPROTO_ICMP;
	q.payload.data = pkt;
	q.payload.len = len;
	q.ifname = j->ifdev;
	if ((rv = ipc_call(cl, FWD__METHOD__ORIGINATE, &q.base, probe_acked, j,
		 OPS_TIMEOUT_MS)) != 0)
		return (lc_err_set(err, rv, LC_ERR_NOINDEX,
		    "tern-fwd: cannot send: %s", strerror(-rv)));
	j->calls++;
	j->sent++;
	return (0);
}

/* The first probe could not go: "CMD: why". */
static int
probe_failed(const char *cmd, struct lc_err *err)
{
	char m[sizeof(err->msg)];

	snprintf(m, sizeof(m), "%s", err->msg);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", cmd, m);
	return (MGMT_E_UNAVAILABLE);
}

static void ping_tick(struct ev_loop *loop, ev_timer *t, int revents);
static void trace_timeout(struct ev_loop *loop, ev_timer *t, int revents);
static void probe_readable(struct ev_loop *loop, ev_io *w, int revents);

/* The first probe's answer from fwd: the command starts (or fails). */
static void
probe_first(struct mgmt_job *j, const Fwd__OriginateAck *a)
{
	char text[512], via[MGMT_NAME_MAX + 16] = "";
	struct lc_ip4 src = {a->src};

	j->src = src;
	if (a->local) {
		/* the kernel answers its own addresses: send through it */
		j->local = true;
		j->sent--;
	} else if (a->ifname != NULL && a->ifname[0] != '\0') {
		char nm[MGMT_NAME_MAX];

		snprintf(via, sizeof(via), " via %s",
		    mgmt_show_if_name(j->m, a->ifname, nm, sizeof(nm)));
	}
	if (j->kind == JOB_PING)
		snprintf(text, sizeof(text),
		    "PING %s (%s): %u data bytes, from %s%s\n",
		    lc_ip4_ntoa(j->dst), lc_ip4_ntoa(j->dst), j->size,
		    lc_ip4_ntoa(j->src), via);
	else
		snprintf(text, sizeof(text),
		    "traceroute to %s (%s) from %s%s, %u hops max, %u byte "
		    "packets\n",
		    lc_ip4_ntoa(j->dst), lc_ip4_ntoa(j->dst),
		    lc_ip4_ntoa(j->src), via, j->maxhops, 20 + 8 + j->size);
	ev_io_init(&j->io, probe_readable, j->fd, EV_READ);
	j->io.data = j;
	ev_io_start(j->m->loop, &j->io);
	job_start(j, text);
	if (j->local) {
		struct lc_err err;

		j->seq--; /* that one again, through the kernel */
		if (probe_send(j, j->kind == JOB_PING ? j->ttl : j->hop,
			&err) == 0)
			j->sent++;
	}
}

static void
probe_acked(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct mgmt_job *j = arg;
	const Fwd__OriginateAck *a = (const Fwd__OriginateAck *)msg;
	const char *cmd = j->kind == JOB_PING ? "ping" : "traceroute";
	char e[512];

	j->calls--;
	if (j->dead) {
		if (j->calls == 0)
			job_free(j);
		return;
	}
	if (status != IPC_OK || a == NULL) {
		snprintf(e, sizeof(e), "%s: %s", cmd,
		    ierr->msg[0] != '\0' ? ierr->msg : ipc_status_str(status));
		if (!j->started) {
			job_end(j,
			    status == IPC_ERROR ? MGMT_E_INVALID :
						  MGMT_E_UNAVAILABLE,
			    e);
			return;
		}
		j->errors++;
		if (j->kind == JOB_PING)
			job_out(j, "%s\n", e);
		return;
	}
	if (!j->started)
		probe_first(j, a);
}

/* An ICMP message that answers one of our probes: its sequence number,
 * the type, code, sender and TTL; -1 when it is not ours. */
static int
probe_match(struct mgmt_job *j, const uint8_t *b, size_t n, uint8_t *type,
    uint8_t *code, uint32_t *from, uint8_t *ttl, size_t *icmplen)
{
	size_t hl, ihl;
	const uint8_t *ic, *in;

	if (n < 20 || (b[0] >> 4) != 4)
		return (-1);
	hl = (size_t)(b[0] & 0xf) * 4;
	if (hl < 20 || n < hl + 8)
		return (-1);
	ic = b + hl;
	memcpy(from, b + 12, 4);
	*ttl = b[8];
	*type = ic[0];
	*code = ic[1];
	*icmplen = n - hl;
	if (ic[0] == ICMP_ECHOREPLY) {
		if (*from != j->dst.s_addr ||
		    (uint16_t)(ic[4] << 8 | ic[5]) != j->ident)
			return (-1);
		return (ic[6] << 8 | ic[7]);
	}
	/* an error quoting our echo request: its IP header and 8 bytes */
	in = ic + 8;
	if (n < hl + 8 + 20)
		return (-1);
	ihl = (size_t)(in[0] & 0xf) * 4;
	if (ihl < 20 || n < hl + 8 + ihl + 8 || in[9] != IPPROTO_ICMP ||
	    memcmp(in + 16, &j->dst.s_addr, 4) != 0 || in[ihl] != ICMP_ECHO ||
	    (uint16_t)(in[ihl + 4] << 8 | in[ihl + 5]) != j->ident)
		return (-1);
	return (in[ihl + 6] << 8 | in[ihl + 7]);
}

static const char *
icmp_why(uint8_t type, uint8_t code)
{
	if (type == ICMP_TIME_EXCEEDED)
		return ("Time to live exceeded");
	switch (code) {
	case ICMP_NET_UNREACH:
		return ("Destination Net Unreachable");
	case ICMP_HOST_UNREACH:
		return ("Destination Host Unreachable");
	case ICMP_PROT_UNREACH:
		return ("Destination Protocol Unreachable");
	case ICMP_PORT_UNREACH:
		return ("Destination Port Unreachable");
	case ICMP_FRAG_NEEDED:
		return ("Frag needed and DF set");
	default:
		return ("Destination Unreachable");
	}
}

/* traceroute's mark after an unreachable (!H, !N, ...) */
static const char *
icmp_mark(uint8_t code)
{
	switch (code) {
	case ICMP_NET_UNREACH:
		return (" !N");
	case ICMP_HOST_UNREACH:
		return (" !H");
	case ICMP_PROT_UNREACH:
		return (" !P");
	case ICMP_PORT_UNREACH:
		return ("");
	case ICMP_FRAG_NEEDED:
		return (" !F");
	default:
		return (" !X");
	}
}

static void trace_answer(struct mgmt_job *j, int seq, uint8_t type,
    uint8_t code, uint32_t from, double ms);

static void
ping_answer(struct mgmt_job *j, int seq, uint8_t type, uint8_t code,
    uint32_t from, uint8_t ttl, size_t len, double ms)
{
	struct lc_ip4 f = {from};

	if (type != ICMP_ECHOREPLY) {
		j->errors++;
		job_out(j, "%zu bytes from %s: icmp_seq=%d %s\n", len,
		    lc_ip4_ntoa(f), seq, icmp_why(type, code));
		return;
	}
	j->received++;
	if (j->received == 1 || ms < j->rmin)
		j->rmin = ms;
	if (ms > j->rmax)
		j->rmax = ms;
	j->rsum += ms;
	j->rsq += ms * ms;
	job_out(j, "%zu bytes from %s: icmp_seq=%d ttl=%u time=%.3f ms\n", len,
	    lc_ip4_ntoa(f), seq, ttl, ms);
	if (j->received >= j->count && j->sent >= j->count)
		ping_finish(j); /* all answered: no need to wait */
}

static void
probe_readable(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mgmt_job *j = w->data;
	uint8_t b[65536];

	(void)loop;
	(void)revents;
	/* a bounded number per turn: a flood of ICMP does not hold the loop */
	for (unsigned k = 0; k < 64 && !j->dead; k++) {
		ssize_t n = recv(j->fd, b, sizeof(b), 0);
		uint8_t type, code, ttl;
		uint32_t from;
		size_t len;
		int seq;
		double ms;

		if (n <= 0)
			return;
		if ((seq = probe_match(j, b, (size_t)n, &type, &code, &from,
			 &ttl, &len)) < 0)
			continue;
		ms = (double)(lc_time_mono_ns() -
			 j->sent_ns[(unsigned)seq % PING_SEQ_RING]) /
		    1e6;
		if (j->kind == JOB_PING)
			ping_answer(j, seq, type, code, from, ttl, len, ms);
		else
			trace_answer(j, seq, type, code, from, ms);
	}
}

/* ---- ping ------------------------------------------------------------------- */

static void
ping_finish(struct mgmt_job *j)
{
	char text[512];
	unsigned loss = j->sent > 0 ?
	    (unsigned)((j->sent -
			   (j->received < j->sent ? j->received : j->sent)) *
		100 / j->sent) :
	    0;
	int n;

	n = snprintf(text, sizeof(text),
	    "\n--- %s ping statistics ---\n"
	    "%u packets transmitted, %u packets received, %u%% packet loss\n",
	    lc_ip4_ntoa(j->dst), j->sent, j->received, loss);
	if (j->received > 0 && n > 0 && (size_t)n < sizeof(text)) {
		double avg = j->rsum / j->received;
		double var = j->rsq / j->received - avg * avg;

		snprintf(text + n, sizeof(text) - (size_t)n,
		    "round-trip min/avg/max/stddev = %.3f/%.3f/%.3f/%.3f ms\n",
		    j->rmin, avg, j->rmax, var > 0 ? sqrt(var) : 0.0);
	}
	job_send(j, text, false, 0, NULL);
	job_end(j, MGMT_OK, NULL);
}

static void
ping_tick(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct mgmt_job *j = t->data;
	struct lc_err err;

	(void)loop;
	(void)revents;
	if (!j->started)
		return;
	if (j->sent >= j->count) {
		ping_finish(j); /* the wait for the last replies is over */
		return;
	}
	if (probe_send(j, j->ttl, &err) != 0) {
		j->sent++; /* counted as lost */
		job_out(j, "ping: %s\n", err.msg);
	} else if (j->local) {
		j->sent++;
	}
	if (j->sent >= j->count) {
		ev_timer_stop(j->m->loop, &j->timer);
		ev_timer_set(&j->timer, PING_WAIT_MS / 1000.0, 0.);
		ev_timer_start(j->m->loop, &j->timer);
	}
}

int
mgmt_ops_ping(const struct mgmt_op *op, const char *const *w, unsigned nw,
    struct lc_buf *out, struct lc_err *err)
{
	struct mgmt_job *j;
	int rv;

	(void)out;
	if ((j = job_new(op, JOB_PING, err)) == NULL)
		return (err->code == -EBUSY ? MGMT_E_CONFLICT : MGMT_E_SYNTAX);
	j->count = PING_COUNT_DFLT;
	j->size = PING_SIZE_DFLT;
	j->ttl = 64;
	if ((rv = probe_args(j, "ping", w, nw, err)) != MGMT_OK ||
	    (rv = probe_socket(j, "ping", err)) != MGMT_OK) {
		j->started = true; /* the error is this call's answer */
		job_free(j);
		return (rv);
	}
	j->ident = (uint16_t)((uint64_t)getpid() ^ (op->sid << 8) ^
	    lc_time_mono_ns());
	if (probe_send(j, j->ttl, err) != 0) {
		j->started = true;
		job_free(j);
		return (probe_failed("ping", err));
	}
	/* one a second; the first went just now */
	ev_timer_init(&j->timer, ping_tick, 1., 1.);
	j->timer.data = j;
	if (j->count == 1)
		ev_timer_set(&j->timer, PING_WAIT_MS / 1000.0, 0.);
	ev_timer_start(op->m->loop, &j->timer);
	return (MGMT_PENDING);
}

/* ---- traceroute -------------------------------------------------------------- */

static void
trace_next(struct mgmt_job *j)
{
	struct lc_err err;

	if (j->probe == TRACE_PROBES) {
		lc_buf_append(&j->line, "\n", 2);
		job_send(j, (char *)lc_buf_head(&j->line), false, 0, NULL);
		lc_buf_reset(&j->line);
		if (j->reached || j->hop >= j->maxhops) {
			job_end(j, MGMT_OK, NULL);
			return;
		}
		j->hop++;
		j->probe = 0;
		j->last_from = 0;
	}
	if (j->probe == 0)
		lc_buf_printf(&j->line, "%2u ", j->hop);
	j->answered = false;
	ev_timer_stop(j->m->loop, &j->timer);
	ev_timer_set(&j->timer, j->wait_ms / 1000.0, 0.);
	ev_timer_start(j->m->loop, &j->timer);
	if (probe_send(j, j->hop, &err) != 0) {
		lc_buf_printf(&j->line, " (%s)", err.msg);
		j->probe = TRACE_PROBES;
		j->reached = true; /* nothing more can go */
		trace_next(j);
	}
}

static void
trace_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct mgmt_job *j = t->data;

	(void)loop;
	(void)revents;
	if (!j->started)
		return;
	lc_buf_printf(&j->line, " *");
	j->probe++;
	trace_next(j); /* a late answer is not the next probe's (seq) */
}

static void
trace_answer(struct mgmt_job *j, int seq, uint8_t type, uint8_t code,
    uint32_t from, double ms)
{
	struct lc_ip4 f = {from};

	/* only the probe in flight: seq was taken by probe_send */
	if ((uint16_t)seq != (uint16_t)(j->seq - 1) || j->answered)
		return;
	j->answered = true;
	if (from != j->last_from) {
		lc_buf_printf(&j->line, " %s", lc_ip4_ntoa(f));
		j->last_from = from;
	}
	lc_buf_printf(&j->line, "  %.3f ms", ms);
	if (type == ICMP_ECHOREPLY || from == j->dst.s_addr)
		j->reached = true;
	if (type == ICMP_DEST_UNREACH) {
		lc_buf_printf(&j->line, "%s", icmp_mark(code));
		j->reached = true;
	}
	j->probe++;
	trace_next(j);
}

int
mgmt_ops_traceroute(const struct mgmt_op *op, const char *const *w, unsigned nw,
    struct lc_buf *out, struct lc_err *err)
{
	struct mgmt_job *j;
	int rv;

	(void)out;
	if ((j = job_new(op, JOB_TRACE, err)) == NULL)
		return (err->code == -EBUSY ? MGMT_E_CONFLICT : MGMT_E_SYNTAX);
	j->maxhops = TRACE_HOPS_DFLT;
	j->wait_ms = TRACE_WAIT_DFLT * 1000;
	j->size = 24; /* 52-byte datagrams */
	if ((rv = probe_args(j, "traceroute", w, nw, err)) != MGMT_OK ||
	    (rv = probe_socket(j, "traceroute", err)) != MGMT_OK) {
		j->started = true;
		job_free(j);
		return (rv);
	}
	j->ident = (uint16_t)((uint64_t)getpid() ^ (op->sid << 8) ^
	    lc_time_mono_ns());
	j->hop = 1;
	lc_buf_init(&j->line);
	lc_buf_printf(&j->line, "%2u ", j->hop);
	if (probe_send(j, 1, err) != 0) {
		j->started = true;
		job_free(j);
		return (probe_failed("traceroute", err));
	}
	ev_timer_init(&j->timer, trace_timeout, j->wait_ms / 1000.0, 0.);
	j->timer.data = j;
	ev_timer_start(op->m->loop, &j->timer);
	return (MGMT_PENDING);
}

/* ---- logs: RUNDIR/NAME.log (rtrmgr's output file) --------------------------- */

static bool
comp_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 31 || !islower((unsigned char)s[0]))
		return (false);
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return (false);
	return (true);
}

static int
name_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct mon_file *)a)->name,
	    ((const struct mon_file *)b)->name));
}

/*
 * The log files: RUNDIR/COMPONENT.log, or every NAME.log there (name
 * order). 0, or an mgmt code with err saying why (none: rtrmgr's output
 * is not `file`, the journal has them).
 */
static int
log_files(struct mgmt *m, const char *cmd, const char *comp, struct mon_file *f,
    unsigned *n, struct lc_err *err)
{
	const char *dir = ipc_rundir(m->opts.rundir);
	struct dirent *e;
	struct stat st;
	DIR *d;

	*n = 0;
	if (comp != NULL) {
		if (!comp_name_ok(comp)) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "%s: '%s' is not a component name", cmd, comp);
			return (MGMT_E_SYNTAX);
		}
		snprintf(f[0].name, sizeof(f[0].name), "%s", comp);
		snprintf(f[0].path, sizeof(f[0].path), "%s/%s.log", dir, comp);
		if (access(f[0].path, R_OK) != 0) {
			lc_err_set(err, -errno, LC_ERR_NOINDEX, "%s: %s: %s%s",
			    cmd, f[0].path, strerror(errno),
			    errno == ENOENT ?
				" (no such component, or tern-rtrmgr's output "
				"is not 'file': with 'output inherit' the logs "
				"go to rtrmgr's stderr, under systemd the "
				"journal: journalctl -u tern)" :
				"");
			return (
			    errno == ENOENT ? MGMT_E_NOT_FOUND : MGMT_E_DENIED);
		}
		*n = 1;
		return (MGMT_OK);
	}
	if ((d = opendir(dir)) == NULL) {
		lc_err_set(err, -errno, LC_ERR_NOINDEX, "%s: %s: %s", cmd, dir,
		    strerror(errno));
		return (MGMT_E_UNAVAILABLE);
	}
	while ((e = readdir(d)) != NULL && *n < LOG_FILES_MAX) {
		size_t l = strlen(e->d_name);
		char nm[32];

		if (l < 5 || l - 4 >= sizeof(nm) ||
		    strcmp(e->d_name + l - 4, ".log") != 0)
			continue;
		snprintf(nm, sizeof(nm), "%.*s", (int)(l - 4), e->d_name);
		if (!comp_name_ok(nm))
			continue;
		snprintf(f[*n].name, sizeof(f[*n].name), "%s", nm);
		snprintf(f[*n].path, sizeof(f[*n].path), "%s/%s", dir,
		    e->d_name);
		/* the files we may read, regular ones only: a FIFO named
		 * X.log would block show log's open */
		if (stat(f[*n].path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(f[*n].path, R_OK) == 0)
			(*n)++;
	}
	closedir(d);
	if (*n == 0) {
		lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
		    "%s: no component logs in %s (tern-rtrmgr writes them there "
		    "with 'output file'; with 'output inherit' they go to its "
		    "stderr, under systemd the journal: journalctl -u tern)",
		    cmd, dir);
		return (MGMT_E_NOT_FOUND);
	}
	qsort(f, *n, sizeof(*f), name_cmp);
	return (MGMT_OK);
}

/* One line of show log: its file and where it is. */
struct log_line {
	size_t off, len; /* in the buffer of show log */
	size_t soff;	 /* its stamp's (or the last before it), or NOSTAMP */
	unsigned file, order;
	const char *p, *stamp; /* once the buffer stopped growing */
};
#define NOSTAMP SIZE_MAX

static bool
has_stamp(const char *p, size_t len)
{
	return (len >= 24 && p[4] == '-' && p[10] == 'T' && p[23] == 'Z');
}

static int
line_cmp(const void *a, const void *b)
{
	const struct log_line *x = a, *y = b;
	/* lines before a file's first stamp sort first: a total order */
	int c = strncmp(x->stamp != NULL ? x->stamp : "",
	    y->stamp != NULL ? y->stamp : "", 24);

	if (c != 0)
		return (c);
	if (x->file != y->file)
		return (x->file < y->file ? -1 : 1);
	return (x->order < y->order ? -1 : x->order > y->order);
}

/* The last want lines of file f, read into buf, appended to v. */
static int
log_tail(const struct mon_file *f, unsigned fi, unsigned want,
    struct lc_buf *buf, struct log_line **v, size_t *nv, size_t *cap)
{
	struct stat st;
	off_t from;
	size_t start = buf->len, n, got = 0, first, soff = NOSTAMP;
	char *p;
	int fd, rv;

	/* a log that is a FIFO or a device must not block the loop */
	if ((rv = lc_open_regular(f->path, O_NOFOLLOW, UINT64_MAX, &fd, &st)) !=
	    0)
		return (rv);
	from = st.st_size > (off_t)LOG_TAIL_MAX ?
	    st.st_size - (off_t)LOG_TAIL_MAX :
	    0;
	n = (size_t)(st.st_size - from);
	if ((p = lc_buf_tail(buf, n + 1)) == NULL) {
		close(fd);
		return (-ENOMEM);
	}
	while (got < n) {
		ssize_t r = pread(fd, p + got, n - got, from + (off_t)got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	lc_buf_commit(buf, got);
	p = (char *)buf->data + start;
	n = got;
	/* from the end back: the start of the want-th line from the end */
	first = n > 0 && p[n - 1] == '\n' ? n - 1 : n;
	for (unsigned k = 0; first > 0; first--)
		if (p[first - 1] == '\n' && ++k == want)
			break;
	if (from > 0 && first == 0) { /* a cut first line */
		while (first < n && p[first] != '\n')
			first++;
		if (first < n)
			first++;
	}
	for (size_t i = first; i < n;) {
		size_t e = i;

		while (e < n && p[e] != '\n')
			e++;
		if (lc_array_grow((void **)v, cap, *nv + 1, sizeof(**v)) != 0)
			return (-ENOMEM);
		if (has_stamp(p + i, e - i))
			soff = start + i;
		(*v)[*nv] = (struct log_line){.off = start + i,
		    .len = e - i,
		    .soff = soff,
		    .file = fi,
		    .order = (unsigned)*nv};
		(*nv)++;
		i = e + 1;
	}
	return (0);
}

int
mgmt_ops_show_log(const struct mgmt_op *op, const char *const *w, unsigned nw,
    struct lc_buf *out, struct lc_err *err)
{
	struct mon_file f[LOG_FILES_MAX];
	struct log_line *v = NULL;
	size_t nv = 0, cap = 0, from;
	unsigned nf, lines = LOG_LINES_DFLT, i = 0;
	const char *comp = NULL;
	struct lc_buf buf;
	json_object *jo = NULL, *arr = NULL;
	int rv;

	if (nw > i && strcmp(w[i], "lines") != 0)
		comp = w[i++];
	if (nw > i && strcmp(w[i], "lines") == 0) {
		if ((rv = ops_uint("show log", "lines",
			 i + 1 < nw ? w[i + 1] : NULL, 1, LOG_LINES_MAX, &lines,
			 err)) != MGMT_OK)
			return (rv);
		i += 2;
	}
	if (i < nw)
		return (mgmt_show_bad_args(err, "show log",
		    "a component, then lines N", w[i]));
	if ((rv = log_files(op->m, "show log", comp, f, &nf, err)) != MGMT_OK)
		return (rv);
	lc_buf_init(&buf);
	for (unsigned k = 0; k < nf; k++)
		if ((rv = log_tail(&f[k], k, lines, &buf, &v, &nv, &cap)) !=
		    0) {
			free(v);
			lc_buf_fini(&buf);
			lc_err_set(err, rv, LC_ERR_NOINDEX, "show log: %s: %s",
			    f[k].path, lc_open_regular_str(rv));
			return (
			    rv == -ENOMEM ? MGMT_E_INTERNAL : MGMT_E_DENIED);
		}
	/* offsets into buf (it moved as it grew) to pointers */
	for (size_t k = 0; k < nv; k++) {
		v[k].p = (const char *)buf.data + v[k].off;
		v[k].stamp = v[k].soff != NOSTAMP ?
		    (const char *)buf.data + v[k].soff :
		    NULL;
	}
	/* several files: one story, in time order (each line's stamp, or the
	 * last one before it in its file) */
	if (nf > 1)
		qsort(v, nv, sizeof(*v), line_cmp);
	from = nv > lines ? nv - lines : 0;
	if (op->json) {
		jo = json_object_new_object();
		arr = json_object_new_array();
	}
	for (size_t k = from; k < nv; k++) {
		if (jo != NULL) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "component",
			    json_object_new_string(f[v[k].file].name));
			json_object_object_add(o, "line",
			    json_object_new_string_len(v[k].p, (int)v[k].len));
			json_object_array_add(arr, o);
		} else if (nf > 1) {
			lc_buf_printf(out, "%-6s %.*s\n", f[v[k].file].name,
			    (int)v[k].len, v[k].p);
		} else {
			lc_buf_printf(out, "%.*s\n", (int)v[k].len, v[k].p);
		}
	}
	if (jo != NULL) {
		json_object_object_add(jo, "lines", arr);
		lc_buf_printf(out, "%s",
		    json_object_to_json_string_ext(jo, JSON_C_TO_STRING_PLAIN));
		json_object_put(jo);
	} else if (nv == 0) {
		lc_buf_printf(out, "(empty)\n");
	}
	free(v);
	lc_buf_fini(&buf);
	return (MGMT_OK);
}

/* ---- monitor log --------------------------------------------------------------- */

static void
mon_poll(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct mgmt_job *j = t->data;
	static char b[MON_READ_MAX];

	(void)loop;
	(void)revents;
	for (unsigned i = 0; i < j->nfiles && !j->dead; i++) {
		struct mon_file *f = &j->files[i];
		struct stat st;
		ssize_t r;
		int fd;

		if (lc_open_regular(f->path, O_NOFOLLOW, UINT64_MAX, &fd,
			NULL) != 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_size < f->off) {
			/* logrotate's copytruncate */
			job_out(j, "%s: [%s truncated]\n", f->name, f->path);
			f->off = 0;
			lc_buf_reset(&f->part);
		}
		r = pread(fd, b, sizeof(b), f->off);
		close(fd);
		if (r <= 0)
			continue;
		f->off += r;
		for (ssize_t k = 0, s = 0; k < r; k++) {
			if (b[k] != '\n' && k + 1 < r)
				continue;
			if (b[k] != '\n') { /* not ended yet: kept */
				lc_buf_append(&f->part, b + s,
				    (size_t)(k + 1 - s));
				break;
			}
			lc_buf_append(&f->part, b + s, (size_t)(k - s));
			lc_buf_append(&f->part, "", 1);
			if (j->nfiles > 1)
				job_out(j, "%-6s %s\n", f->name,
				    (char *)lc_buf_head(&f->part));
			else
				job_out(j, "%s\n",
				    (char *)lc_buf_head(&f->part));
			lc_buf_reset(&f->part);
			s = k + 1;
		}
	}
}

int
mgmt_ops_monitor_log(const struct mgmt_op *op, const char *const *w,
    unsigned nw, struct lc_buf *out, struct lc_err *err)
{
	struct mgmt_job *j;
	struct lc_buf b;
	int rv;

	(void)out;
	if (nw > 1)
		return (mgmt_show_bad_args(err, "monitor log",
		    "at most a component", w[1]));
	if ((j = job_new(op, JOB_MONITOR, err)) == NULL)
		return (err->code == -EBUSY ? MGMT_E_CONFLICT : MGMT_E_SYNTAX);
	if ((rv = log_files(op->m, "monitor log", nw == 1 ? w[0] : NULL,
		 j->files, &j->nfiles, err)) != MGMT_OK) {
		j->started = true;
		job_free(j);
		return (rv);
	}
	lc_buf_init(&b);
	lc_buf_printf(&b, "monitoring");
	for (unsigned i = 0; i < j->nfiles; i++) {
		struct stat st;

		/* what comes from now on */
		j->files[i].off = stat(j->files[i].path, &st) == 0 ?
		    st.st_size :
		    0;
		lc_buf_printf(&b, " %s", j->files[i].path);
	}
	lc_buf_printf(&b, " (^C to stop)\n");
	lc_buf_append(&b, "", 1);
	ev_timer_init(&j->timer, mon_poll, MON_POLL_S, MON_POLL_S);
	j->timer.data = j;
	ev_timer_start(op->m->loop, &j->timer);
	j->started = true;
	lc_buf_append(out, lc_buf_head(&b), lc_buf_avail(&b) - 1);
	lc_buf_fini(&b);
	return (MGMT_STREAM);
}

/* ---- show system -------------------------------------------------------------- */

struct sys_comp {
	char name[32];
	uint32_t pid;
	int state;
	uint64_t uptime_ms;
	char version[32];
	long rss_kb, hwm_kb;
};

struct sys_wait {
	struct mgmt_op op;
	unsigned pending;
	bool have_list;
	char list_err[256];
	unsigned n;
	struct sys_comp c[32];
	uint32_t rtrmgr_pid;
	uint64_t rtrmgr_up_ms;
	char rtrmgr_version[32];
};

/* VmRSS and VmHWM of pid in kB, -1 when unknown. */
static void
proc_mem(uint32_t pid, long *rss, long *hwm)
{
	char path[64], line[256];
	FILE *f;

	*rss = *hwm = -1;
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (pid == 0 || (f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			*rss = strtol(line + 6, NULL, 10);
		else if (strncmp(line, "VmHWM:", 6) == 0)
			*hwm = strtol(line + 6, NULL, 10);
	}
	fclose(f);
}

static const char *
dur(uint64_t ms, char *buf, size_t n)
{
	uint64_t s = ms / 1000;

	if (s >= 86400)
		snprintf(buf, n, "%llud %02llu:%02llu:%02llu",
		    (unsigned long long)(s / 86400),
		    (unsigned long long)(s % 86400 / 3600),
		    (unsigned long long)(s % 3600 / 60),
		    (unsigned long long)(s % 60));
	else
		snprintf(buf, n, "%02llu:%02llu:%02llu",
		    (unsigned long long)(s / 3600),
		    (unsigned long long)(s % 3600 / 60),
		    (unsigned long long)(s % 60));
	return (buf);
}

static void
sys_render(struct sys_wait *w)
{
	struct lc_buf out;
	struct lc_err none = {0};
	double up = 0;
	char b1[32], b2[32];
	FILE *f;

	if ((f = fopen("/proc/uptime", "re")) != NULL) {
		if (fscanf(f, "%lf", &up) != 1)
			up = 0;
		fclose(f);
	}
	for (unsigned i = 0; i < w->n; i++)
		proc_mem(w->c[i].pid, &w->c[i].rss_kb, &w->c[i].hwm_kb);
	lc_buf_init(&out);
	if (w->op.json) {
		json_object *jo = json_object_new_object(),
			    *arr = json_object_new_array();

		json_object_object_add(jo, "hostname",
		    json_object_new_string(w->op.m->host_name));
		json_object_object_add(jo, "version",
		    json_object_new_string(TERN_VERSION));
		json_object_object_add(jo, "system_uptime_ms",
		    json_object_new_int64((int64_t)(up * 1000)));
		json_object_object_add(jo, "router_uptime_ms",
		    w->rtrmgr_pid != 0 ?
			json_object_new_int64((int64_t)w->rtrmgr_up_ms) :
			NULL);
		for (unsigned i = 0; i < w->n; i++) {
			const struct sys_comp *c = &w->c[i];
			json_object *o = json_object_new_object();

			json_object_object_add(o, "component",
			    json_object_new_string(c->name));
			json_object_object_add(o, "pid",
			    json_object_new_int((int)c->pid));
			json_object_object_add(o, "state",
			    json_object_new_string(
				mgmt_show_proc_state(c->state)));
			json_object_object_add(o, "uptime_ms",
			    json_object_new_int64((int64_t)c->uptime_ms));
			json_object_object_add(o, "version",
			    c->version[0] ? json_object_new_string(c->version) :
					    NULL);
			json_object_object_add(o, "rss_kb",
			    c->rss_kb >= 0 ? json_object_new_int64(c->rss_kb) :
					     NULL);
			json_object_object_add(o, "rss_peak_kb",
			    c->hwm_kb >= 0 ? json_object_new_int64(c->hwm_kb) :
					     NULL);
			json_object_array_add(arr, o);
		}
		json_object_object_add(jo, "components", arr);
		if (!w->have_list)
			json_object_object_add(jo, "error",
			    json_object_new_string(w->list_err));
		lc_buf_printf(&out, "%s",
		    json_object_to_json_string_ext(jo, JSON_C_TO_STRING_PLAIN));
		json_object_put(jo);
	} else {
		lc_buf_printf(&out, "Hostname: %s\nVersion: tern %s\n",
		    w->op.m->host_name, TERN_VERSION);
		lc_buf_printf(&out, "System up: %s (since the host booted)\n",
		    dur((uint64_t)(up * 1000), b1, sizeof(b1)));
		if (w->rtrmgr_pid != 0)
			lc_buf_printf(&out,
			    "Router up: %s (tern-rtrmgr, pid %u)\n",
			    dur(w->rtrmgr_up_ms, b1, sizeof(b1)),
			    w->rtrmgr_pid);
		else
			lc_buf_printf(&out, "Router up: unknown (%s)\n",
			    w->list_err[0] ? w->list_err :
					     "tern-rtrmgr does not answer");
		lc_buf_printf(&out, "%-10s %7s %-9s %12s %-8s %10s %10s\n",
		    "Component", "PID", "State", "Uptime", "Version", "RSS kB",
		    "Peak kB");
		for (unsigned i = 0; i < w->n; i++) {
			const struct sys_comp *c = &w->c[i];

			char b3[32];

			snprintf(b2, sizeof(b2), "%ld", c->rss_kb);
			snprintf(b3, sizeof(b3), "%ld", c->hwm_kb);
			lc_buf_printf(&out,
			    "%-10s %7u %-9s %12s %-8s %10s %10s\n", c->name,
			    c->pid, mgmt_show_proc_state(c->state),
			    dur(c->uptime_ms, b1, sizeof(b1)),
			    c->version[0] ? c->version : "-",
			    c->rss_kb >= 0 ? b2 : "-",
			    c->hwm_kb >= 0 ? b3 : "-");
		}
	}
	lc_buf_append(&out, "", 1);
	w->op.later(w->op.arg, w->op.m, mgmt_session_find(w->op.m, w->op.sid),
	    MGMT_OK, (char *)lc_buf_head(&out), &none);
	lc_buf_fini(&out);
	free(w);
}

static void
sys_done(struct sys_wait *w)
{
	if (--w->pending == 0)
		sys_render(w);
}

struct sys_status {
	struct sys_wait *w;
	enum mgmt_peer peer;
};

static struct sys_comp *
sys_find(struct sys_wait *w, const char *name)
{
	for (unsigned i = 0; i < w->n; i++)
		if (strcmp(w->c[i].name, name) == 0)
			return (&w->c[i]);
	return (NULL);
}

static void
sys_status_reply(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct sys_status *ss = arg;
	struct sys_wait *w = ss->w;
	const Lifecycle__Status *st = (const Lifecycle__Status *)msg;
	const char *v = status == IPC_OK && st != NULL && st->version != NULL &&
		st->version[0] != '\0' ?
	    st->version :
	    "";

	(void)ierr;
	if (status == IPC_OK && st != NULL) {
		if (ss->peer == MGMT_PEER_RTRMGR) {
			w->rtrmgr_pid = st->pid;
			w->rtrmgr_up_ms = st->uptime_ms;
			snprintf(w->rtrmgr_version, sizeof(w->rtrmgr_version),
			    "%s", v);
		} else {
			struct sys_comp *c = st->component != NULL ?
			    sys_find(w, st->component) :
			    NULL;

			/* the instance rtrmgr listed, not one before it */
			if (c != NULL && (c->pid == 0 || c->pid == st->pid))
				snprintf(c->version, sizeof(c->version), "%s",
				    v);
		}
	}
	free(ss);
	sys_done(w);
}

static void
sys_ask_status(struct sys_wait *w, enum mgmt_peer p)
{
	struct ipc_client *cl = mgmt_peer_client(w->op.m, p);
	struct sys_status *ss;

	if (cl == NULL || !ipc_client_connected(cl) ||
	    (ss = calloc(1, sizeof(*ss))) == NULL)
		return;
	ss->w = w;
	ss->peer = p;
	if (ipc_call(cl, IPC_LC(LIFECYCLE__METHOD__STATUS), NULL,
		sys_status_reply, ss, OPS_TIMEOUT_MS) == 0)
		w->pending++;
	else
		free(ss);
}

static void
sys_list_reply(void *arg, int status, const struct lc_err *ierr,
    const ProtobufCMessage *msg)
{
	struct sys_wait *w = arg;
	const Rtrmgr__ComponentList *l = (const Rtrmgr__ComponentList *)msg;
	static const enum mgmt_peer peers[] = {MGMT_PEER_RTRMGR, MGMT_PEER_FWD,
	    MGMT_PEER_RIB, MGMT_PEER_BGP};
	struct sys_comp *me;

	if (status == IPC_OK && l != NULL) {
		w->have_list = true;
		w->n = 0;
		for (size_t i = 0; i < l->n_components && w->n < 32; i++) {
			const Rtrmgr__Component *c = l->components[i];
			struct sys_comp *s = &w->c[w->n++];

			snprintf(s->name, sizeof(s->name), "%s", c->name);
			s->pid = c->pid;
			s->state = (int)c->state;
			s->uptime_ms = c->uptime_ms;
		}
	} else {
		snprintf(w->list_err, sizeof(w->list_err),
		    "tern-rtrmgr: %s%s%s", ipc_status_str(status),
		    ierr->msg[0] ? ": " : "", ierr->msg);
	}
	/* ourselves: known without asking */
	if ((me = sys_find(w, "mgmt")) != NULL &&
	    (me->pid == 0 || me->pid == (uint32_t)getpid()))
		snprintf(me->version, sizeof(me->version), "%s", TERN_VERSION);
	for (size_t i = 0; i < sizeof(peers) / sizeof(peers[0]); i++)
		sys_ask_status(w, peers[i]);
	sys_done(w);
}

int
mgmt_ops_show_system(const struct mgmt_op *op, const char *const *w_,
    unsigned nw, struct lc_buf *out, struct lc_err *err)
{
	struct ipc_client *cl = mgmt_peer_client(op->m, MGMT_PEER_RTRMGR);
	Lifecycle__Empty e = LIFECYCLE__EMPTY__INIT;
	struct sys_wait *w;

	(void)out;
	if (nw > 0)
		return (mgmt_show_bad_args(err, "show system",
		    "nothing (or commit)", w_[0]));
	if (op->later == NULL) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "no way to answer");
		return (MGMT_E_INTERNAL);
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory");
		return (MGMT_E_INTERNAL);
	}
	w->op = *op;
	w->pending = 1;
	if (cl == NULL || !ipc_client_connected(cl) ||
	    ipc_call(cl, RTRMGR__METHOD__LIST, &e.base, sys_list_reply, w,
		OPS_TIMEOUT_MS) != 0) {
		/* mgmt alone, without a supervisor: what it knows of itself */
		struct lc_err ie = {0};

		snprintf(ie.msg, sizeof(ie.msg), "not running");
		w->n = 1;
		snprintf(w->c[0].name, sizeof(w->c[0].name), "mgmt");
		w->c[0].pid = (uint32_t)getpid();
		w->c[0].state = RTRMGR__STATE__RUNNING;
		sys_list_reply(w, IPC_UNAVAILABLE, &ie, NULL);
	}
	return (MGMT_PENDING);
}

/* ---- clear interfaces statistics ----------------------------------------------- */

static void
render_cleared(const struct mgmt *m, struct lc_buf *out, json_object *jo,
    const ProtobufCMessage *msg)
{
	const Fwd__ClearCountersAck *a = (const Fwd__ClearCountersAck *)msg;

	(void)m;
	if (jo != NULL)
		json_object_object_add(jo, "cleared",
		    json_object_new_int((int)a->cleared));
	else
		lc_buf_printf(out,
		    "statistics of %u interface%s cleared (show interfaces "
		    "counts from now; the raw counters go on)\n",
		    a->cleared, a->cleared == 1 ? "" : "s");
}

int
mgmt_ops_clear_ifstats(const struct mgmt_op *op, const char *const *w,
    unsigned nw, struct lc_buf *out, struct lc_err *err)
{
	Fwd__ClearCounters q = FWD__CLEAR_COUNTERS__INIT;
	char dev[MGMT_NAME_MAX];

	(void)out;
	if (nw > 1)
		return (mgmt_show_bad_args(err, "clear interfaces statistics",
		    "at most an interface name", w[1]));
	if (nw == 1) {
		struct if_find f = {.name = w[0]};

		(void)mgmt_conf_foreach(op->m->running, MGMT_S_IFACE,
		    if_find_cb, &f);
		if (!f.found) {
			lc_err_set(err, -ENOENT, LC_ERR_NOINDEX,
			    "clear interfaces statistics: no interface '%s'",
			    w[0]);
			return (MGMT_E_NOT_FOUND);
		}
		snprintf(dev, sizeof(dev), "%s",
		    f.c.device[0] ? f.c.device : f.c.name);
		q.name = dev;
	}
	return (mgmt_show_ask(op, MGMT_PEER_FWD, FWD__METHOD__CLEAR_COUNTERS,
	    &q.base, render_cleared, err));
}
