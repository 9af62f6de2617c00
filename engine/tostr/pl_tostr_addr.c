/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Addresses in fi_info text, one URL-like form per address format
 * ("fi_sockaddr_in://1.2.3.4:5", "fi_addr_psmx2://a:b", ...), matching the
 * reference's, quirks included:
 *
 *  - the sockaddr formats pick the textual family from sa_family but read
 *    the address bytes where the FORMAT puts them, so a sockaddr_in6 given
 *    as FI_SOCKADDR_IN prints 16 bytes from offset 4 (flowinfo onwards);
 *    a family other than AF_INET/AF_INET6 prints nothing, and so do
 *    FI_FORMAT_UNSPEC, provider-specific and unknown formats;
 *  - FI_SOCKADDR_IB always decodes the sockaddr_ib layout, whatever the
 *    family;
 *  - FI_ADDR_BGQ and FI_ADDR_MLX print the address's own pointer.
 *
 * The text goes after what the buffer holds with snprintf semantics (up
 * to len - 1 characters, not pl_tostr_catf's len - 2): that is where a
 * cut-short reference fi_info gains its one extra character.
 *
 * Fixed layouts, read with memcpy since addr has no alignment promise:
 *   sockaddr_ib: family@0 pkey(be16)@2 flowinfo@4 gid[16]@8 sid(be64)@24
 *                sid_mask@32 scope_id(be64 as printed)@40;
 *   ib_ud:       gid[16]@0 qpn(u32)@16 lid(u16)@20 pkey(u16)@22
 *                service(u16)@24 sl(u8)@26;
 *   efa:         gid[16]@0 qpn(u16)@16 qkey(u32)@20;
 *   psmx/gni/opx: u64@0; psmx2: u64[2]; psmx3: u64[4]; cxi: u32@0.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <rdma/fabric.h>

#include "pl_tostr.h"

static uint16_t get16(const void *addr, size_t off)
{
	uint16_t v;

	memcpy(&v, (const char *)addr + off, sizeof(v));
	return v;
}

static uint32_t get32(const void *addr, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)addr + off, sizeof(v));
	return v;
}

static uint64_t get64(const void *addr, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)addr + off, sizeof(v));
	return v;
}

/* Textual address of 'family' from the bytes at addr + off. */
static void ntop_at(int family, const void *addr, size_t off, char *str,
		    size_t size)
{
	unsigned char raw[16];

	memcpy(raw, (const char *)addr + off,
	       family == AF_INET6 ? 16 : 4);
	if (!inet_ntop(family, raw, str, (socklen_t)size))
		str[0] = '\0';
}

static void print_inet(char *p, size_t room, int family, const void *addr,
		       int v6_format)
{
	char str[INET6_ADDRSTRLEN];
	uint16_t port = ntohs(get16(addr, 2));

	if (family != AF_INET && family != AF_INET6)
		return;
	ntop_at(family, addr, v6_format ? 8 : 4, str, sizeof(str));
	if (v6_format)
		snprintf(p, room, "fi_sockaddr_in6://[%s]:%" PRIu16, str, port);
	else
		snprintf(p, room, "fi_sockaddr_in://%s:%" PRIu16, str, port);
}

static void print_ib(char *p, size_t room, const void *addr)
{
	char gid[INET6_ADDRSTRLEN];
	uint16_t pkey = ntohs(get16(addr, 2));
	uint16_t ps = (uint16_t)((be64toh(get64(addr, 24)) >> 16) & 0xfff);
	uint8_t scope = (uint8_t)(be64toh(get64(addr, 40)) & 0xff);

	ntop_at(AF_INET6, addr, 8, gid, sizeof(gid));
	snprintf(p, room,
		 "fi_sockaddr_ib://[%s]:0x%" PRIx16 ":0x%" PRIx16 ":0x%" PRIx8,
		 gid, pkey, ps, scope);
}

static void print_ib_ud(char *p, size_t room, const void *addr)
{
	char gid[INET6_ADDRSTRLEN];
	uint8_t sl;

	ntop_at(AF_INET6, addr, 0, gid, sizeof(gid));
	memcpy(&sl, (const char *)addr + 26, sizeof(sl));
	snprintf(p, room,
		 "fi_addr_ib_ud://%s:%" PRIx32 "/%" PRIx16 "/%" PRIx16
		 "/%" PRIx8,
		 gid, get32(addr, 16), get16(addr, 20), get16(addr, 22), sl);
}

static void print_efa(char *p, size_t room, const void *addr)
{
	char gid[INET6_ADDRSTRLEN];

	ntop_at(AF_INET6, addr, 0, gid, sizeof(gid));
	snprintf(p, room, "fi_addr_efa://[%s]:%" PRIu16 ":%" PRIu32, gid,
		 get16(addr, 16), get32(addr, 20));
}

static void print_sockaddr(char *p, size_t room, uint32_t format,
			   const void *addr)
{
	sa_family_t family;

	memcpy(&family, addr, sizeof(family));
	switch (format) {
	case FI_SOCKADDR:
		if (family == AF_INET || family == AF_INET6)
			print_inet(p, room, family, addr, family == AF_INET6);
		break;
	case FI_SOCKADDR_IN:
		print_inet(p, room, family, addr, 0);
		break;
	case FI_SOCKADDR_IN6:
		print_inet(p, room, family, addr, 1);
		break;
	case FI_SOCKADDR_IB:
		print_ib(p, room, addr);
		break;
	}
}

void pl_tostr_addr_print(char *buf, size_t len, uint32_t format,
			 const void *addr)
{
	size_t used = strnlen(buf, len);
	char *p = buf + used;
	size_t room = len - used;

	if (used >= len)
		return;
	if (!addr) {
		pl_tostr_catf(p, room, "(null)");
		return;
	}
	switch (format) {
	case FI_SOCKADDR:
	case FI_SOCKADDR_IN:
	case FI_SOCKADDR_IN6:
	case FI_SOCKADDR_IB:
		print_sockaddr(p, room, format, addr);
		break;
	case FI_ADDR_PSMX:
		snprintf(p, room, "fi_addr_psmx://%" PRIx64, get64(addr, 0));
		break;
	case FI_ADDR_PSMX2:
		snprintf(p, room, "fi_addr_psmx2://%" PRIx64 ":%" PRIx64,
			 get64(addr, 0), get64(addr, 8));
		break;
	case FI_ADDR_PSMX3:
		snprintf(p, room,
			 "fi_addr_psmx3://%" PRIx64 ":%" PRIx64 ":%" PRIx64
			 ":%" PRIx64, get64(addr, 0), get64(addr, 8),
			 get64(addr, 16), get64(addr, 24));
		break;
	case FI_ADDR_GNI:
		snprintf(p, room, "fi_addr_gni://%" PRIx64, get64(addr, 0));
		break;
	case FI_ADDR_BGQ:
		snprintf(p, room, "fi_addr_bgq://%p", addr);
		break;
	case FI_ADDR_MLX:
		snprintf(p, room, "fi_addr_mlx://%p", addr);
		break;
	case FI_ADDR_IB_UD:
		print_ib_ud(p, room, addr);
		break;
	case FI_ADDR_EFA:
		print_efa(p, room, addr);
		break;
	case FI_ADDR_OPX:
		snprintf(p, room, "fi_addr_opx://%016" PRIx64, get64(addr, 0));
		break;
	case FI_ADDR_CXI:
		snprintf(p, room, "fi_addr_cxi://0x%08" PRIx32, get32(addr, 0));
		break;
	case FI_ADDR_STR:
		snprintf(p, room, "%s", (const char *)addr);
		break;
	default:
		/* Unspecified, unknown and provider-specific: no text. */
		break;
	}
}
