/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/bench.c: the shared benchmark harness (bench.h).
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <hwloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

void bench_parse(int argc, char **argv, struct bench_opts *opts, const char *usage_extra)
{
	static const struct option options[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

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
		case 'h':
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: %s [-i iterations] [-r repetitions] [-s max_bytes] [--csv]\n%s",
				argv[0], usage_extra ? usage_extra : "");
			exit(opt == 'h' ? 0 : 2);
		}
	}
	if (opts->iterations < 1 || opts->repetitions < 1 || opts->max_size < 1) {
		fprintf(stderr, "%s: iterations, repetitions and sizes must be positive\n", argv[0]);
		exit(2);
	}
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

void bench_header(const struct bench_opts *opts, const char *name, const char *setup,
		  const char *metric, const char *baseline)
{
	if (opts->csv) {
		printf("benchmark,bytes,iters,%s_median,%s_min,%s_median,%s_min,ratio\n", metric, metric,
		       baseline, baseline);
		return;
	}
	printf("# %s %s reps=%d\n", name, setup, opts->repetitions);
	printf("%10s %8s %12s %12s %12s %12s %7s\n", "bytes", "iters", metric, "min", baseline, "min",
	       "ratio");
}

void bench_row(const struct bench_opts *opts, size_t bytes, int iterations, double ours_med,
	       double ours_min, double base_med, double base_min)
{
	double ratio = base_med > 0 ? ours_med / base_med : 0;

	if (opts->csv)
		printf("row,%zu,%d,%.4f,%.4f,%.4f,%.4f,%.3f\n", bytes, iterations, ours_med, ours_min,
		       base_med, base_min, ratio);
	else
		printf("%10zu %8d %12.4f %12.4f %12.4f %12.4f %7.3f\n", bytes, iterations, ours_med,
		       ours_min, base_med, base_min, ratio);
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
