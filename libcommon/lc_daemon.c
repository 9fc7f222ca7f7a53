/* libcommon/lc_daemon.c: the options every tern daemon shares, a table for
 * its own ones, and the main() around its event loop. */
#include "libcommon/lc_daemon.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_loop.h"
#include "tern_paths.h" /* build/gen: the Makefile's installation paths */

#define OPT_COLUMN 19 /* width of "--name=ARG" in --help */

/* One table row in --help ("--name=ARG", or "-n ARG" for a short one). */
static void
opt_usage(FILE *f, const struct lc_opt *o)
{
	char left[64];
	const char *h, *nl;

	if (o->arg == NULL)
		snprintf(left, sizeof(left), "%s", o->name);
	else
		snprintf(left, sizeof(left), "%s%s%s", o->name,
		    o->name[1] == '-' ? "=" : " ", o->arg);
	if (strlen(left) < OPT_COLUMN)
		fprintf(f, "  %-*s", OPT_COLUMN, left);
	else
		fprintf(f, "  %s  ", left);
	for (h = o->help; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, OPT_COLUMN + 2, "");
	fprintf(f, "%s\n", h);
}

void
lc_opt_usage(FILE *f, const struct lc_opt *opts)
{
	for (const struct lc_opt *o = opts; o != NULL && o->name != NULL; o++)
		opt_usage(f, o);
}

void
lc_daemon_usage(FILE *f, const struct lc_daemon_info *info)
{
	fprintf(f,
	    "usage: %s [options]\n"
	    "%s\n\n"
	    "options:\n"
	    "  --rundir DIR       runtime directory for sockets (default $TERN_RUNDIR or %s)\n"
	    "  --config FILE      configuration file\n"
	    "  --log-level LEVEL  err, warning, notice, info or debug (default info)\n"
	    "  --syslog           log to syslog instead of stderr\n"
	    "  --generation N     generation number assigned by tern-rtrmgr\n"
	    "  --help             show this text\n"
	    "  --version          show the version\n",
	    info->name, info->summary, TERN_RUN_DIR);
	lc_opt_usage(f, info->opts);
	if (info->usage_extra != NULL)
		fprintf(f, "%s", info->usage_extra);
	if (info->status != NULL)
		fprintf(f, "\nstatus: %s\n", info->status);
}

/* Returns the option's value, from "--opt=value" or the next argument. */
static const char *
opt_value(int argc, char **argv, int *i, const char *arg, size_t namelen)
{
	if (arg[namelen] == '=')
		return (arg + namelen + 1);
	if (*i + 1 < argc)
		return (argv[++*i]);
	return (NULL);
}

static int
opt_is(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return (
	    strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '='));
}

static int
bad_usage(const char *prog, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\n", prog, what, arg);
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return (-EINVAL);
}

int
lc_opt_uint(const char *v, unsigned min, unsigned max, unsigned *out,
    struct lc_err *err)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || errno != 0 || *end != '\0' || x < min ||
	    x > max) {
		return (lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "'%s' is not a number in %u..%u", v, min, max));
	}
	*out = (unsigned)x;
	return (0);
}

static const struct lc_opt *
opt_find(const struct lc_opt *o, const char *arg)
{
	for (; o != NULL && o->name != NULL; o++)
		if (opt_is(arg, o->name))
			return (o);
	return (NULL);
}

/* The value v of table option o into its place; -EINVAL after saying why. */
static int
opt_store(const char *prog, const struct lc_opt *o, const char *v)
{
	struct lc_err e = {0};
	char *err = e.msg;
	size_t n;
	int i;

	switch (o->kind) {
	case LC_OPT_FLAG:
		if (o->dst != NULL)
			*(bool *)o->dst = true;
		return (0);
	case LC_OPT_STRING:
		*(const char **)o->dst = v;
		return (0);
	case LC_OPT_UINT:
		if (lc_opt_uint(v, o->min, o->max, o->dst, &e) == 0)
			return (0);
		break;
	case LC_OPT_CHOICE:
		for (i = 0; o->choices[i] != NULL; i++)
			if (strcmp(v, o->choices[i]) == 0) {
				*(const char **)o->dst = o->choices[i];
				return (0);
			}
		/* "'x' is not run, ring or auto" */
		n = (size_t)snprintf(err, sizeof(e.msg), "'%.64s' is not", v);
		for (i = 0; o->choices[i] != NULL && n < sizeof(e.msg); i++)
			n += (size_t)snprintf(err + n, sizeof(e.msg) - n,
			    "%s%s",
			    i == 0			  ? " " :
				o->choices[i + 1] == NULL ? " or " :
							    ", ",
			    o->choices[i]);
		break;
	case LC_OPT_FN:
		if (o->fn(v, o->dst, &e) == 0)
			return (0);
		break;
	}
	fprintf(stderr, "%s: %s: %s\nTry '%s --help'.\n", prog, o->name, err,
	    prog);
	return (-EINVAL);
}

int
lc_opt_take(int argc, char **argv, int *i, const char *prog,
    const struct lc_opt *opts)
{
	const char *a = argv[*i], *v;
	const struct lc_opt *o;
	size_t len;

	if ((o = opt_find(opts, a)) == NULL)
		return (1);
	len = strlen(o->name);
	if (o->kind == LC_OPT_FLAG && a[len] == '=')
		return (bad_usage(prog, "no value expected in", a));
	if (o->kind == LC_OPT_FLAG)
		v = "";
	else if ((v = opt_value(argc, argv, i, a, len)) == NULL ||
	    (a[len] != '=' && *v == '\0'))
		return (bad_usage(prog, "missing value for", a));
	return (opt_store(prog, o, v));
}

/* A daemon's own option at argv[*i]: from the table, or for rest_argv. */
static int
own_opt(int argc, char **argv, int *i, const struct lc_daemon_info *info,
    struct lc_daemon_opts *out)
{
	const char *a = argv[*i];
	const char *const *vo = info->value_opts;
	char *joined;
	int rv;

	if ((rv = lc_opt_take(argc, argv, i, info->name, info->opts)) <= 0)
		return (rv);
	if (info->opts != NULL)
		return (bad_usage(info->name, "unknown option", a));
	for (; vo != NULL && *vo != NULL; vo++)
		if (strcmp(a, *vo) == 0)
			break;
	if (vo == NULL || *vo == NULL) {
		out->rest_argv[out->rest_argc++] = argv[*i];
		return (0);
	}
	if (*i + 1 >= argc || argv[*i + 1][0] == '\0')
		return (bad_usage(info->name, "missing value for", a));
	if (asprintf(&joined, "%s=%s", a, argv[++*i]) < 0)
		return (-ENOMEM);
	out->owned[out->nowned++] = joined;
	out->rest_argv[out->rest_argc++] = joined;
	return (0);
}

int
lc_daemon_parse(int argc, char **argv, const struct lc_daemon_info *info,
    struct lc_daemon_opts *out)
{
	const char *env, *v;
	char *end;
	unsigned long n;
	int i, rv;

	memset(out, 0, sizeof(*out));
	env = getenv("TERN_RUNDIR");
	out->rundir = (env != NULL && env[0] != '\0') ? env : TERN_RUN_DIR;
	out->log_level = LC_LOG_INFO;
	out->rest_argv = calloc((size_t)argc + 1, sizeof(char *));
	out->owned = calloc((size_t)argc + 1, sizeof(char *));
	if (out->rest_argv == NULL || out->owned == NULL)
		return (-ENOMEM);
	out->rest_argv[out->rest_argc++] = argv[0];

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			lc_daemon_usage(stdout, info);
			return (1);
		} else if (strcmp(a, "--version") == 0) {
			printf("%s %s\n", info->name, TERN_VERSION);
			return (1);
		} else if (strcmp(a, "--syslog") == 0) {
			out->syslog = true;
		} else if (opt_is(a, "--rundir")) {
			if ((v = opt_value(argc, argv, &i, a, 8)) == NULL ||
			    *v == '\0')
				return (bad_usage(info->name,
				    "missing directory for", a));
			out->rundir = v;
			out->rundir_set = true;
		} else if (opt_is(a, "--config")) {
			if ((v = opt_value(argc, argv, &i, a, 8)) == NULL ||
			    *v == '\0')
				return (bad_usage(info->name,
				    "missing file for", a));
			out->config = v;
		} else if (opt_is(a, "--log-level")) {
			if ((v = opt_value(argc, argv, &i, a, 11)) == NULL)
				return (bad_usage(info->name,
				    "missing level for", a));
			if (lc_log_level_parse(v, &out->log_level) != 0)
				return (bad_usage(info->name,
				    "unknown log level", v));
			out->log_level_set = true;
		} else if (opt_is(a, "--generation")) {
			if ((v = opt_value(argc, argv, &i, a, 12)) == NULL)
				return (bad_usage(info->name,
				    "missing number for", a));
			errno = 0;
			n = strtoul(v, &end, 10);
			if (errno != 0 || *v < '0' || *v > '9' ||
			    *end != '\0' || n > 0xffffffffUL)
				return (bad_usage(info->name,
				    "invalid generation", v));
			out->generation = (unsigned)n;
		} else if (strncmp(a, "--", 2) == 0 && a[2] != '\0') {
			if ((rv = own_opt(argc, argv, &i, info, out)) != 0)
				return (rv);
		} else {
			return (
			    bad_usage(info->name, "unexpected argument", a));
		}
	}
	out->rest_argv[out->rest_argc] = NULL;
	return (0);
}

int
lc_daemon_main(int argc, char **argv, const struct lc_daemon_info *info,
    const struct lc_daemon_ops *ops)
{
	struct lc_daemon_opts opts;
	struct ev_loop *loop;
	void *d;
	int rv;

	if ((rv = lc_daemon_parse(argc, argv, info, &opts)) != 0) {
		lc_daemon_opts_fini(&opts);
		return (rv > 0 ? 0 : 2);
	}
	lc_log_set_context(info->name, opts.generation);
	lc_log_init(info->name, opts.log_level,
	    opts.syslog ? LC_LOG_SYSLOG : LC_LOG_STDERR);
	if (ops->check != NULL && (rv = ops->check(&opts)) != 0) {
		lc_daemon_opts_fini(&opts);
		return (rv);
	}
	if ((loop = lc_loop_new()) == NULL ||
	    lc_loop_signals(loop, NULL, NULL) != 0) {
		lc_log_err("cannot create the event loop");
		lc_loop_free(loop);
		lc_daemon_opts_fini(&opts);
		return (1);
	}
	if ((d = ops->start(loop, &opts)) == NULL) {
		lc_loop_free(loop);
		lc_daemon_opts_fini(&opts);
		return (1);
	}
	ev_run(loop, 0); /* until SIGTERM or SIGINT */
	lc_log_notice("shutting down");
	ops->stop(d, loop);
	lc_loop_free(loop);
	lc_daemon_opts_fini(&opts);
	return (0);
}

void
lc_daemon_opts_fini(struct lc_daemon_opts *o)
{
	for (int i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	free(o->owned);
	o->owned = NULL;
	o->nowned = 0;
	free(o->rest_argv);
	o->rest_argv = NULL;
	o->rest_argc = 0;
}

int
lc_daemon_opt_uint(const char *arg, const char *name, unsigned max,
    unsigned *out)
{
	size_t l = strlen(name);
	const char *v = arg + l + 1;
	char *end;
	unsigned long x;

	if (strncmp(arg, name, l) != 0 || arg[l] != '=')
		return (0);
	if (*v < '0' || *v > '9')
		return (-EINVAL);
	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno != 0 || *end != '\0' || x > max)
		return (-EINVAL);
	*out = (unsigned)x;
	return (1);
}
