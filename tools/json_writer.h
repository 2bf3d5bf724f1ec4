/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/json_writer.h: a small streaming JSON writer for the tools' --json
 * output: objects and arrays nest, commas and string escapes are its business,
 * so a caller only says what comes next. Output is indented, one member a line.
 */
#ifndef XRMA_TOOLS_JSON_WRITER_H
#define XRMA_TOOLS_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 16

struct json_writer {
	FILE *out;
	int depth;
	bool has_items[JSON_DEPTH_MAX];   /* a value was written at this depth */
	bool after_key;                   /* the next value is a member's: no comma */
};

void json_init(struct json_writer *w, FILE *out);
void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
/* The name of the next object member. */
void json_key(struct json_writer *w, const char *name);
void json_string(struct json_writer *w, const char *value);
void json_uint(struct json_writer *w, uint64_t value);
void json_int(struct json_writer *w, int64_t value);
void json_bool(struct json_writer *w, bool value);
void json_null(struct json_writer *w);
/* A member and its value in one call. */
void json_member_string(struct json_writer *w, const char *name, const char *value);
void json_member_uint(struct json_writer *w, const char *name, uint64_t value);
void json_member_int(struct json_writer *w, const char *name, int64_t value);
/* End the document with a newline. */
void json_finish(struct json_writer *w);

#endif
