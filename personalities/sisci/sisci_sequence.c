/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * personalities/sisci/sisci_sequence.c: sequences, the error check of PIO
 * (spec §2.3, digest §5.6), and the barriers. A sequence on a remote map
 * remembers how many faults (SCI_CB_LOST, SCI_CB_NOT_OPERATIONAL) and
 * transaction errors (xrma_rseg_errors) its remote segment had when it was
 * started. A check fails NOT_RETRIABLE when the segment is not usable now, had
 * a fault or a fatal transaction error since, until SCIStartSequence finds it
 * usable again; it is RETRIABLE when retriable transaction errors happened
 * since the previous check (each check is a check point of the mapped
 * accesses, and a RETRIABLE answer consumes the errors it reports).
 * *error carries the reason whenever the status is not OK.
 * A sequence on a local map always succeeds. Barriers are CPU fences: stores to
 * a mapping are plain stores into shared memory on every provider with maps.
 * Writes are posted, so their errors show up later: SCIStoreBarrier (unless
 * it only flushes CPU buffers) is a check point too and answers
 * SCI_ERR_TRANSFER_FAILED when transaction errors happened on the segment
 * since the sequence's previous barrier or check; the next SCICheckSequence
 * still reports them as RETRIABLE or NOT_RETRIABLE. On a broadcast map each
 * of these (and SCIFlush) also pushes the map's stores to every member.
 */
#include "personalities/sisci/sisci.h"

#include <stdlib.h>
#include "common/errno_keep.h"

struct xrma_sisci_seq {
	struct xrma_sisci_obj obj;
	struct xrma_sisci_map *map;     /* entered until the sequence is destroyed */
	pthread_mutex_t lock;           /* guards the baselines below */
	unsigned long faults_seen;
	struct xrma_rseg_errors errors_seen;    /* of checks: since the start, the last check */
	struct xrma_rseg_errors barrier_seen;   /* of store barriers: the last barrier or check */
};

static bool errors_grew(const struct xrma_rseg_errors *now, const struct xrma_rseg_errors *then)
{
	return now->retriable != then->retriable || now->fatal != then->fatal;
}

static void seq_destroy(struct xrma_sisci_obj *obj)
{
	struct xrma_sisci_seq *s = (struct xrma_sisci_seq *)obj;

	/* Only here: a call still inside the removed sequence still uses the map. */
	if (s->map)
		xrma_sisci_map_leave(s->map);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void SCICreateMapSequence(sci_map_t map, sci_sequence_t *sequence, unsigned int flags,
			  sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_map *m = xrma_sisci_map_enter(map);
	struct xrma_sisci_seq *s = NULL;
	sci_error_t err;

	if (!m) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	/* FAST_BARRIER: every barrier here is already the fastest (a fence); never exhausted. */
	err = xrma_sisci_flags(flags, SCI_FLAG_FAST_BARRIER, 0);
	if (err == SCI_ERR_OK && !sequence)
		err = SCI_ERR_ILLEGAL_PARAMETER;
	if (err == SCI_ERR_OK && !(s = calloc(1, sizeof(*s))))
		err = SCI_ERR_NOSPC;
	if (err == SCI_ERR_OK) {
		s->map = m; /* the sequence holds the use from here on */
		pthread_mutex_init(&s->lock, NULL);
		/* Errors from before the sequence existed are none of its business. */
		if (m->rseg) {
			xrma_sisci_rseg_errors(m->rseg, 0, &s->errors_seen);
			s->barrier_seen = s->errors_seen;
		}
		err = xrma_sisci_obj_publish(&s->obj, XRMA_SISCI_SEQ, seq_destroy);
		if (err == SCI_ERR_OK)
			*sequence = s->obj.handle;
		else
			seq_destroy(&s->obj);
	} else {
		xrma_sisci_map_leave(m);
	}
	xrma_sisci_set(error, err);
}

void SCIRemoveSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_seq *s = XRMA_SISCI_GET(sequence, XRMA_SISCI_SEQ, struct xrma_sisci_seq);
	sci_error_t err;

	if (!s) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, 0, 0);
	/* The map is released when the last call inside the sequence has left (seq_destroy). */
	if (err == SCI_ERR_OK)
		(void)xrma_sisci_obj_kill(&s->obj);
	xrma_sisci_obj_put(&s->obj);
	xrma_sisci_set(error, err);
}

/* The status of s now; with start, a usable segment also restarts the counts. */
static sci_sequence_status_t seq_status(struct xrma_sisci_seq *s, bool start, sci_error_t *err)
{
	struct xrma_sisci_rseg *r = s->map->rseg;
	sci_sequence_status_t status = SCI_SEQ_OK;
	struct xrma_rseg_errors errors;
	unsigned long faults;
	bool usable, transaction = false;

	*err = SCI_ERR_OK;
	if (!r)
		return SCI_SEQ_OK;
	xrma_sisci_rseg_health(r, &usable, &faults);
	xrma_sisci_rseg_errors(r, start ? 0 : XRMA_RSEG_ERRORS_MAPPED, &errors);
	pthread_mutex_lock(&s->lock);
	/* A check's implicit store barrier reports what a barrier would have. */
	if (!start)
		s->barrier_seen = errors;
	if (start && usable) {
		s->faults_seen = faults;
		s->errors_seen = errors;
		s->barrier_seen = errors;
	} else if (start) {
		status = SCI_SEQ_PENDING;
	} else if (!usable || faults != s->faults_seen) {
		status = SCI_SEQ_NOT_RETRIABLE;
	} else if (errors.fatal != s->errors_seen.fatal) {
		status = SCI_SEQ_NOT_RETRIABLE;
		transaction = true;
	} else if (errors.retriable != s->errors_seen.retriable) {
		status = SCI_SEQ_RETRIABLE;
		transaction = true;
		s->errors_seen.retriable = errors.retriable;
	}
	pthread_mutex_unlock(&s->lock);
	if (transaction)
		*err = SCI_ERR_TRANSFER_FAILED;
	else if (status != SCI_SEQ_OK)
		*err = usable ? SCI_ERR_NO_REMOTE_LINK_ACCESS : SCI_ERR_NOT_CONNECTED;
	return status;
}

/* Start (start) or check: the status, or failed with *error for a bad handle or flag. */
static sci_sequence_status_t seq_call(sci_sequence_t sequence, unsigned int flags, unsigned int accepted,
				      bool start, sci_error_t *error)
{
	struct xrma_sisci_seq *s = XRMA_SISCI_GET(sequence, XRMA_SISCI_SEQ, struct xrma_sisci_seq);
	sci_sequence_status_t status = start ? SCI_SEQ_PENDING : SCI_SEQ_NOT_RETRIABLE;
	sci_error_t err = SCI_ERR_ILLEGAL_PARAMETER;

	if (s) {
		err = xrma_sisci_flags(flags, accepted, 0);
		/* A check makes earlier stores visible first, unless both flags waive it. */
		if (err == SCI_ERR_OK && !start &&
		    (flags & (SCI_FLAG_NO_FLUSH | SCI_FLAG_NO_STORE_BARRIER)) !=
			    (SCI_FLAG_NO_FLUSH | SCI_FLAG_NO_STORE_BARRIER)) {
			xrma_sisci_barrier();
			(void)xrma_sisci_map_push(s->map);   /* a lost member fails the check below */
		}
		if (err == SCI_ERR_OK)
			status = seq_status(s, start, &err);
		xrma_sisci_obj_put(&s->obj);
	}
	xrma_sisci_set(error, err);
	return status;
}

sci_sequence_status_t SCIStartSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	return seq_call(sequence, flags, 0, true, error);
}

sci_sequence_status_t SCICheckSequence(sci_sequence_t sequence, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	sci_sequence_status_t status =
		seq_call(sequence, flags, SCI_FLAG_NO_FLUSH | SCI_FLAG_NO_STORE_BARRIER, false, error);

	XRMA_KILL_POINT("sisci.sequence.after_check");
	return status;
}

void SCIFlushReadBuffers(sci_sequence_t sequence)
{
	XRMA_ERRNO_KEEP(NULL);
	(void)sequence;
	xrma_sisci_barrier();
}

void SCIStoreBarrier(sci_sequence_t sequence, unsigned int flags, sci_error_t *error)
{
	XRMA_ERRNO_KEEP(NULL);
	struct xrma_sisci_seq *s = XRMA_SISCI_GET(sequence, XRMA_SISCI_SEQ, struct xrma_sisci_seq);
	sci_error_t err;

	if (!s) {
		xrma_sisci_set(error, SCI_ERR_ILLEGAL_PARAMETER);
		return;
	}
	err = xrma_sisci_flags(flags, SCI_FLAG_FLUSH_CPU_BUFFERS_ONLY, 0);
	if (err == SCI_ERR_OK)
		xrma_sisci_barrier();
	/* A group member lost: the stores reached the others only, as a posted write to a lost node fails. */
	if (err == SCI_ERR_OK && xrma_sisci_map_push(s->map) != SCI_ERR_OK)
		err = SCI_ERR_TRANSFER_FAILED;
	/* Writes are posted: their errors come back now, for the stores since the last
	 * barrier (a check point) and any transfer to the segment that failed since. */
	if (err == SCI_ERR_OK && s->map->rseg && !(flags & SCI_FLAG_FLUSH_CPU_BUFFERS_ONLY)) {
		struct xrma_rseg_errors errors;

		xrma_sisci_rseg_errors(s->map->rseg, XRMA_RSEG_ERRORS_MAPPED, &errors);
		pthread_mutex_lock(&s->lock);
		if (errors_grew(&errors, &s->barrier_seen))
			err = SCI_ERR_TRANSFER_FAILED;
		s->barrier_seen = errors;
		pthread_mutex_unlock(&s->lock);
	}
	xrma_sisci_obj_put(&s->obj);
	xrma_sisci_set(error, err);
}

void SCIFlush(sci_sequence_t sequence, unsigned int flags)
{
	XRMA_ERRNO_KEEP(NULL);
	/* No error channel: a NULL sequence (Dolphin's NO_SEQUENCE) still fences. */
	struct xrma_sisci_seq *s = sequence ? XRMA_SISCI_GET(sequence, XRMA_SISCI_SEQ, struct xrma_sisci_seq)
					    : NULL;

	(void)flags;
	xrma_sisci_barrier();
	if (s) {
		(void)xrma_sisci_map_push(s->map);
		xrma_sisci_obj_put(&s->obj);
	}
}
