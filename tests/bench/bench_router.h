/* tests/bench/bench_router.h: what bench-config and bench-restart share: the whole router started by tests/bench/lib_router.sh in namespaces, IPC clients of mgmt, rib and fwd, the standard prefix set as a config, statistics and BENCH lines. Static functions: each benchmark is one .c file. */
#ifndef BENCH_ROUTER_H
#define BENCH_ROUTER_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc/ipc.h"
#include "ipc/proto/fwd.pb-c.h"
#include "ipc/proto/lifecycle.pb-c.h"
#include "ipc/proto/mgmt.pb-c.h"
#include "ipc/proto/rib.pb-c.h"
#include "libcommon/lc_arena.h"
#include "libcommon/lc_build.h"
#include "libcommon/lc_loop.h"
#include "libcommon/lc_time.h"
#include "tests/lib/netns.h"
#include "tests/lib/prefixset.h"

/* The next hop of the standard set's next hop index: 253 addresses on the
 * server subnet of tests/lib/netns.sh (198.18.2.2-254). */
#define BR_NH_BASE 0xc6120200u /* 198.18.2.0, host order */
static __attribute__((unused)) inline uint32_t
br_nh(unsigned nh)
{
	return (BR_NH_BASE + 2 + nh % 253);
}

static __attribute__((unused)) inline const char *
br_ip(uint32_t host, char *buf)
{
	snprintf(buf, 16, "%u.%u.%u.%u", host >> 24, (host >> 16) & 255,
	    (host >> 8) & 255, host & 255);
	return (buf);
}

/* ---- the router in namespaces -------------------------------------------- */

struct br {
	char root[PATH_MAX]; /* tree root (for tests/...) */
	char bin[PATH_MAX];  /* build/bin */
	char dir[PATH_MAX];  /* our temp dir: state/, run/ */
	char rundir[PATH_MAX];
	char suffix[32];
	struct ev_loop *loop;
	struct lc_arena *ar;
	struct ipc_client *mgmt, *fwd, *rib;
	uint64_t session;
	bool started;
	struct lc_err err;
};

static struct br *br_cleanup_me;

static void br_cleanup(void);

static __attribute__((unused)) void
br_on_signal(int sig)
{
	(void)sig;
	br_cleanup();
	_exit(130);
}

/* Runs the shell command (bash -c); its exit status (-1 if it could not run). */
static int br_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static __attribute__((unused)) int
br_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return (-1);
	return (WEXITSTATUS(st));
}

/* lib_router.sh CMD SUFFIX [DIR BIN] [ARGS]: its exit status. */
static __attribute__((unused)) int
br_lib(struct br *b, const char *cmd, bool with_dir, const char *args)
{
	return (br_sh("bash '%s/tests/bench/lib_router.sh' %s %s %s%s%s %s",
	    b->root, cmd, b->suffix, with_dir ? b->dir : "",
	    with_dir ? " " : "", with_dir ? b->bin : "", args ? args : ""));
}

/* Paths from the executable (build/bin/bench-x: bin is build/bin, root two
 * levels up) unless TERN_BIN says otherwise. tag names the temp dir and the
 * namespaces. 0 or -1 with a message. */
static __attribute__((unused)) int
br_init(struct br *b, const char *tag)
{
	char exe[PATH_MAX], *s;
	ssize_t n;

	memset(b, 0, sizeof(*b));
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		return (-1);
	exe[n] = '\0';
	if ((s = strrchr(exe, '/')) != NULL)
		*s = '\0';
	snprintf(b->bin, sizeof(b->bin), "%s",
	    getenv("TERN_BIN") ? getenv("TERN_BIN") : exe);
	snprintf(b->root, sizeof(b->root), "%s/../..", exe);
	if (realpath(b->root, exe) != NULL)
		snprintf(b->root, sizeof(b->root), "%s", exe);
	snprintf(b->suffix, sizeof(b->suffix), "%s%d", tag, (int)getpid());
	snprintf(b->dir, sizeof(b->dir), "/tmp/tern-%s.XXXXXX", b->suffix);
	if (mkdtemp(b->dir) == NULL)
		return (-1);
	chmod(b->dir, 0755); /* the components run as nobody */
	snprintf(exe, sizeof(exe), "%s/state", b->dir);
	mkdir(exe, 0755);
	snprintf(b->rundir, sizeof(b->rundir), "%s/run", b->dir);
	if ((b->loop = lc_loop_new()) == NULL ||
	    (b->ar = lc_arena_new(0)) == NULL)
		return (-1);
	br_cleanup_me = b;
	atexit(br_cleanup);
	signal(SIGINT, br_on_signal);
	signal(SIGTERM, br_on_signal);
	signal(SIGHUP, br_on_signal);
	signal(SIGPIPE, SIG_IGN);
	return (0);
}

static __attribute__((unused)) void
br_clients_free(struct br *b)
{
	ipc_client_free(b->mgmt);
	ipc_client_free(b->fwd);
	ipc_client_free(b->rib);
	b->mgmt = b->fwd = b->rib = NULL;
	b->session = 0;
}

static __attribute__((unused)) void
br_cleanup(void)
{
	struct br *b = br_cleanup_me;

	if (b == NULL)
		return;
	br_cleanup_me = NULL;
	br_clients_free(b);
	(void)br_lib(b, "cleanup", true, NULL);
	if (b->dir[0] == '/' && strncmp(b->dir, "/tmp/tern-", 10) == 0)
		(void)br_sh("rm -rf '%s'", b->dir);
}

static __attribute__((unused)) struct ipc_client *
br_client(struct br *b, const struct ipc_service_desc *svc, bool ro)
{
	struct ipc_opts o = {.rundir = b->rundir,
	    .component = "bench",
	    .reconnect_ms = 5};

	return (ipc_client_new(b->loop, svc, &o, ro));
}

/* Starts rtrmgr with DIR/state/boot.conf (written by the caller); returns
 * when mgmt answers; opens a mgmt session and read-only clients of fwd and
 * rib. 0 or -1. */
static __attribute__((unused)) int
br_start(struct br *b)
{
	Mgmt__SessionOpen so = MGMT__SESSION_OPEN__INIT;
	ProtobufCMessage *rep;
	int st;

	if (br_lib(b, "start", true, NULL) != 0)
		return (-1);
	b->started = true;
	b->mgmt = br_client(b, &ipc_svc_mgmt, false);
	b->fwd = br_client(b, &ipc_svc_fwd, true);
	b->rib = br_client(b, &ipc_svc_rib, true);
	if (b->mgmt == NULL || b->fwd == NULL || b->rib == NULL)
		return (-1);
	so.user = (char *)"bench";
	/* mgmt may be busy loading and storing a large boot config */
	for (int i = 0; i < 6; i++) {
		st = ipc_call_wait(b->mgmt, MGMT__METHOD__SESSION_OPEN,
		    &so.base, 10000, b->ar, &rep, &b->err);
		if (st == IPC_OK)
			break;
		lc_arena_reset(b->ar);
	}
	if (st != IPC_OK) {
		fprintf(stderr, "bench: mgmt session: %s %s\n",
		    ipc_status_str(st), b->err.msg);
		return (-1);
	}
	b->session = ((Mgmt__Reply *)rep)->session;
	lc_arena_reset(b->ar);
	return (0);
}

static __attribute__((unused)) void
br_stop(struct br *b)
{
	br_clients_free(b);
	if (b->started)
		(void)br_lib(b, "stop", true, NULL);
	b->started = false;
}

/* Executes a command line in our mgmt session. 0 if mgmt said OK; else -1
 * and the message in b->err.msg. The text of the reply into out (may be NULL). */
static __attribute__((unused)) int
br_exec(struct br *b, const char *line, char *out, size_t outlen,
    unsigned timeout_ms)
{
	Mgmt__ExecuteRequest r = MGMT__EXECUTE_REQUEST__INIT;
	ProtobufCMessage *rep;
	const Mgmt__Reply *mr;
	int st;

	r.session = b->session;
	r.line = (char *)line;
	st = ipc_call_wait(b->mgmt, MGMT__METHOD__EXECUTE, &r.base, timeout_ms,
	    b->ar, &rep, &b->err);
	if (st != IPC_OK) {
		lc_arena_reset(b->ar);
		return (-1);
	}
	mr = (const Mgmt__Reply *)rep;
	if (out != NULL)
		snprintf(out, outlen, "%s", mr->text ? mr->text : "");
	st = mr->code == MGMT__CODE__OK ? 0 : -1;
	if (st != 0)
		snprintf(b->err.msg, sizeof(b->err.msg), "%s", mr->error);
	lc_arena_reset(b->ar);
	return (st);
}

/* fwd's FIB size (QUERY_FIB total) on the read-only socket; -1 if fwd does
 * not answer within timeout_ms. */
static __attribute__((unused)) long
br_fib_total(struct br *b, unsigned timeout_ms)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT;
	ProtobufCMessage *rep;
	long n = -1;

	if (!ipc_client_connected(b->fwd)) {
		ev_run(b->loop, EVRUN_NOWAIT);
		if (!ipc_client_connected(b->fwd))
			return (-1);
	}
	q.prefix = htonl(0xffffffffu); /* an exact get of a route never set */
	q.len = 32;
	q.exact = true;
	if (ipc_call_wait(b->fwd, FWD__METHOD__QUERY_FIB, &q.base, timeout_ms,
		b->ar, &rep, &b->err) == IPC_OK)
		n = ((Fwd__FibList *)rep)->total;
	lc_arena_reset(b->ar);
	return (n);
}

/* The first next hop of prefix/len in fwd's FIB (host order) into *nh: 1
 * found, 0 absent, -1 fwd did not answer. */
static __attribute__((unused)) int
br_fib_get(struct br *b, uint32_t prefix, unsigned len, uint32_t *nh,
    unsigned timeout_ms)
{
	Fwd__FibQuery q = FWD__FIB_QUERY__INIT;
	ProtobufCMessage *rep;
	const Fwd__FibList *l;
	int rv = -1;

	q.prefix = htonl(prefix);
	q.len = len;
	q.exact = true;
	if (ipc_call_wait(b->fwd, FWD__METHOD__QUERY_FIB, &q.base, timeout_ms,
		b->ar, &rep, &b->err) == IPC_OK) {
		l = (const Fwd__FibList *)rep;
		rv = 0;
		if (l->n_routes > 0) {
			rv = 1;
			*nh = l->routes[0]->n_nh_addr > 0 ?
			    ntohl(l->routes[0]->nh_addr[0]) :
			    0;
		}
	}
	lc_arena_reset(b->ar);
	return (rv);
}

/* Waits until fwd's FIB holds at least `want` routes; the time it first did
 * (lc_time_mono_ns) or 0 after timeout_s. Polls every poll_us. *t_up (if
 * not NULL and 0) gets the time fwd first answered. */
static __attribute__((unused)) uint64_t
br_wait_fib(struct br *b, long want, double timeout_s, unsigned poll_us,
    uint64_t *t_up)
{
	uint64_t end = lc_time_mono_ns() + (uint64_t)(timeout_s * 1e9);
	long n;

	while (lc_time_mono_ns() < end) {
		n = br_fib_total(b, 500);
		if (n >= 0 && t_up != NULL && *t_up == 0)
			*t_up = lc_time_mono_ns();
		if (n >= want)
			return (lc_time_mono_ns());
		if (n < 0)
			ev_run(b->loop, EVRUN_NOWAIT);
		usleep(poll_us);
	}
	return (0);
}

/* ---- configs ---------------------------------------------------------------- */

/* The boot config of tern: the two interfaces of the netns topology and the
 * n routes of ps (next hop br_nh()), one line each; nh_over[i] != 0
 * replaces route i's next hop. 0 or -1. */
static __attribute__((unused)) int
br_write_tern_conf(const char *path, const struct tt_prefixset *ps,
    const char *extra_routes)
{
	FILE *f = fopen(path, "w");
	char a[16], h[16];

	if (f == NULL)
		return (-1);
	fprintf(f,
	    "/* bench: %zu static routes of the standard set */\n"
	    "system { host-name tern-bench; log-level notice; }\n"
	    "interfaces {\n"
	    "    client { device rc0; address 198.18.1.1/24; }\n"
	    "    server { device rs0; address 198.18.2.1/24; }\n"
	    "}\nprotocols {\n    static {\n",
	    ps->n);
	for (size_t i = 0; i < ps->n; i++)
		fprintf(f, "        route %s/%u next-hop %s;\n",
		    br_ip(ps->p[i].addr, a), ps->p[i].len,
		    br_ip(br_nh(ps->p[i].nh), h));
	if (extra_routes != NULL)
		fputs(extra_routes, f);
	fprintf(f, "    }\n}\n");
	if (fclose(f) != 0)
		return (-1);
	return (chmod(path, 0644));
}

/* ---- statistics and output ------------------------------------------------------ */

static __attribute__((unused)) int
br_cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* p in [0, 100]: nearest rank on a sorted copy. */
static __attribute__((unused)) double
br_pct(const double *v, size_t n, double p)
{
	double *s, r;
	size_t k;

	if (n == 0)
		return (0);
	s = malloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), br_cmp_d);
	k = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	r = s[k - 1];
	free(s);
	return (r);
}

static __attribute__((unused)) double
br_median(const double *v, size_t n)
{
	double *s, r;

	if (n == 0)
		return (0);
	s = malloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), br_cmp_d);
	r = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return (r);
}

static __attribute__((unused)) double
br_min(const double *v, size_t n)
{
	double m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return (m);
}

static __attribute__((unused)) double
br_max(const double *v, size_t n)
{
	double m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return (m);
}

/* One BENCH line; peer NULL for a figure without a peer. extra: more JSON
 * members ("\"routes\":1000000") or NULL. */
static __attribute__((unused)) void
br_bench_line(const char *bench, const char *cas, const char *metric,
    const char *unit, const double *v, size_t n, const char *peer,
    const double *pv, size_t pn, const char *better, const char *extra)
{
	double med = br_median(v, n);

	printf("BENCH {\"bench\":\"%s\",\"case\":\"%s\",\"metric\":\"%s\","
	       "\"unit\":\"%s\",\"value\":%.6g,\"min\":%.6g,\"max\":%.6g",
	    bench, cas, metric, unit, med, br_min(v, n), br_max(v, n));
	if (peer != NULL && pn > 0) {
		double pm = br_median(pv, pn);

		printf(",\"peer\":\"%s\",\"peer_value\":%.6g,\"peer_min\":%.6g,"
		       "\"peer_max\":%.6g",
		    peer, pm, br_min(pv, pn), br_max(pv, pn));
		if (pm > 0)
			printf(",\"ratio\":%.4g", med / pm);
	}
	printf(",\"better\":\"%s\",\"runs\":%zu", better, n);
	if (extra != NULL && extra[0] != '\0')
		printf(",%s", extra);
	printf("}\n");
	fflush(stdout);
}

/* The namespaces of tests/lib/netns.sh for b's suffix: c(lient), r(outer),
 * s(erver). */
static __attribute__((unused)) const char *
br_ns_name(const struct br *b, char c)
{
	static char n[3][64];
	int i = c == 'c' ? 0 : c == 'r' ? 1 : 2;

	snprintf(n[i], sizeof(n[i]), "tern-%c-%s", c, b->suffix);
	return (n[i]);
}

/* Sum of schedstat run time (ns) of every thread of pid. */
static __attribute__((unused)) double
br_task_ns(pid_t pid)
{
	char path[96];
	struct dirent *e;
	double sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		unsigned long long rt;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat",
		    (int)pid, e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%llu", &rt) == 1)
			sum += (double)rt;
		fclose(f);
	}
	closedir(d);
	return (sum);
}

/* softirq time of all CPUs from /proc/stat, ns (tick-sampled: no
 * IRQ_TIME_ACCOUNTING here; a tick that lands in softirq counts). */
static __attribute__((unused)) double
br_softirq_ns(void)
{
	unsigned long long v[7] = {0};
	FILE *f = fopen("/proc/stat", "r");

	if (f == NULL)
		return (0);
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		&v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		v[6] = 0;
	fclose(f);
	return ((double)v[6] * 1e9 / (double)sysconf(_SC_CLK_TCK));
}

/* Busy time of all CPUs from /proc/stat (everything but idle and iowait),
 * ns, tick-sampled. */
static __attribute__((unused)) double
br_busy_ns(void)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");
	double busy = 0;

	if (f == NULL)
		return (0);
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		&v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
		busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
	fclose(f);
	return (busy * 1e9 / (double)sysconf(_SC_CLK_TCK));
}

/* Which CPU a pid last ran on (field 39 of /proc/PID/stat), -1 if unknown. */
static __attribute__((unused)) int
br_pid_cpu(pid_t pid)
{
	char path[64], buf[2048], *p;
	int field = 1, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL) {
		for (p += 2, field = 3; *p && field < 39; p++)
			if (*p == ' ')
				field++;
		if (field == 39)
			cpu = atoi(p);
	}
	fclose(f);
	return (cpu);
}

/* pid of a component from `show processes` (0 if not running). */
static __attribute__((unused)) pid_t
br_component_pid(struct br *b, const char *name)
{
	static char out[8192];
	char *line, *save = NULL;
	char n[64], state[64];
	int pid;

	if (br_exec(b, "show processes", out, sizeof(out), 5000) != 0)
		return (0);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %d %63s", n, &pid, state) == 3 &&
		    strcmp(n, name) == 0)
			return (strcmp(state, "running") == 0 ? pid : 0);
	return (0);
}

/* Prints each component's pid and last CPU. */
static __attribute__((unused)) void
br_print_cpus(struct br *b)
{
	static const char *const comps[] = {"mgmt", "rib", "fwd"};

	printf("# processes:");
	for (unsigned i = 0; i < 3; i++) {
		pid_t p = br_component_pid(b, comps[i]);

		printf(" %s pid %d cpu %d;", comps[i], (int)p,
		    p > 0 ? br_pid_cpu(p) : -1);
	}
	printf(" machine has %ld CPUs (shared: not pinned)\n",
	    sysconf(_SC_NPROCESSORS_ONLN));
}

#endif /* BENCH_ROUTER_H */
