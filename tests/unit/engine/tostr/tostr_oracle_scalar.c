/* SPDX-License-Identifier: BSD-2-Clause */
/* Oracle cases for enumerations, bit sets, versions and fi_tostr_r edges. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tostr_oracle.h"

static const char *const type_names[] = {
	"INFO", "EP_TYPE", "CAPS", "OP_FLAGS", "ADDR_FORMAT", "TX_ATTR",
	"RX_ATTR", "EP_ATTR", "DOMAIN_ATTR", "FABRIC_ATTR", "THREADING",
	"PROGRESS", "PROTOCOL", "MSG_ORDER", "MODE", "AV_TYPE", "ATOMIC_TYPE",
	"ATOMIC_OP", "VERSION", "EQ_EVENT", "CQ_EVENT_FLAGS", "MR_MODE",
	"OP_TYPE", "FID", "COLLECTIVE_OP", "HMEM_IFACE", "CQ_FORMAT",
	"LOG_LEVEL", "LOG_SUBSYS",
};

/* Types whose datum is an enum or a 32-bit number. */
static const int enum_types[] = {
	FI_TYPE_EP_TYPE, FI_TYPE_ADDR_FORMAT, FI_TYPE_THREADING,
	FI_TYPE_PROGRESS, FI_TYPE_PROTOCOL, FI_TYPE_AV_TYPE,
	FI_TYPE_ATOMIC_TYPE, FI_TYPE_ATOMIC_OP, FI_TYPE_VERSION,
	FI_TYPE_EQ_EVENT, FI_TYPE_MR_MODE, FI_TYPE_OP_TYPE,
	FI_TYPE_COLLECTIVE_OP, FI_TYPE_HMEM_IFACE, FI_TYPE_CQ_FORMAT,
	FI_TYPE_LOG_LEVEL, FI_TYPE_LOG_SUBSYS,
};

/* Types whose datum is a 64-bit flag word (MR_MODE is probed both ways). */
static const int flag_types[] = {
	FI_TYPE_CAPS, FI_TYPE_OP_FLAGS, FI_TYPE_MSG_ORDER, FI_TYPE_MODE,
	FI_TYPE_CQ_EVENT_FLAGS, FI_TYPE_MR_MODE,
};

/*
 * The datum sits in the low half of a 64-bit word whose high half holds a
 * marker, so reading more than 32 bits shows up as a difference.
 */
static void enum_case(int type, uint32_t v, uint32_t high)
{
	union {
		uint64_t u64;
		uint32_t u32[2];
	} d;
	char name[96];

	d.u64 = 0;
	d.u32[0] = v;
	d.u32[1] = high;
	snprintf(name, sizeof(name), "%s v=%#x hi=%#x", type_names[type], v,
		 high);
	oracle_case(name, &d, type);
}

void oracle_scalars(void)
{
	static const uint32_t extra[] = {
		100, 127, 128, 255, 256, 257, 258, 259, 300, 511, 512, 1000,
		0x7fffffff, 0x80000000, 0x80000001, 0x80000010, 0xfffffffe,
		0xffffffff, 0x10000, 0x10001, 0x1000000, 0x01020304,
	};
	static const uint32_t versions[] = {
		0, 1, FI_VERSION(1, 0), FI_VERSION(1, 17), FI_VERSION(1, 18),
		FI_VERSION(117, 0), FI_VERSION(2, 3), FI_VERSION(65535, 65535),
		0xffffffff, 0x12345678,
	};

	for (size_t t = 0; t < sizeof(enum_types) / sizeof(enum_types[0]);
	     t++) {
		for (int v = -3; v < 72; v++)
			enum_case(enum_types[t], (uint32_t)v, 0);
		for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
			enum_case(enum_types[t], extra[i], 0);
		for (int v = 0; v < 4; v++)
			enum_case(enum_types[t], (uint32_t)v, 0xdeadbeef);
	}
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		enum_case(FI_TYPE_VERSION, versions[i], 0xdeadbeef);
}

static void flag_case(int type, uint64_t v)
{
	char name[96];

	snprintf(name, sizeof(name), "%s v=%#llx", type_names[type],
		 (unsigned long long)v);
	oracle_case(name, &v, type);
}

void oracle_flags(void)
{
	for (size_t t = 0; t < sizeof(flag_types) / sizeof(flag_types[0]);
	     t++) {
		int type = flag_types[t];
		uint64_t seed = 0x9e3779b97f4a7c15ULL + t;

		flag_case(type, 0);
		flag_case(type, ~0ULL);
		flag_case(type, 0xffffffffULL);
		flag_case(type, 0xffffffff00000000ULL);
		flag_case(type, 0x1ff);
		flag_case(type, 0x1fe);
		flag_case(type, 0x3);
		for (int b = 0; b < 64; b++) {
			flag_case(type, 1ULL << b);
			flag_case(type, ~(1ULL << b));
		}
		for (int b = 0; b < 64; b++)
			for (int c = b + 1; c < 64; c++)
				flag_case(type, (1ULL << b) | (1ULL << c));
		for (int i = 0; i < 300; i++)
			flag_case(type, oracle_rand(&seed));
		for (int i = 0; i < 100; i++) {
			uint64_t v = oracle_rand(&seed);

			flag_case(type, v & oracle_rand(&seed) &
				  oracle_rand(&seed));
		}
	}
}

void oracle_edges(void)
{
	uint64_t caps = FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC | FI_SOURCE;
	uint64_t all = ~0ULL;
	int ep = FI_EP_RDM;
	uint32_t ver = FI_VERSION(1, 17);
	char buf[64];
	char *r;

	/* NULL data: for every type, and for out-of-range types. */
	for (int t = -2; t < 40; t++) {
		char name[64];

		snprintf(name, sizeof(name), "nulldata type=%d", t);
		oracle_case(name, NULL, t);
		snprintf(name, sizeof(name), "nulldata type=%d", t);
		oracle_static(name, NULL, t);
	}
	/* Types the enumeration does not have, with valid-looking data. */
	for (int t = FI_TYPE_LOG_SUBSYS + 1; t < FI_TYPE_LOG_SUBSYS + 6; t++) {
		char name[64];

		snprintf(name, sizeof(name), "badtype type=%d", t);
		oracle_case(name, &all, t);
		oracle_sweep(name, &all, t);
		oracle_static(name, &all, t);
	}
	oracle_case("badtype type=-1", &all, -1);
	oracle_case("badtype type=1000", &all, 1000);
	oracle_case("badtype type=INT_MIN", &all, INT_MIN);

	/* NULL buffer, zero length. */
	r = oracle_tostr_r_raw(NULL, 16, &caps, FI_TYPE_CAPS);
	oracle_note("nullbuf len=16 ret=%s\n", r ? "nonnull" : "NULL");
	r = oracle_tostr_r_raw(NULL, 0, &caps, FI_TYPE_CAPS);
	oracle_note("nullbuf len=0 ret=%s\n", r ? "nonnull" : "NULL");
	memset(buf, 'Z', sizeof(buf));
	r = oracle_tostr_r_raw(buf, 0, &caps, FI_TYPE_CAPS);
	oracle_note("len0 ret=%s buf0=%#x\n", r == buf ? "buf" : r ? "other" :
		    "NULL", (unsigned char)buf[0]);
	memset(buf, 'Z', sizeof(buf));
	r = oracle_tostr_r_raw(buf, sizeof(buf), NULL, FI_TYPE_CAPS);
	oracle_note("nulldata-untouched ret=%s buf0=%#x\n",
		    r ? "nonnull" : "NULL", (unsigned char)buf[0]);

	/* Truncation of short texts of every shape. */
	oracle_sweep("caps", &caps, FI_TYPE_CAPS);
	oracle_sweep("caps-all", &all, FI_TYPE_CAPS);
	oracle_sweep("mode-all", &all, FI_TYPE_MODE);
	oracle_sweep("opflags-all", &all, FI_TYPE_OP_FLAGS);
	oracle_sweep("order-all", &all, FI_TYPE_MSG_ORDER);
	oracle_sweep("cqflags-all", &all, FI_TYPE_CQ_EVENT_FLAGS);
	oracle_sweep("mrmode-all", &all, FI_TYPE_MR_MODE);
	oracle_sweep("ep", &ep, FI_TYPE_EP_TYPE);
	oracle_sweep("version", &ver, FI_TYPE_VERSION);
	for (int t = 0; t <= FI_TYPE_LOG_SUBSYS; t++) {
		static const uint64_t zero[64];
		char name[64];

		if (t == FI_TYPE_FID || t == FI_TYPE_INFO)
			continue;
		snprintf(name, sizeof(name), "zero-%s", type_names[t]);
		oracle_sweep(name, zero, t);
		oracle_static(name, zero, t);
	}
	for (int i = 0; i < oracle_nfids; i++) {
		char name[64];

		snprintf(name, sizeof(name), "fid%d", i);
		oracle_case(name, oracle_fid(i), FI_TYPE_FID);
		/* A cut-short pointer cannot be named: sweep the ops only. */
		if (oracle_fid_has_tostr(i))
			oracle_sweep(name, oracle_fid(i), FI_TYPE_FID);
		snprintf(name, sizeof(name), "fidnic%d", i);
		oracle_case(name, oracle_nic(i), FI_TYPE_FID);
	}
}
