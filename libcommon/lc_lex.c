/* libcommon/lc_lex.c: the one tokenizer of tern's brace-syntax files, so the
 * mgmt config and the boot config read comments, quotes and lists alike. */
#include "libcommon/lc_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Characters of unquoted words: printable but space and { } ; " [ ],
 * and bytes >= 0x80 (UTF-8). */
static const uint8_t word_tab[256] = {
    ['!'] = 1,
    ['#'] = 1,
    ['$'] = 1,
    ['%'] = 1,
    ['&'] = 1,
    ['\''] = 1,
    ['('] = 1,
    [')'] = 1,
    ['*'] = 1,
    ['+'] = 1,
    [','] = 1,
    ['-'] = 1,
    ['.'] = 1,
    ['/'] = 1,
    ['0' ... '9'] = 1,
    [':'] = 1,
    ['<'] = 1,
    ['='] = 1,
    ['>'] = 1,
    ['?'] = 1,
    ['@'] = 1,
    ['A' ... 'Z'] = 1,
    ['\\'] = 1,
    ['^'] = 1,
    ['_'] = 1,
    ['`'] = 1,
    ['a' ... 'z'] = 1,
    ['|'] = 1,
    ['~'] = 1,
    [0x80 ... 0xff] = 1,
};

void
lc_lex_init(struct lc_lex *lx, const char *name, const char *text, size_t len,
    size_t max, struct lc_err *err)
{
	lx->tok = LC_TOK_EOF;
	lx->line = lx->col = 1;
	lx->text = lx->buf;
	lx->len = 0;
	lx->buf[0] = '\0';
	lx->name = name;
	lx->p = lx->lstart = text;
	lx->end = text + len;
	/* a NUL ends the text here and is reported when reached */
	if ((lx->nul = memchr(text, '\0', len)) != NULL)
		lx->end = lx->nul;
	lx->cur_line = 1;
	lx->max = max < LC_LEX_TEXT_MAX ? max : LC_LEX_TEXT_MAX;
	lx->err = err;
	lx->failed = false;
	lc_err_clear(err);
}

static int
lex_verror(struct lc_lex *lx, unsigned line, unsigned col, const char *fmt,
    va_list ap)
{
	int off;

	if (lx->failed)
		return (-EINVAL);
	lx->failed = true;
	if (lx->err == NULL)
		return (-EINVAL);
	lx->err->code = -EINVAL;
	lx->err->index = LC_ERR_NOINDEX;
	off = snprintf(lx->err->msg, sizeof(lx->err->msg),
	    "%s:%u:%u: ", lx->name, line, col);
	if (off > 0 && (size_t)off < sizeof(lx->err->msg))
		vsnprintf(lx->err->msg + off,
		    sizeof(lx->err->msg) - (size_t)off, fmt, ap);
	return (-EINVAL);
}

int
lc_lex_error(struct lc_lex *lx, unsigned line, unsigned col, const char *fmt,
    ...)
{
	va_list ap;
	int rv;

	va_start(ap, fmt);
	rv = lex_verror(lx, line, col, fmt, ap);
	va_end(ap);
	return (rv);
}

const char *
lc_lex_tok_name(enum lc_tok t)
{
	switch (t) {
	case LC_TOK_LBRACE:
		return ("'{'");
	case LC_TOK_RBRACE:
		return ("'}'");
	case LC_TOK_SEMI:
		return ("';'");
	case LC_TOK_LBRACK:
		return ("'['");
	case LC_TOK_RBRACK:
		return ("']'");
	case LC_TOK_EOF:
		return ("end of input");
	case LC_TOK_STRING:
		return ("a string");
	default:
		return ("a word");
	}
}

static inline unsigned
lex_col(const struct lc_lex *lx, const char *at)
{
	return ((unsigned)(at - lx->lstart) + 1);
}

/* The token is an error whose message is set: returns LC_TOK_ERR. */
static enum lc_tok lex_fail(struct lc_lex *lx, unsigned line, unsigned col,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum lc_tok
lex_fail(struct lc_lex *lx, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lex_verror(lx, line, col, fmt, ap);
	va_end(ap);
	return (lx->tok = LC_TOK_ERR);
}

/* At the end of the text: its end, or the NUL that cut it short. */
static enum lc_tok
lex_at_end(struct lc_lex *lx, const char *what, unsigned line, unsigned col)
{
	if (lx->nul != NULL)
		return (lex_fail(lx, lx->cur_line, lex_col(lx, lx->p),
		    "NUL byte in config"));
	if (what == NULL)
		return (lx->tok = LC_TOK_EOF);
	return (lex_fail(lx, line, col, "%s", what));
}

/* Skips white space and comments; false on an error (token set). */
static bool
lex_skip(struct lc_lex *lx)
{
	for (;;) {
		while (lx->p < lx->end &&
		    (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' ||
			*lx->p == '\n')) {
			if (*lx->p == '\n') {
				lx->cur_line++;
				lx->lstart = lx->p + 1;
			}
			lx->p++;
		}
		if (lx->p >= lx->end)
			return (true);
		if (*lx->p == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		if (*lx->p == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			unsigned l = lx->cur_line, c = lex_col(lx, lx->p);

			for (lx->p += 2; lx->p < lx->end; lx->p++) {
				if (lx->p[0] == '*' && lx->p + 1 < lx->end &&
				    lx->p[1] == '/')
					break;
				if (*lx->p == '\n') {
					lx->cur_line++;
					lx->lstart = lx->p + 1;
				}
			}
			if (lx->p >= lx->end) {
				lex_at_end(lx, "unterminated comment", l, c);
				return (false);
			}
			lx->p += 2;
			continue;
		}
		return (true);
	}
}

static enum lc_tok
lex_string(struct lc_lex *lx)
{
	size_t n = 0;

	lx->p++;
	for (;;) {
		unsigned char c;

		if (lx->p >= lx->end)
			return (lex_at_end(lx, "unterminated string", lx->line,
			    lx->col));
		c = (unsigned char)*lx->p;
		if (c == '"')
			break;
		if (c == '\n')
			return (lex_fail(lx, lx->line, lx->col,
			    "unterminated string (strings end on the same "
			    "line)"));
		if (c == '\\') {
			if (lx->p + 1 < lx->end && lx->p[1] != '"' &&
			    lx->p[1] != '\\')
				return (lex_fail(lx, lx->cur_line,
				    lex_col(lx, lx->p),
				    "unknown escape in string (only \\\" and "
				    "\\\\)"));
			if (++lx->p >= lx->end)
				continue; /* unterminated */
			c = (unsigned char)*lx->p;
		} else if (c < ' ' && c != '\t')
			return (lex_fail(lx, lx->cur_line, lex_col(lx, lx->p),
			    "control character 0x%02x in string", c));
		if (n >= lx->max)
			return (lex_fail(lx, lx->line, lx->col,
			    "string longer than %zu bytes", lx->max));
		lx->buf[n++] = (char)c;
		lx->p++;
	}
	lx->p++;
	lx->buf[n] = '\0';
	lx->len = n;
	return (lx->tok = LC_TOK_STRING);
}

static enum lc_tok
lex_word(struct lc_lex *lx)
{
	const char *s = lx->p;
	size_t n;

	if (word_tab[(unsigned char)*s] == 0)
		return (lex_fail(lx, lx->line, lx->col,
		    "unexpected character 0x%02x", (unsigned char)*s));
	while (lx->p < lx->end && word_tab[(unsigned char)*lx->p] != 0 &&
	    !(lx->p[0] == '/' && lx->p + 1 < lx->end && lx->p[1] == '*'))
		lx->p++;
	if ((n = (size_t)(lx->p - s)) > lx->max)
		return (lex_fail(lx, lx->line, lx->col,
		    "word longer than %zu bytes", lx->max));
	memcpy(lx->buf, s, n);
	lx->buf[n] = '\0';
	lx->len = n;
	return (lx->tok = LC_TOK_WORD);
}

enum lc_tok
lc_lex_next(struct lc_lex *lx)
{
	static const enum lc_tok punct[256] = {
	    ['{'] = LC_TOK_LBRACE,
	    ['}'] = LC_TOK_RBRACE,
	    [';'] = LC_TOK_SEMI,
	    ['['] = LC_TOK_LBRACK,
	    [']'] = LC_TOK_RBRACK,
	};
	enum lc_tok t;

	lx->buf[0] = '\0';
	lx->len = 0;
	if (lx->failed)
		return (lx->tok = LC_TOK_ERR);
	if (!lex_skip(lx))
		return (lx->tok);
	lx->line = lx->cur_line;
	lx->col = lex_col(lx, lx->p);
	if (lx->p >= lx->end)
		return (lex_at_end(lx, NULL, 0, 0));
	if ((t = punct[(unsigned char)*lx->p]) != LC_TOK_EOF) {
		lx->p++;
		return (lx->tok = t);
	}
	if (*lx->p == '"')
		return (lex_string(lx));
	return (lex_word(lx));
}

int
lc_lex_list(struct lc_lex *lx, unsigned max,
    int (*add)(void *arg, const struct lc_lex *), void *arg)
{
	unsigned bl = lx->line, bc = lx->col, n = 0;
	int rv;

	for (lc_lex_next(lx);
	     lx->tok == LC_TOK_WORD || lx->tok == LC_TOK_STRING;
	     lc_lex_next(lx)) {
		if (n == max)
			return (lc_lex_error(lx, lx->line, lx->col,
			    "more than %u values in [ ]", max));
		if ((rv = add(arg, lx)) != 0)
			return (rv);
		n++;
	}
	if (lx->tok == LC_TOK_ERR)
		return (-EINVAL);
	if (lx->tok != LC_TOK_RBRACK)
		return (lc_lex_error(lx, lx->line, lx->col,
		    "expected ']' (list opened at line %u, column %u), got %s",
		    bl, bc, lc_lex_tok_name(lx->tok)));
	if (n == 0)
		return (lc_lex_error(lx, bl, bc, "empty [ ]"));
	return ((int)n);
}
