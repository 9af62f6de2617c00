/* SPDX-License-Identifier: BSD-2-Clause */
/* Oracle cases for addresses, attribute structures and whole fi_info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tostr_oracle.h"

#ifndef AF_IB
#define AF_IB 27
#endif

/* ---- address fixtures ---- */

#define NADDR 200
#define ADDR_BYTES 1100

static unsigned char addr_store[NADDR][ADDR_BYTES];
static struct oracle_addr addrs[NADDR];
static char addr_names[NADDR][48];
static int naddrs;

static unsigned char *addr_new(const char *name, uint32_t format, size_t len)
{
	unsigned char *a = addr_store[naddrs];

	snprintf(addr_names[naddrs], sizeof(addr_names[0]), "%s", name);
	addrs[naddrs].name = addr_names[naddrs];
	addrs[naddrs].format = format;
	addrs[naddrs].addr = a;
	addrs[naddrs].len = len;
	naddrs++;
	return a;
}

static void pattern(unsigned char *a, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		a[i] = (unsigned char)(i * 37 + seed * 11 + 1);
}

static void put_sin(unsigned char *a, const char *ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	memcpy(a, &sin, sizeof(sin));
}

static void put_sin6(unsigned char *a, const char *ip, uint16_t port,
		     uint32_t flow, uint32_t scope)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port),
				  .sin6_flowinfo = htonl(flow),
				  .sin6_scope_id = scope };

	inet_pton(AF_INET6, ip, &s.sin6_addr);
	memcpy(a, &s, sizeof(s));
}

/* An AF_IB sockaddr (rdma_cma's sockaddr_ib), laid out by hand. */
static void put_sib(unsigned char *a, unsigned seed)
{
	uint16_t fam = AF_IB;

	pattern(a, 48, seed);
	memcpy(a, &fam, sizeof(fam));
}

static void sockaddr_family_set(uint32_t format, const char *fname)
{
	char name[48];
	unsigned char *a;

	snprintf(name, sizeof(name), "%s/in-a", fname);
	put_sin(addr_new(name, format, 16), "1.2.3.4", 5);
	snprintf(name, sizeof(name), "%s/in-zero", fname);
	put_sin(addr_new(name, format, 16), "0.0.0.0", 0);
	snprintf(name, sizeof(name), "%s/in-max", fname);
	put_sin(addr_new(name, format, 16), "255.255.255.255", 65535);
	snprintf(name, sizeof(name), "%s/in6-ll", fname);
	put_sin6(addr_new(name, format, 28), "fe80::1", 6, 7, 2);
	snprintf(name, sizeof(name), "%s/in6-any", fname);
	put_sin6(addr_new(name, format, 28), "::", 0, 0, 0);
	snprintf(name, sizeof(name), "%s/in6-mapped", fname);
	put_sin6(addr_new(name, format, 28), "::ffff:10.0.0.1", 4791, 0, 0);
	snprintf(name, sizeof(name), "%s/in6-long", fname);
	put_sin6(addr_new(name, format, 28),
		 "2001:db8:85a3:1234:5678:8a2e:370:7334", 65535, 0xfffff,
		 0xffffffff);
	snprintf(name, sizeof(name), "%s/ib", fname);
	put_sib(addr_new(name, format, 48), 3);
	snprintf(name, sizeof(name), "%s/ib-zero", fname);
	a = addr_new(name, format, 48);
	a[0] = AF_IB;
	snprintf(name, sizeof(name), "%s/unix", fname);
	a = addr_new(name, format, sizeof(struct sockaddr_un));
	((struct sockaddr_un *)(void *)a)->sun_family = AF_UNIX;
	strcpy(((struct sockaddr_un *)(void *)a)->sun_path, "/tmp/x");
	snprintf(name, sizeof(name), "%s/fam99", fname);
	a = addr_new(name, format, 16);
	pattern(a, 16, 5);
	a[0] = 99;
	a[1] = 0;
	snprintf(name, sizeof(name), "%s/fam0", fname);
	a = addr_new(name, format, 16);
	pattern(a, 16, 6);
	a[0] = 0;
	a[1] = 0;
}

static void str_addr(const char *name, const char *s)
{
	unsigned char *a = addr_new(name, FI_ADDR_STR, strlen(s) + 1);

	snprintf((char *)a, ADDR_BYTES, "%s", s);
}

static void addrs_init(void)
{
	static const struct { uint32_t format; const char *name; } raw[] = {
		{ FI_FORMAT_UNSPEC, "unspec" }, { FI_ADDR_PSMX, "psmx" },
		{ FI_ADDR_GNI, "gni" }, { FI_ADDR_BGQ, "bgq" },
		{ FI_ADDR_MLX, "mlx" }, { FI_ADDR_PSMX2, "psmx2" },
		{ FI_ADDR_IB_UD, "ib_ud" }, { FI_ADDR_EFA, "efa" },
		{ FI_ADDR_PSMX3, "psmx3" }, { FI_ADDR_OPX, "opx" },
		{ FI_ADDR_CXI, "cxi" }, { FI_ADDR_CXI + 1, "fmt16" },
		{ FI_ADDR_CXI + 2, "fmt17" }, { 100, "fmt100" },
		{ FI_PROV_SPECIFIC, "provspec" },
		{ FI_PROV_SPECIFIC | 5, "provspec5" },
		{ 0xffffffff, "fmtmax" },
	};
	char big[1000];
	uint64_t seed = 4242;

	sockaddr_family_set(FI_SOCKADDR, "sockaddr");
	sockaddr_family_set(FI_SOCKADDR_IN, "sockaddr_in");
	sockaddr_family_set(FI_SOCKADDR_IN6, "sockaddr_in6");
	sockaddr_family_set(FI_SOCKADDR_IB, "sockaddr_ib");
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		char name[48];

		snprintf(name, sizeof(name), "%s/pat", raw[i].name);
		pattern(addr_new(name, raw[i].format, 64), 100, (unsigned)i);
		snprintf(name, sizeof(name), "%s/zero", raw[i].name);
		addr_new(name, raw[i].format, 64);
		if (raw[i].format == FI_ADDR_BGQ || raw[i].format == FI_ADDR_MLX)
			continue;
		for (int k = 0; k < 4; k++) {
			unsigned char *a;

			snprintf(name, sizeof(name), "%s/rnd%d", raw[i].name, k);
			a = addr_new(name, raw[i].format, 64);
			for (int j = 0; j < 64; j++)
				a[j] = (unsigned char)oracle_rand(&seed);
		}
	}
	for (int k = 0; k < 6; k++) {
		unsigned char *a;
		char name[48];

		snprintf(name, sizeof(name), "sockaddr_ib/rnd%d", k);
		a = addr_new(name, FI_SOCKADDR_IB, 48);
		for (int j = 0; j < 48; j++)
			a[j] = (unsigned char)oracle_rand(&seed);
		snprintf(name, sizeof(name), "sockaddr_in6/rnd%d", k);
		put_sin6(addr_new(name, FI_SOCKADDR_IN6, 28), "::", 0, 0, 0);
		a = addr_store[naddrs - 1];
		for (int j = 2; j < 28; j++)
			a[j] = (unsigned char)oracle_rand(&seed);
	}
	str_addr("str/in", "fi_sockaddr_in://1.2.3.4:5");
	str_addr("str/empty", "");
	str_addr("str/plain", "hello world");
	str_addr("str/nl", "fi_addr_str://x\ny%s%d");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	str_addr("str/long", big);
	for (int i = 0; i < naddrs; i++)
		oracle_ptr_register(addrs[i].addr, ADDR_BYTES, addrs[i].name);
}

int oracle_addr_count(void)
{
	return naddrs;
}

const struct oracle_addr *oracle_addr_get(int i)
{
	return &addrs[i];
}

/* ---- attribute fixtures ---- */

struct attrs {
	struct fi_tx_attr tx;
	struct fi_rx_attr rx;
	struct fi_ep_attr ep;
	struct fi_domain_attr dom;
	struct fi_fabric_attr fab;
};

static char long_str[3000];
static char *const strs[] = {
	NULL, "", "eth0", "tcp;ofi_rxm", "192.0.2.0/24", "with\nnewline",
	"%s%n%p", "a b\tc", long_str,
};

static uint8_t key_bytes[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				 13, 14, 15, 16 };

static void attrs_typical(struct attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->tx.caps = FI_MSG | FI_RMA | FI_TAGGED | FI_READ | FI_WRITE | FI_SEND;
	a->tx.msg_order = FI_ORDER_RAR | FI_ORDER_RAW | FI_ORDER_SAS |
			  FI_ORDER_RMA_WAW;
	a->tx.inject_size = 64;
	a->tx.size = 2048;
	a->tx.iov_limit = 4;
	a->tx.rma_iov_limit = 4;
	a->rx.caps = FI_MSG | FI_RMA | FI_TAGGED | FI_RECV | FI_MULTI_RECV;
	a->rx.msg_order = a->tx.msg_order;
	a->rx.size = 2048;
	a->rx.iov_limit = 4;
	a->ep.type = FI_EP_RDM;
	a->ep.protocol = FI_PROTO_RXM;
	a->ep.protocol_version = 1;
	a->ep.max_msg_size = SIZE_MAX;
	a->ep.max_order_raw_size = SIZE_MAX;
	a->ep.max_order_waw_size = SIZE_MAX;
	a->ep.mem_tag_format = 0xaaaaaaaaaaaaaaaaULL;
	a->ep.tx_ctx_cnt = 1;
	a->ep.rx_ctx_cnt = 1;
	a->dom.name = "eth0";
	a->dom.threading = FI_THREAD_SAFE;
	a->dom.control_progress = FI_PROGRESS_AUTO;
	a->dom.data_progress = FI_PROGRESS_MANUAL;
	a->dom.resource_mgmt = FI_RM_ENABLED;
	a->dom.av_type = FI_AV_UNSPEC;
	a->dom.mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	a->dom.mr_key_size = 8;
	a->dom.cq_data_size = 8;
	a->dom.cq_cnt = 65536;
	a->dom.ep_cnt = 32768;
	a->dom.tx_ctx_cnt = 1;
	a->dom.rx_ctx_cnt = 1;
	a->dom.max_ep_tx_ctx = 1;
	a->dom.max_ep_rx_ctx = 1;
	a->dom.mr_iov_limit = 1;
	a->dom.caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	a->fab.name = "192.0.2.0/24";
	a->fab.prov_name = "tcp;ofi_rxm";
	a->fab.prov_version = FI_VERSION(117, 0);
	a->fab.api_version = FI_VERSION(1, 17);
}

static void attrs_max(struct attrs *a)
{
	memset(a, 0xff, sizeof(*a));
	a->dom.domain = NULL;
	a->dom.name = long_str + sizeof(long_str) - 40;
	a->dom.auth_key = key_bytes;
	a->ep.auth_key = key_bytes;
	a->fab.fabric = NULL;
	a->fab.name = "fabric";
	a->fab.prov_name = "prov";
}

/*
 * domain_attr.domain and fabric_attr.fabric are only printed, never
 * followed, so fixed values keep their text the same from run to run.
 */
static struct fid_domain *const fake_ptrs[] = {
	NULL, (struct fid_domain *)0x1234,
	(struct fid_domain *)0x123456789abcdef0,
	(struct fid_domain *)0xffffffffffffffff,
};

static void attrs_random(struct attrs *a, uint64_t *s)
{
	uint64_t *w = (uint64_t *)(void *)a;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++) {
		uint64_t r = oracle_rand(s);

		/* Mostly small numbers, sometimes huge ones. */
		w[i] = (r & 3) == 0 ? oracle_rand(s) : r >> (40 + (r & 15));
	}
	a->ep.type = (enum fi_ep_type)(oracle_rand(s) % 8);
	a->ep.protocol = (uint32_t)(oracle_rand(s) % 40);
	a->dom.threading = (enum fi_threading)(oracle_rand(s) % 8);
	a->dom.control_progress = (enum fi_progress)(oracle_rand(s) % 4);
	a->dom.data_progress = (enum fi_progress)(oracle_rand(s) % 4);
	a->dom.resource_mgmt = (enum fi_resource_mgmt)(oracle_rand(s) % 4);
	a->dom.av_type = (enum fi_av_type)(oracle_rand(s) % 4);
	a->dom.domain = fake_ptrs[oracle_rand(s) % 4];
	a->dom.name = strs[oracle_rand(s) % 8];
	a->dom.auth_key = oracle_rand(s) % 2 ? key_bytes : NULL;
	a->ep.auth_key = oracle_rand(s) % 2 ? key_bytes : NULL;
	a->fab.fabric = (struct fid_fabric *)fake_ptrs[oracle_rand(s) % 4];
	a->fab.name = strs[oracle_rand(s) % 8];
	a->fab.prov_name = strs[oracle_rand(s) % 8];
}

static void attrs_cases(const char *label, struct attrs *a, int sweep)
{
	char name[96];

	snprintf(name, sizeof(name), "tx %s", label);
	oracle_case(name, &a->tx, FI_TYPE_TX_ATTR);
	snprintf(name, sizeof(name), "rx %s", label);
	oracle_case(name, &a->rx, FI_TYPE_RX_ATTR);
	snprintf(name, sizeof(name), "ep %s", label);
	oracle_case(name, &a->ep, FI_TYPE_EP_ATTR);
	snprintf(name, sizeof(name), "dom %s", label);
	oracle_case(name, &a->dom, FI_TYPE_DOMAIN_ATTR);
	snprintf(name, sizeof(name), "fab %s", label);
	oracle_case(name, &a->fab, FI_TYPE_FABRIC_ATTR);
	if (!sweep)
		return;
	snprintf(name, sizeof(name), "tx %s", label);
	oracle_sweep(name, &a->tx, FI_TYPE_TX_ATTR);
	snprintf(name, sizeof(name), "rx %s", label);
	oracle_sweep(name, &a->rx, FI_TYPE_RX_ATTR);
	snprintf(name, sizeof(name), "ep %s", label);
	oracle_sweep(name, &a->ep, FI_TYPE_EP_ATTR);
	snprintf(name, sizeof(name), "dom %s", label);
	oracle_sweep(name, &a->dom, FI_TYPE_DOMAIN_ATTR);
	snprintf(name, sizeof(name), "fab %s", label);
	oracle_sweep(name, &a->fab, FI_TYPE_FABRIC_ATTR);
}

static void fixtures_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	memset(long_str, 'x', sizeof(long_str) - 1);
	long_str[sizeof(long_str) - 1] = '\0';
	oracle_ptr_register(key_bytes, sizeof(key_bytes), "key");
	addrs_init();
}

void oracle_addrs(void)
{
	fixtures_init();
}

void oracle_attrs(void)
{
	struct attrs a;
	uint64_t seed = 12345;

	fixtures_init();
	memset(&a, 0, sizeof(a));
	attrs_cases("zero", &a, 1);
	attrs_typical(&a);
	attrs_cases("typical", &a, 1);
	attrs_max(&a);
	attrs_cases("max", &a, 0);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		char label[32];

		attrs_typical(&a);
		a.dom.name = strs[i];
		a.fab.name = strs[i];
		a.fab.prov_name = strs[(i + 1) % 8];
		snprintf(label, sizeof(label), "str%zu", i);
		attrs_cases(label, &a, 0);
	}
	/* comp_order has its own rules: probe each bit and the masks. */
	for (int b = -1; b < 64; b++) {
		static const uint64_t masks[] = { 0x1ff, 0x1fe, 0x100ff, 0x101ff,
						  0x10000, 0xff };
		char label[48];

		attrs_typical(&a);
		a.tx.comp_order = b < 0 ? 0 : 1ULL << b;
		a.rx.comp_order = b < 0 ? ~0ULL : ~(1ULL << b);
		if (b >= 0 && b < 6) {
			a.tx.comp_order = masks[b];
			a.rx.comp_order = masks[b] | (1ULL << 40);
		}
		snprintf(label, sizeof(label), "comp_order%d", b);
		oracle_case(label, &a.tx, FI_TYPE_TX_ATTR);
		oracle_case(label, &a.rx, FI_TYPE_RX_ATTR);
		a.tx.comp_order = 1ULL << (b < 0 ? 0 : b);
		oracle_case(label, &a.tx, FI_TYPE_TX_ATTR);
	}
	attrs_typical(&a);
	a.tx.comp_order = 0x1ff | FI_ORDER_DATA;
	a.rx.comp_order = 0;
	oracle_sweep("tx comp_order-all", &a.tx, FI_TYPE_TX_ATTR);
	oracle_sweep("rx comp_order-none", &a.rx, FI_TYPE_RX_ATTR);
	a.dom.domain = fake_ptrs[2];
	oracle_case("dom fakeptr", &a.dom, FI_TYPE_DOMAIN_ATTR);
	a.dom.domain = fake_ptrs[3];
	oracle_sweep("dom fakeptr", &a.dom, FI_TYPE_DOMAIN_ATTR);
	for (int i = 0; i < 60; i++) {
		char label[32];

		attrs_random(&a, &seed);
		snprintf(label, sizeof(label), "rand%d", i);
		attrs_cases(label, &a, 0);
	}
}

/* ---- whole fi_info ---- */

static void info_bind(struct fi_info *info, struct attrs *a)
{
	memset(info, 0, sizeof(*info));
	info->tx_attr = &a->tx;
	info->rx_attr = &a->rx;
	info->ep_attr = &a->ep;
	info->domain_attr = &a->dom;
	info->fabric_attr = &a->fab;
}

static void info_case(const char *name, struct fi_info *info, int sweep)
{
	oracle_case(name, info, FI_TYPE_INFO);
	if (sweep)
		oracle_sweep(name, info, FI_TYPE_INFO);
}

static void info_addr_cases(void)
{
	struct attrs a;
	struct fi_info info;
	int n = oracle_addr_count();

	attrs_typical(&a);
	for (int i = 0; i < n; i++) {
		const struct oracle_addr *s = oracle_addr_get(i);
		const struct oracle_addr *d = oracle_addr_get((i + 7) % n);
		char name[96];

		info_bind(&info, &a);
		info.addr_format = s->format;
		info.src_addr = (void *)s->addr;
		info.src_addrlen = s->len;
		snprintf(name, sizeof(name), "info addr src=%s", s->name);
		info_case(name, &info, 0);
		info.dest_addr = (void *)d->addr;
		info.dest_addrlen = d->len;
		info.addr_format = s->format;
		snprintf(name, sizeof(name), "info addr src=%s dest=%s",
			 s->name, d->name);
		info_case(name, &info, 0);
		/* Format word and address disagree, as hints sometimes do. */
		info.src_addr = (void *)d->addr;
		snprintf(name, sizeof(name), "info addr fmt=%s both=%s",
			 s->name, d->name);
		info_case(name, &info, 0);
	}
	/* Truncation inside an address, one of each printing shape. */
	for (int i = 0; i < n; i++) {
		const struct oracle_addr *s = oracle_addr_get(i);
		char name[96];

		if (!strstr(s->name, "/in-a") && !strstr(s->name, "/in6-long") &&
		    !strstr(s->name, "/ib") && strncmp(s->name, "str/", 4) &&
		    !strstr(s->name, "/pat"))
			continue;
		/* These print the address's pointer, which a sweep would cut. */
		if (s->format == FI_ADDR_BGQ || s->format == FI_ADDR_MLX)
			continue;
		info_bind(&info, &a);
		info.tx_attr = NULL;
		info.rx_attr = NULL;
		info.ep_attr = NULL;
		info.domain_attr = NULL;
		info.fabric_attr = NULL;
		info.addr_format = s->format;
		info.src_addr = (void *)s->addr;
		info.src_addrlen = s->len;
		info.dest_addr = (void *)s->addr;
		info.dest_addrlen = s->len;
		snprintf(name, sizeof(name), "info noattr addr=%s", s->name);
		info_case(name, &info, 1);
	}
}

void oracle_infos(void)
{
	struct attrs a;
	struct fi_info info, next;
	uint64_t seed = 777;
	char name[96];

	fixtures_init();
	memset(&a, 0, sizeof(a));
	info_bind(&info, &a);
	info_case("info zero", &info, 1);
	oracle_static("info zero", &info, FI_TYPE_INFO);

	memset(&info, 0, sizeof(info));
	info_case("info noattrs", &info, 1);
	for (int k = 0; k < 5; k++) {
		attrs_typical(&a);
		info_bind(&info, &a);
		if (k == 0)
			info.tx_attr = NULL;
		if (k == 1)
			info.rx_attr = NULL;
		if (k == 2)
			info.ep_attr = NULL;
		if (k == 3)
			info.domain_attr = NULL;
		if (k == 4)
			info.fabric_attr = NULL;
		snprintf(name, sizeof(name), "info null-attr%d", k);
		info_case(name, &info, 1);
	}

	attrs_typical(&a);
	info_bind(&info, &a);
	info.caps = a.tx.caps | a.rx.caps | FI_LOCAL_COMM | FI_REMOTE_COMM;
	info.addr_format = FI_SOCKADDR_IN;
	info.src_addr = (void *)oracle_addr_get(0)->addr;
	info.src_addrlen = 16;
	info_case("info typical", &info, 1);
	oracle_static("info typical", &info, FI_TYPE_INFO);

	memset(&next, 0, sizeof(next));
	info.next = &next;
	info_case("info with-next", &info, 0);
	info.next = NULL;

	for (int i = 0; i < oracle_nfids; i++) {
		info.handle = oracle_fid(i);
		snprintf(name, sizeof(name), "info handle=fid%d", i);
		info_case(name, &info, oracle_fid_has_tostr(i));
		info.handle = NULL;
		info.nic = oracle_nic(i);
		snprintf(name, sizeof(name), "info nic=nic%d", i);
		info_case(name, &info, oracle_fid_has_tostr(i));
		info.nic = NULL;
	}

	attrs_max(&a);
	info_bind(&info, &a);
	memset(&info.caps, 0xff, sizeof(info.caps) + sizeof(info.mode));
	info.addr_format = FI_ADDR_STR;
	info.src_addr = (void *)oracle_addr_get(oracle_addr_count() - 1)->addr;
	info.src_addrlen = SIZE_MAX;
	info.dest_addrlen = SIZE_MAX;
	info_case("info max", &info, 0);
	oracle_static("info max", &info, FI_TYPE_INFO);

	/* Longer than fi_tostr's own buffer. */
	attrs_typical(&a);
	info_bind(&info, &a);
	a.dom.name = long_str;
	a.fab.name = long_str;
	a.fab.prov_name = long_str;
	info_case("info huge", &info, 0);
	oracle_static("info huge", &info, FI_TYPE_INFO);

	for (int i = 0; i < 80; i++) {
		int n = oracle_addr_count();
		const struct oracle_addr *s, *d;

		attrs_random(&a, &seed);
		info_bind(&info, &a);
		info.caps = oracle_rand(&seed);
		info.mode = oracle_rand(&seed) & oracle_rand(&seed);
		s = oracle_addr_get((int)(oracle_rand(&seed) % n));
		d = oracle_addr_get((int)(oracle_rand(&seed) % n));
		info.addr_format = s->format;
		info.src_addr = oracle_rand(&seed) % 4 ? (void *)s->addr : NULL;
		info.src_addrlen = s->len;
		info.dest_addr = oracle_rand(&seed) % 2 ? (void *)d->addr : NULL;
		info.dest_addrlen = d->len;
		if (oracle_rand(&seed) % 3 == 0)
			info.handle = oracle_fid((int)(oracle_rand(&seed) %
						       oracle_nfids));
		if (oracle_rand(&seed) % 3 == 0)
			info.nic = oracle_nic((int)(oracle_rand(&seed) %
						    oracle_nfids));
		if (oracle_rand(&seed) % 6 == 0)
			info.tx_attr = NULL;
		if (oracle_rand(&seed) % 6 == 0)
			info.domain_attr = NULL;
		snprintf(name, sizeof(name), "info rand%d", i);
		info_case(name, &info, 0);
	}

	info_addr_cases();
}
