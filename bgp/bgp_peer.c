/* bgp/bgp_peer.c: one neighbour's sessions, the RFC 4271 finite state
 * machine (section 8) over non-blocking kernel TCP sockets on libev: connect
 * with a backed-off retry, accept, collision detection (6.8), the OPEN
 * exchange, hold and keepalive timers, NOTIFICATIONs (docs/bgp.md).
 *
 * The message layer used here is the least the FSM needs (header, OPEN,
 * KEEPALIVE, NOTIFICATION): UPDATEs are counted, and go to the RIB side
 * once bgp_msg.c (the full parser, RFC 7606) lands beside this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "libcommon/lc_log.h"

#include "bgp_int.h"
#include "bgp_msg.h"

/* message types, NOTIFICATION codes (RFC 4271 4.1, 4.5; RFC 2918) */
enum {
	MSG_OPEN = 1,
	MSG_UPDATE = 2,
	MSG_NOTIFICATION = 3,
	MSG_KEEPALIVE = 4,
	MSG_ROUTE_REFRESH = 5,
};
#define HDR_LEN	 19
#define AS_TRANS 23456

static const char *const state_names[] = {"Idle", "Connect", "Active",
    "OpenSent", "OpenConfirm", "Established"};

const char *
bgp_state_name(enum bgp_state s)
{
	return ((unsigned)s < 6 ? state_names[s] : "?");
}

static void conn_close(struct bgp_conn *c, const char *why);
static void peer_start(struct bgp_peer *p, unsigned delay_ms);
static void codec_set(struct bgp_peer *p);

/* ---- the peer's state: the most advanced of its connections' ---- */

static void
peer_state(struct bgp_peer *p)
{
	enum bgp_state s = p->c.shutdown ? BGP_IDLE : BGP_ACTIVE;

	for (int i = 0; i < 2; i++)
		if (p->conn[i].fd >= 0 && p->conn[i].state > s)
			s = p->conn[i].state;
	if (s == BGP_ACTIVE && p->conn[0].fd >= 0)
		s = BGP_CONNECT;
	if (s != p->state) {
		lc_log_info("neighbor %s: %s -> %s",
		    inet_ntoa((struct in_addr){p->c.addr}),
		    bgp_state_name(p->state), bgp_state_name(s));
		p->state = s;
		p->state_since = ev_now(p->d->loop);
	}
}

static void
conn_state(struct bgp_conn *c, enum bgp_state s)
{
	c->state = s;
	peer_state(c->p);
}

/* ---- sending ---- */

static void
conn_flush(struct bgp_conn *c)
{
	while (c->toff < c->tlen) {
		ssize_t w = send(c->fd, c->tx + c->toff, c->tlen - c->toff,
		    MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			conn_close(c, strerror(errno));
			return;
		}
		c->toff += (unsigned)w;
	}
	if (c->toff == c->tlen) {
		c->toff = c->tlen = 0;
		ev_io_stop(c->p->d->loop, &c->wio);
	} else {
		ev_io_start(c->p->d->loop, &c->wio);
	}
}

/* Room for len bytes at the end of the send buffer, or NULL (the peer does
 * not read: the session is closed). */
static uint8_t *
conn_reserve(struct bgp_conn *c, unsigned len)
{
	if (c->tlen + len > BGP_TX_BUF && c->toff > 0) {
		memmove(c->tx, c->tx + c->toff, c->tlen - c->toff);
		c->tlen -= c->toff;
		c->toff = 0;
	}
	if (c->tlen + len > BGP_TX_BUF)
		return (NULL);
	return (c->tx + c->tlen);
}

struct bgp_conn *
bgp_peer_conn(struct bgp_peer *p)
{
	for (int i = 0; i < 2; i++)
		if (p->conn[i].fd >= 0 && p->conn[i].state == BGP_ESTABLISHED)
			return (&p->conn[i]);
	return (NULL);
}

unsigned
bgp_conn_room(const struct bgp_conn *c)
{
	return (BGP_TX_BUF - (c->tlen - c->toff));
}

int
bgp_conn_put(struct bgp_conn *c, const uint8_t *msg, size_t len)
{
	uint8_t *b = conn_reserve(c, (unsigned)len);

	if (b == NULL)
		return (-ENOBUFS);
	memcpy(b, msg, len);
	c->tlen += (unsigned)len;
	c->p->msgs_out++;
	return (0);
}

void
bgp_conn_send(struct bgp_conn *c)
{
	conn_flush(c);
}

void
bgp_conn_poll_write(struct bgp_conn *c)
{
	if (c->fd >= 0)
		ev_io_start(c->p->d->loop, &c->wio);
}

static uint8_t *
msg_start(struct bgp_conn *c, unsigned type, unsigned len)
{
	uint8_t *m = conn_reserve(c, HDR_LEN + len);

	if (m == NULL)
		return (NULL);
	memset(m, 0xff, 16);
	m[16] = (uint8_t)((HDR_LEN + len) >> 8);
	m[17] = (uint8_t)(HDR_LEN + len);
	m[18] = (uint8_t)type;
	return (m + HDR_LEN);
}

static void
msg_done(struct bgp_conn *c, unsigned len)
{
	c->tlen += HDR_LEN + len;
	c->p->msgs_out++;
	conn_flush(c);
}

/* A NOTIFICATION's name for the log and `show`: its subcode's, else its
 * code's (the message layer's tables). */
static const char *
notif_str(unsigned code, unsigned sub)
{
	const char *s = bgp_err_subcode_str((uint8_t)code, (uint8_t)sub);

	if (strcmp(s, "Unspecific") == 0 || strcmp(s, "unknown") == 0)
		return (bgp_err_code_str((uint8_t)code));
	return (s);
}

static void
send_keepalive(struct bgp_conn *c)
{
	if (msg_start(c, MSG_KEEPALIVE, 0) != NULL)
		msg_done(c, 0);
}

/* Both sides keep graceful restart through a NOTIFICATION (RFC 8538). */
static bool
gr_notif_mode(const struct bgp_peer *p)
{
	return (p->c.gr && p->cap_gr && p->peer_gr_n);
}

/*
 * RFC 8538 5: the Cease subcodes after which the neighbour must not keep
 * our routes (maximum prefixes, administrative shutdown, peer
 * de-configured, administrative reset: tern's `clear bgp neighbor`) go as
 * a Hard Reset, the original code and subcode inside; the others (other
 * configuration change, collision, out of resources, and every error)
 * leave both sides keeping the other's routes stale.
 */
static bool
cease_is_hard(unsigned code, unsigned sub)
{
	return (code == BGP_ERR_CEASE &&
	    (sub == BGP_CEASE_MAXPFX || sub == BGP_CEASE_SHUTDOWN ||
		sub == BGP_CEASE_DECONFIG || sub == BGP_CEASE_RESET ||
		sub == BGP_CEASE_HARD_RESET));
}

static void
send_notification(struct bgp_conn *c, unsigned code, unsigned sub,
    const uint8_t *data, unsigned dlen)
{
	bool hard = c->state >= BGP_OPEN_CONFIRM && gr_notif_mode(c->p) &&
	    cease_is_hard(code, sub) && sub != BGP_CEASE_HARD_RESET;
	unsigned off = hard ? 2 : 0;
	uint8_t *b;

	if (dlen > BGP_MAX_LEN - 19 - 2 - off)
		dlen = BGP_MAX_LEN - 19 - 2 - off;
	if ((b = msg_start(c, MSG_NOTIFICATION, 2 + off + dlen)) == NULL)
		return;
	if (hard) {
		b[0] = BGP_ERR_CEASE;
		b[1] = BGP_CEASE_HARD_RESET;
	}
	b[off] = (uint8_t)code;
	b[off + 1] = (uint8_t)sub;
	if (dlen > 0)
		memcpy(b + off + 2, data, dlen);
	msg_done(c, 2 + off + dlen);
	if (hard || (code == BGP_ERR_CEASE && sub == BGP_CEASE_HARD_RESET))
		c->p->hard_reset = true;
	snprintf(c->p->last_error, sizeof(c->p->last_error),
	    "sent NOTIFICATION %s%u/%u (%s)", hard ? "Hard Reset 6/9 of " : "",
	    code, sub, notif_str(code, sub));
	c->p->err_sent = true;
}

static unsigned
put16(uint8_t *b, unsigned v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
	return (2);
}

static unsigned
put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
	return (4);
}

static uint32_t
get32(const uint8_t *b)
{
	return ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | b[3]);
}

static void
send_open(struct bgp_conn *c)
{
	struct bgp_peer *p = c->p;
	uint32_t las = p->c.local_as ? p->c.local_as : p->d->local_as;
	unsigned hold = p->c.hold ? p->c.hold : BGP_HOLD_DEFAULT;
	uint8_t caps[80], *b;
	unsigned n = 0, len, ngr = 0;
	uint8_t afs = p->c.afs ? p->c.afs : (uint8_t)BGP_AF_BIT(BGP_AF_IPV4);

	/* capabilities (RFC 5492), each its own parameter's entry;
	 * multiprotocol (RFC 4760) for each family configured */
	for (unsigned af = 0; af < BGP_AF_COUNT; af++) {
		if (!(afs & BGP_AF_BIT(af)))
			continue;
		caps[n++] = 1;
		caps[n++] = 4;
		n += put16(caps + n, bgp_af_afi((enum bgp_af)af));
		caps[n++] = 0;
		caps[n++] = bgp_af_safi((enum bgp_af)af);
		ngr++;
	}
	caps[n++] = 2; /* route refresh (RFC 2918) */
	caps[n++] = 0;
	caps[n++] = 65; /* 4-octet AS (RFC 6793) */
	caps[n++] = 4;
	n += put32(caps + n, las);
	if (p->c.gr) { /* graceful restart (RFC 4724) */
		caps[n++] = 64;
		caps[n++] = (uint8_t)(2 + 4 * ngr);
		/* R: restarted (rib kept our routes), so that the helper
		 * keeps ours stale instead of taking us for a new speaker */
		/* N: graceful restart through a NOTIFICATION (RFC 8538) */
		n += put16(caps + n,
		    (p->d->rc.restarting ? 0x8000 : 0) | 0x4000 |
			(p->d->gr_time & 0x0fff));
		/* per family; F: forwarding state kept across a restart of
		 * tern-bgp (rib holds its routes for the restart time, fwd
		 * its FIB) */
		for (unsigned af = 0; af < BGP_AF_COUNT; af++) {
			if (!(afs & BGP_AF_BIT(af)))
				continue;
			n += put16(caps + n, bgp_af_afi((enum bgp_af)af));
			caps[n++] = bgp_af_safi((enum bgp_af)af);
			caps[n++] = 0x80;
		}
	}
	len = 10 + 2 + n;
	if ((b = msg_start(c, MSG_OPEN, len)) == NULL)
		return;
	b[0] = 4;
	put16(b + 1, las > 0xffff ? AS_TRANS : las);
	put16(b + 3, hold);
	memcpy(b + 5, &(uint32_t){bgp_d_router_id(p->d)}, 4);
	b[9] = (uint8_t)(2 + n);
	b[10] = 2; /* capabilities */
	b[11] = (uint8_t)n;
	memcpy(b + 12, caps, n);
	msg_done(c, len);
}

/* ---- timers ---- */

static void
timer_arm(struct bgp_peer *p, ev_timer *t, double s)
{
	ev_timer_stop(p->d->loop, t);
	if (s > 0) {
		ev_timer_set(t, s, 0.0);
		ev_timer_start(p->d->loop, t);
	}
}

static struct bgp_conn *
timer_conn(struct bgp_peer *p)
{
	/* hold and keepalive run for the connection that is furthest on */
	struct bgp_conn *a = &p->conn[0], *b = &p->conn[1];

	if (a->fd < 0)
		return (b->fd >= 0 ? b : NULL);
	if (b->fd < 0)
		return (a);
	return (b->state > a->state ? b : a);
}

static void
hold_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_peer *p = w->data;
	struct bgp_conn *c = timer_conn(p);

	(void)loop;
	(void)revents;
	if (c == NULL)
		return;
	p->hold_expired = true;
	send_notification(c, BGP_ERR_HOLD, 0, NULL, 0);
	conn_close(c, "no message from the peer within the hold time");
}

static void
keep_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_peer *p = w->data;
	struct bgp_conn *c = timer_conn(p);

	(void)loop;
	(void)revents;
	if (c == NULL || c->state < BGP_OPEN_CONFIRM || p->keep_neg == 0)
		return;
	send_keepalive(c);
	timer_arm(p, &p->keep, p->keep_neg);
}

/* ---- connections ---- */

static int
conn_alloc(struct bgp_conn *c, int fd, bool inbound)
{
	if ((c->rx = malloc(BGP_RX_BUF)) == NULL ||
	    (c->tx = malloc(BGP_TX_BUF)) == NULL) {
		free(c->rx);
		c->rx = NULL;
		return (-ENOMEM);
	}
	c->fd = fd;
	c->inbound = inbound;
	c->rlen = c->toff = c->tlen = 0;
	c->open_seen = false;
	c->after_est = false;
	c->remote_id = 0;
	return (0);
}

/* Helping ends: the paths still stale removed (why: for the log). */
static void
gr_help_end(struct bgp_peer *p, const char *why)
{
	size_t n;

	if (p->gr_help == BGP_GR_NONE)
		return;
	ev_timer_stop(p->d->loop, &p->gr_timer);
	p->gr_help = BGP_GR_NONE;
	n = bgp_rib_peer_flush(p->d->rib, p->id, true) +
	    bgp_rib6_peer_flush(p->d->rib6, p->id, true);
	lc_log_info("neighbor %s: graceful restart: %s: %zu stale paths "
		    "removed (of %zu kept)",
	    inet_ntoa((struct in_addr){p->c.addr}), why, n, p->gr_stale);
}

static void
gr_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_peer *p = w->data;

	(void)loop;
	(void)revents;
	gr_help_end(p,
	    p->gr_help == BGP_GR_WAIT ?
		"not back within its restart time" :
		"no End-of-RIB within the stale-path time");
}

/*
 * Whether the session that just ended is one to help restart (RFC 4724
 * 4.2): both sides announced graceful restart, the neighbour listed IPv4
 * unicast with a restart time, and the session ended without a
 * NOTIFICATION: the TCP connection failed or closed, or the hold timer ran
 * out (the neighbour died without its kernel closing the connection; BIRD
 * does the same). A Cease, an error, a reset by the operator: routes gone.
 */
static bool
gr_helpable(const struct bgp_peer *p, const char *why)
{
	bool notif = (p->err_sent && !p->hold_expired) ||
	    (why != NULL && strncmp(why, "received NOTIFICATION", 21) == 0);

	/* RFC 8538: with both N bits only a Hard Reset ends it */
	if (gr_notif_mode(p))
		notif = p->hard_reset;
	return (p->c.gr && p->cap_gr && (p->peer_gr_v4 || p->peer_gr_v6) &&
	    p->peer_gr_time > 0 && !p->c.shutdown && !notif);
}

/* A session that was up went down: counted, damped, started again; its
 * paths removed, or kept as stale when it is helped to restart. */
static void
peer_down(struct bgp_peer *p, bool graceful)
{
	p->flaps++;
	p->hold_neg = p->keep_neg = 0;
	if (graceful) {
		/* paths still stale from a restart before are stale again:
		 * one set of stale paths, one timer */
		ev_timer_stop(p->d->loop, &p->gr_timer);
		p->gr_stale = bgp_rib_peer_stale(p->d->rib, p->id);
		/* IPv6 paths kept too when it listed IPv6 (RFC 4724 3) */
		if (p->peer_gr_v6)
			p->gr_stale += bgp_rib6_peer_stale(p->d->rib6, p->id);
		else
			(void)bgp_rib6_peer_flush(p->d->rib6, p->id, false);
		p->gr_help = BGP_GR_WAIT;
		p->gr_helped++;
		ev_timer_set(&p->gr_timer, p->peer_gr_time, 0.0);
		ev_timer_start(p->d->loop, &p->gr_timer);
		lc_log_info("neighbor %s: graceful restart: %zu paths kept "
			    "stale for up to %u s",
		    inet_ntoa((struct in_addr){p->c.addr}), p->gr_stale,
		    p->peer_gr_time);
	} else {
		ev_timer_stop(p->d->loop, &p->gr_timer);
		p->gr_help = BGP_GR_NONE;
		(void)bgp_rib_peer_flush(p->d->rib, p->id, false);
		(void)bgp_rib6_peer_flush(p->d->rib6, p->id, false);
	}
	bgp_adv_stop(p);
	bgp_adv6_stop(p);
	p->eor_rcvd = false;
	p->eor6_rcvd = false;
	/* RFC 4271 8.1.1 DampPeerOscillations: each flap doubles the wait
	 * before the next try, up to a minute; a session up for longer than
	 * that starts from nothing again (peer_established) */
	p->idle_hold_ms = p->idle_hold_ms ?
	    (p->idle_hold_ms * 2 > BGP_IDLE_HOLD_MAX_MS ? BGP_IDLE_HOLD_MAX_MS :
							  p->idle_hold_ms * 2) :
	    1000;
}

static void
conn_close(struct bgp_conn *c, const char *why)
{
	struct bgp_peer *p = c->p;
	enum bgp_state was = c->state;
	bool was_up = was == BGP_ESTABLISHED, graceful;

	if (c->fd < 0)
		return;
	graceful = was_up && gr_helpable(p, why);
	p->hold_expired = false;
	p->hard_reset = false;
	ev_io_stop(p->d->loop, &c->rio);
	ev_io_stop(p->d->loop, &c->wio);
	close(c->fd);
	c->fd = -1;
	free(c->rx);
	free(c->tx);
	c->rx = c->tx = NULL;
	c->state = BGP_IDLE;
	/* the last error, as Junos keeps it: the last NOTIFICATION sent (with
	 * why) or received; a closed socket or a refused connect only while
	 * there was none, so that they do not hide it */
	if (p->err_sent && why != NULL) {
		size_t l = strlen(p->last_error);

		snprintf(p->last_error + l, sizeof(p->last_error) - l, ": %s",
		    why);
		p->err_notif = true;
	} else if (why != NULL &&
	    strncmp(why, "received NOTIFICATION", 21) == 0) {
		snprintf(p->last_error, sizeof(p->last_error), "%s", why);
		p->err_notif = true;
	} else if (why != NULL && !p->err_notif &&
	    (was > BGP_CONNECT || !p->last_error[0])) {
		snprintf(p->last_error, sizeof(p->last_error), "%s", why);
	}
	p->err_sent = false;
	lc_log_info("neighbor %s: %s connection closed: %s",
	    inet_ntoa((struct in_addr){p->c.addr}),
	    c->inbound ? "inbound" : "outbound", why ? why : "");
	if (timer_conn(p) == NULL) {
		ev_timer_stop(p->d->loop, &p->hold);
		ev_timer_stop(p->d->loop, &p->keep);
	}
	if (was_up)
		peer_down(p, graceful);
	peer_state(p);
	if (p->conn[0].fd < 0 && p->conn[1].fd < 0 && !p->c.shutdown)
		peer_start(p, was_up ? p->idle_hold_ms : p->retry_ms);
}

/* ---- receiving ---- */

/* How many prefixes ahead an UPDATE's table lookups are prefetched: the
 * hash slot first, its record once the slot is in (rx_update) */
#define PF_SLOT 8
#define PF_DEST 4

/* The prefixes of one NLRI field into d->nlri (how many): a first pass, so
 * that the table's lookups can be prefetched ahead (nlri_ahead). */
static unsigned
nlri_collect(struct bgp_d *d, const struct bgp_nlri *n)
{
	struct bgp_nlri_iter it;
	unsigned nn;

	bgp_nlri_iter_init(&it, n);
	for (nn = 0; nn < BGP_MAX_LEN && bgp_nlri_next4(&it, &d->nlri[nn]) == 1;
	     nn++)
		;
	return (nn);
}

/* Before prefix k of nn is looked up: the slots and records of those a
 * few after it on their way into the cache (the lookups are cache misses,
 * most of tern-bgp's time on a full table). */
static inline void
nlri_ahead(struct bgp_d *d, unsigned k, unsigned nn)
{
	if (k + PF_SLOT < nn)
		bgp_rib_prefetch(d->rib, d->nlri[k + PF_SLOT].addr.s_addr,
		    d->nlri[k + PF_SLOT].len, false);
	if (k + PF_DEST < nn)
		bgp_rib_prefetch(d->rib, d->nlri[k + PF_DEST].addr.s_addr,
		    d->nlri[k + PF_DEST].len, true);
}

static void
conn_error(struct bgp_conn *c, unsigned code, unsigned sub, const uint8_t *data,
    unsigned dlen, const char *why)
{
	send_notification(c, code, sub, data, dlen);
	conn_close(c, why);
}

void
bgp_peer_reset(struct bgp_peer *p, const char *why)
{
	struct bgp_conn *c = bgp_peer_conn(p);

	if (c != NULL)
		conn_error(c, BGP_ERR_CEASE, BGP_CEASE_RESOURCES, NULL, 0, why);
}

/* Collision detection (RFC 4271 6.8) once c has the peer's identifier:
 * false when c was the one closed. */
static bool
collision(struct bgp_conn *c)
{
	struct bgp_peer *p = c->p;
	struct bgp_conn *o = &p->conn[c == &p->conn[0] ? 1 : 0];
	struct bgp_conn *loser;

	if (o->fd < 0 || o->state < BGP_OPEN_SENT)
		return (true);
	if (o->state == BGP_ESTABLISHED && c->after_est && p->c.gr &&
	    p->cap_gr) {
		/* RFC 4724 4.2: the neighbour restarted before we saw its
		 * old connection end: that one closed (no NOTIFICATION, so
		 * its paths are kept stale), the new one goes on. Only a
		 * connection that came after Established: one opened
		 * before is a plain collision (6.8) */
		conn_close(o,
		    "the neighbour restarted: a new OPEN while "
		    "established (RFC 4724)");
		return (true);
	}
	if (o->state == BGP_ESTABLISHED) {
		loser = c;
	} else if (o->state == BGP_OPEN_CONFIRM || o->open_seen) {
		/* the connection the higher identifier opened stays */
		bool keep_inbound = ntohl(bgp_d_router_id(p->d)) <
		    ntohl(c->remote_id);

		loser = (c->inbound == keep_inbound) ? o : c;
	} else {
		return (true); /* o's OPEN not seen yet: decided then */
	}
	send_notification(loser, BGP_ERR_CEASE, BGP_CEASE_COLLISION, NULL, 0);
	conn_close(loser, "connection collision resolved");
	return (loser != c);
}

/* The peer's OPEN (RFC 4271 4.2, 6.2; RFC 5492, 6793). */
static void
rx_open(struct bgp_conn *c, const uint8_t *b, unsigned len)
{
	struct bgp_peer *p = c->p;
	uint32_t as, id, las = p->c.local_as ? p->c.local_as : p->d->local_as;
	unsigned hold, plen, i, myhold;
	bool as4 = false, mp4 = false, rr = false, gr = false;
	bool gr_r = false, gr_n = false, gr_v4 = false, gr_f4 = false;
	bool gr_v6 = false, gr_f6 = false, any_mp = false;
	uint8_t peer_afs = 0;
	unsigned gr_time = 0;
	uint32_t as4v = 0;

	if (c->state != BGP_OPEN_SENT) {
		conn_error(c, BGP_ERR_FSM, c->state == BGP_OPEN_CONFIRM ? 2 : 3,
		    NULL, 0, "OPEN in the wrong state");
		return;
	}
	if (len < 10 || (plen = b[9]) != len - 10) {
		conn_error(c, BGP_ERR_HDR, 2, NULL, 0, "bad OPEN length");
		return;
	}
	if (b[0] != 4) {
		uint8_t v[2] = {0, 4};

		conn_error(c, BGP_ERR_OPEN, 1, v, 2, "unsupported version");
		return;
	}
	as = (uint32_t)b[1] << 8 | b[2];
	hold = (unsigned)b[3] << 8 | b[4];
	memcpy(&id, b + 5, 4);
	for (i = 10; i < len;) {
		unsigned ptype, pl, j;

		if (i + 2 > len || i + 2 + (pl = b[i + 1]) > len) {
			conn_error(c, BGP_ERR_OPEN, 0, NULL, 0,
			    "malformed optional parameters");
			return;
		}
		ptype = b[i];
		if (ptype != 2) {
			conn_error(c, BGP_ERR_OPEN, 4, NULL, 0,
			    "unsupported optional parameter");
			return;
		}
		for (j = i + 2; j < i + 2 + pl;) {
			unsigned code, cl;

			if (j + 2 > i + 2 + pl ||
			    j + 2 + (cl = b[j + 1]) > i + 2 + pl) {
				conn_error(c, BGP_ERR_OPEN, 0, NULL, 0,
				    "malformed capability");
				return;
			}
			code = b[j];
			if (code == 1 && cl == 4) {
				int af = bgp_af_of(bgp_get16(b + j + 2),
				    b[j + 5]);

				any_mp = true;
				if (af >= 0)
					peer_afs |= (uint8_t)BGP_AF_BIT(af);
				mp4 |= af == BGP_AF_IPV4;
			} else if (code == 2 || code == 128)
				rr = true;
			else if (code == 64) {
				/* restart flags and time, then (AFI, SAFI,
				 * flags) per family (RFC 4724 3) */
				gr = true;
				if (cl >= 2) {
					unsigned ft = (unsigned)b[j + 2] << 8 |
					    b[j + 3];

					gr_r = (ft & 0x8000) != 0;
					gr_n = (ft & 0x4000) != 0;
					gr_time = ft & 0x0fff;
				}
				for (unsigned t = 2; t + 4 <= cl; t += 4) {
					const uint8_t *e = b + j + 2 + t;

					if (e[0] == 0 && e[1] == 1 &&
					    e[2] == 1) {
						gr_v4 = true;
						gr_f4 = (e[3] & 0x80) != 0;
					} else if (e[0] == 0 && e[1] == 2 &&
					    e[2] == 1) {
						gr_v6 = true;
						gr_f6 = (e[3] & 0x80) != 0;
					}
				}
			} else if (code == 65 && cl == 4) {
				as4 = true;
				as4v = get32(b + j + 2);
			}
			j += 2 + cl;
		}
		i += 2 + pl;
	}
	if (as4)
		as = as4v;
	if (as != p->c.remote_as) {
		uint8_t d[2] = {b[1], b[2]};
		char why[64];

		snprintf(why, sizeof(why), "its AS is %u, configured %u", as,
		    p->c.remote_as);
		conn_error(c, BGP_ERR_OPEN, 2, d, 2, why);
		return;
	}
	if (hold == 1 || hold == 2) {
		conn_error(c, BGP_ERR_OPEN, 6, NULL, 0,
		    "unacceptable hold time");
		return;
	}
	/* RFC 6286: the identifier must be non-zero, and differ from ours
	 * within an AS */
	if (id == 0 || (as == las && id == bgp_d_router_id(p->d))) {
		conn_error(c, BGP_ERR_OPEN, 3, NULL, 0, "bad BGP identifier");
		return;
	}
	c->remote_id = id;
	c->open_seen = true;
	if (!collision(c))
		return;
	myhold = p->c.hold ? p->c.hold : BGP_HOLD_DEFAULT;
	p->hold_neg = hold < myhold ? hold : myhold;
	p->keep_neg = p->hold_neg / 3;
	p->remote_id = id;
	p->cap_as4 = as4;
	p->cap_mp4 = mp4;
	p->cap_rr = rr;
	p->cap_gr = gr;
	p->peer_gr_r = gr_r;
	p->peer_gr_n = gr_n;
	p->peer_gr_time = gr_time;
	p->peer_gr_v4 = gr_v4;
	p->peer_gr_f4 = gr_f4;
	p->peer_gr_v6 = gr_v6;
	p->peer_gr_f6 = gr_f6;
	/* no MP capability at all: IPv4 unicast (RFC 4760 8) */
	p->peer_afs = any_mp ? peer_afs : (uint8_t)BGP_AF_BIT(BGP_AF_IPV4);
	codec_set(p);
	send_keepalive(c);
	if (c->fd < 0)
		return;
	conn_state(c, BGP_OPEN_CONFIRM);
	timer_arm(p, &p->hold, p->hold_neg);
	timer_arm(p, &p->keep, p->keep_neg);
}

static void
peer_established(struct bgp_conn *c)
{
	struct bgp_peer *p = c->p;
	struct bgp_conn *o = &p->conn[c == &p->conn[0] ? 1 : 0];

	if (o->fd >= 0) {
		send_notification(o, BGP_ERR_CEASE, BGP_CEASE_COLLISION, NULL,
		    0);
		conn_close(o, "connection collision resolved");
	}
	conn_state(c, BGP_ESTABLISHED);
	{
		struct bgp_rib_peer rp = {p->c.addr, p->remote_id,
		    p->c.remote_as, p->codec.ebgp};

		bgp_rib_peer_set(p->d->rib, p->id, &rp);
	}
	p->retry_ms = BGP_RETRY_FIRST_MS;
	ev_timer_stop(p->d->loop, &p->retry);
	if (p->gr_help != BGP_GR_NONE) {
		/* RFC 4724 4.2: back within its restart time; the stale paths
		 * stay until its End-of-RIB only if it kept its forwarding
		 * state for IPv4 unicast (F) */
		if (!(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV6)) || !p->peer_gr_v6 ||
		    !p->peer_gr_f6) {
			/* IPv6's stale paths go now: not kept by it */
			size_t n6 = bgp_rib6_peer_flush(p->d->rib6, p->id,
			    true);

			if (n6 > 0)
				lc_log_info("neighbor %s: graceful restart: "
					    "%zu stale IPv6 paths removed (no "
					    "forwarding state kept for IPv6)",
				    inet_ntoa((struct in_addr){p->c.addr}), n6);
		}
		if (!(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV4))) {
			/* IPv6 alone: decided above; IPv4 paths it had go */
			(void)bgp_rib_peer_flush(p->d->rib, p->id, true);
			if (bgp_rib6_peer_stale_count(p->d->rib6, p->id) == 0)
				gr_help_end(p, "back, nothing kept");
			else {
				p->gr_help = BGP_GR_EOR;
				ev_timer_stop(p->d->loop, &p->gr_timer);
				ev_timer_set(&p->gr_timer, BGP_STALE_PATH_S,
				    0.0);
				ev_timer_start(p->d->loop, &p->gr_timer);
			}
		} else if (!p->c.gr || !p->cap_gr || !p->peer_gr_v4 ||
		    !p->peer_gr_f4) {
			gr_help_end(p, "back without its forwarding state");
		} else {
			p->gr_help = BGP_GR_EOR;
			ev_timer_stop(p->d->loop, &p->gr_timer);
			ev_timer_set(&p->gr_timer, BGP_STALE_PATH_S, 0.0);
			ev_timer_start(p->d->loop, &p->gr_timer);
		}
	}
	/* the whole table, then End-of-RIB (RFC 4724 2): bgp_adv.c */
	{
		struct sockaddr_in la;
		socklen_t ll = sizeof(la);

		if (getsockname(c->fd, (struct sockaddr *)&la, &ll) != 0)
			la.sin_addr.s_addr = 0;
		bgp_adv_start(p, la.sin_addr.s_addr);
		/* a session without IPv4 unicast gets no IPv4 routes, and
		 * no IPv4 End-of-RIB (RFC 4724 2: per negotiated family) */
		if (!(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV4)))
			bgp_adv_stop(p);
		bgp_adv6_start(p);
	}
}

/* The session's codec once both OPENs are known: the families both
 * announced. */
static void
codec_set(struct bgp_peer *p)
{
	uint32_t las = p->c.local_as ? p->c.local_as : p->d->local_as;
	bool ebgp = p->c.remote_as != las;

	memset(&p->codec, 0, sizeof(p->codec));
	p->codec.as4 = p->cap_as4; /* we always send the capability */
	p->codec.ebgp = ebgp;
	p->afs_neg = (uint8_t)((p->c.afs ? p->c.afs : BGP_AF_BIT(BGP_AF_IPV4)) &
	    p->peer_afs);
	p->codec.afs = p->afs_neg;
	p->codec.first_as = ebgp ? p->c.remote_as : 0;
}

/* The session's local AS. */
static uint32_t
local_as(const struct bgp_peer *p)
{
	return (p->c.local_as ? p->c.local_as : p->d->local_as);
}

struct bgp_aset *
bgp_peer_import(struct bgp_peer *p, uint32_t addr, uint8_t len,
    struct bgp_aset *in, uint8_t *why)
{
	struct bgp_policy_route rt = {.af = BGP_AF_IPV4,
	    .set = in,
	    .from = p->c.addr};
	struct bgp_policy_peer pp = {p->c.addr, p->c.remote_as, local_as(p),
	    p->codec.ebgp};
	struct bgp_aset *out = NULL;

	*why = BGP_WHY_POLICY;
	if (p->imp == NULL) /* RFC 8212 */
		return (p->codec.ebgp ? NULL : bgp_aset_ref(in));
	rt.p4.addr.s_addr = addr;
	rt.p4.len = len;
	if (bgp_policy_eval(p->imp, BGP_POL_IMPORT, &pp, &rt, p->d->pscr,
		&out) != BGP_POLICY_ACCEPT)
		return (NULL);
	return (out);
}

struct bgp_aset *
bgp_peer_import6(struct bgp_peer *p, const struct lc_prefix6 *pfx,
    struct bgp_aset *in, uint8_t *why)
{
	struct bgp_policy_route rt = {.af = BGP_AF_IPV6,
	    .set = in,
	    .from = p->c.addr};
	struct bgp_policy_peer pp = {p->c.addr, p->c.remote_as, local_as(p),
	    p->codec.ebgp};
	struct bgp_aset *out = NULL;

	*why = BGP_WHY_POLICY;
	if (p->imp == NULL) /* RFC 8212 */
		return (p->codec.ebgp ? NULL : bgp_aset_ref(in));
	rt.p6 = *pfx;
	if (bgp_policy_eval(p->imp, BGP_POL_IMPORT, &pp, &rt, p->d->pscr,
		&out) != BGP_POLICY_ACCEPT)
		return (NULL);
	return (out);
}

/* A path as received: not used when our AS is in it (RFC 4271 9.1.2). */
static bool
in_loops(struct bgp_peer *p, struct bgp_aset *in)
{
	struct bgp_attrs a;

	return (bgp_aset_attrs(in, &a) != 0 ||
	    bgp_aspath_contains(a.aspath, a.aspath_len, local_as(p)));
}

static struct bgp_aset *
reimport6_fn(void *arg, const struct lc_prefix6 *pfx, struct bgp_aset *in,
    uint8_t *why)
{
	struct bgp_peer *p = arg;

	if (in_loops(p, in)) {
		*why = BGP_WHY_LOOP;
		return (NULL);
	}
	return (bgp_peer_import6(p, pfx, in, why));
}

static struct bgp_aset *
reimport_fn(void *arg, uint32_t addr, uint8_t len, struct bgp_aset *in,
    uint8_t *why)
{
	struct bgp_peer *p = arg;

	if (in_loops(p, in)) {
		*why = BGP_WHY_LOOP;
		return (NULL);
	}
	return (bgp_peer_import(p, addr, len, in, why));
}

void
bgp_peer_reimport(struct bgp_peer *p)
{
	size_t n = bgp_rib_reimport(p->d->rib, p->id, reimport_fn, p) +
	    bgp_rib6_reimport(p->d->rib6, p->id, reimport6_fn, p);

	lc_log_info("neighbor %s: import policy %s applied again: %zu paths "
		    "changed",
	    inet_ntoa((struct in_addr){p->c.addr}),
	    p->c.import[0] ? p->c.import : "(none)", n);
}

/* An UPDATE's IPv6 withdrawals (MP_UNREACH_NLRI, or treat-as-withdraw's
 * MP_REACH_NLRI prefixes). */
static void
rx_withdraw6(struct bgp_peer *p, const struct bgp_nlri *f)
{
	struct bgp_nlri_iter it;
	struct lc_prefix6 pf;

	bgp_nlri_iter_init(&it, f);
	while (bgp_nlri_next6(&it, &pf) == 1)
		(void)bgp_rib6_withdraw(p->d->rib6, p->id, &pf);
}

/* An UPDATE's IPv6 announcements (MP_REACH_NLRI, RFC 4760 3, with its
 * next hop: global, or global and link-local, RFC 2545 3): 0, or -1 when
 * the session was closed. */
static int
rx_announce6(struct bgp_conn *c, const struct bgp_update *u,
    const struct bgp_nlri *f)
{
	struct bgp_peer *p = c->p;
	struct bgp_d *d = p->d;
	struct bgp_attrs a = u->a;
	struct bgp_nlri_iter it;
	struct lc_prefix6 pf;
	struct bgp_aset *set;
	bool loop;
	int n;

	a.mp_reach = *f; /* the next hop is the field's */
	if ((n = bgp_attr_canon(&a, BGP_AF_IPV6, d->canon, sizeof(d->canon))) <
		0 ||
	    (set = bgp_intern_get(d->intern, d->canon, (size_t)n)) == NULL) {
		conn_error(c, BGP_ERR_CEASE, 8, NULL, 0,
		    "out of memory for attributes");
		return (-1);
	}
	loop = bgp_aspath_contains(a.aspath, a.aspath_len, local_as(p));
	bgp_nlri_iter_init(&it, f);
	while (bgp_nlri_next6(&it, &pf) == 1) {
		uint8_t why = BGP_WHY_LOOP;
		struct bgp_aset *use = loop ?
		    NULL :
		    bgp_peer_import6(p, &pf, set, &why);
		int rv = bgp_rib6_update(d->rib6, p->id, &pf, set, use, why);

		if (use != NULL)
			bgp_aset_unref(d->intern, use);
		if (rv < 0) {
			bgp_aset_unref(d->intern, set);
			conn_error(c, BGP_ERR_CEASE, 8, NULL, 0,
			    "out of memory for routes");
			return (-1);
		}
	}
	bgp_aset_unref(d->intern, set);
	return (0);
}

/* An UPDATE (msg: the whole message) into the neighbour's paths: withdrawn
 * prefixes first, then the announced ones with their interned attributes
 * (RFC 4271 9; RFC 7606: the parser has moved treat-as-withdraw's
 * prefixes to unreach, and a reset comes back as its NOTIFICATION). A path
 * with our AS in its AS path is kept but never used (9.1.2). */
static void
rx_update(struct bgp_conn *c, const uint8_t *msg, unsigned len)
{
	struct bgp_peer *p = c->p;
	struct bgp_d *d = p->d;
	struct bgp_update u;
	struct bgp_err err;
	struct bgp_aset *set = NULL;
	struct lc_prefix4 pf;
	bool loop = false;
	unsigned nn;

	if (bgp_update_parse(msg, len, &p->codec, d->scratch, &u, &err) != 0) {
		/* the error's data points into the receive buffer: sent first */
		uint8_t *b = conn_reserve(c, BGP_MAX_LEN);
		int n = b != NULL ? bgp_err_encode(b, BGP_MAX_LEN, &err) : -1;

		if (n > 0) {
			c->tlen += (unsigned)n;
			p->msgs_out++;
			conn_flush(c);
		}
		snprintf(p->last_error, sizeof(p->last_error),
		    "sent NOTIFICATION %u/%u (%s)", err.code, err.subcode,
		    notif_str(err.code, err.subcode));
		p->err_sent = true;
		conn_close(c, err.reason ? err.reason : "malformed UPDATE");
		return;
	}
	if (u.a.outcome != BGP_OUT_OK) {
		p->upd_errors++;
		lc_log_info("neighbor %s: UPDATE %s: %s",
		    inet_ntoa((struct in_addr){p->c.addr}),
		    u.a.outcome == BGP_OUT_WITHDRAW ? "treated as withdraw" :
						      "attribute discarded",
		    u.a.why ? u.a.why : "");
	}
	for (unsigned i = 0; i < u.n_unreach; i++) {
		if (u.unreach[i].af == BGP_AF_IPV6) {
			rx_withdraw6(p, &u.unreach[i]);
			continue;
		}
		if (u.unreach[i].af != BGP_AF_IPV4)
			continue;
		nn = nlri_collect(d, &u.unreach[i]);
		for (unsigned k = 0; k < nn; k++) {
			nlri_ahead(d, k, nn);
			(void)bgp_rib_withdraw(d->rib, p->id,
			    d->nlri[k].addr.s_addr, d->nlri[k].len);
		}
	}
	for (unsigned i = 0; i < u.n_reach; i++) {
		int n;

		if (u.reach[i].af == BGP_AF_IPV6) {
			if (rx_announce6(c, &u, &u.reach[i]) != 0)
				return;
			continue;
		}
		if (u.reach[i].af != BGP_AF_IPV4)
			continue;
		if (set == NULL) {
			if ((n = bgp_attr_canon(&u.a, BGP_AF_IPV4, d->canon,
				 sizeof(d->canon))) < 0 ||
			    (set = bgp_intern_get(d->intern, d->canon,
				 (size_t)n)) == NULL) {
				conn_error(c, BGP_ERR_CEASE, 8, NULL, 0,
				    "out of memory for attributes");
				return;
			}
			loop = bgp_aspath_contains(u.a.aspath, u.a.aspath_len,
			    local_as(p));
		}
		nn = nlri_collect(d, &u.reach[i]);
		for (unsigned k = 0; k < nn; k++) {
			uint8_t why = BGP_WHY_LOOP;
			struct bgp_aset *use;
			int rv;

			pf = d->nlri[k];
			nlri_ahead(d, k, nn);
			use = loop ? NULL :
				     bgp_peer_import(p, pf.addr.s_addr, pf.len,
					 set, &why);
			rv = bgp_rib_update(d->rib, p->id, pf.addr.s_addr,
			    pf.len, set, use, why);
			if (use != NULL)
				bgp_aset_unref(d->intern, use);
			if (rv < 0) {
				bgp_aset_unref(d->intern, set);
				conn_error(c, BGP_ERR_CEASE, 8, NULL, 0,
				    "out of memory for routes");
				return;
			}
		}
	}
	if (set != NULL)
		bgp_aset_unref(d->intern, set);
	if (u.eor == BGP_AF_IPV4) {
		p->eor_rcvd = true;
		/* IPv6's stale paths wait for its own End-of-RIB */
		if (p->eor6_rcvd || !(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV6)))
			gr_help_end(p, "End-of-RIB received");
		else if (p->gr_help != BGP_GR_NONE)
			(void)bgp_rib_peer_flush(d->rib, p->id, true);
	} else if (u.eor == BGP_AF_IPV6) {
		p->eor6_rcvd = true;
		if (p->eor_rcvd || !(p->afs_neg & BGP_AF_BIT(BGP_AF_IPV4)))
			gr_help_end(p, "End-of-RIB received (IPv4 and IPv6)");
		else if (p->gr_help != BGP_GR_NONE)
			(void)bgp_rib6_peer_flush(d->rib6, p->id, true);
	}
}

/* One whole message (header checked) of type with its body. */
static void
rx_msg(struct bgp_conn *c, unsigned type, const uint8_t *b, unsigned len)
{
	struct bgp_peer *p = c->p;

	p->msgs_in++;
	switch (type) {
	case MSG_OPEN:
		rx_open(c, b, len);
		return;
	case MSG_KEEPALIVE:
		if (len != 0) {
			uint8_t d[2] = {0, (uint8_t)(HDR_LEN + len)};

			conn_error(c, BGP_ERR_HDR, 2, d, 2,
			    "KEEPALIVE with a body");
			return;
		}
		if (c->state == BGP_OPEN_CONFIRM)
			peer_established(c);
		else if (c->state != BGP_ESTABLISHED) {
			conn_error(c, BGP_ERR_FSM, 1, NULL, 0,
			    "KEEPALIVE in OpenSent");
			return;
		}
		break;
	case MSG_UPDATE:
		if (c->state != BGP_ESTABLISHED) {
			conn_error(c, BGP_ERR_FSM,
			    c->state == BGP_OPEN_SENT ? 1 : 2, NULL, 0,
			    "UPDATE before Established");
			return;
		}
		p->updates_in++;
		rx_update(c, b - HDR_LEN, len + HDR_LEN);
		if (c->fd < 0)
			return;
		break;
	case MSG_ROUTE_REFRESH:
		if (c->state != BGP_ESTABLISHED)
			return;
		if (len != 4) { /* RFC 7313 5: the whole message as data */
			conn_error(c, BGP_ERR_RR, BGP_ERR_RR_LEN, b - HDR_LEN,
			    HDR_LEN + len, "ROUTE-REFRESH of a wrong length");
			return;
		}
		/* RFC 2918 3: IPv4 unicast sent again whole; another AFI/SAFI
		 * (or a BoRR/EoRR subtype, RFC 7313) is ignored */
		if (bgp_get16(b) == BGP_AFI_IPV4 && b[3] == BGP_SAFI_UNICAST &&
		    b[2] == 0) {
			p->refresh_in++;
			bgp_adv_refresh(p);
		} else if (bgp_get16(b) == BGP_AFI_IPV6 &&
		    b[3] == BGP_SAFI_UNICAST && b[2] == 0 &&
		    (p->afs_neg & BGP_AF_BIT(BGP_AF_IPV6))) {
			p->refresh_in++;
			bgp_adv6_refresh(p);
		}
		break;
	case MSG_NOTIFICATION: {
		char why[BGP_ERR_MAX];

		if (len >= 4 && b[0] == BGP_ERR_CEASE &&
		    b[1] == BGP_CEASE_HARD_RESET)
			/* RFC 8538 3: the cause inside */
			snprintf(why, sizeof(why),
			    "received NOTIFICATION Hard Reset 6/9 of %u/%u (%s)",
			    b[2], b[3], notif_str(b[2], b[3]));
		else
			snprintf(why, sizeof(why),
			    "received NOTIFICATION %u/%u (%s)",
			    len > 0 ? b[0] : 0, len > 1 ? b[1] : 0,
			    notif_str(len > 0 ? b[0] : 0, len > 1 ? b[1] : 0));
		p->hard_reset = len >= 2 && b[0] == BGP_ERR_CEASE &&
		    b[1] == BGP_CEASE_HARD_RESET;
		p->err_sent = false;
		conn_close(c, why);
		return;
	}
	}
	if (c->state >= BGP_OPEN_CONFIRM && c == timer_conn(p))
		timer_arm(p, &p->hold, p->hold_neg);
}

static void
conn_read(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bgp_conn *c = w->data;
	unsigned off = 0;
	ssize_t r;

	(void)loop;
	(void)revents;
	r = recv(c->fd, c->rx + c->rlen, BGP_RX_BUF - c->rlen, 0);
	if (r == 0) {
		conn_close(c, "connection closed by the peer");
		return;
	}
	if (r < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c, strerror(errno));
		return;
	}
	c->rlen += (unsigned)r;
	/* every whole message in the buffer, in order; c may close midway */
	while (c->fd >= 0 && c->rlen - off >= HDR_LEN) {
		const uint8_t *m = c->rx + off;
		unsigned len = (unsigned)m[16] << 8 | m[17], type = m[18];
		static const uint8_t ones[16] = {0xff, 0xff, 0xff, 0xff, 0xff,
		    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		    0xff};

		if (memcmp(m, ones, 16) != 0) {
			conn_error(c, BGP_ERR_HDR, 1, NULL, 0,
			    "connection not synchronised");
			return;
		}
		if (len < HDR_LEN || len > BGP_MSG_MAX) {
			conn_error(c, BGP_ERR_HDR, 2, m + 16, 2,
			    "bad message length");
			return;
		}
		if (type < MSG_OPEN || type > MSG_ROUTE_REFRESH) {
			conn_error(c, BGP_ERR_HDR, 3, m + 18, 1,
			    "bad message type");
			return;
		}
		if (c->rlen - off < len)
			break;
		rx_msg(c, type, m + HDR_LEN, len - HDR_LEN);
		off += len;
	}
	if (c->fd >= 0 && off > 0) {
		memmove(c->rx, c->rx + off, c->rlen - off);
		c->rlen -= off;
	}
}

static void
conn_write(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bgp_conn *c = w->data;

	(void)loop;
	(void)revents;
	if (c->state == BGP_CONNECT) { /* the connect finished */
		int e = 0;
		socklen_t l = sizeof(e);

		ev_io_stop(loop, &c->wio);
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
			e = errno;
		if (e != 0) {
			char why[BGP_ERR_MAX];

			snprintf(why, sizeof(why), "connect: %s", strerror(e));
			conn_close(c, why);
			return;
		}
		ev_io_start(loop, &c->rio);
		conn_state(c, BGP_OPEN_SENT);
		timer_arm(c->p, &c->p->hold, BGP_OPEN_HOLD);
		send_open(c);
		return;
	}
	conn_flush(c);
}

static void
conn_watch(struct bgp_conn *c)
{
	ev_io_init(&c->rio, conn_read, c->fd, EV_READ);
	c->rio.data = c;
	ev_io_init(&c->wio, conn_write, c->fd, EV_WRITE);
	c->wio.data = c;
}

/* TTL and MD5 of a session socket (RFC 4271 eBGP single hop: TTL 1). */
static int
sock_opts(struct bgp_peer *p, int fd)
{
	uint32_t las = p->c.local_as ? p->c.local_as : p->d->local_as;
	int ttl = p->c.ttl ? (int)p->c.ttl : p->c.remote_as == las ? 64 : 1;
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) != 0)
		return (-errno);
	if (p->c.md5[0] != '\0')
		return (bgp_md5_set(fd, p->c.addr, p->c.md5));
	return (0);
}

int
bgp_md5_set(int fd, uint32_t addr, const char *key)
{
	struct tcp_md5sig m;
	struct sockaddr_in *sin = (struct sockaddr_in *)&m.tcpm_addr;
	size_t kl = strlen(key);

	if (kl > TCP_MD5SIG_MAXKEYLEN)
		return (-EINVAL);
	memset(&m, 0, sizeof(m));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	m.tcpm_keylen = (uint16_t)kl;
	memcpy(m.tcpm_key, key, kl);
	if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &m, sizeof(m)) != 0)
		return (-errno);
	return (0);
}

static void
connect_start(struct bgp_peer *p)
{
	struct bgp_conn *c = &p->conn[0];
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int fd, rv;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		 0)) < 0) {
		snprintf(p->last_error, sizeof(p->last_error), "socket: %s",
		    strerror(errno));
		return;
	}
	if ((rv = sock_opts(p, fd)) != 0) {
		snprintf(p->last_error, sizeof(p->last_error),
		    "socket options: %s", strerror(-rv));
		close(fd);
		return;
	}
	if (p->c.local_addr != 0) {
		sin.sin_addr.s_addr = p->c.local_addr;
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
			snprintf(p->last_error, sizeof(p->last_error),
			    "bind %s: %s", inet_ntoa(sin.sin_addr),
			    strerror(errno));
			close(fd);
			return;
		}
	}
	sin.sin_addr.s_addr = p->c.addr;
	sin.sin_port = htons((uint16_t)p->d->port);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 &&
	    errno != EINPROGRESS) {
		snprintf(p->last_error, sizeof(p->last_error), "connect: %s",
		    strerror(errno));
		close(fd);
		return;
	}
	if (conn_alloc(c, fd, false) != 0) {
		close(fd);
		return;
	}
	conn_watch(c);
	conn_state(c, BGP_CONNECT);
	ev_io_start(p->d->loop, &c->wio);
}

static void
retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_peer *p = w->data;
	unsigned cap;

	(void)loop;
	(void)revents;
	if (p->c.shutdown || p->c.passive || p->state >= BGP_OPEN_SENT)
		return;
	if (p->conn[0].fd >= 0) /* a connect still pending: give up on it */
		conn_close(&p->conn[0], "connect timed out");
	if (!bgp_ribc_known(p->d)) {
		/* whether this is a restart (our OPEN says so: RFC 4724's R
		 * bit) is rib's to tell, in a moment */
		timer_arm(p, &p->retry, 0.05);
		return;
	}
	if (p->conn[0].fd < 0)
		connect_start(p);
	/* ConnectRetry with back-off: 1 s, 2 s, 4 s ... up to the configured
	 * connect-retry, with RFC 4271 10's jitter (0.75 .. 1) */
	cap = (p->c.retry ? p->c.retry : BGP_RETRY_DEFAULT) * 1000;
	p->retry_ms = p->retry_ms * 2 > cap ? cap : p->retry_ms * 2;
	timer_arm(p, &p->retry,
	    p->retry_ms * (0.75 + 0.25 * (double)random() / RAND_MAX) / 1000.0);
}

static void
peer_start(struct bgp_peer *p, unsigned delay_ms)
{
	peer_state(p);
	if (p->c.shutdown || p->c.passive) {
		ev_timer_stop(p->d->loop, &p->retry);
		return;
	}
	timer_arm(p, &p->retry, delay_ms / 1000.0 + 0.001);
}

/* ---- the neighbour's life ---- */

struct bgp_peer *
bgp_peer_new(struct bgp_d *d, const struct bgp_nconf *nc)
{
	struct bgp_peer *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return (NULL);
	p->d = d;
	p->c = *nc;
	for (p->id = 1; p->id < BGP_RIB_PEERS && d->peer_ids[p->id]; p->id++)
		;
	if (p->id == BGP_RIB_PEERS) { /* config allows fewer */
		free(p);
		return (NULL);
	}
	d->peer_ids[p->id] = 1;
	p->state = BGP_IDLE;
	p->state_since = ev_now(d->loop);
	p->retry_ms = BGP_RETRY_FIRST_MS;
	for (int i = 0; i < 2; i++) {
		p->conn[i].p = p;
		p->conn[i].fd = -1;
	}
	ev_timer_init(&p->retry, retry_cb, 0.0, 0.0);
	p->retry.data = p;
	ev_timer_init(&p->hold, hold_cb, 0.0, 0.0);
	p->hold.data = p;
	ev_timer_init(&p->keep, keep_cb, 0.0, 0.0);
	p->keep.data = p;
	ev_timer_init(&p->gr_timer, gr_cb, 0.0, 0.0);
	p->gr_timer.data = p;
	peer_start(p, 0);
	return (p);
}

static void
peer_stop(struct bgp_peer *p, unsigned cease_subcode, const char *why)
{
	ev_timer_stop(p->d->loop, &p->retry);
	for (int i = 0; i < 2; i++) {
		struct bgp_conn *c = &p->conn[i];

		if (c->fd < 0)
			continue;
		if (c->state >= BGP_OPEN_SENT)
			send_notification(c, BGP_ERR_CEASE, cease_subcode, NULL,
			    0);
		conn_close(c, why);
	}
	ev_timer_stop(p->d->loop, &p->retry);
}

void
bgp_peer_free(struct bgp_peer *p, unsigned cease_subcode)
{
	if (p == NULL)
		return;
	p->c.shutdown = true; /* no restart from conn_close */
	peer_stop(p, cease_subcode, "neighbor removed");
	ev_timer_stop(p->d->loop, &p->hold);
	ev_timer_stop(p->d->loop, &p->keep);
	ev_timer_stop(p->d->loop, &p->gr_timer);
	(void)bgp_rib_peer_flush(p->d->rib, p->id, false);
	(void)bgp_rib6_peer_flush(p->d->rib6, p->id, false);
	bgp_adv_stop(p);
	bgp_adv6_stop(p);
	p->d->peer_ids[p->id] = 0;
	free(p);
}

void
bgp_peer_reconf(struct bgp_peer *p, const struct bgp_nconf *nc)
{
	struct bgp_nconf old = p->c;
	bool reset = old.remote_as != nc->remote_as ||
	    old.local_as != nc->local_as || old.hold != nc->hold ||
	    old.ttl != nc->ttl || old.local_addr != nc->local_addr ||
	    strcmp(old.md5, nc->md5) != 0 || old.gr != nc->gr ||
	    old.afs != nc->afs || (nc->shutdown && !old.shutdown);

	p->c = *nc;
	if (!nc->gr || nc->shutdown)
		gr_help_end(p,
		    nc->shutdown ? "shut down" :
				   "graceful restart unconfigured");
	if (reset) {
		p->c.shutdown = true;
		peer_stop(p, nc->shutdown ? 2 : 6, "configuration changed");
		p->c.shutdown = nc->shutdown;
	}
	if (p->conn[0].fd < 0 && p->conn[1].fd < 0)
		peer_start(p, 0);
	else
		peer_state(p);
}

void
bgp_peer_clear(struct bgp_peer *p)
{
	bool sd = p->c.shutdown;

	p->c.shutdown = true;
	peer_stop(p, BGP_CEASE_RESET, "cleared by the operator");
	p->c.shutdown = sd;
	p->retry_ms = BGP_RETRY_FIRST_MS;
	p->idle_hold_ms = 0;
	peer_start(p, 0);
}

int
bgp_peer_soft(struct bgp_peer *p)
{
	struct bgp_conn *c = bgp_peer_conn(p);
	uint8_t *b;

	if (c == NULL)
		return (-ENOTCONN);
	/* out: everything sent again; in: asked for again when the
	 * neighbour can (RFC 2918), else the paths kept as received are run
	 * through import again (the result is the same: nothing was lost) */
	bgp_adv_refresh(p);
	bgp_adv6_refresh(p);
	if (!p->cap_rr) {
		bgp_peer_reimport(p);
		return (0);
	}
	/* one ROUTE-REFRESH per family negotiated (RFC 2918 3) */
	for (unsigned af = 0; af < BGP_AF_COUNT; af++) {
		if (!(p->afs_neg & BGP_AF_BIT(af)))
			continue;
		if ((b = msg_start(c, MSG_ROUTE_REFRESH, 4)) == NULL)
			return (-ENOBUFS);
		bgp_put16(b, bgp_af_afi((enum bgp_af)af));
		b[2] = 0;
		b[3] = bgp_af_safi((enum bgp_af)af);
		p->refresh_out++;
		msg_done(c, 4);
	}
	return (0);
}

void
bgp_peer_accept(struct bgp_peer *p, int fd)
{
	struct bgp_conn *c = &p->conn[1];
	/* with graceful restart, a new connection of an established
	 * neighbour may be the neighbour back from a restart: its OPEN
	 * decides (collision()); in the free slot */
	bool restart = p->state == BGP_ESTABLISHED && p->c.gr && p->cap_gr;
	int rv;

	if (restart && c->state == BGP_ESTABLISHED)
		c = &p->conn[0];
	if (p->c.shutdown || c->fd >= 0 ||
	    (p->state == BGP_ESTABLISHED && !restart)) {
		/* one pending inbound connection at a time; an established
		 * session keeps its connection (6.8) */
		close(fd);
		return;
	}
	if ((rv = sock_opts(p, fd)) != 0 || conn_alloc(c, fd, true) != 0) {
		close(fd);
		return;
	}
	c->after_est = restart;
	conn_watch(c);
	ev_io_start(p->d->loop, &c->rio);
	conn_state(c, BGP_OPEN_SENT);
	if (timer_conn(p) == c)
		timer_arm(p, &p->hold, BGP_OPEN_HOLD);
	send_open(c);
}
