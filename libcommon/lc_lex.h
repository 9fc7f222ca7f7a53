/* libcommon/lc_lex.h: the tokenizer of tern's brace-syntax files (the mgmt
 * config and rtrmgr's boot config), with file:line:col errors. */
#ifndef LC_LEX_H
#define LC_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include "libcommon/lc_err.h"

/*
 * The dialect, one for every file:
 * - white space: space, tab, CR, LF;
 * - comments: '#' to the end of the line where a token could start (inside
 *   a word it is part of the word), and C's block comments, not nested,
 *   which also end a word. A double slash is not a comment (paths hold it);
 * - punctuation tokens: { } ; [ ];
 * - a word: a run of printable ASCII other than space and { } ; " [ ],
 *   and of bytes 0x80..0xff (UTF-8);
 * - a string: double quotes on one line; \" and \\ are the only escapes,
 *   tab the only control character allowed;
 * - a NUL byte anywhere is an error where the lexer reaches it.
 */
enum lc_tok {
	LC_TOK_EOF,
	LC_TOK_WORD,
	LC_TOK_STRING,
	LC_TOK_LBRACE,
	LC_TOK_RBRACE,
	LC_TOK_SEMI,
	LC_TOK_LBRACK,
	LC_TOK_RBRACK,
	LC_TOK_ERR, /* the message is in the error buffer */
};

/* The longest word or string any parser may ask for. */
#define LC_LEX_TEXT_MAX 4096

struct lc_lex {
	/* the current token, after lc_lex_next() */
	enum lc_tok tok;
	unsigned line, col; /* where it starts, from 1 */
	char *text;	    /* a word's or string's text, NUL-terminated,
			       valid until the next token */
	size_t len;

	/* the lexer's own */
	const char *name;
	const char *p, *end, *lstart, *nul;
	unsigned cur_line;
	size_t max;
	struct lc_err *err;
	bool failed;
	char buf[LC_LEX_TEXT_MAX + 1];
};

/*
 * Lexes len bytes of text, named name in errors ("name:line:col: what").
 * Words and strings are at most max bytes (<= LC_LEX_TEXT_MAX). The first
 * error is set in err (code -EINVAL, no index; NULL for none) and later
 * ones are dropped.
 */
void lc_lex_init(struct lc_lex *, const char *name, const char *text,
    size_t len, size_t max, struct lc_err *err);
/* Moves to the next token and returns its kind (lx->tok). */
enum lc_tok lc_lex_next(struct lc_lex *);
/* Sets the error, unless one is set; returns -EINVAL. */
int lc_lex_error(struct lc_lex *, unsigned line, unsigned col, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));
/* "'{'", "a word", "end of input": for "expected X, got Y" messages. */
const char *lc_lex_tok_name(enum lc_tok);

/*
 * Reads a "[ a b c ]" list, the current token being its '[': add(arg, lx)
 * is called with each value (a word or a string) as the current token.
 * Returns the number of values (1..max) with ']' the current token, or
 * -EINVAL (error set: an empty list, more than max values, a token other
 * than a value or ']', or add's error, which it sets itself).
 */
int lc_lex_list(struct lc_lex *, unsigned max,
    int (*add)(void *arg, const struct lc_lex *), void *arg);

#endif
