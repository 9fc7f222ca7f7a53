/* tests/unit/fwd/test_link.c: fwd_link_parse on link messages built as the
 * kernel builds them (libmnl): what each event carries, types that are not
 * link messages skipped, and messages cut short refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>

#include "fwd/fwd_link.h"

struct seen {
	unsigned n;
	struct fwd_link_ev ev[8];
	char name[8][IFNAMSIZ];
	uint8_t mac[8][6];
	bool has_mac[8];
};

static void
take(const struct fwd_link_ev *ev, void *arg)
{
	struct seen *s = arg;

	if (s->n == 8)
		return;
	s->ev[s->n] = *ev;
	snprintf(s->name[s->n], IFNAMSIZ, "%s", ev->name ? ev->name : "");
	if ((s->has_mac[s->n] = ev->mac != NULL))
		memcpy(s->mac[s->n], ev->mac, 6);
	s->n++;
}

/* A link message at b: type, ifindex, flags, then the attributes given
 * (name NULL, mtu 0, mac NULL: left out). Its length. */
static size_t
put_link(char *b, uint16_t type, int ifindex, unsigned flags, const char *name,
    unsigned mtu, const uint8_t *mac)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(b);
	struct ifinfomsg *ifi;

	h->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(h, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	if (name != NULL)
		mnl_attr_put_strz(h, IFLA_IFNAME, name);
	if (mtu != 0)
		mnl_attr_put_u32(h, IFLA_MTU, mtu);
	if (mac != NULL)
		mnl_attr_put(h, IFLA_ADDRESS, 6, mac);
	return (h->nlmsg_len);
}

static void
test_events(void **st)
{
	static char buf[8192];
	static const uint8_t mac[6] = {0x02, 0x74, 0, 0, 1, 1};
	struct seen s = {0};
	size_t n = 0;

	(void)st;
	n += put_link(buf + n, RTM_NEWLINK, 7, IFF_UP | IFF_RUNNING, "rc0",
	    1500, mac);
	n += put_link(buf + n, RTM_NEWADDR, 7, 0, NULL, 0, NULL); /* skipped */
	n += put_link(buf + n, RTM_DELLINK, 7, 0, "rc0", 0, NULL);
	n += put_link(buf + n, RTM_NEWLINK, 0, 0, "x", 0, NULL); /* no index */
	n += put_link(buf + n, RTM_NEWLINK, 9, IFF_UP, NULL, 9000, NULL);
	assert_int_equal(fwd_link_parse(buf, n, take, &s), 0);
	assert_int_equal(s.n, 3);
	assert_false(s.ev[0].del);
	assert_int_equal(s.ev[0].ifindex, 7);
	assert_string_equal(s.name[0], "rc0");
	assert_int_equal(s.ev[0].mtu, 1500);
	assert_true(s.has_mac[0]);
	assert_memory_equal(s.mac[0], mac, 6);
	assert_true((s.ev[0].flags & IFF_RUNNING) != 0);
	assert_true(s.ev[1].del);
	assert_int_equal(s.ev[1].ifindex, 7);
	assert_int_equal(s.ev[2].ifindex, 9);
	assert_null(s.ev[2].name);
	assert_int_equal(s.ev[2].mtu, 9000);
	assert_false(s.has_mac[2]);
}

static void
test_cut_short(void **st)
{
	static char buf[8192];
	struct seen s = {0};
	size_t a, n;
	struct nlmsghdr *h;

	(void)st;
	a = put_link(buf, RTM_NEWLINK, 3, IFF_UP, "rs0", 1500, NULL);
	n = a + put_link(buf + a, RTM_NEWLINK, 4, IFF_UP, "rs1", 1500, NULL);
	/* the second one's header says more than there is: the first is
	 * taken, the walk stops */
	assert_int_equal(fwd_link_parse(buf, n - 4, take, &s), -EBADMSG);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ev[0].ifindex, 3);
	/* an attribute running past its message */
	memset(&s, 0, sizeof(s));
	n = put_link(buf, RTM_NEWLINK, 5, IFF_UP, "rs2", 1500, NULL);
	h = (struct nlmsghdr *)buf;
	((struct nlattr *)(buf + mnl_nlmsg_size(sizeof(struct ifinfomsg))))
	    ->nla_len = 200;
	assert_int_equal(fwd_link_parse(buf, n, take, &s), -EBADMSG);
	assert_int_equal(s.n, 0);
	/* a name that is not NUL-terminated */
	n = put_link(buf, RTM_NEWLINK, 5, IFF_UP, "rs2", 0, NULL);
	buf[n - 1] = 'x';
	buf[n - 2] = 'x';
	buf[n - 3] = 'x';
	buf[n - 4] = 'x';
	assert_int_equal(fwd_link_parse(buf, n, take, &s), -EBADMSG);
	assert_int_equal(s.n, 0);
	/* a message too short for its ifinfomsg */
	h->nlmsg_len = sizeof(*h) + 4;
	assert_int_equal(fwd_link_parse(buf, h->nlmsg_len, take, &s), -EBADMSG);
	assert_int_equal(s.n, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_cut_short),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
