/* tests/unit/rtrmgr/test_rundir.c: the runtime dir (mode, symlink and file
 * refused), its lock, and the state file round trip and rejection of bad files.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtrmgr/rtm_int.h"

static char dir[64];

static int
setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/rtmrun.XXXXXX");
	return (mkdtemp(dir) == NULL ? -1 : 0);
}

static int
teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return (system(cmd) == 0 ? 0 : -1);
}

static void
put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void
test_prepare(void **state)
{
	char run[96], path[128];
	struct stat sb;

	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(rtm_rundir_prepare(run, (uid_t)-1, (gid_t)-1, 0750),
	    0);
	assert_int_equal(stat(run, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0750);
	/* an existing one gets its mode fixed */
	chmod(run, 0777);
	assert_int_equal(rtm_rundir_prepare(run, (uid_t)-1, (gid_t)-1, 0750),
	    0);
	assert_int_equal(stat(run, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0750);
	/* with operator-group or admin-group: searchable by others */
	assert_int_equal(rtm_rundir_prepare(run, (uid_t)-1, (gid_t)-1, 0751),
	    0);
	assert_int_equal(stat(run, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0751);
	/* a symlink or a file is refused, and left alone */
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink(run, path), 0);
	assert_int_equal(rtm_rundir_prepare(path, (uid_t)-1, (gid_t)-1, 0750),
	    -ELOOP);
	put("file", "x");
	snprintf(path, sizeof(path), "%s/file", dir);
	assert_int_equal(rtm_rundir_prepare(path, (uid_t)-1, (gid_t)-1, 0750),
	    -ENOTDIR);
	/* one level only */
	snprintf(path, sizeof(path), "%s/a/b", dir);
	assert_int_equal(rtm_rundir_prepare(path, (uid_t)-1, (gid_t)-1, 0750),
	    -ENOENT);
}

static void
test_lock(void **state)
{
	pid_t holder = -1;
	int fd, fd2;

	assert_true((fd = rtm_rundir_lock(dir, &holder)) >= 0);
	assert_int_equal(holder, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* flock is per open file: a second open conflicts, even here */
	assert_int_equal(rtm_rundir_lock(dir, &holder), -EBUSY);
	assert_int_equal(holder, getpid());
	close(fd);
	assert_true((fd2 = rtm_rundir_lock(dir, &holder)) >= 0);
	close(fd2);
}

static void
test_state_roundtrip(void **state)
{
	struct rtm_state_rec in[3], out[4];

	memset(in, 0, sizeof(in));
	snprintf(in[0].name, sizeof(in[0].name), "mgmt");
	in[0].generation = 12;
	in[0].pid = 4242;
	in[0].starttime = 987654321;
	in[0].started_ms = 1764540000123ULL;
	snprintf(in[0].binary, sizeof(in[0].binary), "/usr/sbin/tern-mgmt");
	snprintf(in[1].name, sizeof(in[1].name), "rib");
	in[1].generation = 1;
	in[1].held = true;
	snprintf(in[1].binary, sizeof(in[1].binary), "/opt/my tern/tern-rib");
	snprintf(in[2].name, sizeof(in[2].name), "fwd");
	assert_int_equal(rtm_state_read(dir, out, 4), 0); /* absent */
	assert_int_equal(rtm_state_write(dir, in, 3), 0);
	assert_int_equal(rtm_state_read(dir, out, 4), 3);
	assert_memory_equal(&in[0], &out[0], sizeof(in[0]));
	assert_memory_equal(&in[1], &out[1], sizeof(in[1]));
	assert_memory_equal(&in[2], &out[2], sizeof(in[2]));
	/* no temp file left */
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/.rtrmgr.state.tmp", dir);
		assert_int_equal(access(path, F_OK), -1);
	}
	/* max bounds what is returned */
	assert_int_equal(rtm_state_read(dir, out, 1), 1);
}

static void
test_state_bad(void **state)
{
	static const char *const bad[] = {
	    "", "tern-rtrmgr-state 1\ncomp a 1 2 3 4 /x\n", /* old format */
	    "garbage\ncomp a 1 2 3 4 0 /x\n",
	    "tern-rtrmgr-state 2\ncomp a 1 2 3 4 /x\n",
	    "tern-rtrmgr-state 2\ncomp a x 2 3 4 0 /x\n",
	    "tern-rtrmgr-state 2\ncomp a 1 -5 3 4 0 /x\n",
	    "tern-rtrmgr-state 2\ncomp a 1 2 3 4 7 /x\n",
	    "tern-rtrmgr-state 2\nmodule a 1 2 3 4 0 /x\n",
	    "tern-rtrmgr-state 2\ncomp a 1 2 3 4 0 /x", /* cut short */
	};
	struct rtm_state_rec out[4];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put("rtrmgr.state", bad[i]);
		if (rtm_state_read(dir, out, 4) != -EINVAL)
			fail_msg("case %zu accepted", i);
	}
	put("rtrmgr.state", "tern-rtrmgr-state 2\n# c\ncomp a 1 2 3 4 1 -\n");
	assert_int_equal(rtm_state_read(dir, out, 4), 1);
	assert_string_equal(out[0].binary, "");
	assert_true(out[0].held);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_prepare, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_roundtrip, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(test_state_bad, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
