/* libcommon/lc_daemon.c: parses the options every tern daemon shares. */
#include "libcommon/lc_daemon.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	    info->name, info->summary, TERN_RUNDIR_DEFAULT);
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
bad_usage(const struct lc_daemon_info *info, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\n", info->name, what, arg);
	fprintf(stderr, "Try '%s --help'.\n", info->name);
	return (-EINVAL);
}

int
lc_daemon_parse(int argc, char **argv, const struct lc_daemon_info *info,
    struct lc_daemon_opts *out)
{
	const char *env, *v;
	char *end;
	unsigned long n;
	int i;

	memset(out, 0, sizeof(*out));
	env = getenv("TERN_RUNDIR");
	out->rundir = (env != NULL && env[0] != '\0') ? env :
							TERN_RUNDIR_DEFAULT;
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
				return (bad_usage(info, "missing directory for",
				    a));
			out->rundir = v;
		} else if (opt_is(a, "--config")) {
			if ((v = opt_value(argc, argv, &i, a, 8)) == NULL ||
			    *v == '\0')
				return (bad_usage(info, "missing file for", a));
			out->config = v;
		} else if (opt_is(a, "--log-level")) {
			if ((v = opt_value(argc, argv, &i, a, 11)) == NULL)
				return (
				    bad_usage(info, "missing level for", a));
			if (lc_log_level_parse(v, &out->log_level) != 0)
				return (
				    bad_usage(info, "unknown log level", v));
		} else if (opt_is(a, "--generation")) {
			if ((v = opt_value(argc, argv, &i, a, 12)) == NULL)
				return (
				    bad_usage(info, "missing number for", a));
			errno = 0;
			n = strtoul(v, &end, 10);
			if (errno != 0 || *v < '0' || *v > '9' ||
			    *end != '\0' || n > 0xffffffffUL)
				return (
				    bad_usage(info, "invalid generation", v));
			out->generation = (unsigned)n;
		} else if (strncmp(a, "--", 2) == 0 && a[2] != '\0') {
			const char *const *vo = info->value_opts;

			for (; vo != NULL && *vo != NULL; vo++)
				if (strcmp(a, *vo) == 0)
					break;
			if (vo != NULL && *vo != NULL) {
				char *joined;

				if (i + 1 >= argc || argv[i + 1][0] == '\0')
					return (bad_usage(info,
					    "missing value for", a));
				if (asprintf(&joined, "%s=%s", a, argv[++i]) <
				    0)
					return (-ENOMEM);
				out->owned[out->nowned++] = joined;
				out->rest_argv[out->rest_argc++] = joined;
			} else {
				out->rest_argv[out->rest_argc++] = argv[i];
			}
		} else {
			return (bad_usage(info, "unexpected argument", a));
		}
	}
	out->rest_argv[out->rest_argc] = NULL;
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
