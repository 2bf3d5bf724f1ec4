/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * providers/sci/sci_fault.c: fault injection of the SCI model. Each link
 * (this node to a destination node) has its own generator (splitmix64, seeded
 * from fault_seed and the two node ids), so a program that makes the same
 * transfers sees the same faults on every run, whatever other links do. A
 * transfer of n bytes is ceil(n / 64) transactions, each failing with the
 * link's rate; a failure is fatal (not retriable) with fault_fatal's share.
 * Link and loss events fire after a count of transactions towards a node:
 * the node's link goes down (every endpoint of the fabric hears it), or with
 * SRC-DST only the link between the two (their endpoints hear it, sci_csr.c
 * keeps it), and the service thread brings it back after the configured
 * time; a lost node's
 * processes are killed, as a crash would take them. The initiator counts: SCI
 * sees a transaction fail at the requester, through a timeout or a NAK.
 */
#include "providers/sci/sci.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "core/config.h"

/* ---------------------------------------------------------------- parsing */

static int parse_node(const char *s, char **end, uint32_t *node)
{
	unsigned long v;

	errno = 0;
	v = strtoul(s, end, 0);
	if (errno || *end == s || !sci_node_valid((uint32_t)v) || v > SCI_NODE_MAX)
		return -XRMA_ECONFIG;
	*node = (uint32_t)v;
	return 0;
}

static int parse_fraction(const char *s, char **end, double *v)
{
	errno = 0;
	*v = strtod(s, end);
	if (errno || *end == s || !(*v >= 0.0 && *v <= 1.0))
		return -XRMA_ECONFIG;
	return 0;
}

static int parse_count(const char *s, char **end, uint64_t *v)
{
	errno = 0;
	*v = strtoull(s, end, 0);
	return errno || *end == s || *s == '-' ? -XRMA_ECONFIG : 0;
}

/* One fault_rate entry: RATE, NODE:RATE or SRC-DST:RATE. */
static int parse_rule(const char *s, struct sci_fault_rule *rule)
{
	const char *colon = strchr(s, ':'), *comma = strchr(s, ',');
	char *end;

	rule->src = rule->dst = SCI_ANY_NODE;
	if (colon && (!comma || colon < comma)) {
		if (parse_node(s, &end, &rule->dst))
			return -XRMA_ECONFIG;
		if (*end == '-') {
			rule->src = rule->dst;
			if (parse_node(end + 1, &end, &rule->dst))
				return -XRMA_ECONFIG;
		}
		if (end != colon)
			return -XRMA_ECONFIG;
		s = colon + 1;
	}
	return parse_fraction(s, &end, &rule->rate) || (*end && *end != ',') ? -XRMA_ECONFIG : 0;
}

/* One fault_link ([SRC-]NODE@COUNT+MS) or fault_lost (NODE@COUNT) entry. */
static int parse_event(const char *s, enum sci_event_kind kind, struct sci_fault_event *ev)
{
	char *end;

	*ev = (struct sci_fault_event){ .kind = kind, .src = SCI_ANY_NODE };
	if (parse_node(s, &end, &ev->node))
		return -XRMA_ECONFIG;
	if (kind == SCI_FAULT_LINK && *end == '-') {
		ev->src = ev->node;
		if (parse_node(end + 1, &end, &ev->node) || ev->node == ev->src)
			return -XRMA_ECONFIG;
	}
	if (*end != '@' || parse_count(end + 1, &end, &ev->after))
		return -XRMA_ECONFIG;
	if (kind == SCI_FAULT_LINK) {
		if (*end != '+' || parse_count(end + 1, &end, &ev->down_ms))
			return -XRMA_ECONFIG;
	}
	return *end && *end != ',' ? -XRMA_ECONFIG : 0;
}

/* This provider's keys (its table in sci_config.c). */
static const char *sci_config_value(const struct xrma_config *cfg, enum sci_config_key key)
{
	return xrma_config_table_value(cfg, &xrma_prov_sci_config, key);
}

static int sci_config_size(const struct xrma_config *cfg, enum sci_config_key key, uint64_t max,
			   uint64_t *value)
{
	return xrma_config_table_size(cfg, &xrma_prov_sci_config, key, max, value);
}

/* Each comma-separated entry of key through one parser. */
static int parse_list(const struct xrma_config *cfg, enum sci_config_key key, const char *name,
		      const char *form, struct sci_fault_config *out, enum sci_event_kind kind)
{
	const char *v = sci_config_value(cfg, key);

	for (const char *p = v ? v : ""; *p;) {
		size_t *count = kind ? &out->event_count : &out->rule_count;
		int ret;

		if (*count == SCI_FAULT_RULES_MAX) {
			hostfab_detail("sci: sci.%s has more than %d entries", name, SCI_FAULT_RULES_MAX);
			return -XRMA_ECONFIG;
		}
		ret = kind ? parse_event(p, kind, &out->events[*count])
			   : parse_rule(p, &out->rules[*count]);
		if (ret) {
			hostfab_detail("sci: sci.%s entry '%s' is not %s (node ids: multiples of 4 "
				       "up to 0xfffc)", name, p, form);
			return ret;
		}
		(*count)++;
		p = strchr(p, ',');
		p = p ? p + 1 : "";
	}
	return 0;
}

int xrma_prov_sci_fault_parse(const struct xrma_config *cfg, struct sci_fault_config *out)
{
	const char *fatal = sci_config_value(cfg, SCI_CONFIG_FAULT_FATAL);
	char *end;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = sci_config_size(cfg, SCI_CONFIG_FAULT_SEED, UINT64_MAX, &out->seed))) {
		hostfab_detail("sci: sci.fault_seed is not a number");
		return ret;
	}
	if (parse_fraction(fatal && *fatal ? fatal : "0", &end, &out->fatal_share) || *end) {
		hostfab_detail("sci: sci.fault_fatal '%s' is not a fraction in [0, 1]", fatal);
		return -XRMA_ECONFIG;
	}
	if ((ret = parse_list(cfg, SCI_CONFIG_FAULT_RATE, "fault_rate",
			      "RATE, NODE:RATE or SRC-DST:RATE with RATE in [0, 1]", out, 0)))
		return ret;
	if ((ret = parse_list(cfg, SCI_CONFIG_FAULT_LINK, "fault_link",
			      "NODE@COUNT+MS or SRC-DST@COUNT+MS", out,
			      SCI_FAULT_LINK)))
		return ret;
	return parse_list(cfg, SCI_CONFIG_FAULT_LOST, "fault_lost", "NODE@COUNT", out,
			  SCI_FAULT_LOST);
}

/* ---------------------------------------------------------------- links */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A fraction as the threshold a 64-bit draw must stay below. */
static uint64_t threshold_of(double p)
{
	return p >= 1.0 ? UINT64_MAX : (uint64_t)(p * 18446744073709551616.0);
}

/* The most specific rule wins: the link, then a node at either end, then all. */
static double link_rate(const struct sci_fault_config *f, uint32_t src, uint32_t dst)
{
	int best = -1;
	double rate = 0.0;

	for (size_t i = 0; i < f->rule_count; i++) {
		const struct sci_fault_rule *r = &f->rules[i];
		int score;

		if (r->src != SCI_ANY_NODE)
			score = r->src == src && r->dst == dst ? 2 : -1;
		else if (r->dst != SCI_ANY_NODE)
			score = r->dst == dst || r->dst == src ? 1 : -1;
		else
			score = 0;
		if (score > best) {
			best = score;
			rate = r->rate;
		}
	}
	return rate;
}

static struct sci_link *link_get_locked(struct hostfab_ep *ep, uint32_t dst)
{
	struct sci_model *model = sci_model_of(ep);
	struct sci_link *l;

	for (l = model->links; l; l = l->next)
		if (l->dst == dst)
			return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->dst = dst;
	l->prng = model->faults.seed ^ ((uint64_t)ep->self.node << 32 | dst);
	(void)splitmix64(&l->prng);
	l->threshold = threshold_of(link_rate(&model->faults, ep->self.node, dst));
	l->next = model->links;
	model->links = l;
	return l;
}

/* ---------------------------------------------------------------- events */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Arm the timer for the earliest pending link-up (under model->lock). */
static void arm_timer_locked(struct sci_model *model)
{
	struct itimerspec its = { 0 };
	uint64_t first = UINT64_MAX;

	for (size_t i = 0; i < model->pending_up_count; i++)
		if (model->pending_up[i].up_at_ms < first)
			first = model->pending_up[i].up_at_ms;
	if (first != UINT64_MAX) {
		its.it_value.tv_sec = (time_t)(first / 1000);
		its.it_value.tv_nsec = (long)(first % 1000) * 1000000L;
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(model->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* A crash of node: every process acting as it dies. Our own process is spared
 * (it may act as several nodes); the link is then only marked lost here. */
static void kill_node(struct hostfab_ep *ep, uint32_t node)
{
	struct hostfab_dirmap *map;
	pid_t self = getpid();

	if (hostfab_dir_peer(ep, node, &map))
		return;
	for (size_t i = 0; i < HOSTFAB_EP_MAX; i++) {
		struct hostfab_dir_slot *s = &map->dir->slots[i];
		pid_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == HOSTFAB_SLOT_LIVE && pid > 0 &&
		    pid != self)
			kill(pid, SIGKILL);
	}
	hostfab_dir_put(ep, map);
}

/* What a draw found to do once the model's lock is dropped. */
struct sci_fired {
	bool node_down;            /* the destination node's link */
	bool pair_down;            /* the link between us and the destination */
	bool lost;
};

/* Fire the events of link l (from node self) reached by n more transactions
 * (under model->lock). */
static void fire_events_locked(struct sci_model *model, uint32_t self, struct sci_link *l,
			       uint64_t n, struct sci_fired *f)
{
	for (size_t i = 0; i < model->faults.event_count; i++) {
		struct sci_fault_event *ev = &model->faults.events[i];

		if (ev->fired || ev->node != l->dst || l->sent + n <= ev->after ||
		    (ev->src != SCI_ANY_NODE && ev->src != self))
			continue;
		ev->fired = true;
		if (ev->kind == SCI_FAULT_LOST) {
			l->lost = true;
			f->lost = true;
			continue;
		}
		if (ev->src == SCI_ANY_NODE)
			f->node_down = true;
		else
			f->pair_down = true;
		if (ev->down_ms && model->pending_up_count < SCI_FAULT_RULES_MAX) {
			model->pending_up[model->pending_up_count].node = l->dst;
			model->pending_up[model->pending_up_count].peer = ev->src;
			model->pending_up[model->pending_up_count].up_at_ms = now_ms() + ev->down_ms;
			model->pending_up_count++;
			arm_timer_locked(model);
		}
	}
}

enum sci_fault_verdict xrma_prov_sci_fault_draw(struct hostfab_ep *ep, uint32_t node, uint64_t n,
						 uint64_t *at)
{
	struct sci_model *model = sci_model_of(ep);
	enum sci_fault_verdict verdict = SCI_PASS;
	struct sci_fired fired = { false, false, false };
	struct sci_link *l;

	if (!model->faults.rule_count && !model->faults.event_count)
		return SCI_PASS;
	pthread_mutex_lock(&model->lock);
	l = link_get_locked(ep, node);
	if (!l) {
		pthread_mutex_unlock(&model->lock);
		return SCI_PASS;
	}
	fire_events_locked(model, ep->self.node, l, n, &fired);
	if (l->lost) {
		verdict = SCI_NODE_LOST;
		*at = 0;
	}
	for (uint64_t i = 0; verdict == SCI_PASS && l->threshold && i < n; i++) {
		if (splitmix64(&l->prng) >= l->threshold)
			continue;
		*at = i;
		verdict = splitmix64(&l->prng) < threshold_of(model->faults.fatal_share) ? SCI_FATAL
											 : SCI_RETRIABLE;
	}
	l->sent += n;
	pthread_mutex_unlock(&model->lock);
	if (fired.lost)
		kill_node(ep, node);
	if (fired.node_down)
		(void)hostfab_link_set(ep, node, false);
	if (fired.pair_down)
		(void)xrma_prov_sci_link_pair_set(ep, ep->self.node, node, false);
	return verdict;
}

void xrma_prov_sci_fault_progress(struct hostfab_ep *ep)
{
	struct sci_model *model = sci_model_of(ep);
	struct { uint32_t node, peer; } up[SCI_FAULT_RULES_MAX];
	size_t count = 0, keep = 0;
	uint64_t expirations, now = now_ms();

	if (read(model->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&model->lock);
	for (size_t i = 0; i < model->pending_up_count; i++) {
		if (model->pending_up[i].up_at_ms <= now) {
			up[count].node = model->pending_up[i].node;
			up[count++].peer = model->pending_up[i].peer;
		} else
			model->pending_up[keep++] = model->pending_up[i];
	}
	model->pending_up_count = keep;
	arm_timer_locked(model);
	pthread_mutex_unlock(&model->lock);
	for (size_t i = 0; i < count; i++) {
		if (up[i].peer == SCI_ANY_NODE)
			(void)hostfab_link_set(ep, up[i].node, true);
		else
			(void)xrma_prov_sci_link_pair_set(ep, up[i].peer, up[i].node, true);
	}
}

bool xrma_prov_sci_fault_lost(struct hostfab_ep *ep, uint32_t node)
{
	struct sci_model *model = sci_model_of(ep);
	bool lost = false;

	if (!model->faults.event_count)
		return false;
	pthread_mutex_lock(&model->lock);
	for (struct sci_link *l = model->links; l; l = l->next)
		if (l->dst == node)
			lost = l->lost;
	pthread_mutex_unlock(&model->lock);
	return lost;
}

void xrma_prov_sci_fault_release(struct sci_model *model)
{
	struct sci_link *l;

	while ((l = model->links)) {
		model->links = l->next;
		free(l);
	}
}
