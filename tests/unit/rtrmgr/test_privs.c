/* tests/unit/rtrmgr/test_privs.c: privileges of started components (needs
 * root): unprivileged user, fwd's two ambient capabilities, rundir ownership, a
 * missing user. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "rtrmgr/rtm_int.h"

struct h {
	char dir[64];
	char rundir[96];
	struct ev_loop *loop;
	struct rtm *rtm;
	bool down;
};

static int
setup(void **state)
{
	struct h *h = calloc(1, sizeof(*h));
	char path[128];
	FILE *f;

	if (geteuid() != 0) {
		fprintf(stderr,
		    "test_privs: SKIPPED: needs root (privilege "
		    "changes cannot be tested as uid %d)\n",
		    (int)geteuid());
		free(h);
		*state = NULL;
		return (0);
	}
	assert_non_null(h);
	snprintf(h->dir, sizeof(h->dir), "/tmp/rtmpriv.XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	chmod(h->dir, 0755);
	snprintf(h->rundir, sizeof(h->rundir), "%s/run", h->dir);
	snprintf(path, sizeof(path), "%s/idle.sh", h->dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("#!/bin/sh\nexec sleep 30\n", f);
	fclose(f);
	chmod(path, 0755);
	assert_non_null(h->loop = lc_loop_new());
	*state = h;
	return (0);
}

static void
down_cb(void *arg)
{
	((struct h *)arg)->down = true;
}

static int
teardown(void **state)
{
	struct h *h = *state;
	char cmd[128];
	uint64_t end = lc_time_mono_ns() + 3 * LC_NS_PER_SEC;

	if (h == NULL)
		return (0);
	if (h->rtm != NULL) {
		rtm_shutdown(h->rtm, down_cb, h);
		while (!h->down && lc_time_mono_ns() < end)
			ev_run(h->loop, EVRUN_ONCE);
		rtm_free(h->rtm);
	}
	lc_loop_free(h->loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", h->dir);
	if (system(cmd) != 0)
		return (-1);
	free(h);
	return (0);
}

static struct rtm *
make_rtm(struct h *h, const char *user, const char *extra)
{
	char text[1024];
	struct lc_err err;
	struct rtm_config *cfg;

	snprintf(text, sizeof(text),
	    "user %s;\n%s\n"
	    "component mgmt { binary %s/idle.sh; }\n"
	    "component fwd { binary %s/idle.sh; capabilities net_raw "
	    "net_admin; }\n"
	    "component dev { binary %s/idle.sh; privileges root; }\n",
	    user, extra, h->dir, h->dir, h->dir);
	cfg = rtm_config_parse("privs.conf", text, strlen(text), &err);
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	return (rtm_new(h->loop, cfg, &(struct rtm_opts){.rundir = h->rundir}));
}

/* The value of "Key:" in /proc/PID/status, whitespace squeezed. */
static void
status_field(pid_t pid, const char *key, char *out, size_t len)
{
	char path[64], line[256];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t kl = strlen(key);

		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			char *p = line + kl + 1, *o = out;

			while (*p != '\0' && *p != '\n' &&
			    (size_t)(o - out) + 1 < len) {
				if (*p == '\t' || *p == ' ') {
					if (o != out && o[-1] != ' ')
						*o++ = ' ';
				} else {
					*o++ = *p;
				}
				p++;
			}
			while (o != out && o[-1] == ' ')
				o--;
			*o = '\0';
			break;
		}
	}
	fclose(f);
}

static pid_t
pid_of(struct h *h, const char *name)
{
	struct rtm_comp_info ci;

	rtm_comp_get_info(rtm_comp_find(h->rtm, name), &ci);
	assert_int_equal(ci.state, RTM_RUNNING);
	assert_true(ci.pid > 0);
	return (ci.pid);
}

static void
test_identities(void **state)
{
	struct h *h = *state;
	struct passwd *pw;
	char want[64], got[128];
	struct stat sb;
	pid_t p;

	if (h == NULL)
		skip();
	assert_non_null(pw = getpwnam("nobody"));
	assert_non_null(h->rtm = make_rtm(h, "nobody", ""));
	assert_int_equal(rtm_start(h->rtm), 0);
	/* let the children reach their exec of sleep */
	for (uint64_t end = lc_time_mono_ns() + 150 * LC_NS_PER_MSEC;
	     lc_time_mono_ns() < end;)
		usleep(10000);

	/* rundir: owned by the component user, mode 0750 */
	assert_int_equal(stat(h->rundir, &sb), 0);
	assert_int_equal(sb.st_uid, pw->pw_uid);
	assert_int_equal(sb.st_gid, pw->pw_gid);
	assert_int_equal(sb.st_mode & 07777, 0750);

	/* mgmt: the user, no capability at all, no supplementary groups */
	p = pid_of(h, "mgmt");
	snprintf(want, sizeof(want), "%u %u %u %u", pw->pw_uid, pw->pw_uid,
	    pw->pw_uid, pw->pw_uid);
	status_field(p, "Uid", got, sizeof(got));
	assert_string_equal(got, want);
	snprintf(want, sizeof(want), "%u %u %u %u", pw->pw_gid, pw->pw_gid,
	    pw->pw_gid, pw->pw_gid);
	status_field(p, "Gid", got, sizeof(got));
	assert_string_equal(got, want);
	status_field(p, "Groups", got, sizeof(got));
	assert_string_equal(got, "");
	status_field(p, "CapEff", got, sizeof(got));
	assert_string_equal(got, "0000000000000000");
	status_field(p, "CapPrm", got, sizeof(got));
	assert_string_equal(got, "0000000000000000");
	status_field(p, "CapBnd", got, sizeof(got));
	assert_string_equal(got, "0000000000000000");
	status_field(p, "NoNewPrivs", got, sizeof(got));
	assert_string_equal(got, "1");

	/* fwd: the user, with CAP_NET_ADMIN (12) and CAP_NET_RAW (13) only */
	p = pid_of(h, "fwd");
	status_field(p, "Uid", got, sizeof(got));
	snprintf(want, sizeof(want), "%u %u %u %u", pw->pw_uid, pw->pw_uid,
	    pw->pw_uid, pw->pw_uid);
	assert_string_equal(got, want);
	status_field(p, "CapEff", got, sizeof(got));
	assert_string_equal(got, "0000000000003000");
	status_field(p, "CapPrm", got, sizeof(got));
	assert_string_equal(got, "0000000000003000");
	status_field(p, "CapAmb", got, sizeof(got));
	assert_string_equal(got, "0000000000003000");
	status_field(p, "CapBnd", got, sizeof(got));
	assert_string_equal(got, "0000000000003000");

	/* dev: privileges root keeps root */
	p = pid_of(h, "dev");
	status_field(p, "Uid", got, sizeof(got));
	assert_string_equal(got, "0 0 0 0");
}

/* The value of NAME in /proc/PID/environ ("" when set empty), or NULL. */
static const char *
env_of(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64], all[8192];
	size_t n, nl = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	assert_non_null(f = fopen(path, "r"));
	n = fread(all, 1, sizeof(all) - 1, f);
	fclose(f);
	all[n] = '\0';
	for (size_t o = 0; o < n; o += strlen(all + o) + 1)
		if (strncmp(all + o, name, nl) == 0 && all[o + nl] == '=') {
			snprintf(buf, len, "%s", all + o + nl + 1);
			return (buf);
		}
	return (NULL);
}

/*
 * operator-group and admin-group (issue 24): the rundir becomes 0751; every
 * component gets the operator group as its one supplementary group and
 * TERN_OPERATOR_GROUP, mgmt also the admin group and TERN_ADMIN_GROUP
 * (set empty for the others: rtrmgr's own environment never decides). The
 * groups are daemon (1) and bin (2): they exist everywhere, and the
 * children only sleep.
 */
static void
test_groups(void **state)
{
	struct h *h = *state;
	struct group *op, *adm;
	char got[128], want[64];
	struct stat sb;
	pid_t p;

	if (h == NULL)
		skip();
	assert_non_null(op = getgrnam("daemon"));
	gid_t opg = op->gr_gid;
	assert_non_null(adm = getgrnam("bin"));
	gid_t admg = adm->gr_gid;
	assert_non_null(h->rtm = make_rtm(h, "nobody",
			    "operator-group daemon; admin-group bin;"));
	assert_int_equal(rtm_start(h->rtm), 0);
	for (uint64_t end = lc_time_mono_ns() + 150 * LC_NS_PER_MSEC;
	     lc_time_mono_ns() < end;)
		usleep(10000);
	assert_int_equal(stat(h->rundir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0751);

	p = pid_of(h, "mgmt");
	status_field(p, "Groups", got, sizeof(got));
	snprintf(want, sizeof(want), "%u %u", (unsigned)opg, (unsigned)admg);
	assert_string_equal(got, want);
	snprintf(want, sizeof(want), "%u", (unsigned)opg);
	assert_string_equal(env_of(p, "TERN_OPERATOR_GROUP", got, sizeof(got)),
	    want);
	snprintf(want, sizeof(want), "%u", (unsigned)admg);
	assert_string_equal(env_of(p, "TERN_ADMIN_GROUP", got, sizeof(got)),
	    want);

	p = pid_of(h, "fwd");
	status_field(p, "Groups", got, sizeof(got));
	snprintf(want, sizeof(want), "%u", (unsigned)opg);
	assert_string_equal(got, want);
	assert_string_equal(env_of(p, "TERN_ADMIN_GROUP", got, sizeof(got)),
	    "");
	/* still no capability beyond its own two */
	status_field(p, "CapEff", got, sizeof(got));
	assert_string_equal(got, "0000000000003000");
}

/* A group that does not exist: refused, nothing started or created. */
static void
test_missing_group(void **state)
{
	struct h *h = *state;
	struct stat sb;

	if (h == NULL)
		skip();
	assert_non_null(
	    h->rtm = make_rtm(h, "nobody", "admin-group tern-no-such-group;"));
	assert_int_equal(rtm_start(h->rtm), -ENOENT);
	assert_int_equal(stat(h->rundir, &sb), -1);
	assert_int_equal(errno, ENOENT);
	rtm_free(h->rtm);
	h->rtm = NULL;
}

static void
test_missing_user(void **state)
{
	struct h *h = *state;
	struct stat sb;

	if (h == NULL)
		skip();
	assert_non_null(h->rtm = make_rtm(h, "tern-no-such-user", ""));
	assert_int_equal(rtm_start(h->rtm), -ENOENT);
	/* nothing started, nothing created */
	assert_int_equal(stat(h->rundir, &sb), -1);
	assert_int_equal(errno, ENOENT);
	for (unsigned i = 0; i < rtm_comp_count(h->rtm); i++) {
		struct rtm_comp_info ci;

		rtm_comp_get_info(rtm_comp_at(h->rtm, i), &ci);
		assert_int_equal(ci.state, RTM_STOPPED);
		assert_int_equal(ci.pid, 0);
	}
	rtm_free(h->rtm);
	h->rtm = NULL;
	/* root as the component user is refused too */
	assert_non_null(h->rtm = make_rtm(h, "root", ""));
	assert_int_equal(rtm_start(h->rtm), -EINVAL);
	rtm_free(h->rtm);
	h->rtm = NULL;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_identities, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_user, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_groups, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_group, setup,
		teardown),
	};

	lc_log_init("test_privs", LC_LOG_WARNING, LC_LOG_STDERR);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
