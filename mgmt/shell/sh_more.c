/* mgmt/shell/sh_more.c: the interactive shell's pager: output longer than the terminal a page at a time behind "--More--". */
#include "sh.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define MORE_PROMPT "--More-- (space: next page, Enter: next line, q: quit)"

static bool more_on;

void
sh_more_enable(bool on)
{
	more_on = on;
}

bool
sh_more_enabled(void)
{
	return (more_on);
}

/* The terminal's size; $LINES and $COLUMNS, else 24x80, when it does not
 * say. */
static void
term_size(int fd, unsigned *rows, unsigned *cols)
{
	struct winsize ws;
	const char *e;

	*rows = 24;
	*cols = 80;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	if ((e = getenv("LINES")) != NULL && atoi(e) > 0)
		*rows = (unsigned)atoi(e);
	if ((e = getenv("COLUMNS")) != NULL && atoi(e) > 0)
		*cols = (unsigned)atoi(e);
}

/* One key from the terminal, unbuffered and not echoed; Ctrl-C is a key
 * here (it ends the output, not the shell). 'q' when none can be read. */
static int
read_key(int fd)
{
	struct termios old, raw;
	unsigned char c;
	ssize_t n;

	if (tcgetattr(fd, &old) != 0)
		return ('q');
	raw = old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	(void)tcsetattr(fd, TCSANOW, &raw);
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	(void)tcsetattr(fd, TCSANOW, &old);
	return (n == 1 ? c : 'q');
}

/* Terminal lines a line of len bytes takes (long lines wrap). */
static unsigned
screen_lines(size_t len, unsigned cols)
{
	return (len == 0 ? 1 : (unsigned)((len + cols - 1) / cols));
}

void
sh_more(const char *text, size_t len, FILE *out)
{
	const char *p = text, *end = text + len;
	unsigned rows, cols, page, left, total = 0;

	if (!more_on || !isatty(fileno(out)) || !isatty(STDIN_FILENO)) {
		fwrite(text, 1, len, out);
		return;
	}
	term_size(fileno(out), &rows, &cols);
	page = rows > 2 ? rows - 1 : 1; /* a line for --More-- or the prompt */
	for (const char *q = text; q < end;) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t l = nl != NULL ? (size_t)(nl - q) : (size_t)(end - q);

		total += screen_lines(l, cols);
		q += l + (nl != NULL);
	}
	if (total <= page) {
		fwrite(text, 1, len, out);
		return;
	}
	left = page;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		unsigned need = screen_lines(l, cols);
		int c;

		if (need > left && left < page) {
			fputs(MORE_PROMPT, out);
			fflush(out);
			c = read_key(STDIN_FILENO);
			/* the prompt goes: the page continues on its line */
			fprintf(out, "\r%*s\r", (int)strlen(MORE_PROMPT), "");
			if (c == 'q' || c == 'Q' || c == 3 || c == 4)
				break;
			left = c == '\n' || c == '\r' ? need : page;
		}
		fwrite(p, 1, l + (nl != NULL), out);
		left = need < left ? left - need : 0;
		p += l + (nl != NULL);
	}
	fflush(out);
}
