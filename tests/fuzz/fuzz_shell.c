/* tests/fuzz/fuzz_shell.c: libFuzzer harness for shell lines: ternsh's pipe parser, then tern-mgmt's command interpreter and completion in both modes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcommon/lc_buf.h"
#include "libcommon/lc_log.h"
#include "libcommon/lc_loop.h"
#include "mgmt/mgmt.h"
#include "mgmt/shell/sh.h"

static struct mgmt *m;
static struct mgmt_session *s;
static struct ev_loop *loop;
static char store[] = "/tmp/tern-fuzz-shell.XXXXXX";

static void
remove_store(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", store);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_shell: could not remove %s\n", store);
}

static void
later(void *arg, struct mgmt *mm, struct mgmt_session *ss, int code,
    const char *text, const struct lc_err *err)
{
	*(int *)arg = 1;
}

static void
setup(void)
{
	struct mgmt_opts o = {0};

	if (mkdtemp(store) == NULL)
		abort();
	atexit(remove_store);
	lc_log_init("fuzz_shell", LC_LOG_ERR, LC_LOG_STDERR);
	o.store_dir = store;
	o.no_server = true;
	if ((loop = lc_loop_new()) == NULL)
		abort();
	m = mgmt_new(loop, &o);
	if (m == NULL)
		abort();
	s = mgmt_session_open(m, "fuzz", false);
}

/* Whether the line's first word is a prefix of word ("sa" is save: the
 * unique prefixes of command words). */
static int
first_word_starts(const char *cmd, const char *word)
{
	size_t n;

	cmd += strspn(cmd, " \t");
	n = strcspn(cmd, " \t");
	return (n > 0 && n <= strlen(word) && strncmp(cmd, word, n) == 0);
}

/* Commands that touch files outside the store are not fuzzed here. */
static int
skip(const char *cmd)
{
	/* save and load touch files; show log and monitor log read RUNDIR's
	 * logs (monitor runs until interrupted); ping and traceroute wait for
	 * answers */
	if (first_word_starts(cmd, "run")) { /* run COMMAND: its command */
		cmd += strspn(cmd, " \t");
		cmd += strcspn(cmd, " \t");
	}
	return (strstr(cmd, "save") != NULL || strstr(cmd, "load") != NULL ||
	    strstr(cmd, "log") != NULL || first_word_starts(cmd, "save") ||
	    first_word_starts(cmd, "load") ||
	    first_word_starts(cmd, "monitor") ||
	    first_word_starts(cmd, "ping") ||
	    first_word_starts(cmd, "traceroute"));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *line, *next;

	if (m == NULL)
		setup();
	if ((text = malloc(size + 1)) == NULL)
		return (0);
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line != NULL; line = next) {
		struct sh_pipeline p;
		struct lc_buf out;
		struct lc_err perr, xerr;
		int done = 0, code;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (sh_pipeline_parse(line, &p, &perr) != 0) {
			if (perr.msg[0] == '\0')
				abort(); /* every refusal says why */
			continue;
		}
		if (skip(p.command)) {
			sh_pipeline_fini(&p);
			continue;
		}
		lc_buf_init(&out);
		code = mgmt_cmd_exec(m, s, p.command, p.json, &out, &xerr,
		    later, &done);
		/* no component to ask: only a commit's store (a child
		 * process) can make it wait, and not for long */
		for (int i = 0; code == MGMT_PENDING && !done && i < 10000; i++)
			ev_run(loop, EVRUN_ONCE);
		if (code == MGMT_PENDING && !done)
			abort(); /* never answered */
		if (code != MGMT_OK && code != MGMT_PENDING &&
		    xerr.msg[0] == '\0')
			abort(); /* every error says why */
		if (out.len > 0) {
			FILE *f = fopen("/dev/null", "w");

			if (f != NULL) {
				sh_pipeline_output(&p,
				    (char *)lc_buf_head(&out), f);
				/* and as a table: header, rows, count */
				sh_pipeline_print(&p, (char *)lc_buf_head(&out),
				    1, 1, f);
				fclose(f);
			}
		}
		lc_buf_fini(&out);
		sh_pipeline_fini(&p);
		/* completion at every place of the line: no crash, and a
		 * placeholder is never empty */
		for (size_t c = 0; c <= strlen(line); c++) {
			struct mgmt_cand cand[32];
			int n = mgmt_cmd_complete(m, s, line, c, cand, 32);

			for (int i = 0; i < n; i++)
				if (cand[i].word[0] == '\0')
					abort();
		}
	}
	free(text);
	return (0);
}
