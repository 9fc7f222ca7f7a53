/* mgmt/mgmt_man.c: the generated parts of the manual pages: every row of
 * the schema for tern.conf(5), the commands and the pipe stages for
 * ternsh(1), as roff, read from the tables themselves (mgmt_schema[], the
 * command table, mgmt_compl_pipe), so the pages never drift from what
 * tern-mgmt takes. tern-mangen (man/mangen.c) puts them in the templates. */
#include <stdio.h>
#include <string.h>

#include "mgmt/mgmt_int.h"

/* s for roff: backslashes as \e, every '-' as \- (what is typed, so that
 * a copy from the page works), and \& before a leading '.' or '\''. */
void
mgmt_man_text(FILE *f, const char *s)
{
	if (s[0] == '.' || s[0] == '\'')
		fputs("\\&", f);
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void
man_bold(FILE *f, const char *s)
{
	fputs("\\fB\\%", f); /* \\%: not hyphenated */
	mgmt_man_text(f, s);
	fputs("\\fP", f);
}

static void
man_italic(FILE *f, const char *s)
{
	fputs("\\fI\\%", f);
	mgmt_man_text(f, s);
	fputs("\\fP", f);
}

/* The placeholder of a node's value or key: its tname without the angle
 * brackets, else the enum's words, else one from the type. */
static void
man_value(FILE *f, const struct mgmt_schema_node *n)
{
	static const char *const by_type[] = {
	    [MGMT_T_NONE] = "value",
	    [MGMT_T_UINT] = "number",
	    [MGMT_T_IP4] = "a.b.c.d",
	    [MGMT_T_PREFIX4] = "a.b.c.d/len",
	    [MGMT_T_ADDR4] = "a.b.c.d/len",
	    [MGMT_T_IFNAME] = "name",
	    [MGMT_T_STRING] = "text",
	    [MGMT_T_ENUM] = "word",
	    [MGMT_T_MAC] = "xx:xx:xx:xx:xx:xx",
	    [MGMT_T_COMMUNITY] = "community",
	};
	char buf[128];

	if (n->tname != NULL) {
		size_t len = strlen(n->tname);

		if (len >= 2 && n->tname[0] == '<' && n->tname[len - 1] == '>')
			snprintf(buf, sizeof(buf), "%.*s", (int)(len - 2),
			    n->tname + 1);
		else
			snprintf(buf, sizeof(buf), "%s", n->tname);
		man_italic(f, buf);
	} else if (n->type == MGMT_T_ENUM && n->enums != NULL) {
		for (size_t i = 0; n->enums[i] != NULL; i++) {
			if (i > 0)
				fputc('|', f);
			man_bold(f, n->enums[i]);
		}
	} else
		man_italic(f, by_type[n->type]);
}

/* One node's part of a path: its keyword, its key or value. */
static void
man_segment(FILE *f, const struct mgmt_schema_node *n)
{
	if (n->name != NULL)
		man_bold(f, n->name);
	if (n->kind == MGMT_SK_CONTAINER || n->kind == MGMT_SK_FLAG)
		return;
	if (n->name != NULL)
		fputc(' ', f);
	man_value(f, n);
}

static void
man_path(FILE *f, int sid)
{
	const struct mgmt_schema_node *n = &mgmt_schema[sid];

	if (n->parent > MGMT_S_ROOT) {
		man_path(f, n->parent);
		fputc(' ', f);
	}
	man_segment(f, n);
}

/* What the value is, from the row's type and range. */
static void
man_type(FILE *f, const struct mgmt_schema_node *n)
{
	switch (n->type) {
	case MGMT_T_NONE:
		break;
	case MGMT_T_UINT:
		fprintf(f, "A number from %u to %u%s.", n->min, n->max,
		    (n->flags & MGMT_SF_ASDOT) ?
			" (an AS number: asplain, or asdot H.L as in RFC "
			"5396, shown as asplain)" :
			"");
		break;
	case MGMT_T_IP4:
		fputs("An IPv4 address.", f);
		break;
	case MGMT_T_PREFIX4:
		fputs("An IPv4 prefix a.b.c.d/len, without host bits.", f);
		break;
	case MGMT_T_ADDR4:
		fputs("An IPv4 interface address with its prefix length.", f);
		break;
	case MGMT_T_IP6:
		fputs("An IPv6 address (printed as RFC 5952 writes it).", f);
		break;
	case MGMT_T_PREFIX6:
		fputs("An IPv6 prefix x:x::/len, without host bits.", f);
		break;
	case MGMT_T_ADDR6:
		fputs("An IPv6 interface address with its prefix length.", f);
		break;
	case MGMT_T_IP46:
		fputs("An IPv4 or an IPv6 address.", f);
		break;
	case MGMT_T_PREFIX46:
		fputs("An IPv4 prefix a.b.c.d/len or an IPv6 prefix x:x::/len, "
		      "without host bits.",
		    f);
		break;
	case MGMT_T_IFNAME:
		fprintf(f,
		    "A name of %u to %u characters: letters, digits, "
		    "_ . \\-, starting with a letter or a digit.",
		    n->min, n->max);
		break;
	case MGMT_T_STRING:
		fprintf(f,
		    "Text of %u to %u characters (quoted when it has blanks "
		    "or ; { } #).",
		    n->min, n->max);
		break;
	case MGMT_T_ENUM:
		fputs("One of:", f);
		for (size_t i = 0; n->enums != NULL && n->enums[i] != NULL;
		     i++) {
			fputs(i > 0 ? ", " : " ", f);
			man_bold(f, n->enums[i]);
		}
		fputc('.', f);
		break;
	case MGMT_T_MAC:
		fputs("A unicast MAC address, not zero.", f);
		break;
	case MGMT_T_COMMUNITY:
		fputs("A BGP community.", f);
		break;
	}
}

static void
man_comps(FILE *f, unsigned comp)
{
	static const struct {
		unsigned bit;
		const char *name;
	} comps[] = {
	    {MGMT_COMP_MGMT, "tern-mgmt"},
	    {MGMT_COMP_RIB, "tern-rib"},
	    {MGMT_COMP_FWD, "tern-fwd"},
	    {MGMT_COMP_BGP, "tern-bgp"},
	};
	bool first = true;

	if (comp == MGMT_COMP_ALL) {
		fputs("Applied by every component.", f);
		return;
	}
	fputs("Applied by", f);
	for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
		if (comp & comps[i].bit) {
			fputs(first ? " " : ", ", f);
			mgmt_man_text(f, comps[i].name);
			first = false;
		}
	fputc('.', f);
}

void
mgmt_man_schema(FILE *f)
{
	static const char *const kinds[] = {
	    [MGMT_SK_CONTAINER] = "A block.",
	    [MGMT_SK_LIST] = "A list: one block for each key.",
	    [MGMT_SK_LEAF] = "",
	    [MGMT_SK_LEAFLIST] = "Repeatable: a set of values.",
	    [MGMT_SK_FLAG] = "A flag: no value.",
	};

	for (int sid = MGMT_S_ROOT + 1; sid < MGMT_S__COUNT; sid++) {
		const struct mgmt_schema_node *n = &mgmt_schema[sid];
		size_t hl = strlen(n->help);

		if (n->parent == MGMT_S_ROOT) {
			fputs(".SS ", f);
			mgmt_man_text(f, n->name);
			fputc('\n', f);
		}
		fputs(".TP\n", f);
		man_path(f, sid);
		fputc('\n', f);
		mgmt_man_text(f, n->help);
		fputs(hl > 0 && n->help[hl - 1] == '.' ? "\n" : ".\n", f);
		if (kinds[n->kind][0] != '\0')
			fprintf(f, "%s\n", kinds[n->kind]);
		if (n->type != MGMT_T_NONE) {
			man_type(f, n);
			fputc('\n', f);
		}
		if (n->dflt != NULL) {
			fputs("Default: ", f);
			man_bold(f, n->dflt);
			fputs(".\n", f);
		}
		if (n->flags & MGMT_SF_HIDDEN)
			fputs("Not offered by completion.\n", f);
		man_comps(f, n->comp);
		fputc('\n', f);
	}
}

void
mgmt_man_commands(FILE *f, bool conf_mode)
{
	struct mgmt_cmd_info ci;

	/* configuration mode: its own commands; the operational ones that
	 * work there too are marked so in the operational list */
	for (size_t i = 0; mgmt_cmd_table_get(i, &ci); i++) {
		if (conf_mode ? !ci.conf || ci.oper : !ci.oper)
			continue;
		fputs(".TP\n\\fB", f);
		for (size_t k = 0; k < 3 && ci.words[k] != NULL; k++) {
			if (k > 0)
				fputc(' ', f);
			mgmt_man_text(f, ci.words[k]);
		}
		fputs("\\fP", f);
		if (ci.args != NULL) {
			fputc(' ', f);
			man_italic(f, ci.args);
		}
		fputc('\n', f);
		mgmt_man_text(f, ci.help);
		fputs(".\n", f);
		if (!conf_mode && ci.conf)
			fputs("Also in configuration mode.\n", f);
		if (ci.writes)
			fputs("Not for read\\-only sessions.\n", f);
	}
}

/* Whether cands[0..n) has word. */
static bool
man_has(const struct mgmt_cand *cands, int n, const char *word)
{
	for (int i = 0; i < n; i++)
		if (strcmp(cands[i].word, word) == 0)
			return (true);
	return (false);
}

void
mgmt_man_pipes(FILE *f, bool config_show)
{
	struct mgmt_cand all[16], st[16], arg[16];
	int nall, nst;

	/* config_show: the stages of show configuration alone */
	nall = mgmt_compl_pipe(false, true, NULL, 0, "", all, 16, 0);
	nst = mgmt_compl_pipe(config_show, true, NULL, 0, "", st, 16, 0);
	for (int i = 0; i < nst; i++) {
		const char *w[1] = {st[i].word};
		int na;

		if (config_show && man_has(all, nall, st[i].word))
			continue;
		na = mgmt_compl_pipe(config_show, true, w, 1, "", arg, 16, 0);
		fputs(".TP\n\\fB| ", f);
		mgmt_man_text(f, st[i].word);
		fputs("\\fP", f);
		for (int k = 0; k < na; k++) {
			fputc(' ', f);
			if (arg[k].hint)
				man_italic(f, arg[k].word);
			else
				man_bold(f, arg[k].word);
		}
		fputc('\n', f);
		mgmt_man_text(f, st[i].help);
		fputs(".\n", f);
	}
}
