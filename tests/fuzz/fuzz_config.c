/* tests/fuzz/fuzz_config.c: libFuzzer harness for the config parser: parse; if
 * it parses, print, reparse and compare; also run the input as set/delete
 * lines. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "mgmt/mgmt_conf_int.h"

static void
check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_config: %s\n", what);
		abort();
	}
}

/* Every child set of n is in strictly increasing key order (IPv6 keys:
 * kbin holds 63 of their bits, mgmt_value_cmp6 the rest), and the order
 * is antisymmetric */
static void
keys_ordered(const struct mgmt_node *n)
{
	struct mgmt_iter it;
	const struct mgmt_node *c, *prev = NULL;

	mgmt_iter_init(&it, n);
	while ((c = mgmt_iter_next(&it)) != NULL) {
		if (prev != NULL && prev->sid == c->sid &&
		    mgmt_schema_keyed(c->sid)) {
			struct mgmt_key a, b;

			mgmt_node_key(prev, &a);
			mgmt_node_key(c, &b);
			check(mgmt_key_cmp(&a, c) < 0, "keys out of order");
			check(mgmt_key_cmp(&b, prev) > 0,
			    "key order asymmetric");
		}
		keys_ordered(c);
		prev = c;
	}
}

/* print -> parse -> equal, and the second print is byte-identical */
static void
round_trip(const struct mgmt_conf *c)
{
	struct lc_buf a = {0}, b = {0};
	struct mgmt_conf *re;
	struct mgmt_changes chg = {0};
	struct lc_err err;

	mgmt_conf_print(c, &a);
	if (mgmt_conf_parse(a.data ? (char *)a.data : "", a.len, "printed", &re,
		&err) != 0) {
		fprintf(stderr, "%.*s\n%s\n", (int)a.len, (char *)a.data,
		    err.msg);
		check(false, "printed config does not parse");
	}
	check(mgmt_conf_equal(c, re), "reparsed tree differs");
	keys_ordered(c->root);
	mgmt_conf_print(re, &b);
	check(a.len == b.len &&
		(a.len == 0 || memcmp(a.data, b.data, a.len) == 0),
	    "second print differs");
	mgmt_conf_diff(c, re, &chg);
	check(chg.n == 0, "diff of equal trees not empty");
	mgmt_changes_fini(&chg);
	lc_buf_reset(&b);
	mgmt_conf_compare(c, re, &b);
	check(b.len == 0, "compare of equal trees not empty");
	(void)mgmt_conf_validate(re, &err);
	/* the JSON form is valid JSON */
	{
		struct json_object *j;

		lc_buf_reset(&b);
		mgmt_conf_print_json(c, &b);
		lc_buf_append(&b, "", 1);
		j = json_tokener_parse((char *)b.data);
		check(j != NULL, "invalid JSON");
		json_object_put(j);
	}
	mgmt_conf_free(re);
	lc_buf_fini(&a);
	lc_buf_fini(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mgmt_conf *c, *snap;
	struct lc_err err;
	char *text, *line, *save;

	if (mgmt_conf_parse((const char *)data, size, "fuzz.conf", &c, &err) ==
	    0) {
		round_trip(c);
		mgmt_conf_free(c);
	} else
		check(strncmp(err.msg, "fuzz.conf:", 10) == 0,
		    "error without location");

	/* the same bytes as shell lines: set/delete on a tree and a snapshot */
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	c = mgmt_conf_new();
	snap = mgmt_conf_dup(c);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char buf[1024];
		const char *w[32];
		int n = mgmt_conf_split(line, buf, sizeof(buf), w, 32), rv;
		struct mgmt_conf *before;

		if (n < 1)
			continue;
		before = mgmt_conf_dup(c);
		if (strcmp(w[0], "delete") == 0)
			rv = mgmt_conf_delete(c, w + 1, (unsigned)n - 1, &err);
		else
			rv = mgmt_conf_set(c, w + (strcmp(w[0], "set") == 0),
			    (unsigned)n - (strcmp(w[0], "set") == 0), &err);
		if (rv != 0)
			check(mgmt_conf_equal(before, c),
			    "failed set/delete changed the tree");
		mgmt_conf_free(before);
	}
	round_trip(c);
	{
		struct mgmt_changes chg = {0};

		mgmt_conf_diff(snap, c, &chg);
		(void)mgmt_conf_validate_changes(c, &chg, &err);
		mgmt_changes_fini(&chg);
	}
	mgmt_conf_free(snap);
	mgmt_conf_free(c);
	free(text);
	return (0);
}
