/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/helpers/proc.c: the child processes of multi-process tests (proc.h).
 * Children are exec'd copies of the test program, reached through
 * /proc/self/exe; the role, the link's descriptor and the argument travel in
 * argv. Every wait is bounded by poll() on a pidfd or the link.
 */
#include "tests/helpers/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xrma/xrma.h>

#define PROC_CHILD_FLAG "--xrma-test-child"

#define PROC_LIVE_MAX 64

/*
 * Children not yet reaped, by value: a test that fails an assertion leaves its
 * struct proc behind on a stack that is gone, and proc_kill_all still finds them.
 */
static struct proc live[PROC_LIVE_MAX];
static size_t live_count;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static int proc_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void live_add(const struct proc *p)
{
	pthread_mutex_lock(&live_lock);
	if (live_count < PROC_LIVE_MAX)
		live[live_count++] = *p;
	pthread_mutex_unlock(&live_lock);
}

static void live_remove(pid_t pid)
{
	pthread_mutex_lock(&live_lock);
	for (size_t i = 0; i < live_count; i++) {
		if (live[i].pid == pid) {
			live[i] = live[--live_count];
			break;
		}
	}
	pthread_mutex_unlock(&live_lock);
}

bool proc_child_dispatch(int argc, char **argv, const struct proc_role *roles, int *rc)
{
	int sock;

	/* argv: prog --xrma-test-child ROLE FD [ARG] */
	if (argc < 4 || strcmp(argv[1], PROC_CHILD_FLAG) != 0)
		return false;
	sock = atoi(argv[3]);
	for (const struct proc_role *r = roles; r->name; r++) {
		if (strcmp(r->name, argv[2]) == 0) {
			*rc = r->main(sock, argc > 4 ? argv[4] : NULL);
			close(sock);
			return true;
		}
	}
	fprintf(stderr, "proc: unknown child role '%s'\n", argv[2]);
	*rc = 125;
	return true;
}

int proc_spawn(struct proc *p, const char *fabric, uint32_t node, const char *role, const char *arg)
{
	int sv[2];
	pid_t pid;
	char fdbuf[16], nodebuf[16];
	char exe[4096];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = '\0';
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		int err = errno;
		close(sv[0]);
		close(sv[1]);
		errno = err;
		return -1;
	}
	if (pid == 0) {
		/* Child: only async-signal-safe work until exec. */
		char *args[6];
		int i = 0;

		close(sv[0]);
		if (fcntl(sv[1], F_SETFD, 0) != 0)
			_exit(126);
		snprintf(fdbuf, sizeof(fdbuf), "%d", sv[1]);
		snprintf(nodebuf, sizeof(nodebuf), "%" PRIu32, node);
		setenv("XRMA_NODE_ID", nodebuf, 1);
		if (fabric)
			setenv("XRMA_FABRIC", fabric, 1);
		args[i++] = exe;
		args[i++] = (char *)PROC_CHILD_FLAG;
		args[i++] = (char *)role;
		args[i++] = fdbuf;
		if (arg)
			args[i++] = (char *)arg;
		args[i] = NULL;
		execv(exe, args);
		{
			/* Say why (write is async-signal-safe): a program relinked under a running test
			 * cannot be re-executed, and the parent would otherwise see a silent exit. */
			static const char msg[] = "proc: cannot re-execute the test program (relinked or removed?)\n";

			if (write(2, msg, sizeof(msg) - 1) < 0) {
				/* Nothing more to say. */
			}
		}
		_exit(127);
	}
	close(sv[1]);
	p->pid = pid;
	p->sock = sv[0];
	p->pidfd = proc_pidfd_open(pid);
	if (p->pidfd < 0) {
		int err = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(sv[0]);
		errno = err;
		return -1;
	}
	live_add(p);
	return 0;
}

static int proc_reap(struct proc *p)
{
	int status = 0;
	pid_t r;

	do
		r = waitpid(p->pid, &status, 0);
	while (r < 0 && errno == EINTR);
	live_remove(p->pid);
	close(p->pidfd);
	close(p->sock);
	p->pidfd = -1;
	p->sock = -1;
	p->pid = -1;
	if (r < 0)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int proc_scaled_ms(int ms)
{
	const char *env = getenv("XRMA_TEST_TIME_SCALE");
	long scale = env ? strtol(env, NULL, 10) : 1;

	if (ms <= 0 || scale <= 1)
		return ms;
	if (scale > 100)
		scale = 100;
	return ms > INT_MAX / scale ? INT_MAX : (int)(ms * scale);
}

int proc_join(struct proc *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
	int r;

	timeout_ms = proc_scaled_ms(timeout_ms);
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		fprintf(stderr, "proc: child %ld did not exit within %d ms; killing it\n",
			(long)p->pid, timeout_ms);
		kill(p->pid, SIGKILL);
		proc_reap(p);
		return -1;
	}
	return proc_reap(p);
}

int proc_kill(struct proc *p)
{
	kill(p->pid, SIGKILL);
	return proc_reap(p);
}

int proc_kill_all(void)
{
	int killed = 0;

	for (;;) {
		struct proc p;

		pthread_mutex_lock(&live_lock);
		if (!live_count) {
			pthread_mutex_unlock(&live_lock);
			return killed;
		}
		p = live[live_count - 1];
		pthread_mutex_unlock(&live_lock);
		proc_kill(&p);   /* reaps it, which takes it off the list */
		killed++;
	}
}

int proc_teardown(void **state)
{
	(void)state;
	proc_kill_all();
	return 0;
}

int proc_send(int sock, uint64_t value)
{
	const uint8_t *b = (const uint8_t *)&value;
	size_t done = 0;

	while (done < sizeof(value)) {
		ssize_t n = send(sock, b + done, sizeof(value) - done, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECONNRESET ? EPIPE : errno;
		}
		done += (size_t)n;
	}
	return 0;
}

int proc_recv(int sock, uint64_t *value, int timeout_ms)
{
	uint8_t *b = (uint8_t *)value;
	size_t done = 0;

	timeout_ms = proc_scaled_ms(timeout_ms);
	while (done < sizeof(*value)) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		int r = poll(&pfd, 1, timeout_ms);
		ssize_t n;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (r == 0)
			return ETIMEDOUT;
		n = recv(sock, b + done, sizeof(*value) - done, 0);
		if (n == 0)
			return EPIPE;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == ECONNRESET ? EPIPE : errno;
		}
		done += (size_t)n;
	}
	return 0;
}

int proc_expect(int sock, uint64_t want, int timeout_ms)
{
	uint64_t got;
	int rc = proc_recv(sock, &got, timeout_ms);

	if (rc)
		return rc;
	if (got != want) {
		fprintf(stderr, "proc: expected %" PRIu64 ", received %" PRIu64 "\n", want, got);
		return EPROTO;
	}
	return 0;
}

/* A code as a log shows it: in hex as well where the API's codes are (SISCI, PXImc). */
static void code_text(char *buf, size_t size, long long v)
{
	if (v > 9)
		snprintf(buf, size, "%lld (0x%llx)", v, (unsigned long long)v);
	else
		snprintf(buf, size, "%lld", v);
}

int proc_check_mismatch(const char *file, int line, const char *what, long long got,
			const char *want_text, long long want)
{
	const char *detail = xrma_error_detail();
	char got_s[48], want_s[48];

	code_text(got_s, sizeof(got_s), got);
	code_text(want_s, sizeof(want_s), want);
	fprintf(stderr, "%s:%d: child check failed: %s is %s, expected %s = %s%s%s\n", file,
		line, what, got_s, want_text, want_s, *detail ? ": " : "", detail);
	return line & 0x7f ? line & 0x7f : 1;
}

bool proc_provider_info(struct xrma_provider_info *info)
{
	char want[sizeof(((struct xrma_config_entry *)0)->value)];
	struct xrma_config_entry entry;

	/* The config's "provider" entry already resolves XRMA_PROVIDER, files and the
	 * default; copied, since the next entry read reuses the buffer. */
	snprintf(want, sizeof(want), "%s", xrma_provider_default());
	for (int i = 0; xrma_config_get(i, &entry) == 0; i++)
		if (strcmp(entry.key, "provider") == 0 && entry.value[0])
			snprintf(want, sizeof(want), "%s", entry.value);
	for (int i = 0; xrma_provider_get(i, info) == 0; i++)
		if (strcmp(info->name, want) == 0)
			return true;
	return false;
}

uint64_t proc_provider_caps(void)
{
	struct xrma_provider_info info;

	return proc_provider_info(&info) ? info.caps.flags : 0;
}

bool proc_provider_multiproc(void)
{
	return (proc_provider_caps() & XRMA_CAP_MULTIPROC) != 0;
}
