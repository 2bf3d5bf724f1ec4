# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/badinput/gen_matrix.awk: turns the bad-input table (matrix.def) into the C cases of
# one API (awk -v api=sisci -f gen_matrix.awk matrix.def > matrix_sisci.inc). Each function
# row is expanded into one case per bad class of each argument: every other argument keeps
# its valid value, so a case tests exactly one bad input. The harness (badinput.h) runs
# the cases and checks that nothing changed. matrix.def's header describes the syntax.

function fail(msg) {
	printf("%s:%d: %s\n", FILENAME, FNR, msg) > "/dev/stderr"
	failed = 1
	exit 1
}

# Split "kind(param){items}" into tok_kind, tok_param, tok_items.
function parse_token(t,    p, b) {
	tok_kind = t; tok_param = ""; tok_items = ""
	b = index(tok_kind, "{")
	if (b) {
		if (substr(tok_kind, length(tok_kind), 1) != "}")
			fail("unclosed { in " t)
		tok_items = substr(tok_kind, b + 1, length(tok_kind) - b - 1)
		tok_kind = substr(tok_kind, 1, b - 1)
	}
	p = index(tok_kind, "(")
	if (p) {
		if (substr(tok_kind, length(tok_kind), 1) != ")")
			fail("unclosed ( in " t)
		tok_param = substr(tok_kind, p + 1, length(tok_kind) - p - 1)
		tok_kind = substr(tok_kind, 1, p - 1)
	}
}

function subst(expr, param) {
	gsub(/&/, "\\\\&", param)
	gsub(/\$/, param, expr)
	return expr
}

# Register the bad classes of kind k from its @kind fields (class:expr).
function define_kind(    i, f, c) {
	k = $2
	if (!(k in kind_valid) && NF < 3)
		fail("@kind needs a valid value")
	kind_valid[k] = $3
	kind_nbad[k] = 0
	for (i = 4; i <= NF; i++) {
		f = $i
		c = index(f, ":")
		if (!c)
			fail("bad class without ':' in " f)
		kind_nbad[k]++
		kind_class[k, kind_nbad[k]] = substr(f, 1, c - 1)
		kind_expr[k, kind_nbad[k]] = substr(f, c + 1)
	}
}

function emit_case(fname, ret, nargs, bad_arg, bad_expr, cls, code,    i, call, args, label) {
	ncase++
	args = ""
	for (i = 1; i <= nargs; i++) {
		if (i > 1)
			args = args ", "
		args = args (i == bad_arg ? bad_expr : arg_valid[i])
	}
	call = fname "(" args ")"
	label = fname "(" bad_arg ":" arg_name[bad_arg] "=" cls ")"
	printf("/* %s */\nstatic long bi_case_%d(struct bi_fx *F)\n{\n", label, ncase)
	if (api == "sisci" && has_err)
		printf("\tsci_error_t err = BI_SISCI_UNSET;\n\n")
	printf("\t(void)F;\n")
	if (api == "sisci") {
		if (has_err) {
			printf("\t(void)%s;\n\treturn (long)err;\n", call)
		} else if (ret == "void") {
			printf("\t%s;\n\treturn 0;\n", call)
		} else {
			printf("\treturn (long)%s;\n", call)
		}
	} else if (api == "scif") {
		printf("\terrno = 0;\n")
		printf("\treturn bi_scif_result((long)(intptr_t)%s);\n", call)
	} else if (api == "pximc") {
		printf("\treturn (long)%s;\n", call)
	}
	printf("}\n\n")
	case_label[ncase] = label
	case_code[ncase] = code
}

BEGIN {
	if (api == "")
		api_missing = 1
	ncase = 0
	cur = ""
}

/^[ \t]*(#|$)/ { next }

$1 == "@api" { cur = $2; delete expect; next }

cur != api { next }

$1 == "@kind" { define_kind(); next }

$1 == "@expect" {
	for (i = 2; i <= NF; i++) {
		e = index($i, "=")
		expect[substr($i, 1, e - 1)] = substr($i, e + 1)
	}
	next
}

$1 == "fn" {
	ret = $2
	fname = $3
	nfn++
	fn_names[nfn] = fname
	nargs = 0
	has_err = 0
	delete row_expect
	# First pass: the arguments' valid values, and row-wide expectations (!class=CODE).
	for (i = 4; i <= NF; i++) {
		if (substr($i, 1, 1) == "!") {
			e = index($i, "=")
			row_expect[substr($i, 2, e - 2)] = substr($i, e + 1)
			continue
		}
		parse_token($i)
		if (!(tok_kind in kind_valid))
			fail("unknown kind " tok_kind " in " fname)
		nargs++
		arg_tok[nargs] = $i
		arg_name[nargs] = tok_kind
		arg_valid[nargs] = subst(kind_valid[tok_kind], tok_param)
		if (tok_kind == "err")
			has_err = 1
		n = split(tok_items, items, ",")
		for (j = 1; j <= n; j++)
			if (substr(items[j], 1, 1) == "@")
				arg_valid[nargs] = substr(items[j], 2)
	}
	# Second pass: one case per bad class of each argument.
	for (a = 1; a <= nargs; a++) {
		parse_token(arg_tok[a])
		delete over
		delete dropped
		nextra = 0
		n = split(tok_items, items, ",")
		for (j = 1; j <= n; j++) {
			it = items[j]
			if (substr(it, 1, 1) == "@")
				continue
			if (substr(it, 1, 1) == "-") {
				dropped[substr(it, 2)] = 1
				continue
			}
			e = index(it, "=")
			if (!e)
				fail("item without '=' in " arg_tok[a])
			if (substr(it, 1, 1) == "+") {
				c = index(it, ":")
				if (!c || c > e)
					fail("extra class needs +class:expr=CODE in " arg_tok[a])
				nextra++
				extra_class[nextra] = substr(it, 2, c - 2)
				extra_expr[nextra] = substr(it, c + 1, e - c - 1)
				extra_code[nextra] = substr(it, e + 1)
				continue
			}
			over[substr(it, 1, e - 1)] = substr(it, e + 1)
		}
		for (b = 1; b <= kind_nbad[tok_kind]; b++) {
			cls = kind_class[tok_kind, b]
			if (cls in dropped)
				continue
			if (cls in over)
				code = over[cls]
			else if (cls in row_expect)
				code = row_expect[cls]
			else if ("*" in row_expect)
				code = row_expect["*"]
			else if (cls in expect)
				code = expect[cls]
			else
				fail("no expected error for class " cls " of " tok_kind " in " fname)
			emit_case(fname, ret, nargs, a, subst(kind_expr[tok_kind, b], tok_param), cls, code)
		}
		for (x = 1; x <= nextra; x++)
			emit_case(fname, ret, nargs, a, extra_expr[x], extra_class[x], extra_code[x])
	}
	next
}

{ fail("unknown line: " $0) }

END {
	if (failed)
		exit 1
	if (api_missing) {
		print "gen_matrix.awk: set -v api=NAME" > "/dev/stderr"
		exit 1
	}
	printf("static const struct bi_case bi_cases[] = {\n")
	for (i = 1; i <= ncase; i++)
		printf("\t{ \"%s\", bi_case_%d, (long)(%s) },\n", case_label[i], i, case_code[i])
	printf("};\n\n")
	printf("/* Every function of the API in the table, cases or not (for the completeness check). */\n")
	printf("static const char *const bi_functions[] = {\n")
	for (i = 1; i <= nfn; i++)
		printf("\t\"%s\",\n", fn_names[i])
	printf("};\n")
}
