/* tests/unit/libcommon/test_lex.c: the brace-syntax lexer: tokens and their
 * places, each kind of comment, strings and escapes, lists, nesting, and the
 * lexical errors with file:line:col. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libcommon/lc_lex.h"

static struct lc_lex lx;
static struct lc_err err;

static void
start(const char *text, size_t max)
{
	lc_lex_init(&lx, "t.conf", text, strlen(text), max, &err);
}

/* The next token is t at line:col (with text, for words and strings). */
static void
want(enum lc_tok t, unsigned line, unsigned col, const char *text)
{
	enum lc_tok got = lc_lex_next(&lx);

	if (got != t || lx.tok != t)
		fail_msg("token %d at %u:%u, want %d (%s)", got, lx.line,
		    lx.col, t, err.msg);
	assert_int_equal(lx.line, line);
	assert_int_equal(lx.col, col);
	if (text != NULL) {
		assert_string_equal(lx.text, text);
		assert_int_equal(lx.len, strlen(text));
	}
}

/* Lexing text fails with exactly msg. */
static void
bad(const char *text, size_t len, const char *msg)
{
	lc_lex_init(&lx, "t.conf", text, len, 256, &err);
	while (lc_lex_next(&lx) != LC_TOK_ERR)
		if (lx.tok == LC_TOK_EOF)
			fail_msg("lexed: %s", text);
	if (strcmp(err.msg, msg) != 0)
		fail_msg("for %s\n got: %s\nwant: %s", text, err.msg, msg);
	/* an error sticks */
	assert_int_equal(lc_lex_next(&lx), LC_TOK_ERR);
}

static void
test_tokens(void **state)
{
	(void)state;
	start("a {b;}\n  [ c ]\td", 256);
	want(LC_TOK_WORD, 1, 1, "a");
	want(LC_TOK_LBRACE, 1, 3, NULL);
	want(LC_TOK_WORD, 1, 4, "b");
	want(LC_TOK_SEMI, 1, 5, NULL);
	want(LC_TOK_RBRACE, 1, 6, NULL);
	want(LC_TOK_LBRACK, 2, 3, NULL);
	want(LC_TOK_WORD, 2, 5, "c");
	want(LC_TOK_RBRACK, 2, 7, NULL);
	want(LC_TOK_WORD, 2, 9, "d");
	want(LC_TOK_EOF, 2, 10, NULL);
	want(LC_TOK_EOF, 2, 10, NULL); /* and stays there */

	/* words: paths, addresses, '#' and '//' inside, UTF-8 */
	start("/usr//bin/x 10.0.0.0/8 a#b caf\xc3\xa9 --x=1,2 \r\n", 256);
	want(LC_TOK_WORD, 1, 1, "/usr//bin/x");
	want(LC_TOK_WORD, 1, 13, "10.0.0.0/8");
	want(LC_TOK_WORD, 1, 24, "a#b");
	want(LC_TOK_WORD, 1, 28, "caf\xc3\xa9");
	want(LC_TOK_WORD, 1, 34, "--x=1,2");
	want(LC_TOK_EOF, 2, 1, NULL);

	start("", 256);
	want(LC_TOK_EOF, 1, 1, NULL);
	assert_string_equal(err.msg, "");
}

static void
test_comments(void **state)
{
	(void)state;
	/* '#' to the end of the line */
	start("# one\na # two { ; \"\nb", 256);
	want(LC_TOK_WORD, 2, 1, "a");
	want(LC_TOK_WORD, 3, 1, "b");
	want(LC_TOK_EOF, 3, 2, NULL);
	/* block comments, over lines; they end a word, not nested */
	start("/* x\n y { */ a/* z */b /* /* */ c /**/d\n/*\n*/ e", 256);
	want(LC_TOK_WORD, 2, 9, "a");
	want(LC_TOK_WORD, 2, 17, "b");
	want(LC_TOK_WORD, 2, 28, "c");
	want(LC_TOK_WORD, 2, 34, "d");
	want(LC_TOK_WORD, 4, 4, "e");
	want(LC_TOK_EOF, 4, 5, NULL);
	/* a comment right after a token, and at the end */
	start("a;# c\nb;/* d */", 256);
	want(LC_TOK_WORD, 1, 1, "a");
	want(LC_TOK_SEMI, 1, 2, NULL);
	want(LC_TOK_WORD, 2, 1, "b");
	want(LC_TOK_SEMI, 2, 2, NULL);
	want(LC_TOK_EOF, 2, 10, NULL);
	/* comment markers inside strings are text */
	start("\"# a /* b */\"", 256);
	want(LC_TOK_STRING, 1, 1, "# a /* b */");
}

static void
test_strings(void **state)
{
	(void)state;
	start("\"a b\" \"\" \"q\\\"x\\\\\" \"{;}[]\" \"\tt\"", 256);
	want(LC_TOK_STRING, 1, 1, "a b");
	want(LC_TOK_STRING, 1, 7, "");
	want(LC_TOK_STRING, 1, 10, "q\"x\\");
	want(LC_TOK_STRING, 1, 19, "{;}[]");
	want(LC_TOK_STRING, 1, 27, "\tt");
	want(LC_TOK_EOF, 1, 31, NULL);
	/* a string next to words, without space */
	start("a\"b\"c", 256);
	want(LC_TOK_WORD, 1, 1, "a");
	want(LC_TOK_STRING, 1, 2, "b");
	want(LC_TOK_WORD, 1, 5, "c");
}

static void
test_errors(void **state)
{
	(void)state;
	bad("a\n  /* open\n comment", 20, "t.conf:2:3: unterminated comment");
	bad("/*/", 3, "t.conf:1:1: unterminated comment");
	bad("x \"abc;\n}", 9,
	    "t.conf:1:3: unterminated string (strings end on the same line)");
	bad("x\n \"abc", 6, "t.conf:2:2: unterminated string");
	bad("\"ab\\", 4, "t.conf:1:1: unterminated string");
	bad("\"a\\n\"", 5,
	    "t.conf:1:3: unknown escape in string (only \\\" and \\\\)");
	bad("\"a\x01\"", 4, "t.conf:1:3: control character 0x01 in string");
	bad("\"a\rb\"", 5, "t.conf:1:3: control character 0x0d in string");
	bad("a\n  \x7f", 5, "t.conf:2:3: unexpected character 0x7f");
	bad("a \x01", 3, "t.conf:1:3: unexpected character 0x01");
	/* a NUL is reported where it is reached: token, string, comment */
	bad("a;\nb\0c;", 7, "t.conf:2:2: NUL byte in config");
	bad("\"a\0\"", 4, "t.conf:1:3: NUL byte in config");
	bad("# a\0\n", 5, "t.conf:1:4: NUL byte in config");
	bad("/* \n\0 */", 8, "t.conf:2:1: NUL byte in config");
}

static void
test_lengths(void **state)
{
	char text[300];

	(void)state;
	memset(text, 'w', 256);
	text[256] = '\0';
	start(text, 256);
	want(LC_TOK_WORD, 1, 1, text);
	text[256] = 'w';
	text[257] = '\0';
	bad(text, 257, "t.conf:1:1: word longer than 256 bytes");
}

static void
test_lengths_max(void **state)
{
	static char text[LC_LEX_TEXT_MAX + 8];

	(void)state;
	lc_lex_init(&lx, "t.conf", "wwwwwwwww", 9, 8, &err);
	assert_int_equal(lc_lex_next(&lx), LC_TOK_ERR);
	assert_string_equal(err.msg, "t.conf:1:1: word longer than 8 bytes");
	lc_lex_init(&lx, "t.conf", " \"123456789\"", 12, 8, &err);
	assert_int_equal(lc_lex_next(&lx), LC_TOK_ERR);
	assert_string_equal(err.msg, "t.conf:1:2: string longer than 8 bytes");
	/* the ceiling is LC_LEX_TEXT_MAX, whatever is asked */
	memset(text, 'w', LC_LEX_TEXT_MAX);
	lc_lex_init(&lx, "t.conf", text, LC_LEX_TEXT_MAX, 100000, &err);
	assert_int_equal(lc_lex_next(&lx), LC_TOK_WORD);
	assert_int_equal(lx.len, LC_LEX_TEXT_MAX);
	text[LC_LEX_TEXT_MAX] = 'w';
	lc_lex_init(&lx, "t.conf", text, LC_LEX_TEXT_MAX + 1, 100000, &err);
	assert_int_equal(lc_lex_next(&lx), LC_TOK_ERR);
}

/* Collects list values as "a,b,c". */
static int
collect(void *arg, const struct lc_lex *l)
{
	char *out = arg;

	if (strcmp(l->text, "fail") == 0)
		return (lc_lex_error(&lx, l->line, l->col, "no '%s' here",
		    l->text));
	if (out[0] != '\0')
		strcat(out, ",");
	strcat(out, l->text);
	return (0);
}

static int
list(const char *text, char *out)
{
	out[0] = '\0';
	start(text, 256);
	if (lc_lex_next(&lx) != LC_TOK_LBRACK)
		fail_msg("no '[' first in %s", text);
	return (lc_lex_list(&lx, 3, collect, out));
}

static void
test_lists(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(list("[ a \"b c\" d ];", out), 3);
	assert_string_equal(out, "a,b c,d");
	assert_int_equal(lx.tok, LC_TOK_RBRACK);
	want(LC_TOK_SEMI, 1, 14, NULL);
	/* over lines, with comments, no spaces */
	assert_int_equal(list("[a # one\n /* two */ b]", out), 2);
	assert_string_equal(out, "a,b");
	assert_int_equal(lx.line, 2);
	assert_int_equal(lx.col, 13); /* the ']' */

	assert_int_equal(list("[ ]", out), -EINVAL);
	assert_string_equal(err.msg, "t.conf:1:1: empty [ ]");
	assert_int_equal(list("[ a b c d ]", out), -EINVAL);
	assert_string_equal(err.msg, "t.conf:1:9: more than 3 values in [ ]");
	assert_int_equal(list("  [ a;", out), -EINVAL);
	assert_string_equal(err.msg,
	    "t.conf:1:6: expected ']' (list opened at line 1, column 3), got "
	    "';'");
	assert_int_equal(list("[ a", out), -EINVAL);
	assert_string_equal(err.msg,
	    "t.conf:1:4: expected ']' (list opened at line 1, column 1), got "
	    "end of input");
	/* lists do not nest */
	assert_int_equal(list("[ a [ b ] ]", out), -EINVAL);
	assert_string_equal(err.msg,
	    "t.conf:1:5: expected ']' (list opened at line 1, column 1), got "
	    "'['");
	assert_int_equal(list("[ a { ]", out), -EINVAL);
	assert_string_equal(err.msg,
	    "t.conf:1:5: expected ']' (list opened at line 1, column 1), got "
	    "'{'");
	/* a lexical error inside, and the callback's own */
	assert_int_equal(list("[ a \"b ]", out), -EINVAL);
	assert_string_equal(err.msg, "t.conf:1:5: unterminated string");
	assert_int_equal(list("[ a fail ]", out), -EINVAL);
	assert_string_equal(err.msg, "t.conf:1:5: no 'fail' here");
}

/* Blocks and lists inside blocks: the lexer keeps no depth, every token
 * keeps its place. */
static void
test_nesting(void **state)
{
	char out[256];

	(void)state;
	start("a {\n  b {\n    c [ x y ];\n  }\n}\n", 256);
	want(LC_TOK_WORD, 1, 1, "a");
	want(LC_TOK_LBRACE, 1, 3, NULL);
	want(LC_TOK_WORD, 2, 3, "b");
	want(LC_TOK_LBRACE, 2, 5, NULL);
	want(LC_TOK_WORD, 3, 5, "c");
	want(LC_TOK_LBRACK, 3, 7, NULL);
	out[0] = '\0';
	assert_int_equal(lc_lex_list(&lx, 8, collect, out), 2);
	assert_string_equal(out, "x,y");
	want(LC_TOK_SEMI, 3, 14, NULL);
	want(LC_TOK_RBRACE, 4, 3, NULL);
	want(LC_TOK_RBRACE, 5, 1, NULL);
	want(LC_TOK_EOF, 6, 1, NULL);
}

static void
test_error_first_wins(void **state)
{
	(void)state;
	start("a", 256);
	assert_int_equal(lc_lex_error(&lx, 3, 4, "first %d", 1), -EINVAL);
	assert_int_equal(lc_lex_error(&lx, 5, 6, "second"), -EINVAL);
	assert_string_equal(err.msg, "t.conf:3:4: first 1");
	assert_int_equal(lc_lex_next(&lx), LC_TOK_ERR);
	/* no buffer: still fails, writes nothing */
	lc_lex_init(&lx, "t.conf", "\"", 1, 256, NULL);
	assert_int_equal(lc_lex_next(&lx), LC_TOK_ERR);
	assert_string_equal(lc_lex_tok_name(LC_TOK_EOF), "end of input");
	assert_string_equal(lc_lex_tok_name(LC_TOK_STRING), "a string");
	assert_string_equal(lc_lex_tok_name(LC_TOK_RBRACK), "']'");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tokens),
	    cmocka_unit_test(test_comments),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_lengths),
	    cmocka_unit_test(test_lengths_max),
	    cmocka_unit_test(test_lists),
	    cmocka_unit_test(test_nesting),
	    cmocka_unit_test(test_error_first_wins),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
