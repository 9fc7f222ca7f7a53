/* tests/fuzz/fuzz_lex.c: libFuzzer harness for the brace-syntax lexer that
 * both config parsers read through: tokens move forward, texts are whole,
 * lists end on their ']', and every error has its file:line:col. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcommon/lc_lex.h"

static void
check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_lex: %s\n", what);
		abort();
	}
}

static int
add(void *arg, const struct lc_lex *lx)
{
	unsigned *n = arg;

	check(lx->tok == LC_TOK_WORD || lx->tok == LC_TOK_STRING,
	    "a list value that is not a word");
	(*n)++;
	return (0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lc_lex lx;
	struct lc_err err;
	unsigned line = 1, col = 1, n;
	size_t max = size > 0 ? 1 + data[0] % 64 : 8;
	int rv;

	lc_lex_init(&lx, "fuzz.conf", (const char *)data, size, max, &err);
	for (;;) {
		enum lc_tok t = lc_lex_next(&lx);

		if (t == LC_TOK_ERR)
			break;
		check(lx.line > line || (lx.line == line && lx.col >= col),
		    "a token before the last");
		line = lx.line;
		col = lx.col;
		if (t == LC_TOK_EOF) {
			check(lc_lex_next(&lx) == LC_TOK_EOF, "past the end");
			return (0);
		}
		if (t == LC_TOK_WORD || t == LC_TOK_STRING)
			check(lx.len <= max && strlen(lx.text) == lx.len &&
				(t == LC_TOK_STRING || lx.len > 0),
			    "a text of the wrong length");
		if (t == LC_TOK_LBRACK) {
			n = 0;
			rv = lc_lex_list(&lx, 4, add, &n);
			if (rv < 0)
				break;
			check(rv == (int)n && n >= 1 && n <= 4 &&
				lx.tok == LC_TOK_RBRACK,
			    "a list that did not end on ']'");
		}
	}
	check(strncmp(err.msg, "fuzz.conf:", 10) == 0,
	    "an error without place");
	check(lc_lex_next(&lx) == LC_TOK_ERR, "an error that did not stick");
	return (0);
}
