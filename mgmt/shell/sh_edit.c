/* mgmt/shell/sh_edit.c: the interactive loop: libedit line editing, history, Tab completion and '?' help. */
#include "sh.h"

#include <histedit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct sh_session *edit_session;
static char prompt_buf[256] = "tern> ";
static bool in_configure; /* "exit" leaves configuration mode first */

static char *
prompt_fn(EditLine *el)
{
	return (prompt_buf);
}

/* The line up to the cursor, as a C string. */
static char *
line_to_cursor(EditLine *el)
{
	const LineInfo *li = el_line(el);

	return (strndup(li->buffer, (size_t)(li->cursor - li->buffer)));
}

/* The candidates; with help their help texts, and the placeholders
 * (what may be typed) after the words. */
static void
list_candidates(const struct sh_completion *c, bool help)
{
	size_t w = 0;

	for (unsigned i = 0; i < c->n; i++)
		if (strlen(c->cand[i]) > w && (help || !c->hint[i]))
			w = strlen(c->cand[i]);
	printf("\n");
	if (help)
		printf("Possible completions:\n");
	for (unsigned i = 0; i < c->n; i++) {
		if (c->hint[i] && !help)
			continue;
		if (help && c->help[i] != NULL && c->help[i][0] != '\0')
			printf("  %-*s  %s\n", (int)w, c->cand[i], c->help[i]);
		else
			printf("  %s\n", c->cand[i]);
	}
}

/* Tab: complete the word at the cursor, or list the choices. */
static unsigned char
complete_fn(EditLine *el, int ch)
{
	struct sh_completion c;
	const LineInfo *li = el_line(el);
	const char *w, *only = NULL;
	unsigned words = 0;
	size_t wl;
	char *line;

	if ((line = line_to_cursor(el)) == NULL)
		return (CC_ERROR);
	/* with help: a Tab with nothing to insert shows what may be typed */
	if (sh_session_complete(edit_session, line, strlen(line), true, &c) !=
	    0) {
		free(line);
		return (CC_ERROR);
	}
	/* the word being typed: after the last blank */
	for (w = li->cursor; w > li->buffer && w[-1] != ' '; w--)
		;
	wl = (size_t)(li->cursor - w);
	free(line);
	/* placeholders ("[NAME]", "<a.b.c.d/len>") are never inserted */
	for (unsigned i = 0; i < c.n; i++)
		if (!c.hint[i]) {
			words++;
			only = c.cand[i];
		}
	if (c.n == 0)
		return (CC_REFRESH_BEEP);
	if (words == 0) {
		list_candidates(&c, true);
		return (CC_REDISPLAY);
	}
	if (words == 1) {
		if (strlen(only) >= wl)
			el_insertstr(el, only + wl);
		el_insertstr(el, " ");
		return (CC_REFRESH);
	}
	if (strlen(c.common) > wl) {
		el_insertstr(el, c.common + wl);
		return (CC_REFRESH);
	}
	list_candidates(&c, false);
	return (CC_REDISPLAY);
}

/* '?': what may come next here, with help texts. */
static unsigned char
help_fn(EditLine *el, int ch)
{
	struct sh_completion c;
	char *line;

	if ((line = line_to_cursor(el)) == NULL)
		return (CC_ERROR);
	if (sh_session_complete(edit_session, line, strlen(line), true, &c) !=
	    0) {
		free(line);
		return (CC_ERROR);
	}
	free(line);
	if (c.n == 0) {
		printf("\nNo completions here.\n");
		return (CC_REDISPLAY);
	}
	list_candidates(&c, true);
	return (CC_REDISPLAY);
}

/* The history file; false when there is one that is not a regular file
 * (libedit's fopen would block on a FIFO and read /dev/zero for ever): the
 * shell then goes without, and says so. */
static bool
history_path(char *buf, size_t len)
{
	const char *p = getenv("TERNSH_HISTORY"), *home = getenv("HOME");
	struct stat st;

	if (p != NULL && p[0] != '\0')
		snprintf(buf, len, "%s", p);
	else
		snprintf(buf, len, "%s/.ternsh_history",
		    home != NULL ? home : ".");
	if (stat(buf, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr,
		    "ternsh: history %s is not a regular file: not used\n",
		    buf);
		return (false);
	}
	return (true);
}

static void
set_prompt(const struct sh_result *res)
{
	if (res->prompt != NULL && res->prompt[0] != '\0')
		snprintf(prompt_buf, sizeof(prompt_buf), "%s", res->prompt);
	in_configure = res->configure;
}

/* Whether line is word, blanks around it aside ("exit " is exit). */
static bool
is_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, word, n) != 0)
		return (false);
	for (line += n; *line == ' ' || *line == '\t'; line++)
		;
	return (*line == '\0');
}

int
sh_interactive(struct sh_session *s)
{
	struct sh_result res;
	EditLine *el;
	History *hist;
	HistEvent ev;
	char hpath[4096];
	const char *line;
	bool hfile;
	int count;

	edit_session = s;
	hist = history_init();
	history(hist, &ev, H_SETSIZE, 1000);
	history(hist, &ev, H_SETUNIQUE, 1);
	if ((hfile = history_path(hpath, sizeof(hpath))))
		history(hist, &ev, H_LOAD, hpath);

	el = el_init("ternsh", stdin, stdout, stderr);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_PROMPT, prompt_fn);
	el_set(el, EL_HIST, history, hist);
	el_set(el, EL_SIGNAL, 1);
	el_set(el, EL_ADDFN, "ternsh-complete", "complete a word", complete_fn);
	el_set(el, EL_ADDFN, "ternsh-help", "show what may come next", help_fn);
	el_set(el, EL_BIND, "^I", "ternsh-complete", NULL);
	el_set(el, EL_BIND, "?", "ternsh-help", NULL);
	el_source(el, NULL); /* ~/.editrc, as editline users expect */
	/* a page at a time on a terminal (sh_more.c); | no-more turns it off */
	sh_more_enable(isatty(STDOUT_FILENO) && isatty(STDIN_FILENO));

	/* the first prompt comes from mgmt: an empty command returns it */
	if (sh_session_exec(s, "", false, &res) == 0)
		set_prompt(&res);
	sh_print_notes(s, stderr);
	while ((line = el_gets(el, &count)) != NULL && count > 0) {
		char *l = strndup(line, (size_t)count), *e;

		if (l == NULL)
			break;
		e = l + strlen(l);
		while (e > l && (e[-1] == '\n' || e[-1] == '\r'))
			*--e = '\0';
		if (is_word(l, "quit") ||
		    (is_word(l, "exit") && !in_configure)) {
			free(l);
			break;
		}
		if (l[0] != '\0') {
			history(hist, &ev, H_ENTER, l);
			/* each command says how it went on the screen: the
			 * shell's own status is 0 when the user leaves it */
			(void)sh_run_line(s, l, stdout, stderr);
		}
		/* the next prompt, and (also after an empty line) what
		 * happened meanwhile: a notice, mgmt restarted */
		if (sh_session_exec(s, "", false, &res) == 0)
			set_prompt(&res);
		sh_print_notes(s, stderr);
		free(l);
	}
	if (hfile && history_path(hpath, sizeof(hpath)))
		history(hist, &ev, H_SAVE, hpath);
	el_end(el);
	history_end(hist);
	return (0);
}
