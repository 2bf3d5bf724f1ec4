/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/test_config_docs.c: docs/config.md's key table against the parser, through the
 * public API only (xrma_config_get), so it holds wherever the key tables live. Each documented
 * key is read from a file under its [section] and from its variable, landing in one listed
 * entry; every listed entry is documented; documented defaults are the values in force; and
 * the table is one table. Sections of providers this build left out are passed over.
 */
#include "tests/helpers/fixture.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOC_ROWS_MAX 128
#define DOC_CELL_MAX 64
#define PROVIDERS_MAX 16

struct doc_row {
	int line;                      /* in docs/config.md */
	char section[DOC_CELL_MAX];
	char key[DOC_CELL_MAX];
	char variable[DOC_CELL_MAX];
	char fallback[DOC_CELL_MAX];   /* the default when the cell is one `value` or (empty) */
	int fallback_checked;
	int built;                     /* 0: the section of a provider not in this build */
	char listed[XRMA_NAME_MAX];    /* the entry xrma_config_get lists for it */
};

static struct doc_row rows[DOC_ROWS_MAX];
static int row_count;
static int table_breaks;           /* lines that cut the table in two */
static char conf_path[256];
static char srcdir[1024];

/* Copy the cell without blanks around it; with strip, without `...` and [...] around it. */
static void cell_copy(char *out, size_t len, const char *from, size_t n, int strip)
{
	while (n && isspace((unsigned char)*from)) {
		from++;
		n--;
	}
	while (n && isspace((unsigned char)from[n - 1]))
		n--;
	if (strip && n >= 2 && from[0] == '`' && from[n - 1] == '`') {
		from++;
		n -= 2;
	}
	if (strip && n >= 2 && from[0] == '[' && from[n - 1] == ']') {
		from++;
		n -= 2;
	}
	snprintf(out, len, "%.*s", (int)n, from);
}

/* Split a table line into its first five cells; the number of cells found. */
static int split_row(const char *line, char cells[5][DOC_CELL_MAX * 4])
{
	const char *p = strchr(line, '|');
	int n = 0;

	while (p && n < 5) {
		const char *next = strchr(p + 1, '|');

		if (!next)
			break;
		cell_copy(cells[n], sizeof(cells[n]), p + 1, (size_t)(next - p - 1), 0);
		n++;
		p = next;
	}
	return n;
}

/* Names in the first column of README.md's provider table (rows "| `name` | ... |"); -1 if unread. */
static int readme_providers(char names[PROVIDERS_MAX][XRMA_NAME_MAX])
{
	char path[1100], line[2048];
	int n = 0, inside = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/README.md", srcdir);
	f = fopen(path, "r");
	if (!f) {
		print_error("cannot read %s (XRMA_TEST_SRCDIR names the source tree)\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) && n < PROVIDERS_MAX) {
		char cells[5][DOC_CELL_MAX * 4];

		if (strncmp(line, "| provider |", 12) == 0) {
			inside = 1;
			continue;
		}
		if (!inside)
			continue;
		if (line[0] != '|')
			break;
		if (split_row(line, cells) >= 1 && cells[0][0] == '`')
			cell_copy(names[n++], XRMA_NAME_MAX, cells[0], strlen(cells[0]), 1);
	}
	fclose(f);
	return n;
}

static int provider_built(const char *name)
{
	struct xrma_provider_info info;

	for (int i = 0; i < xrma_provider_count(); i++)
		if (xrma_provider_get(i, &info) == 0 && strcmp(info.name, name) == 0)
			return 1;
	return 0;
}

/* Read the "## Keys" table of docs/config.md into rows. */
static int group_up(void **state)
{
	char path[1100], line[4096], providers[PROVIDERS_MAX][XRMA_NAME_MAX];
	int provider_count, lineno = 0, inside = 0, header = 0, gap = 0;
	const char *env = getenv("XRMA_TEST_SRCDIR");
	FILE *f;

	(void)state;
	snprintf(srcdir, sizeof(srcdir), "%s", env && *env ? env : ".");
	provider_count = readme_providers(providers);
	if (provider_count < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/docs/config.md", srcdir);
	f = fopen(path, "r");
	if (!f) {
		print_error("cannot read %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char cells[5][DOC_CELL_MAX * 4];
		struct doc_row *row;

		lineno++;
		if (strncmp(line, "## ", 3) == 0) {
			inside = strcmp(line, "## Keys\n") == 0;
			continue;
		}
		if (!inside)
			continue;
		if (line[0] != '|') {
			/* Blank lines before the table are fine; after its header, any line ends it. */
			if (header)
				gap = lineno;
			continue;
		}
		if (gap) {
			print_error("docs/config.md:%d: the key table is cut at line %d\n", lineno, gap);
			table_breaks++;
			gap = 0;
		}
		if (strstr(line, "| section |") == line || strspn(line, "|-: \n") == strlen(line)) {
			header = 1;
			continue;
		}
		if (row_count == DOC_ROWS_MAX || split_row(line, cells) < 5) {
			print_error("docs/config.md:%d: not a key row\n", lineno);
			table_breaks++;
			continue;
		}
		row = &rows[row_count++];
		row->line = lineno;
		cell_copy(row->section, sizeof(row->section), cells[0], strlen(cells[0]), 1);
		cell_copy(row->key, sizeof(row->key), cells[1], strlen(cells[1]), 1);
		cell_copy(row->variable, sizeof(row->variable), cells[2], strlen(cells[2]), 1);
		if (strcmp(cells[3], "(empty)") == 0) {
			row->fallback_checked = 1;
		} else if (cells[3][0] == '`' && strchr(cells[3] + 1, '`') == cells[3] + strlen(cells[3]) - 1) {
			cell_copy(row->fallback, sizeof(row->fallback), cells[3], strlen(cells[3]), 1);
			row->fallback_checked = 1;
		}
		row->built = 1;
		for (int p = 0; p < provider_count; p++)
			if (strcmp(row->section, providers[p]) == 0 && !provider_built(row->section))
				row->built = 0;
	}
	fclose(f);
	if (row_count == 0) {
		print_error("docs/config.md has no key table under ## Keys\n");
		return -1;
	}
	/* Nothing from the user's or the system's files, nor from this environment. */
	setenv("HOME", "/nonexistent-xrma-test-home", 1);
	for (int i = 0; i < row_count; i++)
		unsetenv(rows[i].variable);
	return 0;
}

static int group_down(void **state)
{
	(void)state;
	unsetenv("XRMA_CONF");
	if (conf_path[0])
		unlink(conf_path);
	return 0;
}

/* Point XRMA_CONF at a new file holding text. */
static void use_conf(const char *text)
{
	int fd;

	if (conf_path[0])
		unlink(conf_path);
	snprintf(conf_path, sizeof(conf_path), "/tmp/xrma-config-docs-XXXXXX");
	fd = mkstemp(conf_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	setenv("XRMA_CONF", conf_path, 1);
}

/*
 * The entry whose source is source (and value value); its index, -1 for none, -2 for two,
 * -3 when the library refuses the configuration (an unknown key in the file).
 */
static int find_entry(const char *source, const char *value, struct xrma_config_entry *out)
{
	struct xrma_config_entry e;
	int found = -1;

	for (int i = 0;; i++) {
		int ret = xrma_config_get(i, &e);

		if (ret == -XRMA_ERANGE)
			break;
		if (ret)
			return -3;
		if (strcmp(e.source, source) || strcmp(e.value, value))
			continue;
		if (found >= 0)
			return -2;
		found = i;
		*out = e;
	}
	return found;
}

/* A value the loader takes for the key: its documented default, else a plain number. */
static const char *probe_value(const struct doc_row *row)
{
	return row->fallback_checked && row->fallback[0] ? row->fallback : "7";
}

/* Each documented [section] key is accepted in a file and lands in exactly one entry. */
static void test_documented_keys_are_parsed(void **state)
{
	int bad = 0;

	(void)state;
	for (int i = 0; i < row_count; i++) {
		struct doc_row *row = &rows[i];
		struct xrma_config_entry e;
		char text[256], source[300];
		int at;

		if (!row->built)
			continue;
		snprintf(text, sizeof(text), "[%s]\n%s = %s\n", row->section, row->key,
			 probe_value(row));
		use_conf(text);
		snprintf(source, sizeof(source), "file %s:2", conf_path);
		at = find_entry(source, probe_value(row), &e);
		if (at < 0) {
			print_error("docs/config.md:%d: [%s] %s is not a key of the parser (%s)\n",
				    row->line, row->section, row->key,
				    at == -3 ? "the file is refused" :
				    at == -2 ? "two entries took it" : "no entry took it");
			bad++;
			continue;
		}
		snprintf(row->listed, sizeof(row->listed), "%s", e.key);
	}
	unsetenv("XRMA_CONF");
	assert_int_equal(bad, 0);
}

/* Each documented variable sets the entry its [section] key sets. */
static void test_documented_variables_are_read(void **state)
{
	int bad = 0;

	(void)state;
	for (int i = 0; i < row_count; i++) {
		struct doc_row *row = &rows[i];
		struct xrma_config_entry e;
		char source[300];
		int at;

		if (!row->built || !row->listed[0])
			continue;
		setenv(row->variable, probe_value(row), 1);
		snprintf(source, sizeof(source), "environment %s", row->variable);
		at = find_entry(source, probe_value(row), &e);
		unsetenv(row->variable);
		if (at < 0 || strcmp(e.key, row->listed)) {
			print_error("docs/config.md:%d: %s does not set [%s] %s (%s)\n", row->line,
				    row->variable, row->section, row->key,
				    at < 0 ? "the parser does not read it" : e.key);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Every entry the parser lists is a documented key. */
static void test_every_key_is_documented(void **state)
{
	struct xrma_config_entry e;
	int bad = 0, count = 0;

	(void)state;
	for (int i = 0;; i++) {
		int ret = xrma_config_get(i, &e), documented = 0;

		if (ret == -XRMA_ERANGE)
			break;
		assert_int_equal(ret, 0);
		count++;
		for (int r = 0; r < row_count; r++)
			documented |= strcmp(rows[r].listed, e.key) == 0;
		if (!documented) {
			print_error("the parser's key %s is not in docs/config.md\n", e.key);
			bad++;
		}
	}
	assert_true(count > 0);
	assert_int_equal(bad, 0);
}

/* A default written as one `value` (or "(empty)") is the value in force when nothing is set. */
static void test_documented_defaults_hold(void **state)
{
	int bad = 0;

	(void)state;
	use_conf("# nothing set\n");
	for (int i = 0; i < row_count; i++) {
		const struct doc_row *row = &rows[i];
		struct xrma_config_entry e;
		int found = 0;

		if (!row->built || !row->listed[0] || !row->fallback_checked)
			continue;
		for (int k = 0; xrma_config_get(k, &e) == 0; k++) {
			if (strcmp(e.key, row->listed))
				continue;
			found = 1;
			if (strcmp(e.source, "default") || strcmp(e.value, row->fallback)) {
				print_error("docs/config.md:%d: [%s] %s defaults to \"%s\" (%s), not \"%s\"\n",
					    row->line, row->section, row->key, e.value, e.source,
					    row->fallback);
				bad++;
			}
		}
		assert_true(found);
	}
	unsetenv("XRMA_CONF");
	assert_int_equal(bad, 0);
}

/* One table: a blank line inside it would leave the rows below it without a header. */
static void test_table_is_whole(void **state)
{
	(void)state;
	assert_int_equal(table_breaks, 0);
}

/* The check can fail: an unknown key is refused, so it would not count as documented. */
static void test_unknown_key_is_not_taken(void **state)
{
	struct xrma_config_entry e;

	(void)state;
	use_conf("[xrma]\nno_such_key = 7\n");
	assert_int_equal(xrma_config_get(0, &e), -XRMA_ECONFIG);
	unsetenv("XRMA_CONF");
	assert_int_equal(find_entry("nothing", "7", &e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_whole),
		cmocka_unit_test(test_documented_keys_are_parsed),
		cmocka_unit_test(test_documented_variables_are_read),
		cmocka_unit_test(test_every_key_is_documented),
		cmocka_unit_test(test_documented_defaults_hold),
		cmocka_unit_test(test_unknown_key_is_not_taken),
	};

	return cmocka_run_group_tests(tests, group_up, group_down);
}
