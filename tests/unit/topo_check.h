/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/unit/topo_check.h: what the topology tests read back from the kernel:
 * a CPU list ("0-3,8") as a cpu_set_t, and whether a thread of this process
 * with a given name (xrma names its context threads) has exactly an affinity.
 */
#ifndef XRMA_TEST_TOPO_CHECK_H
#define XRMA_TEST_TOPO_CHECK_H

#include <dirent.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void topo_cpu_list_parse(const char *list, cpu_set_t *set)
{
	const char *p = list;

	CPU_ZERO(set);
	while (*p) {
		char *end;
		unsigned long first = strtoul(p, &end, 10), last = first;

		if (*end == '-')
			last = strtoul(end + 1, &end, 10);
		for (unsigned long cpu = first; cpu <= last && cpu < CPU_SETSIZE; cpu++)
			CPU_SET(cpu, set);
		p = *end == ',' ? end + 1 : end;
		if (end == p && *p)
			break;
	}
}

/* The threads are named and bound before the call that starts them returns. */
static inline bool topo_thread_affinity_seen(const char *name, const cpu_set_t *want)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	bool seen = false;

	if (!dir)
		return false;
	while (!seen && (e = readdir(dir))) {
		char path[300], comm[32] = "";
		cpu_set_t got;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		if (strcmp(comm, name))
			continue;
		if (!sched_getaffinity(atoi(e->d_name), sizeof(got), &got) && CPU_EQUAL(&got, want))
			seen = true;
	}
	closedir(dir);
	return seen;
}

#endif
