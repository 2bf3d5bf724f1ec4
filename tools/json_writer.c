/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/json_writer.c: the JSON writer of json_writer.h. Strings are escaped
 * as RFC 8259 asks (quote, backslash, control characters); bytes above 0x7f
 * pass through, so UTF-8 input stays UTF-8.
 */
#include "tools/json_writer.h"

#include <inttypes.h>

void json_init(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->has_items[0] = false;
	w->after_key = false;
}

/* Separator and indentation before a value or a key. */
static void json_next(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		fputs(w->has_items[w->depth] ? ",\n" : "\n", w->out);
		fprintf(w->out, "%*s", 2 * w->depth, "");
	}
	w->has_items[w->depth] = true;
}

static void json_open(struct json_writer *w, char bracket)
{
	json_next(w);
	fputc(bracket, w->out);
	if (w->depth + 1 < JSON_DEPTH_MAX)
		w->depth++;
	w->has_items[w->depth] = false;
}

static void json_close(struct json_writer *w, char bracket)
{
	bool had = w->has_items[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (had)
		fprintf(w->out, "\n%*s", 2 * w->depth, "");
	fputc(bracket, w->out);
}

void json_begin_object(struct json_writer *w)
{
	json_open(w, '{');
}

void json_end_object(struct json_writer *w)
{
	json_close(w, '}');
}

void json_begin_array(struct json_writer *w)
{
	json_open(w, '[');
}

void json_end_array(struct json_writer *w)
{
	json_close(w, ']');
}

static void json_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void json_key(struct json_writer *w, const char *name)
{
	json_next(w);
	json_quoted(w->out, name);
	fputs(": ", w->out);
	w->after_key = true;
}

void json_string(struct json_writer *w, const char *value)
{
	json_next(w);
	json_quoted(w->out, value ? value : "");
}

void json_uint(struct json_writer *w, uint64_t value)
{
	json_next(w);
	fprintf(w->out, "%" PRIu64, value);
}

void json_int(struct json_writer *w, int64_t value)
{
	json_next(w);
	fprintf(w->out, "%" PRId64, value);
}

void json_bool(struct json_writer *w, bool value)
{
	json_next(w);
	fputs(value ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
	json_next(w);
	fputs("null", w->out);
}

void json_member_string(struct json_writer *w, const char *name, const char *value)
{
	json_key(w, name);
	json_string(w, value);
}

void json_member_uint(struct json_writer *w, const char *name, uint64_t value)
{
	json_key(w, name);
	json_uint(w, value);
}

void json_member_int(struct json_writer *w, const char *name, int64_t value)
{
	json_key(w, name);
	json_int(w, value);
}

void json_finish(struct json_writer *w)
{
	fputc('\n', w->out);
}
