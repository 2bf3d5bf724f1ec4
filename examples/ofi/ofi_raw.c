/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/ofi/ofi_raw.c: the raw libfabric baseline of the ofi benchmarks
 * (see ofi_raw.h). The raw side keeps libfabric's own rules: one thread per
 * process posts and polls its CQ, and the target drives progress by polling
 * its CQ while the initiator transfers (tcp and rxm progress only when called).
 */
#include "ofi_raw.h"

#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "../common/bench.h"

#define LINK_TIMEOUT_MS 10000
/* Set-up link words of the raw target: a round begins (and is acknowledged), or it stops. */
#define LINK_ROUND 1
#define LINK_STOP 2

static char node_file[64];

static void raw_die(const char *what, const char *why)
{
	fprintf(stderr, "raw libfabric: %s: %s\n", what, why);
	exit(1);
}

static void fi_check(long ret, const char *what)
{
	if (ret)
		raw_die(what, fi_strerror((int)-ret));
}

const char *ofi_raw_provider(void)
{
	const char *prov = getenv("XRMA_OFI_PROVIDER");

	return prov && *prov ? prov : "tcp;ofi_rxm";
}

int ofi_raw_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

void ofi_raw_open(struct ofi_raw *r, const char *prov, const char *port, size_t max)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT, .size = 1024 };
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };

	memset(r, 0, sizeof(*r));
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_RMA;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup(prov);
	fi_check(fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), "127.0.0.1", port,
			    FI_SOURCE, hints, &r->info), "fi_getinfo");
	fi_freeinfo(hints);
	fi_check(fi_fabric(r->info->fabric_attr, &r->fabric, NULL), "fi_fabric");
	fi_check(fi_domain(r->fabric, r->info, &r->domain, NULL), "fi_domain");
	fi_check(fi_av_open(r->domain, &av_attr, &r->av, NULL), "fi_av_open");
	fi_check(fi_cq_open(r->domain, &cq_attr, &r->cq, NULL), "fi_cq_open");
	fi_check(fi_endpoint(r->domain, r->info, &r->ep, NULL), "fi_endpoint");
	fi_check(fi_ep_bind(r->ep, &r->av->fid, 0), "bind av");
	fi_check(fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV), "bind cq");
	fi_check(fi_enable(r->ep), "fi_enable");
	r->max = max;
	r->buf = mmap(NULL, 2 * max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->buf == MAP_FAILED)
		raw_die("buffer", "out of memory");
	fi_check(fi_mr_reg(r->domain, r->buf, 2 * max,
			   FI_REMOTE_WRITE | FI_REMOTE_READ | FI_WRITE | FI_READ, 0, 0, 0, &r->mr, NULL),
		 "fi_mr_reg");
}

void ofi_raw_connect(struct ofi_raw *r, int sock, const char *peer_port)
{
	struct fi_info *hints = fi_dupinfo(r->info), *info;
	uint64_t base = (r->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uintptr_t)r->buf : 0;

	free(hints->src_addr);
	hints->src_addr = NULL;
	hints->src_addrlen = 0;
	fi_check(fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), "127.0.0.1", peer_port, 0,
			    hints, &info), "peer fi_getinfo");
	if (fi_av_insert(r->av, info->dest_addr, 1, &r->peer, 0, NULL) != 1)
		raw_die("fi_av_insert", "failed");
	fi_freeinfo(info);
	fi_freeinfo(hints);
	bench_link_send(sock, fi_mr_key(r->mr));
	bench_link_send(sock, base);
	r->peer_key = bench_link_recv(sock, LINK_TIMEOUT_MS);
	r->peer_base = bench_link_recv(sock, LINK_TIMEOUT_MS);
}

void ofi_raw_close(struct ofi_raw *r)
{
	fi_close(&r->mr->fid);
	fi_close(&r->ep->fid);
	fi_close(&r->cq->fid);
	fi_close(&r->av->fid);
	fi_close(&r->domain->fid);
	fi_close(&r->fabric->fid);
	fi_freeinfo(r->info);
	munmap(r->buf, 2 * r->max);
}

void ofi_raw_post(struct ofi_raw *r, bool read, size_t len, void *ctx)
{
	struct iovec iov = { .iov_base = r->buf + r->max, .iov_len = len };
	void *desc = fi_mr_desc(r->mr);
	struct fi_rma_iov rma = { .addr = r->peer_base, .len = len, .key = r->peer_key };
	struct fi_msg_rma msg = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = r->peer,
				  .rma_iov = &rma, .rma_iov_count = 1, .context = ctx };
	ssize_t ret;

	for (;;) {
		ret = read ? fi_readmsg(r->ep, &msg, FI_COMPLETION)
			   : fi_writemsg(r->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
		if (ret != -FI_EAGAIN)
			break;
		fi_cq_read(r->cq, NULL, 0);
	}
	fi_check(ret, read ? "fi_readmsg" : "fi_writemsg");
}

int ofi_raw_reap(struct ofi_raw *r, int want)
{
	struct fi_cq_entry e[OFI_RAW_WINDOW];
	ssize_t n = fi_cq_read(r->cq, e, (size_t)(want < OFI_RAW_WINDOW ? want : OFI_RAW_WINDOW));

	if (n == -FI_EAVAIL) {
		struct fi_cq_err_entry err = { 0 };

		fi_cq_readerr(r->cq, &err, 0);
		raw_die("transfer", fi_strerror(err.err));
	}
	return n > 0 ? (int)n : 0;
}

/* ---- a node file for self-started runs ---- */

static void remove_node_file(void)
{
	if (node_file[0])
		unlink(node_file);
}

bool ofi_raw_selected(uint32_t first, uint32_t last)
{
	const char *prov = getenv("XRMA_PROVIDER");
	FILE *f;
	int fd;

	if (!prov || strcmp(prov, "ofi"))
		return false;
	if (getenv("XRMA_OFI_NODES"))
		return true;
	snprintf(node_file, sizeof(node_file), "/tmp/xrma-ofi-nodes-XXXXXX");
	fd = mkstemp(node_file);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		raw_die("node file", "cannot create it");
	for (uint32_t n = first; n <= last; n++)
		fprintf(f, "%u 127.0.0.1:%d\n", n, ofi_raw_free_port());
	fclose(f);
	setenv("XRMA_OFI_NODES", node_file, 1);
	atexit(remove_node_file);
	return true;
}

/* ---- the raw target process ---- */

static bool link_ready(int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/*
 * The target: drive progress (poll the CQ) during each round the initiator
 * announces, and sleep between rounds, so it takes no CPU from the xrma
 * processes measured in between.
 */
static void target_main(int sock, size_t max, const char *my_port, const char *their_port, int cpu)
{
	struct ofi_raw r;

	bench_pin_thread(cpu);
	ofi_raw_open(&r, ofi_raw_provider(), my_port, max);
	ofi_raw_connect(&r, sock, their_port);
	while (bench_link_recv(sock, -1) == LINK_ROUND) {
		bench_link_send(sock, LINK_ROUND);
		while (!link_ready(sock))
			ofi_raw_reap(&r, OFI_RAW_WINDOW);
		bench_link_recv(sock, LINK_TIMEOUT_MS);   /* the round's end */
	}
	ofi_raw_close(&r);
	_exit(0);
}

void ofi_raw_link_start(struct ofi_raw_link *l, size_t max, int target_cpu)
{
	char mine[16], theirs[16];
	int sv[2];

	memset(l, 0, sizeof(*l));
	snprintf(mine, sizeof(mine), "%d", ofi_raw_free_port());
	snprintf(theirs, sizeof(theirs), "%d", ofi_raw_free_port());
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		raw_die("socketpair", "failed");
	l->pid = fork();
	if (l->pid < 0)
		raw_die("fork", "failed");
	if (l->pid == 0) {
		close(sv[0]);
		target_main(sv[1], max, theirs, mine, target_cpu);
	}
	close(sv[1]);
	l->sock = sv[0];
	ofi_raw_open(&l->r, ofi_raw_provider(), mine, max);
	ofi_raw_connect(&l->r, l->sock, theirs);
	l->up = true;
}

void ofi_raw_link_round(struct ofi_raw_link *l, bool read, size_t len, int iterations, int window)
{
	int posted = 0, done = 0;

	if (window < 1)
		window = 1;
	if (window > OFI_RAW_WINDOW)
		window = OFI_RAW_WINDOW;
	/* The target polls from its acknowledgement to the round's end: one set-up round trip. */
	bench_link_send(l->sock, LINK_ROUND);
	bench_link_recv(l->sock, LINK_TIMEOUT_MS);
	while (done < iterations) {
		while (posted < iterations && posted - done < window) {
			ofi_raw_post(&l->r, read, len, &l->r.ctx[posted % OFI_RAW_WINDOW]);
			posted++;
		}
		done += ofi_raw_reap(&l->r, window);
	}
	bench_link_send(l->sock, LINK_ROUND);
}

void ofi_raw_link_stop(struct ofi_raw_link *l)
{
	int status;

	if (!l->up)
		return;
	bench_link_send(l->sock, LINK_STOP);
	ofi_raw_close(&l->r);
	waitpid(l->pid, &status, 0);
	close(l->sock);
	l->up = false;
}
