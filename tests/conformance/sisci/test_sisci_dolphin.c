/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/conformance/sisci/test_sisci_dolphin.c: the header items of Dolphin's
 * later SISCI that real programs use (docs/sisci.md, "Dolphin's header
 * items"): query typedefs, dis_types.h, broadcast group ids, the error codes
 * and their texts, the segment and BDF queries answered from bus addresses
 * and the hwloc topology (tests/unit/topo_devices.xml), SetSciMemCopyFunction
 * honoured by SCIMemCpy and SCIMemCopy, SCIAttachPhysicalMemory (by bus
 * address, by CPU address, CUDA refused) and the DMA flags SCI_FLAG_DMA_GLOBAL
 * and SCI_FLAG_DMA_SOURCE_ONLY. On providers without bus addresses the
 * address checks expect SCI_ERR_NOT_SUPPORTED and a detail sentence instead.
 * The last tests run the owner in another process: of attached memory, and
 * of a segment whose bus address the importer reads by SCIQuery.
 */
#include "tests/conformance/sisci/sisci_test.h"
#include "tests/helpers/proc.h"

#include <dis_types.h>
#include <dis/dis_types.h>

#define SEG_SIZE 65536u
#define OWNER_NODE sisci_node(1)
#define DEVICE_ID 300u
#define ATTACHED_ID 301u
#define IOADDR_ID 302u
#define STORED 0x5107edu

static sci_desc_t sd1, sd2;
static char fabric[XRMA_NAME_MAX];

static int group_up(void **state)
{
	(void)state;
	sd1 = sisci_test_open(sisci_node(1));
	sd2 = sisci_test_open(sisci_node(2));
	return 0;
}

static int group_down(void **state)
{
	(void)state;
	sisci_test_close(sd1);
	sisci_test_close(sd2);
	return 0;
}

static bool has_bus(void)
{
	return sisci_test_provider_has(XRMA_CAP_BUS_ADDR | XRMA_CAP_BUS_IMPORT | XRMA_CAP_MAP);
}

static void assert_detail_given(void)
{
	assert_true(strlen(xrma_error_detail()) > 0);
}

/* ------------------------------------------------------------ types and codes */

static void test_dolphin_types_compile_with_dolphin_names(void **state)
{
	sci_query_string_t s = { .str = NULL, .length = 0 };
	sci_query_adapter_t a = { .localAdapterNo = 0, .portNo = 0, .subcommand = 0, .data = NULL };
	sci_query_local_segment_t l = { .segment = NULL, .subcommand = SCI_Q_LOCAL_SEGMENT_IOADDR };
	sci_query_remote_segment_t r = { .segment = NULL, .subcommand = SCI_Q_REMOTE_SEGMENT_IOADDR };
	const unsigned int groups[] = { DIS_BROADCAST_NODEID_GROUP_ALL, DIS_BROADCAST_NODEID_GROUP_1,
					DIS_BROADCAST_NODEID_GROUP_2, DIS_BROADCAST_NODEID_GROUP_3 };

	(void)state;
	(void)s;
	(void)a;
	assert_int_equal(sizeof(sci_ioaddr_t), 8);
	assert_int_equal(sizeof(l.data.ioaddr), 8);
	assert_int_equal(sizeof(r.data.ioaddr), 8);
	assert_int_equal(sizeof(unsigned8), 1);
	assert_int_equal(sizeof(unsigned16), 2);
	assert_int_equal(sizeof(unsigned32), 4);
	assert_int_equal(sizeof(unsigned64), 8);
	assert_int_equal(sizeof(signed64), 8);
	assert_true((signed8)-1 < 0);
	assert_int_equal(DIS_MAX_NSCIS, 8);
	assert_int_equal(DIS_BROADCAST_NODEID_GROUP_ALL, 252);
	for (size_t i = 0; i < 4; i++)
		for (size_t j = i + 1; j < 4; j++)
			assert_int_not_equal(groups[i], groups[j]);
	assert_int_not_equal(SCI_Q_LOCAL_SEGMENT, SCI_Q_ADAPTER);
	assert_int_not_equal(SCI_Q_REMOTE_SEGMENT, SCI_Q_LOCAL_SEGMENT);
	assert_int_not_equal(SCI_Q_LOCAL_SEGMENT_IOADDR, SCI_Q_LOCAL_SEGMENT_PHYS_ADDR);
}

static void test_dolphin_error_codes_have_values_and_texts(void **state)
{
	static const sci_error_t added[] = {
		SCI_ERR_NOT_SUPPORTED, SCI_ERR_DEPRECATED, SCI_ERR_EWOULD_BLOCK,
		SCI_ERR_SEMAPHORE_COUNT_EXCEEDED, SCI_ERR_IRQL_ILLEGAL, SCI_ERR_LOCAL_BUSY,
		SCI_ERR_ALL_BUSY, SCI_ERR_DMA_NOT_AVAILABLE, SCI_ERR_DMA_DISABLED,
	};
	static const sci_error_t older[] = {
		SCI_ERR_OK, SCI_ERR_BUSY, SCI_ERR_FLAG_NOT_IMPLEMENTED, SCI_ERR_ILLEGAL_FLAG,
		SCI_ERR_NOSPC, SCI_ERR_API_NOSPC, SCI_ERR_HW_NOSPC, SCI_ERR_NOT_IMPLEMENTED,
		SCI_ERR_ILLEGAL_ADAPTERNO, SCI_ERR_NO_SUCH_ADAPTERNO, SCI_ERR_TIMEOUT,
		SCI_ERR_OUT_OF_RANGE, SCI_ERR_NO_SUCH_SEGMENT, SCI_ERR_ILLEGAL_NODEID,
		SCI_ERR_CONNECTION_REFUSED, SCI_ERR_SEGMENT_NOT_CONNECTED, SCI_ERR_SIZE_ALIGNMENT,
		SCI_ERR_OFFSET_ALIGNMENT, SCI_ERR_ILLEGAL_PARAMETER, SCI_ERR_MAX_ENTRIES,
		SCI_ERR_SEGMENT_NOT_PREPARED, SCI_ERR_ILLEGAL_ADDRESS, SCI_ERR_ILLEGAL_OPERATION,
		SCI_ERR_ILLEGAL_QUERY, SCI_ERR_SEGMENTID_USED, SCI_ERR_SYSTEM, SCI_ERR_CANCELLED,
		SCI_ERR_NOT_CONNECTED, SCI_ERR_NOT_AVAILABLE, SCI_ERR_INCONSISTENT_VERSIONS,
		SCI_ERR_COND_INT_RACE_PROBLEM, SCI_ERR_OVERFLOW, SCI_ERR_NOT_INITIALIZED,
		SCI_ERR_ACCESS, SCI_ERR_INTNO_USED, SCI_ERR_NO_SUCH_INTNO, SCI_ERR_NO_SUCH_NODEID,
		SCI_ERR_NODE_NOT_RESPONDING, SCI_ERR_NO_REMOTE_LINK_ACCESS, SCI_ERR_NO_LINK_ACCESS,
		SCI_ERR_TRANSFER_FAILED,
	};
	const size_t n = sizeof(added) / sizeof(added[0]);

	(void)state;
	/* Values programs built against Dolphin's header compare raw. */
	assert_int_equal(SCI_ERR_NOT_SUPPORTED, 0x40000922);
	assert_int_equal(SCI_ERR_DEPRECATED, 0x40000923);
	assert_int_equal(SCI_ERR_DMA_NOT_AVAILABLE, 0x40000924);
	assert_int_equal(SCI_ERR_DMA_DISABLED, 0x40000925);
	assert_int_equal(SCI_ERR_EWOULD_BLOCK, 0x40000B00);
	assert_int_equal(SCI_ERR_REMOTE_BUSY, SCI_ERR_EWOULD_BLOCK);
	for (size_t i = 0; i < n; i++) {
		assert_true(added[i] & SCI_ERR_MASK);
		assert_string_not_equal(SCIGetErrorString(added[i]), "unknown SISCI error");
		for (size_t j = i + 1; j < n; j++) {
			assert_int_not_equal(added[i], added[j]);
			assert_string_not_equal(SCIGetErrorString(added[i]), SCIGetErrorString(added[j]));
		}
		for (size_t j = 0; j < sizeof(older) / sizeof(older[0]); j++)
			assert_int_not_equal(added[i], older[j]);
	}
	assert_string_not_equal(SCIGetErrorString(SCI_ERR_REMOTE_BUSY), "unknown SISCI error");
}

/* ------------------------------------------------------------ queries */

static sci_error_t query_local(sci_local_segment_t seg, unsigned int sub, sci_ioaddr_t *addr)
{
	sci_query_local_segment_t q = { .segment = seg, .subcommand = sub };
	sci_error_t err;

	q.data.ioaddr = 0xdeadull;
	xrma_error_detail_clear();
	SCIQuery(SCI_Q_LOCAL_SEGMENT, &q, 0, &err);
	*addr = q.data.ioaddr;
	return err;
}

static sci_error_t query_remote(sci_remote_segment_t seg, sci_ioaddr_t *addr)
{
	sci_query_remote_segment_t q = { .segment = seg, .subcommand = SCI_Q_REMOTE_SEGMENT_IOADDR };
	sci_error_t err;

	q.data.ioaddr = 0xdeadull;
	xrma_error_detail_clear();
	SCIQuery(SCI_Q_REMOTE_SEGMENT, &q, 0, &err);
	*addr = q.data.ioaddr;
	return err;
}

static sci_address_t sci_space_of(unsigned int node, sci_ioaddr_t bus)
{
	sci_address_t a = { (unsigned int)(bus >> 16), (unsigned short)(bus & 0xffff),
			    (unsigned short)node };

	return a;
}

static void test_query_local_segment_bus_address(void **state)
{
	sci_local_segment_t seg, other, priv, stale;
	sci_ioaddr_t io = 0, phys = 0, io2 = 0, v;
	sci_error_t err;

	(void)state;
	SCICreateSegment(sd1, &seg, 200, SEG_SIZE, NULL, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	if (!sisci_test_provider_has(XRMA_CAP_BUS_ADDR)) {
		assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_NOT_SUPPORTED);
		assert_detail_given();
		assert_true(v == 0xdeadull);
		sisci_test_remove(seg);
		return;
	}
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_SEGMENT_NOT_PREPARED);
	SCIPrepareSegment(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Prepared is enough (Dolphin's order: prepare, query, then make available). */
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &io), SCI_ERR_OK);
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_PHYS_ADDR, &phys), SCI_ERR_OK);
	assert_true(io != 0 && io != 0xdeadull);
	assert_true(io == phys);
	/* Having an address does not let importers in yet. */
	{
		sci_remote_segment_t r;

		SCIConnectSegment(sd2, &r, sisci_node(1), 200, 0, NULL, NULL, 100, 0, &err);
		assert_sci(err, SCI_ERR_NO_SUCH_SEGMENT);
	}
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	/* Making it available keeps the address. */
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_OK);
	assert_true(v == io);
	other = sisci_test_segment(sd1, 201, SEG_SIZE);
	assert_sci(query_local(other, SCI_Q_LOCAL_SEGMENT_IOADDR, &io2), SCI_ERR_OK);
	/* Two segments never overlap in the node's bus space. */
	assert_true(io2 >= io + SEG_SIZE || io >= io2 + SEG_SIZE);
	SCICreateSegment(sd1, &priv, 0, SEG_SIZE, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	SCIPrepareSegment(priv, 0, 0, &err);
	assert_sci(query_local(priv, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_NOT_AVAILABLE);
	/* Bad input changes nothing. */
	assert_sci(query_local(seg, 99, &v), SCI_ERR_ILLEGAL_QUERY);
	assert_true(v == 0xdeadull);
	SCIQuery(SCI_Q_LOCAL_SEGMENT, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	sisci_test_remove(priv);
	stale = other;
	sisci_test_remove(other);
	assert_sci(query_local(stale, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_ILLEGAL_PARAMETER);
	assert_sci(query_local((sci_local_segment_t)sd1, SCI_Q_LOCAL_SEGMENT_IOADDR, &v),
		   SCI_ERR_ILLEGAL_PARAMETER);
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_OK);
	assert_true(v == io);
	sisci_test_remove(seg);
}

static void test_query_remote_segment_bus_address(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 210, SEG_SIZE);
	sci_remote_segment_t by_id, by_space;
	sci_ioaddr_t io = 0, v;
	sci_error_t err;

	(void)state;
	by_id = sisci_test_connect(sd2, sisci_node(1), 210);
	if (!sisci_test_provider_has(XRMA_CAP_BUS_ADDR)) {
		assert_sci(query_remote(by_id, &v), SCI_ERR_NOT_SUPPORTED);
		assert_detail_given();
		goto out;
	}
	/* By id the owner's answer told the address; by address it is the one used. */
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &io), SCI_ERR_OK);
	assert_sci(query_remote(by_id, &v), SCI_ERR_OK);
	assert_true(v == io);
	/* sci_address_t holds 48 bits of address: ntb's windows lie above, sci's fit. */
	if (io >> 48)
		goto out;
	SCIConnectSCISpace(sd2, &by_space, sci_space_of(sisci_node(1), io), SEG_SIZE, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_sci(query_remote(by_space, &v), SCI_ERR_OK);
	assert_true(v == io);
	assert_sci(query_remote((sci_remote_segment_t)seg, &v), SCI_ERR_ILLEGAL_PARAMETER);
	{
		sci_query_remote_segment_t q = { .segment = by_space, .subcommand = 7 };

		SCIQuery(SCI_Q_REMOTE_SEGMENT, &q, 0, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_QUERY);
	}
	sisci_test_disconnect(by_space);
out:
	sisci_test_disconnect(by_id);
	sisci_test_remove(seg);
}

static sci_error_t query_system(unsigned int sub, unsigned int *out)
{
	sci_query_system_t q = { .subcommand = sub, .data = out };
	sci_error_t err;

	*out = 0xdeadu;
	SCIQuery(SCI_Q_SYSTEM, &q, 0, &err);
	return err;
}

static void test_query_system_answers_for_the_provider(void **state)
{
	const bool maps = sisci_test_provider_has(XRMA_CAP_MAP);
	sci_query_system_t no_data = { .subcommand = SCI_Q_SYSTEM_HOSTBRIDGE, .data = NULL };
	unsigned int v;
	sci_error_t err;

	(void)state;
	assert_sci(query_system(SCI_Q_SYSTEM_HOSTBRIDGE, &v), SCI_ERR_OK);
	assert_int_equal(v, HOSTBRIDGE_UNKNOWN);
	assert_int_not_equal(HOSTBRIDGE_UNKNOWN, HOSTBRIDGE_NOT_AVAILABLE);
	/* Stores through a map are posted and combined exactly where there are maps. */
	assert_sci(query_system(SCI_Q_SYSTEM_WRITE_POSTING_ENABLED, &v), SCI_ERR_OK);
	assert_int_equal(v, maps ? HOSTBRIDGE_WRITE_POSTING_ENABLED : HOSTBRIDGE_WRITE_POSTING_DISABLED);
	assert_sci(query_system(SCI_Q_SYSTEM_WRITE_COMBINING_ENABLED, &v), SCI_ERR_OK);
	assert_int_equal(v, maps ? 1u : 0u);
	assert_sci(query_system(SCI_Q_SYSTEM_CPU_CACHE_LINE_SIZE, &v), SCI_ERR_OK);
	assert_true(v >= 16 && (v & (v - 1)) == 0);
	/* Bad input changes nothing. */
	assert_sci(query_system(99, &v), SCI_ERR_ILLEGAL_QUERY);
	assert_int_equal(v, 0xdeadu);
	SCIQuery(SCI_Q_SYSTEM, &no_data, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIQuery(SCI_Q_SYSTEM, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIQuery(SCI_Q_SYSTEM, &no_data, 1, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
}

static sci_error_t query_map(sci_map_t map, unsigned int sub, unsigned int *out)
{
	sci_query_map_t q = { .map = map, .subcommand = sub, .data = 0xdeadu };
	sci_error_t err;

	SCIQuery(SCI_Q_MAP, &q, 0, &err);
	*out = q.data;
	return err;
}

static void test_query_map_tells_local_memory_apart(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 270, SEG_SIZE);
	sci_remote_segment_t far, self;
	sci_map_t lmap, fmap, smap, stale;
	unsigned int v;
	sci_error_t err;

	(void)state;
	(void)SCIMapLocalSegment(seg, &lmap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_sci(query_map(lmap, SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET, &v), SCI_ERR_OK);
	assert_int_equal(v, 1);
	/* The remote-only form refuses a local map and writes nothing. */
	assert_sci(query_map(lmap, SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET, &v),
		   SCI_ERR_ILLEGAL_PARAMETER);
	assert_int_equal(v, 0xdeadu);
	assert_sci(query_map(lmap, 42, &v), SCI_ERR_ILLEGAL_QUERY);
	assert_int_equal(v, 0xdeadu);
	SCIUnmapSegment(lmap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	stale = lmap;
	assert_sci(query_map(stale, SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET, &v), SCI_ERR_ILLEGAL_PARAMETER);
	assert_sci(query_map((sci_map_t)seg, SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET, &v),
		   SCI_ERR_ILLEGAL_PARAMETER);
	SCIQuery(SCI_Q_MAP, NULL, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	if (!sisci_test_provider_has(XRMA_CAP_MAP)) {
		sisci_test_remove(seg);
		return;
	}
	/* Another node's segment is not local; one's own, connected to, is. */
	far = sisci_test_connect(sd2, sisci_node(1), 270);
	self = sisci_test_connect(sd1, sisci_node(1), 270);
	(void)SCIMapRemoteSegment(far, &fmap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	(void)SCIMapRemoteSegment(self, &smap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_sci(query_map(fmap, SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET, &v), SCI_ERR_OK);
	assert_int_equal(v, 0);
	assert_sci(query_map(fmap, SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET, &v), SCI_ERR_OK);
	assert_int_equal(v, 0);
	assert_sci(query_map(smap, SCI_Q_MAP_MAPPED_TO_LOCAL_TARGET, &v), SCI_ERR_OK);
	assert_int_equal(v, 1);
	assert_sci(query_map(smap, SCI_Q_MAP_QUERY_REMOTE_MAPPED_TO_LOCAL_TARGET, &v), SCI_ERR_OK);
	assert_int_equal(v, 1);
	SCIUnmapSegment(fmap, 0, &err);
	SCIUnmapSegment(smap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(far);
	sisci_test_disconnect(self);
	sisci_test_remove(seg);
}

/* Adapter 0 of a node no descriptor holds, so that it opens with the adapter chosen now. */
static sci_error_t query_bdf(const char *adapter, unsigned int node, unsigned short *bdf)
{
	sci_query_adapter_t q = { .localAdapterNo = 0, .subcommand = SCI_Q_ADAPTER_BDF, .data = bdf };
	sci_error_t err;

	setenv("XRMA_ADAPTER", adapter, 1);
	sisci_test_setenv_node("XRMA_NODE_ID", node);
	xrma_error_detail_clear();
	SCIQuery(SCI_Q_ADAPTER, &q, 0, &err);
	return err;
}

/* The topology file holds an NTB at 0000:5e:00.0 and a Dolphin card at 0000:17:00.0. */
static void test_query_adapter_bdf_from_topology(void **state)
{
	unsigned short bdf[2] = { 0xbeef, 0xbeef };

	(void)state;
	assert_sci(query_bdf("ntb0", 5, &bdf[0]), SCI_ERR_OK);
	assert_int_equal(bdf[0], 0x5e00);
	assert_int_equal(bdf[1], 0xbeef); /* an unsigned short is written, nothing more */
	assert_sci(query_bdf("dolphin0", 6, &bdf[0]), SCI_ERR_OK);
	assert_int_equal(bdf[0], 0x1700);
	bdf[0] = 0xbeef;
	assert_sci(query_bdf("host", 7, &bdf[0]), SCI_ERR_NOT_SUPPORTED);
	assert_detail_given();
	assert_int_equal(bdf[0], 0xbeef);
	unsetenv("XRMA_ADAPTER");
	sisci_test_setenv_node("XRMA_NODE_ID", 2);
}

/* ------------------------------------------------------------ SCIMemCpy's routine */

static void test_memcopy_function_chosen_and_honoured(void **state)
{
	sci_local_segment_t seg = sisci_test_segment(sd1, 220, SEG_SIZE);
	sci_remote_segment_t r = sisci_test_connect(sd2, sisci_node(1), 220);
	unsigned char src[777], *local;
	sci_map_t rmap, lmap;
	sci_error_t err;

	(void)state;
	assert_int_equal(GetSciMemCopyFunction(), SCI_MEMCOPY_DEFAULT);
	(void)SCIMapRemoteSegment(r, &rmap, 0, SEG_SIZE, NULL, 0, &err);
	if (err == SCI_ERR_NOT_IMPLEMENTED)
		goto out; /* no load/store mapping (ofi): SCIMemCpy has nothing to copy into */
	assert_sci(err, SCI_ERR_OK);
	local = SCIMapLocalSegment(seg, &lmap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	for (unsigned int f = SCI_MEMCOPY_DEFAULT; f <= SCI_MEMCOPY_BLOCK64; f++) {
		/*
		 * Unaligned offsets and sizes: every routine must get the edges right. The
		 * offset is never 0, so the byte before it is inside the segment.
		 */
		size_t offset = 1000 * f + f + 1, size = sizeof(src) - f;

		SetSciMemCopyFunction(f);
		assert_int_equal(GetSciMemCopyFunction(), f);
		for (size_t i = 0; i < sizeof(src); i++)
			src[i] = (unsigned char)(i * 7 + f);
		memset(local, 0, SEG_SIZE);
		SCIMemCpy(NULL, src + (f & 1), rmap, offset, size, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_memory_equal(local + offset, src + (f & 1), size);
		assert_int_equal(local[offset - 1], 0);
		assert_int_equal(local[offset + size], 0);
		SCIMemCopy(src, rmap, 8, 64, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_memory_equal(local + 8, src, 64);
	}
	/* An unknown routine selects the default. */
	SetSciMemCopyFunction(1000);
	assert_int_equal(GetSciMemCopyFunction(), SCI_MEMCOPY_DEFAULT);
	SCIUnmapSegment(lmap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIUnmapSegment(rmap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
out:
	SetSciMemCopyFunction(SCI_MEMCOPY_DEFAULT);
	sisci_test_disconnect(r);
	sisci_test_remove(seg);
}

/* ------------------------------------------------------------ SCIAttachPhysicalMemory */

static sci_local_segment_t empty_segment(sci_desc_t sd, unsigned int id)
{
	sci_local_segment_t seg = NULL;
	sci_error_t err;

	SCICreateSegment(sd, &seg, id, SEG_SIZE, NULL, NULL, SCI_FLAG_EMPTY, &err);
	assert_sci(err, SCI_ERR_OK);
	return seg;
}

static void test_attach_refuses_bad_input_and_cuda(void **state)
{
	sci_local_segment_t seg = empty_segment(sd1, 230), full = sisci_test_segment(sd1, 231, 4096);
	static char buf[SEG_SIZE] __attribute__((aligned(4096)));
	sci_error_t err;

	(void)state;
	xrma_error_detail_clear();
	SCIAttachPhysicalMemory(0, buf, 0, SEG_SIZE, seg, SCI_FLAG_CUDA_BUFFER, &err);
	assert_sci(err, SCI_ERR_NOT_SUPPORTED);
	assert_non_null(strstr(xrma_error_detail(), "SCI_FLAG_CUDA_BUFFER"));
	SCIAttachPhysicalMemory(0, buf, 0, SEG_SIZE, seg, SCI_FLAG_BROADCAST, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIAttachPhysicalMemory(0, buf, 1, SEG_SIZE, seg, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	SCIAttachPhysicalMemory(0, NULL, 0, SEG_SIZE, seg, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_ADDRESS);
	SCIAttachPhysicalMemory(0, buf, 0, 0, seg, 0, &err);
	assert_sci(err, SCI_ERR_SIZE_ALIGNMENT);
	SCIAttachPhysicalMemory(0, buf, 0, 2 * SEG_SIZE, seg, 0, &err);
	assert_sci(err, SCI_ERR_OUT_OF_RANGE);
	SCIAttachPhysicalMemory(0, buf, 0, 4096, full, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	SCIAttachPhysicalMemory(0, buf, 0, 4096, (sci_local_segment_t)sd1, 0, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_PARAMETER);
	if (has_bus()) {
		/* Far beyond anything this node exports. */
		SCIAttachPhysicalMemory(0xfff000000000ull, NULL, 0, 4096, seg, 0, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_ADDRESS);
	} else {
		xrma_error_detail_clear();
		SCIAttachPhysicalMemory(0x100000ull, NULL, 0, 4096, seg, 0, &err);
		assert_sci(err, SCI_ERR_NOT_SUPPORTED);
		assert_detail_given();
	}
	/* Nothing changed: the segment still takes memory, once. */
	if (sisci_test_provider_has(XRMA_CAP_REGISTER)) {
		SCIAttachPhysicalMemory(0, buf, 0, SEG_SIZE, seg, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(SCIGetLocalSegmentSize(seg), SEG_SIZE);
		SCIAttachPhysicalMemory(0, buf, 0, SEG_SIZE, seg, 0, &err);
		assert_sci(err, SCI_ERR_ILLEGAL_OPERATION);
	}
	sisci_test_remove(seg);
	sisci_test_remove(full);
}

static void test_attach_by_cpu_address_shares_the_memory(void **state)
{
	static uint32_t buf[SEG_SIZE / 4] __attribute__((aligned(4096)));
	sci_local_segment_t seg = empty_segment(sd1, 240);
	sci_remote_segment_t r;
	sci_map_t map;
	volatile uint32_t *p;
	sci_error_t err;

	(void)state;
	if (!sisci_test_provider_has(XRMA_CAP_REGISTER)) {
		SCIAttachPhysicalMemory(0, buf, 0, SEG_SIZE, seg, 0, &err);
		assert_sci(err, SCI_ERR_NOT_IMPLEMENTED);
		sisci_test_remove(seg);
		return;
	}
	SCIAttachPhysicalMemory(0, buf, 0, SEG_SIZE, seg, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	r = sisci_test_connect(sd2, sisci_node(1), 240);
	p = SCIMapRemoteSegment(r, &map, 0, SEG_SIZE, NULL, 0, &err);
	if (err == SCI_ERR_OK) {
		p[3] = STORED;
		SCIUnmapSegment(map, 0, &err);
		assert_sci(err, SCI_ERR_OK);
		assert_int_equal(buf[3], STORED);
	}
	sisci_test_disconnect(r);
	sisci_test_remove(seg);
}

/* Store value at offset of r with a DMA from a private segment of sd. */
static void dma_store(sci_desc_t sd, sci_remote_segment_t r, size_t offset, uint32_t value)
{
	sci_local_segment_t src;
	sci_dma_queue_t dq;
	sci_map_t map;
	uint32_t *p;
	sci_error_t err;

	SCICreateSegment(sd, &src, 0, 4096, NULL, NULL, SCI_FLAG_PRIVATE, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(src, 0, 0, &err);
	p = SCIMapLocalSegment(src, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	p[0] = value;
	SCICreateDMAQueue(sd, &dq, 0, 1, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIStartDmaTransfer(dq, src, r, 0, sizeof(value), offset, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIRemoveDMAQueue(dq, 0, &err);
	SCIUnmapSegment(map, 0, &err);
	sisci_test_remove(src);
}

static void test_attach_by_bus_address_aliases_device_memory(void **state)
{
	sci_local_segment_t device = sisci_test_segment(sd1, 250, SEG_SIZE), seg;
	sci_remote_segment_t r;
	sci_map_t dmap, amap, rmap;
	volatile uint32_t *dev, *att, *rem;
	sci_ioaddr_t io = 0, v = 0;
	sci_error_t err;

	(void)state;
	if (!has_bus()) {
		sisci_test_remove(device);
		skip();
	}
	assert_sci(query_local(device, SCI_Q_LOCAL_SEGMENT_IOADDR, &io), SCI_ERR_OK);
	seg = empty_segment(sd1, 251);
	SCIAttachPhysicalMemory(io + 4096, NULL, 0, SEG_SIZE - 4096, seg, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	/* The segment is that memory: same bus address, same bytes. */
	assert_sci(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &v), SCI_ERR_OK);
	assert_true(v == io + 4096);
	assert_int_equal(SCIGetLocalSegmentSize(seg), SEG_SIZE - 4096);
	dev = SCIMapLocalSegment(device, &dmap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	att = SCIMapLocalSegment(seg, &amap, 0, SEG_SIZE - 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	att[0] = STORED;
	assert_int_equal(dev[1024], STORED);
	dev[1025] = STORED + 1;
	assert_int_equal(att[1], STORED + 1);
	/* Another node reaches it through the attached segment, by DMA (and map where it can). */
	SCIPrepareSegment(seg, 0, 0, &err);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	r = sisci_test_connect(sd2, sisci_node(1), 251);
	dma_store(sd2, r, 8, STORED + 2);
	assert_int_equal(dev[1026], STORED + 2);
	rem = SCIMapRemoteSegment(r, &rmap, 0, 4096, NULL, 0, &err);
	if (err == SCI_ERR_OK) {
		rem[3] = STORED + 3;
		assert_int_equal(dev[1027], STORED + 3);
		SCIUnmapSegment(rmap, 0, &err);
	} else {
		assert_sci(err, SCI_ERR_NOT_IMPLEMENTED); /* as registered memory on this provider */
	}
	sisci_test_disconnect(r);
	SCIUnmapSegment(amap, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIUnmapSegment(dmap, 0, &err);
	sisci_test_remove(seg);
	/* The attachment is gone with it: the device memory's segment goes too. */
	sisci_test_remove(device);
}

/* ------------------------------------------------------------ DMA flags */

static void test_dma_global_and_source_only_accepted(void **state)
{
	sci_local_segment_t dst = sisci_test_segment(sd1, 260, SEG_SIZE), src;
	sci_remote_segment_t r = sisci_test_connect(sd2, sisci_node(1), 260);
	sci_dma_queue_t dq;
	sci_map_t smap, dmap;
	unsigned char *s, *d;
	sci_error_t err;

	(void)state;
	SCICreateSegment(sd2, &src, 261, SEG_SIZE, NULL, NULL, SCI_FLAG_DMA_GLOBAL, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIPrepareSegment(src, 0, SCI_FLAG_DMA_GLOBAL, &err);
	assert_sci(err, SCI_ERR_ILLEGAL_FLAG);
	SCIPrepareSegment(src, 0, SCI_FLAG_DMA_SOURCE_ONLY, &err);
	assert_sci(err, SCI_ERR_OK);
	s = SCIMapLocalSegment(src, &smap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	memset(s, 0x3c, SEG_SIZE);
	SCICreateDMAQueue(sd2, &dq, 0, 1, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	SCIStartDmaTransfer(dq, src, r, 0, SEG_SIZE, 0, NULL, NULL, SCI_FLAG_DMA_WAIT, &err);
	assert_sci(err, SCI_ERR_OK);
	d = SCIMapLocalSegment(dst, &dmap, 0, SEG_SIZE, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_memory_equal(d, s, SEG_SIZE);
	SCIUnmapSegment(dmap, 0, &err);
	SCIUnmapSegment(smap, 0, &err);
	SCIRemoveDMAQueue(dq, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	sisci_test_disconnect(r);
	sisci_test_remove(src);
	sisci_test_remove(dst);
}

/* ------------------------------------------------------------ another process */

/* Child: device memory and a segment attached to it by bus address, both exported. */
static int owner_main(int sock, const char *arg)
{
	sci_local_segment_t device, seg;
	sci_desc_t sd;
	sci_map_t map;
	volatile uint32_t *dev;
	sci_ioaddr_t io = 0;
	sci_error_t err;
	uint64_t ok = 0;

	(void)arg;
	PROC_CHECK_EQ(sisci_child_owner(&sd, DEVICE_ID, SEG_SIZE, 0, &device), SCI_ERR_OK);
	PROC_CHECK_EQ(query_local(device, SCI_Q_LOCAL_SEGMENT_IOADDR, &io), SCI_ERR_OK);
	SCICreateSegment(sd, &seg, ATTACHED_ID, SEG_SIZE, NULL, NULL, SCI_FLAG_EMPTY, &err);
	SCIAttachPhysicalMemory(io, NULL, 0, SEG_SIZE, seg, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	dev = SCIMapLocalSegment(device, &map, 0, SEG_SIZE, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK(proc_send(sock, io) == 0);
	/* The importer stored through the attached segment: it is in the device memory. */
	PROC_CHECK(proc_recv(sock, &ok, 10000) == 0);
	PROC_CHECK_EQ(dev[5], STORED);
	PROC_CHECK(proc_send(sock, STORED) == 0);
	PROC_CHECK(proc_recv(sock, &ok, 10000) == 0);
	SCIUnmapSegment(map, 0, &err);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIRemoveSegment(device, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	return 0;
}

/*
 * Child: a segment whose bus address is asked for between SCIPrepareSegment and
 * SCISetSegmentAvailable, as programs that hand it to a device do; the
 * address goes to the parent, then the segment is made available.
 */
static int ioaddr_owner_main(int sock, const char *arg)
{
	sci_local_segment_t seg;
	sci_ioaddr_t io = 0, again = 0;
	sci_desc_t sd;
	sci_error_t err;
	uint64_t done = 0;

	(void)arg;
	SCIOpen(&sd, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCICreateSegment(sd, &seg, IOADDR_ID, SEG_SIZE, NULL, NULL, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIPrepareSegment(seg, 0, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK_EQ(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &io), SCI_ERR_OK);
	SCISetSegmentAvailable(seg, 0, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	PROC_CHECK_EQ(query_local(seg, SCI_Q_LOCAL_SEGMENT_IOADDR, &again), SCI_ERR_OK);
	PROC_CHECK(again == io);
	PROC_CHECK(proc_send(sock, io) == 0);
	PROC_CHECK(proc_recv(sock, &done, 10000) == 0);
	SCIRemoveSegment(seg, 0, &err);
	PROC_CHECK_EQ(err, SCI_ERR_OK);
	SCIClose(sd, 0, &err);
	return 0;
}

static const struct proc_role roles[] = {
	{ "owner", owner_main },
	{ "ioaddr_owner", ioaddr_owner_main },
	{ NULL, NULL },
};

static void test_remote_ioaddr_matches_the_owners_local_one(void **state)
{
	struct proc owner;
	sci_remote_segment_t r;
	sci_ioaddr_t v = 0;
	uint64_t io = 0;
	sci_desc_t sd;

	(void)state;
	if (!proc_provider_multiproc() || !sisci_test_provider_has(XRMA_CAP_BUS_ADDR))
		skip();
	sisci_test_spawn(&owner, fabric, OWNER_NODE, "ioaddr_owner", NULL, &io);
	sd = sisci_test_open(sisci_node(3));
	r = sisci_test_connect(sd, OWNER_NODE, IOADDR_ID);
	assert_sci(query_remote(r, &v), SCI_ERR_OK);
	assert_true(v == io);
	sisci_test_disconnect(r);
	/* Once disconnected the handle is stale: bad input, nothing written. */
	assert_sci(query_remote(r, &v), SCI_ERR_ILLEGAL_PARAMETER);
	assert_true(v == 0xdeadull);
	assert_int_equal(proc_send(owner.sock, 1), 0);
	assert_int_equal(proc_join(&owner, 10000), 0);
	sisci_test_close(sd);
}

static void test_attached_memory_of_another_process(void **state)
{
	struct proc owner;
	sci_remote_segment_t r, space;
	sci_map_t map;
	volatile uint32_t *p;
	sci_ioaddr_t v = 0;
	uint64_t io = 0, reply = 0;
	sci_desc_t sd;
	sci_error_t err;

	(void)state;
	if (!proc_provider_multiproc() || !has_bus())
		skip();
	sisci_test_spawn(&owner, fabric, OWNER_NODE, "owner", NULL, &io);
	sd = sisci_test_open(sisci_node(3));
	r = sisci_test_connect(sd, OWNER_NODE, ATTACHED_ID);
	dma_store(sd, r, 20, STORED);
	assert_int_equal(proc_send(owner.sock, 1), 0);
	assert_int_equal(proc_recv(owner.sock, &reply, 10000), 0);
	assert_int_equal(reply, STORED);
	/* The address the owner reported reaches the same memory by SCIConnectSCISpace. */
	if (io >> 48)
		goto out; /* beyond sci_address_t's 48 bits (ntb) */
	SCIConnectSCISpace(sd, &space, sci_space_of(OWNER_NODE, io), SEG_SIZE, 0, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_sci(query_remote(space, &v), SCI_ERR_OK);
	assert_true(v == io);
	p = SCIMapRemoteSegment(space, &map, 0, 4096, NULL, 0, &err);
	assert_sci(err, SCI_ERR_OK);
	assert_int_equal(p[5], STORED);
	SCIUnmapSegment(map, 0, &err);
	sisci_test_disconnect(space);
out:
	sisci_test_disconnect(r);
	assert_int_equal(proc_send(owner.sock, 2), 0);
	assert_int_equal(proc_join(&owner, 10000), 0);
	sisci_test_close(sd);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dolphin_types_compile_with_dolphin_names),
		cmocka_unit_test(test_dolphin_error_codes_have_values_and_texts),
		cmocka_unit_test(test_query_local_segment_bus_address),
		cmocka_unit_test(test_query_remote_segment_bus_address),
		cmocka_unit_test(test_query_adapter_bdf_from_topology),
		cmocka_unit_test(test_query_system_answers_for_the_provider),
		cmocka_unit_test(test_query_map_tells_local_memory_apart),
		cmocka_unit_test(test_memcopy_function_chosen_and_honoured),
		cmocka_unit_test(test_attach_refuses_bad_input_and_cuda),
		cmocka_unit_test(test_attach_by_cpu_address_shares_the_memory),
		cmocka_unit_test(test_attach_by_bus_address_aliases_device_memory),
		cmocka_unit_test(test_dma_global_and_source_only_accepted),
		cmocka_unit_test_teardown(test_attached_memory_of_another_process, proc_teardown),
		cmocka_unit_test_teardown(test_remote_ioaddr_matches_the_owners_local_one, proc_teardown),
	};
	char path[4096];
	const char *srcdir = getenv("XRMA_TEST_SRCDIR");
	int rc;

	if (proc_child_dispatch(argc, argv, roles, &rc))
		return rc;
	/* The topology is read once per process: name the file before anything asks. */
	snprintf(path, sizeof(path), "%s/tests/unit/topo_devices.xml", srcdir ? srcdir : ".");
	setenv("XRMA_TOPOLOGY_XML", path, 1);
	fixture_fabric_name(fabric, sizeof(fabric), "sisci-dolphin");
	setenv("XRMA_FABRIC", fabric, 1);
	return cmocka_run_group_tests_name("sisci_dolphin", tests, group_up, group_down);
}
