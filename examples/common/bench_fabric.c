/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * examples/common/bench_fabric.c: the raw libfabric baseline (bench_fabric.h).
 * Addresses travel as fi_getname blobs over the set-up link, so the same code
 * serves providers addressed by name (shm) and by IP and port (tcp;ofi_rxm).
 * The raw side keeps libfabric's own rules: one thread per process posts and
 * polls its CQ, and the target drives progress by polling its CQ while the
 * initiator transfers (tcp and rxm progress only when called). The one
 * exception, bench_fabric_pingpong_threaded, runs xrma's threads on purpose,
 * to price them.
 */
#include "bench_fabric.h"
#include "local_port.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
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
#include "bench.h"

#define STALL_NS 10000000000ull
#define LINK_TIMEOUT_MS ((int)(STALL_NS / 1000000))
#define ADDR_MAX 256   /* bytes of an endpoint name we carry (shm's are the longest) */
/* Set-up link words to a raw target process: a round begins (and is acknowledged), or it stops. */
#define LINK_ROUND 1
#define LINK_STOP 2

#define NODE_FILE_MAX 64   /* nodes in a node file we write */

static char node_file[64];

static void fabric_die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, fi_strerror(err));
	exit(1);
}

static void fabric_check(long ret, const char *what)
{
	if (ret)
		fabric_die(what, (int)-ret);
}

bool bench_fabric_open(struct bench_fabric *f, const char *prov, const char *service, size_t max)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT, .size = 1024 };
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
	bool by_name = !strcmp(prov, "shm");
	int ret;

	memset(f, 0, sizeof(*f));
	if (!hints)
		fabric_die("fi_allocinfo", FI_ENOMEM);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup(prov);
	/* shm names its endpoints itself; the others bind to the loopback address. */
	ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), by_name ? NULL : "127.0.0.1",
			 by_name ? NULL : service, by_name ? 0 : FI_SOURCE, hints, &f->info);
	fi_freeinfo(hints);
	if (ret) {
		fprintf(stderr, "%s: libfabric provider %s: %s\n", program_invocation_short_name, prov,
			fi_strerror(-ret));
		return false;
	}
	fabric_check(fi_fabric(f->info->fabric_attr, &f->fabric, NULL), "fi_fabric");
	fabric_check(fi_domain(f->fabric, f->info, &f->domain, NULL), "fi_domain");
	fabric_check(fi_av_open(f->domain, &av_attr, &f->av, NULL), "fi_av_open");
	fabric_check(fi_cq_open(f->domain, &cq_attr, &f->cq, NULL), "fi_cq_open");
	fabric_check(fi_endpoint(f->domain, f->info, &f->ep, NULL), "fi_endpoint");
	fabric_check(fi_ep_bind(f->ep, &f->av->fid, 0), "fi_ep_bind(av)");
	fabric_check(fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
	fabric_check(fi_enable(f->ep), "fi_enable");
	f->max = max;
	f->buf = mmap(NULL, 2 * max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->buf == MAP_FAILED)
		fabric_die("mmap", FI_ENOMEM);
	fabric_check(fi_mr_reg(f->domain, f->buf, 2 * max,
			       FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &f->mr, NULL),
		     "fi_mr_reg");
	return true;
}

/* A blob over the link: its length, then 8-byte words. */
static void link_send_blob(int sock, const unsigned char *blob, size_t len)
{
	uint64_t word;

	bench_link_send(sock, len);
	for (size_t at = 0; at < len; at += sizeof(word)) {
		word = 0;
		memcpy(&word, blob + at, len - at < sizeof(word) ? len - at : sizeof(word));
		bench_link_send(sock, word);
	}
}

static size_t link_recv_blob(int sock, unsigned char *blob, size_t size)
{
	size_t len = (size_t)bench_link_recv(sock, LINK_TIMEOUT_MS);
	uint64_t word;

	if (len > size)
		fabric_die("peer address", FI_ETOOSMALL);
	for (size_t at = 0; at < len; at += sizeof(word)) {
		word = bench_link_recv(sock, LINK_TIMEOUT_MS);
		memcpy(blob + at, &word, len - at < sizeof(word) ? len - at : sizeof(word));
	}
	return len;
}

void bench_fabric_connect(struct bench_fabric *f, int sock)
{
	unsigned char mine[ADDR_MAX], theirs[ADDR_MAX];
	size_t len = sizeof(mine);
	uint64_t base = (f->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uintptr_t)f->buf : 0;

	fabric_check(fi_getname(&f->ep->fid, mine, &len), "fi_getname");
	link_send_blob(sock, mine, len);
	bench_link_send(sock, fi_mr_key(f->mr));
	bench_link_send(sock, base);
	link_recv_blob(sock, theirs, sizeof(theirs));
	f->peer_key = bench_link_recv(sock, LINK_TIMEOUT_MS);
	f->peer_base = bench_link_recv(sock, LINK_TIMEOUT_MS);
	if (fi_av_insert(f->av, theirs, 1, &f->peer, 0, NULL) != 1)
		fabric_die("fi_av_insert", FI_EINVAL);
}

void bench_fabric_close(struct bench_fabric *f)
{
	fi_close(&f->mr->fid);
	fi_close(&f->ep->fid);
	fi_close(&f->cq->fid);
	fi_close(&f->av->fid);
	fi_close(&f->domain->fid);
	fi_close(&f->fabric->fid);
	fi_freeinfo(f->info);
	munmap(f->buf, 2 * f->max);
}

void bench_fabric_post(struct bench_fabric *f, bool read, size_t len, void *ctx)
{
	struct iovec iov = { .iov_base = f->buf + f->max, .iov_len = len };
	void *desc = fi_mr_desc(f->mr);
	struct fi_rma_iov rma = { .addr = f->peer_base, .len = len, .key = f->peer_key };
	struct fi_msg_rma msg = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = f->peer,
				  .rma_iov = &rma, .rma_iov_count = 1, .context = ctx };
	ssize_t ret;

	for (;;) {
		ret = read ? fi_readmsg(f->ep, &msg, FI_COMPLETION)
			   : fi_writemsg(f->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
		if (ret != -FI_EAGAIN)
			break;
		fi_cq_read(f->cq, NULL, 0);   /* progress, so room frees up */
	}
	fabric_check(ret, read ? "fi_readmsg" : "fi_writemsg");
}

int bench_fabric_reap(struct bench_fabric *f, int want)
{
	struct fi_cq_entry e[BENCH_FABRIC_WINDOW];
	ssize_t n = fi_cq_read(f->cq, e, (size_t)(want < BENCH_FABRIC_WINDOW ? want : BENCH_FABRIC_WINDOW));

	if (n == -FI_EAVAIL) {
		struct fi_cq_err_entry err = { 0 };

		fi_cq_readerr(f->cq, &err, 0);
		fabric_die("completion", err.err);
	}
	return n > 0 ? (int)n : 0;
}

void bench_await_word(unsigned char *buf, size_t len, uint64_t want, void (*step)(void *arg),
		      void *arg)
{
	uint64_t start = bench_now_ns();

	/* The acquire load orders our later reads of buf after the peer's write. */
	for (uint32_t spins = 0;
	     __atomic_load_n(bench_fabric_last_word(buf, len), __ATOMIC_ACQUIRE) != want; spins++) {
		if (step)
			step(arg);
		else
			sched_yield();
		if ((spins & 0xfff) == 0 && bench_now_ns() - start > STALL_NS) {
			fprintf(stderr, "%s: the peer stalled\n", program_invocation_short_name);
			exit(1);
		}
	}
}

static void reap_step(void *f)
{
	bench_fabric_reap(f, BENCH_FABRIC_WINDOW);
}

void bench_fabric_await_word(struct bench_fabric *progress, unsigned char *buf, size_t len,
			     uint64_t want)
{
	bench_await_word(buf, len, want, progress ? reap_step : NULL, progress);
}

double bench_fabric_pingpong(struct bench_fabric *f, size_t len, int iterations, bool initiator)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 1; i <= (uint64_t)iterations; i++) {
		if (!initiator)
			bench_fabric_await_word(f, f->buf, len, i);
		memcpy(f->buf + f->max + len - 8, &i, 8);
		bench_fabric_post(f, false, len, &f->ctx[0]);
		while (!bench_fabric_reap(f, 1))
			;
		if (initiator)
			bench_fabric_await_word(f, f->buf, len, i);
	}
	return (double)(bench_now_ns() - t0) / iterations / 2;
}

/*
 * The poller of bench_fabric_pingpong_threaded: xrma's ofi progress thread
 * cut down to what the ping-pong needs. It reads the CQ between yields,
 * except while the application thread drives its own write (then it only
 * yields, as xrma's stands back for rma_polling), and counts what it read.
 */
struct fabric_poller {
	struct bench_fabric *f;
	pthread_mutex_t lock;          /* one caller into the endpoint at a time */
	atomic_bool stop, driving;
	atomic_uint reaped;
};

static void *fabric_poller_main(void *arg)
{
	struct fabric_poller *p = arg;

	while (!atomic_load(&p->stop)) {
		int n = 0;

		if (!atomic_load(&p->driving)) {
			pthread_mutex_lock(&p->lock);
			n = bench_fabric_reap(p->f, BENCH_FABRIC_WINDOW);
			pthread_mutex_unlock(&p->lock);
		}
		if (n)
			atomic_fetch_add(&p->reaped, (unsigned int)n);
		else
			sched_yield();
	}
	return NULL;
}

/* Drive our write to its completion, unless the poller read it first. */
static void fabric_poller_drive(struct fabric_poller *p, unsigned int reaped_before)
{
	atomic_store(&p->driving, true);
	while (atomic_load(&p->reaped) == reaped_before) {
		int n;

		pthread_mutex_lock(&p->lock);
		n = bench_fabric_reap(p->f, 1);
		pthread_mutex_unlock(&p->lock);
		if (n)
			atomic_fetch_add(&p->reaped, (unsigned int)n);
	}
	atomic_store(&p->driving, false);
}

double bench_fabric_pingpong_threaded(struct bench_fabric *f, size_t len, int iterations,
				      bool initiator)
{
	struct fabric_poller p = { .f = f };
	pthread_t thread;
	uint64_t t0, elapsed;

	pthread_mutex_init(&p.lock, NULL);
	if (pthread_create(&thread, NULL, fabric_poller_main, &p))
		fabric_die("pthread_create", FI_ENOMEM);
	t0 = bench_now_ns();
	for (uint64_t i = 1; i <= (uint64_t)iterations; i++) {
		unsigned int before;

		if (!initiator)
			bench_fabric_await_word(NULL, f->buf, len, i);
		memcpy(f->buf + f->max + len - 8, &i, 8);
		before = atomic_load(&p.reaped);
		pthread_mutex_lock(&p.lock);
		bench_fabric_post(f, false, len, &f->ctx[0]);
		pthread_mutex_unlock(&p.lock);
		fabric_poller_drive(&p, before);
		if (initiator)
			bench_fabric_await_word(NULL, f->buf, len, i);
	}
	elapsed = bench_now_ns() - t0;
	atomic_store(&p.stop, true);
	pthread_join(thread, NULL);
	pthread_mutex_destroy(&p.lock);
	return (double)elapsed / iterations / 2;
}

double bench_fabric_stream(struct bench_fabric *f, bool read, size_t len, int iterations, int window)
{
	int posted = 0, done = 0;
	uint64_t t0 = bench_now_ns();

	if (window < 1)
		window = 1;
	if (window > BENCH_FABRIC_WINDOW)
		window = BENCH_FABRIC_WINDOW;
	while (done < iterations) {
		while (posted < iterations && posted - done < window) {
			bench_fabric_post(f, read, len, &f->ctx[posted % BENCH_FABRIC_WINDOW]);
			posted++;
		}
		done += bench_fabric_reap(f, window);
	}
	return (double)(bench_now_ns() - t0) / iterations;
}

void bench_fabric_serve_until(struct bench_fabric *f, int sock)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };

	while (poll(&pfd, 1, 0) != 1)
		bench_fabric_reap(f, BENCH_FABRIC_WINDOW);
}

const char *bench_fabric_provider(void)
{
	const char *prov = getenv("XRMA_OFI_PROVIDER");

	return prov && *prov ? prov : "tcp;ofi_rxm";
}

/* ---- a node file for self-started runs on xrma's ofi provider ---- */

static void remove_node_file(void)
{
	if (node_file[0])
		unlink(node_file);
}

void bench_fabric_node_file(uint32_t first, uint32_t last)
{
	FILE *out;
	int fd;

	if (last < first || last - first >= NODE_FILE_MAX)
		fabric_die("node file", FI_EINVAL);
	snprintf(node_file, sizeof(node_file), "/tmp/xrma-ofi-nodes-XXXXXX");
	fd = mkstemp(node_file);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out)
		fabric_die("node file", FI_EIO);
	if (local_port_node_lines(out, first, last))
		fabric_die("a free port", errno);
	if (fclose(out))
		fabric_die("node file", FI_EIO);
	setenv("XRMA_OFI_NODES", node_file, 1);
	atexit(remove_node_file);
}

bool bench_fabric_ofi_selected(uint32_t first, uint32_t last)
{
	const char *prov = getenv("XRMA_PROVIDER");

	if (!prov || strcmp(prov, "ofi"))
		return false;
	if (!getenv("XRMA_OFI_NODES"))
		bench_fabric_node_file(first, last);
	return true;
}

/* ---- a raw target process ---- */

static void open_or_die(struct bench_fabric *f, size_t max)
{
	if (!bench_fabric_open(f, bench_fabric_provider(), NULL, max))
		exit(1);
}

/*
 * The target: drive progress (poll the CQ) during each round the initiator
 * announces, and sleep between rounds, so it takes no CPU from the xrma
 * processes measured in between.
 */
static void link_target_main(int sock, size_t max, int cpu)
{
	struct bench_fabric f;

	bench_pin_thread(cpu);
	open_or_die(&f, max);
	bench_fabric_connect(&f, sock);
	while (bench_link_recv(sock, -1) == LINK_ROUND) {
		bench_link_send(sock, LINK_ROUND);
		bench_fabric_serve_until(&f, sock);
		bench_link_recv(sock, LINK_TIMEOUT_MS);   /* the round's end */
	}
	bench_fabric_close(&f);
	_exit(0);
}

void bench_fabric_link_start(struct bench_fabric_link *l, size_t max, int target_cpu)
{
	int sv[2];

	memset(l, 0, sizeof(*l));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		fabric_die("socketpair", errno);
	fflush(NULL);   /* a child that fails and exits must not write our buffered output again */
	l->pid = fork();
	if (l->pid < 0)
		fabric_die("fork", errno);
	if (l->pid == 0) {
		close(sv[0]);
		link_target_main(sv[1], max, target_cpu);
	}
	close(sv[1]);
	l->sock = sv[0];
	open_or_die(&l->f, max);
	bench_fabric_connect(&l->f, l->sock);
	l->up = true;
}

void bench_fabric_link_round(struct bench_fabric_link *l, bool read, size_t len, int iterations,
			     int window)
{
	/* The target polls from its acknowledgement to the round's end: one set-up round trip. */
	bench_link_send(l->sock, LINK_ROUND);
	bench_link_recv(l->sock, LINK_TIMEOUT_MS);
	bench_fabric_stream(&l->f, read, len, iterations, window);
	bench_link_send(l->sock, LINK_ROUND);
}

void bench_fabric_link_stop(struct bench_fabric_link *l)
{
	int status;

	if (!l->up)
		return;
	bench_link_send(l->sock, LINK_STOP);
	bench_fabric_close(&l->f);
	waitpid(l->pid, &status, 0);
	close(l->sock);
	l->up = false;
}
