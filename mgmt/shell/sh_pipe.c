/* mgmt/shell/sh_pipe.c: splits a shell line into a command and pipe stages, and filters output through them. */
#include "sh.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* One '|'-separated piece of the line, with quotes kept as typed. */
struct piece {
	const char *s;
	size_t len;
};

static const char *
skip_space(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return (s);
}

/* Copies the next word of [s, end) into buf, removing one level of quotes. */
static int
next_word(const char **sp, const char *end, char *buf, size_t buflen)
{
	const char *s = skip_space(*sp, end);
	size_t n = 0;
	char q = 0;

	if (s == end)
		return (-ENOENT);
	for (; s < end; s++) {
		if (q != 0) {
			if (*s == q) {
				q = 0;
				continue;
			}
		} else if (*s == '"' || *s == '\'') {
			q = *s;
			continue;
		} else if (*s == ' ' || *s == '\t') {
			break;
		}
		if (n + 1 >= buflen)
			return (-E2BIG);
		buf[n++] = *s;
	}
	if (q != 0)
		return (-EINVAL);
	buf[n] = '\0';
	*sp = s;
	return (0);
}

static int
stage_parse(struct piece p, struct sh_stage *st, bool *json, struct lc_err *err)
{
	const char *s = p.s, *end = p.s + p.len;
	char word[256], re[1024];
	int rv;

	memset(st, 0, sizeof(*st));
	if ((rv = next_word(&s, end, word, sizeof(word))) != 0) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    rv == -ENOENT ?
			"empty pipe stage: expected match, except, count, json or no-more" :
			"bad pipe stage");
		return (-EINVAL);
	}
	if (strcmp(word, "match") == 0 || strcmp(word, "except") == 0) {
		st->kind = word[0] == 'm' ? SH_STAGE_MATCH : SH_STAGE_EXCEPT;
		rv = next_word(&s, end, re, sizeof(re));
		if (rv == -ENOENT) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "'| %s' needs a regular expression", word);
			return (-EINVAL);
		}
		if (rv != 0) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "'| %s': %s",
			    word,
			    rv == -EINVAL ? "unterminated quote" :
					    "expression too long");
			return (-EINVAL);
		}
		if ((rv = regcomp(&st->re, re, REG_EXTENDED | REG_NOSUB)) !=
		    0) {
			char msg[128];

			regerror(rv, &st->re, msg, sizeof(msg));
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "'| %s %s': %s", word, re, msg);
			return (-EINVAL);
		}
		st->has_re = true;
	} else if (strcmp(word, "count") == 0) {
		st->kind = SH_STAGE_COUNT;
	} else if (strcmp(word, "json") == 0) {
		st->kind = SH_STAGE_JSON;
		*json = true;
	} else if (strcmp(word, "no-more") == 0) {
		st->kind = SH_STAGE_NOMORE;
	} else {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "unknown pipe command '%s': expected match, "
		    "except, count, json or no-more",
		    word);
		return (-EINVAL);
	}
	if (skip_space(s, end) != end) {
		if (st->has_re)
			regfree(&st->re);
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "unexpected '%.*s' after '| %s' (quote a "
		    "regular expression that has spaces)",
		    (int)(end - skip_space(s, end)), skip_space(s, end), word);
		return (-EINVAL);
	}
	return (0);
}

/* Is this stage one of mgmt's ("compare", "display set")? */
static bool
server_stage(struct piece p)
{
	const char *s = p.s, *end = p.s + p.len;
	char w1[16], w2[16];

	if (next_word(&s, end, w1, sizeof(w1)) != 0)
		return (false);
	if (strcmp(w1, "compare") == 0)
		return (true);
	return (strcmp(w1, "display") == 0 &&
	    next_word(&s, end, w2, sizeof(w2)) == 0 && strcmp(w2, "set") == 0);
}

int
sh_pipeline_parse(const char *line, struct sh_pipeline *out, struct lc_err *err)
{
	struct piece pieces[SH_PIPE_MAX + 2];
	unsigned np = 0, first;
	const char *s, *start;
	char q = 0;
	int rv;

	memset(out, 0, sizeof(*out));
	if (line == NULL) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX, "no command");
		return (-EINVAL);
	}
	for (s = start = line;; s++) {
		if (q != 0) {
			if (*s == q)
				q = 0;
			else if (*s == '\0') {
				lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
				    "unterminated quote");
				return (-EINVAL);
			}
			continue;
		}
		if (*s == '"' || *s == '\'') {
			q = *s;
			continue;
		}
		if (*s == '|' || *s == '\0') {
			if (np == SH_PIPE_MAX + 1) {
				lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
				    "too many pipe stages "
				    "(at most %d)",
				    SH_PIPE_MAX);
				return (-EINVAL);
			}
			pieces[np].s = start;
			pieces[np++].len = (size_t)(s - start);
			start = s + 1;
			if (*s == '\0')
				break;
		}
	}

	/* mgmt's own stages stay with the command */
	first = 1;
	while (first < np && server_stage(pieces[first]))
		first++;
	if (first > 1) {
		pieces[0].len = (size_t)(pieces[first - 1].s +
		    pieces[first - 1].len - pieces[0].s);
	}

	/* the command, without surrounding blanks */
	s = skip_space(pieces[0].s, pieces[0].s + pieces[0].len);
	start = pieces[0].s + pieces[0].len;
	while (start > s &&
	    (start[-1] == ' ' || start[-1] == '\t' || start[-1] == '\n' ||
		start[-1] == '\r'))
		start--;
	if (start == s && np > 1) {
		lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
		    "a pipe needs a command before '|'");
		return (-EINVAL);
	}
	if ((out->command = strndup(s, (size_t)(start - s))) == NULL)
		return (
		    lc_err_set(err, -ENOMEM, LC_ERR_NOINDEX, "out of memory"));
	for (unsigned i = first; i < np; i++) {
		if (server_stage(pieces[i])) {
			lc_err_set(err, -EINVAL, LC_ERR_NOINDEX,
			    "'|%.*s' must come right after "
			    "the command",
			    (int)pieces[i].len, pieces[i].s);
			sh_pipeline_fini(out);
			return (-EINVAL);
		}
		if ((rv = stage_parse(pieces[i], &out->stages[out->n],
			 &out->json, err)) != 0) {
			sh_pipeline_fini(out);
			return (rv);
		}
		out->n++;
	}
	return (0);
}

void
sh_pipeline_fini(struct sh_pipeline *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->stages[i].has_re)
			regfree(&p->stages[i].re);
	free(p->command);
	memset(p, 0, sizeof(*p));
}

/* Does this line survive every match/except stage? */
static bool
line_kept(const struct sh_pipeline *p, const char *line)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct sh_stage *st = &p->stages[i];
		bool m;

		if (!st->has_re)
			continue;
		m = regexec(&st->re, line, 0, NULL, 0) == 0;
		if ((st->kind == SH_STAGE_MATCH) != m)
			return (false);
	}
	return (true);
}

bool
sh_pipeline_no_more(const struct sh_pipeline *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->stages[i].kind == SH_STAGE_NOMORE)
			return (true);
	return (false);
}

static unsigned long
count_lines(const char *text)
{
	unsigned long n = 0;

	for (const char *s = text; *s != '\0'; s++)
		if (*s == '\n' || s[1] == '\0')
			n++;
	return (n);
}

void
sh_pipeline_output(const struct sh_pipeline *p, const char *text, FILE *f)
{
	sh_pipeline_print(p, text, 0, 0, f);
}

void
sh_pipeline_print(const struct sh_pipeline *p, const char *text,
    unsigned header, unsigned footer, FILE *f)
{
	struct json_object *jo = NULL;
	const char *s, *nl;
	bool count = false, filter = false;
	unsigned long lines = 0, total, no = 0, rows = 0, kept_rows = 0;
	char *copy = NULL;

	for (unsigned i = 0; i < p->n; i++) {
		if (p->stages[i].kind == SH_STAGE_COUNT)
			count = true;
		if (p->stages[i].has_re)
			filter = true;
	}
	if (text == NULL)
		text = "";
	if (p->json && (jo = json_tokener_parse(text)) != NULL)
		text = json_object_to_json_string_ext(jo,
		    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	total = count_lines(text);
	/* a table only when there are rows between its header and count,
	 * and only a filter changes it */
	if (p->json || !filter || header + footer >= total)
		header = footer = 0;

	for (s = text; *s != '\0'; s = nl + 1) {
		size_t len;
		bool row;

		nl = strchr(s, '\n');
		len = nl != NULL ? (size_t)(nl - s) : strlen(s);
		free(copy);
		if ((copy = strndup(s, len)) == NULL)
			break;
		no++;
		row = no > header && no <= total - footer;
		if (no > total - footer && footer > 0) {
			/* the count: of the rows shown, when some were not */
			if (kept_rows < rows && !count)
				fprintf(f, "%lu of %s\n", kept_rows, copy);
			else if (!count)
				fprintf(f, "%s\n", copy);
		} else if (!row || line_kept(p, copy)) {
			lines += row; /* | count: the rows kept */
			kept_rows += row && copy[0] != ' ' && copy[0] != '\t';
			if (!count)
				fprintf(f, "%s\n", copy);
		}
		rows += row && copy[0] != ' ' && copy[0] != '\t';
		if (nl == NULL)
			break;
	}
	free(copy);
	if (count)
		fprintf(f, "Count: %lu lines\n", lines);
	if (jo != NULL)
		json_object_put(jo);
}
