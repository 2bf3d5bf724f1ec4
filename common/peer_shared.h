/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * common/peer_shared.h: marks code that touches memory peers reach with no lock of ours.
 *
 * Some exported memory is read or written by peers at any time and ordered by a protocol
 * of its own (the SCIF window table's sequence lock, its completion slots, the sequence
 * box), or by a message between processes. Where peers share the mapping, they are other
 * processes. Where a provider moves the bytes itself (ofi: libfabric copies to and from
 * the registered buffer in its progress thread, as a DMA engine would; pximc: a segment's
 * contents moved into the window when an importer pairs), ThreadSanitizer sees that copy
 * as a plain access by another thread of this process, racing with our atomics or with
 * the owner's stores that the protocol orders. Such code is left out of its view between
 * XRMA_PEER_SHARED_BEGIN and _END, and so are the tests' checks of memory peers wrote
 * (tests/helpers/fixture.h). Elsewhere they are empty.
 */
#ifndef XRMA_COMMON_PEER_SHARED_H
#define XRMA_COMMON_PEER_SHARED_H

#if defined(__SANITIZE_THREAD__)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#define XRMA_PEER_SHARED_BEGIN() __tsan_ignore_thread_begin()
#define XRMA_PEER_SHARED_END() __tsan_ignore_thread_end()
#else
#define XRMA_PEER_SHARED_BEGIN() ((void)0)
#define XRMA_PEER_SHARED_END() ((void)0)
#endif

#endif
