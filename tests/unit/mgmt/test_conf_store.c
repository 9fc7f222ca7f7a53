/* tests/unit/mgmt/test_conf_store.c: atomic config writes, the 50-commit
 * history (with its metadata through the crash loop), rollback, save and
 * load merge/replace. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>

#include "libcommon/lc_buf.h"
#include "libcommon/lc_err.h"

#include "mgmt/mgmt_conf.h"

static char dir[256];

static int
setup(void **s)
{
	(void)s;
	snprintf(dir, sizeof(dir), "/tmp/tern-conf-store.XXXXXX");
	return (mkdtemp(dir) == NULL ? -1 : 0);
}

static int
teardown(void **s)
{
	char cmdline[300];

	(void)s;
	snprintf(cmdline, sizeof(cmdline), "rm -rf '%s'", dir);
	return (system(cmdline) == 0 ? 0 : -1);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static unsigned
count_entries(const char *d, const char *prefix)
{
	DIR *dd = opendir(d);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(dd);
	while ((e = readdir(dd)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(dd);
	return (n);
}

static void
test_write_atomic(void **s)
{
	char path[300], buf[64];
	FILE *f;

	(void)s;
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	assert_int_equal(mgmt_store_write_atomic(path, "one\n", 4), 0);
	assert_int_equal(mgmt_store_write_atomic(path, "two\n", 4), 0);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "two\n");
	assert_int_equal(count_entries(dir, "a.conf.tmp"), 0);
	/* an unwritable place: error, nothing left behind */
	assert_int_equal(mgmt_store_write_atomic("/nonexistent/dir/x", "x", 1),
	    -ENOENT);
}

/*
 * The store writes a commit as it prints it (mgmt_conf_print_fd, spilled
 * every MGMT_PRINT_SPILL bytes): the same bytes as the whole text printed
 * in memory, across many spills, with a head before it; a failed write
 * (a closed fd) is an error, not a short file taken for good.
 */
static void
test_print_fd_same_bytes(void **s)
{
	struct lc_buf text = {0}, want = {0};
	struct mgmt_conf *conf;
	struct lc_err err;
	char path[300], *got;
	size_t n;
	FILE *f;
	int fd;

	(void)s;
	lc_buf_printf(&text, "protocols {\n    static {\n");
	for (unsigned i = 0; i < 40000; i++)
		lc_buf_printf(&text,
		    "        route 11.%u.%u.0/24 next-hop 198.18.0.%u;\n",
		    i >> 8, i & 255, 1 + i % 200);
	lc_buf_printf(&text, "    }\n}\n");
	assert_int_equal(mgmt_conf_parse((char *)text.data, text.len, "t.conf",
			     &conf, &err),
	    0);
	lc_buf_append(&want, "#head\n", 6);
	assert_int_equal(mgmt_conf_print(conf, &want), 0);
	assert_true(lc_buf_avail(&want) > 4 * MGMT_PRINT_SPILL);
	snprintf(path, sizeof(path), "%s/p.conf", dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(mgmt_conf_print_fd(conf, fd, "#head\n", 6), 0);
	close(fd);
	assert_non_null(f = fopen(path, "r"));
	got = malloc(lc_buf_avail(&want) + 1);
	n = fread(got, 1, lc_buf_avail(&want) + 1, f);
	fclose(f);
	assert_int_equal(n, lc_buf_avail(&want));
	assert_memory_equal(got, lc_buf_head(&want), n);
	free(got);
	/* through the store: the commit file holds the same text */
	assert_int_equal(mgmt_conf_save(conf, path), 0);
	assert_non_null(f = fopen(path, "r"));
	got = malloc(lc_buf_avail(&want));
	n = fread(got, 1, lc_buf_avail(&want), f);
	fclose(f);
	assert_int_equal(n, lc_buf_avail(&want) - 6);
	assert_memory_equal(got, lc_buf_head(&want) + 6, n);
	free(got);
	/* a write that fails says so */
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_true(mgmt_conf_print_fd(conf, fd, NULL, 0) < 0);
	close(fd);
	mgmt_conf_free(conf);
	lc_buf_fini(&text);
	lc_buf_fini(&want);
}

static void
test_commit_history(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new(), *r;
	struct lc_err err;
	struct mgmt_rib_conf rc;
	char hist[300], w2[8];
	const char *w[3] = {"rib", "ecmp-width", w2};

	(void)s;
	snprintf(hist, sizeof(hist), "%s/commits", dir);
	assert_int_equal(mgmt_store_count(hist), 0);
	assert_int_equal(mgmt_store_rollback(hist, 0, &r, &err), -ENOENT);
	assert_string_equal(err.msg,
	    "rollback 0: no such commit (0 stored: "
	    "0..-1)");
	/* 55 commits with ecmp-width 1..55 (wrapping at 64 not reached) */
	for (unsigned i = 1; i <= 55; i++) {
		snprintf(w2, sizeof(w2), "%u", i);
		assert_int_equal(mgmt_conf_set(c, w, 3, &err), 0);
		assert_int_equal(mgmt_store_commit(hist, c), 0);
	}
	assert_int_equal(mgmt_store_count(hist), MGMT_STORE_KEEP);
	assert_int_equal(count_entries(hist, "commit."), MGMT_STORE_KEEP);
	/* rollback N = N commits back; 0 is the newest */
	for (unsigned n = 0; n < MGMT_STORE_KEEP; n += 7) {
		assert_int_equal(mgmt_store_rollback(hist, n, &r, &err), 0);
		mgmt_conf_rib_get(r, &rc);
		assert_int_equal(rc.ecmp_width, 55 - n);
		mgmt_conf_free(r);
	}
	assert_int_equal(mgmt_store_rollback(hist, 50, &r, &err), -ENOENT);
	assert_string_equal(err.msg,
	    "rollback 50: no such commit (50 stored: "
	    "0..49)");
	assert_int_equal(mgmt_store_rollback(hist, 0, &r, &err), 0);
	assert_true(mgmt_conf_equal(r, c));
	mgmt_conf_free(r);
	mgmt_conf_free(c);
}

/* Older commits are kept gzip-compressed; they load the same; a file left
 * both plain and compressed (a crash between rename and unlink) counts
 * once; the history limit applies to .gz files too; a damaged .gz is a
 * clear error; `load` takes a .gz file as well. */
static void
test_compressed_history(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new(), *r;
	struct lc_err err;
	struct mgmt_rib_conf rc;
	char hist[300], path[400], cmd[1400], w2[8];
	const char *w[3] = {"rib", "ecmp-width", w2};
	struct stat st;

	(void)s;
	snprintf(hist, sizeof(hist), "%s/gz", dir);
	for (unsigned i = 1; i <= 4; i++) {
		snprintf(w2, sizeof(w2), "%u", i);
		assert_int_equal(mgmt_conf_set(c, w, 3, &err), 0);
		assert_int_equal(mgmt_store_commit(hist, c), 0);
	}
	assert_int_equal(mgmt_store_compress(hist), 3); /* all but the newest */
	assert_int_equal(mgmt_store_compress(hist), 0); /* nothing left */
	snprintf(path, sizeof(path), "%s/commit.4", hist);
	assert_int_equal(stat(path, &st), 0); /* newest: plain */
	for (unsigned k = 1; k <= 3; k++) {
		snprintf(path, sizeof(path), "%s/commit.%u.gz", hist, k);
		assert_int_equal(stat(path, &st), 0);
		snprintf(path, sizeof(path), "%s/commit.%u", hist, k);
		assert_int_not_equal(stat(path, &st), 0);
	}
	assert_int_equal(mgmt_store_count(hist), 4);
	for (unsigned n = 0; n < 4; n++) {
		assert_int_equal(mgmt_store_rollback(hist, n, &r, &err), 0);
		mgmt_conf_rib_get(r, &rc);
		assert_int_equal(rc.ecmp_width, 4 - n);
		mgmt_conf_free(r);
	}
	/* commit 2 both plain and .gz: counted once, the plain one used */
	snprintf(path, sizeof(path), "%s/commit.2", hist);
	write_file(path, "rib { ecmp-width 22; }\n");
	assert_int_equal(mgmt_store_count(hist), 4);
	assert_int_equal(mgmt_store_rollback(hist, 2, &r, &err), 0);
	mgmt_conf_rib_get(r, &rc);
	assert_int_equal(rc.ecmp_width, 22);
	mgmt_conf_free(r);
	/* `load` of a gzip file */
	snprintf(cmd, sizeof(cmd),
	    "gzip -c %s/commit.2 > %s/x.conf.gz && "
	    "rm %s/commit.2",
	    hist, dir, hist);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/x.conf.gz", dir);
	r = mgmt_conf_new();
	assert_int_equal(mgmt_conf_load(r, path, MGMT_LOAD_REPLACE, &err), 0);
	mgmt_conf_rib_get(r, &rc);
	assert_int_equal(rc.ecmp_width, 22);
	mgmt_conf_free(r);
	/* a truncated .gz: a clear error, nothing loaded */
	snprintf(cmd, sizeof(cmd),
	    "head -c 30 %s/commit.3.gz > %s/t && "
	    "mv %s/t %s/commit.3.gz",
	    hist, hist, hist, hist);
	assert_int_equal(system(cmd), 0);
	r = (struct mgmt_conf *)0x1;
	assert_int_equal(mgmt_store_rollback(hist, 1, &r, &err), -EINVAL);
	assert_ptr_equal(r, (struct mgmt_conf *)0x1);
	assert_non_null(strstr(err.msg, "commit.3.gz: not a valid gzip file"));
	/* the limit counts .gz files: 55 more commits keep 50 in all */
	for (unsigned i = 5; i <= 59; i++) {
		snprintf(w2, sizeof(w2), "%u", i);
		assert_int_equal(mgmt_conf_set(c, w, 3, &err), 0);
		assert_int_equal(mgmt_store_commit(hist, c), 0);
		assert_true(mgmt_store_compress(hist) >= 0);
	}
	assert_int_equal(mgmt_store_count(hist), MGMT_STORE_KEEP);
	assert_int_equal(count_entries(hist, "commit."), MGMT_STORE_KEEP);
	assert_int_equal(mgmt_store_rollback(hist, 49, &r, &err), 0);
	mgmt_conf_rib_get(r, &rc);
	assert_int_equal(rc.ecmp_width, 10);
	mgmt_conf_free(r);
	mgmt_conf_free(c);
}

static void
test_rollback_of_broken_file_fails(void **s)
{
	struct mgmt_conf *r = (struct mgmt_conf *)0x1;
	struct lc_err err;
	char hist[300], path[400];

	(void)s;
	snprintf(hist, sizeof(hist), "%s/h2", dir);
	mkdir(hist, 0755);
	snprintf(path, sizeof(path), "%s/commit.7", hist);
	write_file(path, "rib { ecmp-width 99; }\n");
	assert_int_equal(mgmt_store_rollback(hist, 0, &r, &err), -EINVAL);
	assert_ptr_equal(r, (struct mgmt_conf *)0x1);
	assert_non_null(strstr(err.msg,
	    "commit.7:1:18: ecmp-width 99 out of "
	    "range"));
}

static void
test_save_and_load(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new(), *before, *l;
	struct lc_err err;
	char path[300], bad[300], merge[300], refbad[300];
	struct lc_buf b = {0};

	(void)s;
	snprintf(path, sizeof(path), "%s/saved.conf", dir);
	snprintf(bad, sizeof(bad), "%s/bad.conf", dir);
	snprintf(merge, sizeof(merge), "%s/merge.conf", dir);
	snprintf(refbad, sizeof(refbad), "%s/ref.conf", dir);
	write_file(merge,
	    "interfaces { eth0 { address 198.18.0.1/24; } }\n"
	    "protocols static route 10.0.0.0/8 interface eth0;\n");
	assert_int_equal(mgmt_conf_load(c, merge, MGMT_LOAD_MERGE, &err), 0);
	assert_int_equal(mgmt_conf_save(c, path), 0);
	assert_int_equal(mgmt_conf_load_file(path, &l, &err), 0);
	assert_true(mgmt_conf_equal(l, c));
	mgmt_conf_free(l);

	/* each class of bad file: an error naming file:line:col, no change */
	before = mgmt_conf_dup(c);
	write_file(bad, "interfaces {\n  eth0 { mtu 9000 }\n}\n");
	assert_int_equal(mgmt_conf_load(c, bad, MGMT_LOAD_REPLACE, &err), -22);
	assert_non_null(strstr(err.msg, "bad.conf:2:19: expected ';' or '{'"));
	write_file(bad, "interfaces { eth0 { mtu 50; } }\n");
	assert_int_equal(mgmt_conf_load(c, bad, MGMT_LOAD_MERGE, &err), -22);
	assert_non_null(strstr(err.msg, "bad.conf:1:25: mtu 50 out of range"));
	write_file(bad, "interfaces { eth0 { address 1.2.3; } }\n");
	assert_int_equal(mgmt_conf_load(c, bad, MGMT_LOAD_MERGE, &err), -22);
	assert_non_null(strstr(err.msg, "bad.conf:1:29: invalid address"));
	write_file(bad, "rib { ecmp-width 2; ecmp-width 3; }\n");
	assert_int_equal(mgmt_conf_load(c, bad, MGMT_LOAD_MERGE, &err), -22);
	assert_non_null(strstr(err.msg, "bad.conf:1:21: duplicate ecmp-width"));
	assert_int_equal(mgmt_conf_load(c, "/nonexistent.conf", MGMT_LOAD_MERGE,
			     &err),
	    -ENOENT);
	assert_true(mgmt_conf_equal(before, c));
	mgmt_conf_print(c, &b);
	lc_buf_append(&b, "", 1);
	assert_non_null(strstr((char *)b.data,
	    "route 10.0.0.0/8 interface "
	    "eth0;"));
	/* reference errors: load (parse) succeeds, validation refuses */
	write_file(refbad,
	    "protocols static route 10.0.0.0/8 interface "
	    "eth5;\n");
	assert_int_equal(mgmt_conf_load_file(refbad, &l, &err), -22);
	assert_non_null(strstr(err.msg,
	    "ref.conf:1:35: static route "
	    "10.0.0.0/8: interface eth5 is not configured"));
	assert_int_equal(mgmt_conf_load(c, refbad, MGMT_LOAD_REPLACE, &err), 0);
	assert_int_equal(mgmt_conf_validate(c, &err), -22);
	assert_int_equal(mgmt_conf_count(c, MGMT_S_IFACE), 0);
	/* replace then merge back */
	assert_int_equal(mgmt_conf_load(c, path, MGMT_LOAD_MERGE, &err), 0);
	assert_int_equal(mgmt_conf_count(c, MGMT_S_IFACE), 1);
	/* the merged leaf overrides: the route is via eth0 again */
	assert_int_equal(mgmt_conf_validate(c, &err), 0);
	assert_true(mgmt_conf_equal(before, c));
	mgmt_conf_free(before);
	mgmt_conf_free(c);
	lc_buf_fini(&b);
}

/* A writer killed at random moments during commits: every commit file left
 * is complete and valid, the newest is one the writer committed, and the
 * next commit cleans the dead writer's temp files. */
static void
test_crash_during_commits(void **s)
{
	struct mgmt_conf *c = mgmt_conf_new(), *r;
	struct lc_err err;
	char hist[300], w3[32], w5[32];
	const char *w[6] = {"protocols", "static", "route", w3, "next-hop", w5};
	unsigned seed = 777;

	(void)s;
	snprintf(hist, sizeof(hist), "%s/crash", dir);
	for (unsigned i = 0; i < 20000; i++) {
		snprintf(w3, sizeof(w3), "11.%u.%u.0/24", i >> 8, i & 255);
		snprintf(w5, sizeof(w5), "198.18.%u.%u", (i >> 8) & 255,
		    1 + i % 250);
		assert_int_equal(mgmt_conf_set(c, w, 6, &err), 0);
	}
	assert_int_equal(mgmt_store_commit(hist, c), 0); /* the old one */
	for (unsigned round = 0; round < 12; round++) {
		pid_t pid = fork();
		struct timespec ts;
		int st;

		assert_true(pid >= 0);
		if (pid == 0) {
			for (unsigned k = 0;; k++) {
				char v[8];
				const char *wr[3] = {"rib", "ecmp-width", v};
				struct mgmt_commit_meta meta;

				snprintf(v, sizeof(v), "%u", 1 + k % 64);
				mgmt_conf_set(c, wr, 3, &err);
				/* with its metadata line, in the same write */
				mgmt_commit_meta_init(&meta);
				meta.time = 1796300000 + k;
				snprintf(meta.comment, sizeof(meta.comment),
				    "commit %u", k);
				if (mgmt_store_commit_meta(hist, c, &meta) != 0)
					_exit(1);
			}
		}
		seed = seed * 1103515245u + 12345u;
		ts.tv_sec = 0;
		ts.tv_nsec = 5000000 + (long)(seed >> 8) % 150000000;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st));
		/* every stored commit loads and holds all 20000 routes */
		for (int n = 0; n < mgmt_store_count(hist); n += 9) {
			if (mgmt_store_rollback(hist, (unsigned)n, &r, &err))
				fail_msg("round %u rollback %d: %s", round, n,
				    err.msg);
			assert_int_equal(mgmt_conf_count(r, MGMT_S_ROUTE),
			    20000);
			mgmt_conf_free(r);
			/* and its metadata, but for the first (boot) one */
			if (n + 1 < mgmt_store_count(hist)) {
				struct mgmt_commit_meta meta;

				assert_int_equal(mgmt_store_meta(hist,
						     (unsigned)n, &meta),
				    0);
				assert_true(meta.known);
				assert_memory_equal(meta.comment, "commit ", 7);
			}
		}
	}
	assert_true(mgmt_store_count(hist) > 0);
	print_message("# crash test: 12 writers killed, %d commits kept, %u "
		      "temp files left by them\n",
	    mgmt_store_count(hist),
	    count_entries(hist, "commit.") - (unsigned)mgmt_store_count(hist));
	assert_int_equal(mgmt_store_commit(hist, c), 0);
	assert_int_equal(count_entries(hist, "commit."),
	    (unsigned)mgmt_store_count(hist)); /* no temp files left */
	mgmt_conf_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_atomic),
	    cmocka_unit_test(test_print_fd_same_bytes),
	    cmocka_unit_test(test_commit_history),
	    cmocka_unit_test(test_compressed_history),
	    cmocka_unit_test(test_rollback_of_broken_file_fails),
	    cmocka_unit_test(test_save_and_load),
	    cmocka_unit_test(test_crash_during_commits),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
