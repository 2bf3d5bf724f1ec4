/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/bench.c: the shared benchmark harness (bench.h): options,
 * timing, pinning, and the one table printer, text or CSV rows.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <hwloc.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sched.h>
#include <time.h>

bool bench_set_format(struct bench_opts *opts, const char *format)
{
	if (!strcasecmp(format, "csv"))
		opts->csv = true;
	else if (!strcasecmp(format, "text"))
		opts->csv = false;
	else
		return false;
	return true;
}

void bench_parse(int argc, char **argv, struct bench_opts *opts, const char *usage_extra)
{
	static const struct option options[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("XRMA_BENCH_FORMAT");
	int opt;

	if (env && *env && !bench_set_format(opts, env)) {
		fprintf(stderr, "%s: XRMA_BENCH_FORMAT=%s is neither csv nor text\n", argv[0], env);
		exit(2);
	}
	while ((opt = getopt_long(argc, argv, "i:r:s:h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			opts->iterations = atoi(optarg);
			break;
		case 'r':
			opts->repetitions = atoi(optarg);
			break;
		case 's':
			opts->max_size = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			opts->csv = true;
			break;
		case 'o':
			if (!opts->selectable) {
				fprintf(stderr, "%s: this program's tables cannot be selected (--only)\n", argv[0]);
				exit(2);
			}
			opts->only = optarg;
			break;
		case 'f':
			if (bench_set_format(opts, optarg))
				break;
			opt = '?';   /* a format we do not know: usage */
			__attribute__((fallthrough));
		case 'h':
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: %s [-i iterations] [-r repetitions] [-s max_bytes] [--csv | --format=csv|text]%s\n%s",
				argv[0], opts->selectable ? " [--only=TEXT]" : "", usage_extra ? usage_extra : "");
			exit(opt == 'h' ? 0 : 2);
		}
	}
	if (opts->iterations < 1 || opts->repetitions < 1 || opts->max_size < 1) {
		fprintf(stderr, "%s: iterations, repetitions and sizes must be positive\n", argv[0]);
		exit(2);
	}
}

bool bench_selected(const struct bench_opts *opts, const char *name)
{
	return !opts->only || strstr(name, opts->only);
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define IDLE_YIELDS 64
#define IDLE_SLEEP_MAX_US 1000

void bench_idle_step(unsigned int *step)
{
	unsigned int n = (*step)++;
	long us;

	if (n < IDLE_YIELDS) {
		sched_yield();
		return;
	}
	/* 1, 2, 4 ... 512 us, then the most. */
	us = n - IDLE_YIELDS >= 10 ? IDLE_SLEEP_MAX_US : 1L << (n - IDLE_YIELDS);
	nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = us * 1000 }, NULL);
}

double bench_memcpy_GBps(void *dst, const void *src, size_t size, int iterations)
{
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < iterations; i++) {
		memcpy(dst, src, size);
		/* Keep the copy from being folded away. */
		__asm__ __volatile__("" : : "r"(dst) : "memory");
	}
	return (double)size * iterations / (double)(bench_now_ns() - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *values, int n)
{
	qsort(values, (size_t)n, sizeof(*values), cmp_double);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double bench_min(const double *values, int n)
{
	double m = values[0];

	for (int i = 1; i < n; i++)
		if (values[i] < m)
			m = values[i];
	return m;
}

void bench_pin_thread(int pu_index)
{
	hwloc_topology_t topo;
	hwloc_obj_t pu;
	int count;

	if (hwloc_topology_init(&topo))
		return;
	if (!hwloc_topology_load(topo)) {
		count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
		pu = count > 0 ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)(pu_index % count))
			       : NULL;
		if (pu)
			hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD);
	}
	hwloc_topology_destroy(topo);
}

/* ---- tables ---- */

enum bench_unit { UNIT_NS, UNIT_US, UNIT_GBPS };

/* The table being printed (set by bench_header; one table at a time per process). */
static struct {
	char operation[96];
	char api[32];
	char provider[64];
	char baseline[48];        /* the baseline's name without its unit; empty: none */
	enum bench_unit unit, base_unit;
	bool bandwidth;
} table;
static char api_override[32], provider_override[64];
static bool csv_columns_printed;

/* Unknown values (a spread the program did not keep) print as empty CSV fields. */
struct bench_stats {
	double median, best, worst;
};

void bench_set_context(const char *api, const char *provider)
{
	if (api)
		snprintf(api_override, sizeof(api_override), "%s", api);
	if (provider)
		snprintf(provider_override, sizeof(provider_override), "%s", provider);
}

static enum bench_unit unit_of(const char *metric)
{
	if (strstr(metric, "GBps"))
		return UNIT_GBPS;
	return strstr(metric, "_us") ? UNIT_US : UNIT_NS;
}

/* Copy text into a CSV field: no commas, quotes or blanks. */
static void csv_field(char *to, size_t size, const char *text, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && text[i] && n + 1 < size; i++) {
		char c = text[i];

		to[n++] = c == ',' ? '+' : c == '"' ? '\'' : c == ' ' ? '_' : c;
	}
	to[n] = '\0';
}

static void table_set(const char *name, const char *setup, const char *metric, const char *baseline)
{
	const char *at = setup ? strstr(setup, "provider=") : NULL, *env = getenv("XRMA_PROVIDER");

	csv_field(table.operation, sizeof(table.operation), name, strlen(name));
	csv_field(table.api, sizeof(table.api), metric, strcspn(metric, "_"));
	if (*api_override)
		snprintf(table.api, sizeof(table.api), "%s", api_override);
	if (*provider_override)
		snprintf(table.provider, sizeof(table.provider), "%s", provider_override);
	else if (at)
		csv_field(table.provider, sizeof(table.provider), at + 9, strcspn(at + 9, " "));
	else
		snprintf(table.provider, sizeof(table.provider), "%s", env && *env ? env : "ntb");
	table.unit = unit_of(metric);
	table.base_unit = baseline ? unit_of(baseline) : table.unit;
	table.baseline[0] = '\0';
	if (baseline) {
		const char *unit = strrchr(baseline, '_');

		csv_field(table.baseline, sizeof(table.baseline), baseline,
			  unit ? (size_t)(unit - baseline) : strlen(baseline));
	}
	table.bandwidth = table.unit == UNIT_GBPS || !strncmp(table.baseline, "memcpy", 6);
}

void bench_header(const struct bench_opts *opts, const char *name, const char *setup,
		  const char *metric, const char *baseline)
{
	table_set(name, setup, metric, baseline);
	if (opts->csv) {
		if (!csv_columns_printed)
			printf("%s\n", BENCH_CSV_COLUMNS);
		csv_columns_printed = true;
		return;
	}
	printf("# %s %s reps=%d\n", name, setup, opts->repetitions);
	if (baseline)
		printf("%10s %8s %12s %12s %12s %12s %7s\n", "bytes", "iters", metric, "min", baseline,
		       "min", "ratio");
	else
		printf("%10s %8s %12s %12s %12s\n", "bytes", "iters", metric, "min", "max");
}

/* Nanoseconds per operation of bytes from a value in unit (NAN stays NAN). */
static double to_ns(double value, enum bench_unit unit, size_t bytes)
{
	if (unit == UNIT_US)
		return value * 1000.0;
	if (unit == UNIT_GBPS)
		return value > 0 ? (double)bytes / value : NAN;   /* 1 GB/s is one byte per ns */
	return value;
}

/* Stats in the table's unit (min and max of the values) as nanoseconds: best and worst. */
static struct bench_stats stats_ns(double median, double min, double max, enum bench_unit unit,
				   size_t bytes)
{
	struct bench_stats s = { to_ns(median, unit, bytes), to_ns(min, unit, bytes),
				 to_ns(max, unit, bytes) };

	if (unit == UNIT_GBPS) {   /* the most bandwidth is the least time */
		double best = s.worst;

		s.worst = s.best;
		s.best = best;
	}
	return s;
}

static void csv_number(double value)
{
	if (isfinite(value))
		printf(",%.2f", value);
	else
		printf(",");
}

static void csv_row(size_t bytes, int iterations, int repetitions, struct bench_stats ours,
		    struct bench_stats base)
{
	printf("%s,%s,%s,%s,%s,%zu,%d,%d", program_invocation_short_name, table.api, table.provider,
	       table.operation, table.bandwidth ? "bandwidth" : "latency", bytes, iterations,
	       repetitions);
	csv_number(ours.median);
	csv_number(ours.best);
	csv_number(ours.worst);
	csv_number(bytes && ours.median > 0 ? (double)bytes / ours.median * 1000.0 : NAN);
	printf(",%s", table.baseline);
	csv_number(*table.baseline ? base.median : NAN);
	csv_number(*table.baseline ? base.best : NAN);
	if (*table.baseline && base.median > 0 && isfinite(ours.median))
		printf(",%.4f\n", ours.median / base.median);
	else
		printf(",\n");
}

void bench_row(const struct bench_opts *opts, size_t bytes, int iterations, double ours_med,
	       double ours_min, double base_med, double base_min)
{
	double ratio = base_med > 0 ? ours_med / base_med : 0;

	if (opts->csv)
		csv_row(bytes, iterations, opts->repetitions,
			stats_ns(ours_med, ours_min, NAN, table.unit, bytes),
			stats_ns(base_med, base_min, NAN, table.base_unit, bytes));
	else
		printf("%10zu %8d %12.4f %12.4f %12.4f %12.4f %7.3f\n", bytes, iterations, ours_med,
		       ours_min, base_med, base_min, ratio);
	fflush(stdout);
}

/* Median, minimum and maximum of n values, the values left as they were. */
static void summarise(const double *values, int n, double *median, double *min, double *max)
{
	double *copy = malloc((size_t)n * sizeof(*copy));

	if (!copy) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		exit(1);
	}
	memcpy(copy, values, (size_t)n * sizeof(*copy));
	*median = bench_median(copy, n);
	*min = copy[0];
	*max = copy[n - 1];
	free(copy);
}

void bench_row_samples(const struct bench_opts *opts, size_t bytes, int iterations,
		       const double *ours, const double *base, int n)
{
	double om, omin, omax, bm = NAN, bmin = NAN, bmax = NAN;

	summarise(ours, n, &om, &omin, &omax);
	if (base)
		summarise(base, n, &bm, &bmin, &bmax);
	if (opts->csv)
		csv_row(bytes, iterations, n, stats_ns(om, omin, omax, table.unit, bytes),
			stats_ns(bm, bmin, bmax, table.base_unit, bytes));
	else if (base)
		printf("%10zu %8d %12.4f %12.4f %12.4f %12.4f %7.3f\n", bytes, iterations, om, omin, bm,
		       bmin, bm > 0 ? om / bm : 0);
	else
		printf("%10zu %8d %12.4f %12.4f %12.4f\n", bytes, iterations, om, omin, omax);
	fflush(stdout);
}

void bench_link_send(int sock, uint64_t value)
{
	if (send(sock, &value, sizeof(value), MSG_NOSIGNAL) != sizeof(value)) {
		fprintf(stderr, "%s: the other process went away\n", program_invocation_short_name);
		exit(1);
	}
}

uint64_t bench_link_recv(int sock, int timeout_ms)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	uint64_t value;

	if (poll(&pfd, 1, timeout_ms) != 1 ||
	    recv(sock, &value, sizeof(value), MSG_WAITALL) != sizeof(value)) {
		fprintf(stderr, "%s: the other process is silent or gone\n", program_invocation_short_name);
		exit(1);
	}
	return value;
}

void bench_link_send_command(int sock, uint64_t code, uint64_t len, uint64_t iterations)
{
	bench_link_send(sock, code);
	bench_link_send(sock, len);
	bench_link_send(sock, iterations);
}

uint64_t bench_link_recv_command(int sock, uint64_t quit, uint64_t *len, uint64_t *iterations,
				 int timeout_ms)
{
	uint64_t code = bench_link_recv(sock, timeout_ms);

	*len = *iterations = 0;
	if (code != quit) {
		*len = bench_link_recv(sock, timeout_ms);
		*iterations = bench_link_recv(sock, timeout_ms);
	}
	return code;
}
