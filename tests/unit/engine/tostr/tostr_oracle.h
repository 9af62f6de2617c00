/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared between the pieces of the fi_tostr differential oracle. */
#ifndef PROPEL_TOSTR_ORACLE_H
#define PROPEL_TOSTR_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/fabric.h>

/* Full-text case with a buffer far larger than any output. */
void oracle_case(const char *name, const void *data, int type);
/* The same input under every buffer length from 0 up. */
void oracle_sweep(const char *name, const void *data, int type);
/* Through fi_tostr and its library-owned buffer. */
void oracle_static(const char *name, const void *data, int type);
/* A free-form result line, counted as a case. */
void oracle_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Straight through to the library, for NULL-buffer probes. */
char *oracle_tostr_r_raw(char *buf, size_t len, const void *data, int type);
void oracle_ptr_register(const void *base, size_t size, const char *name);

extern const int oracle_nfids;
struct fid *oracle_fid(int i);
/* Whether fid i has a tostr op the library will call. */
int oracle_fid_has_tostr(int i);
struct fid_nic *oracle_nic(int i);

/* Deterministic generator, so both passes see the same inputs. */
static inline uint64_t oracle_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

void oracle_scalars(void);
void oracle_flags(void);
void oracle_addrs(void);
void oracle_attrs(void);
void oracle_infos(void);
void oracle_edges(void);

/* Address fixtures shared by the address and fi_info cases. */
struct oracle_addr {
	const char *name;
	uint32_t format;
	const void *addr;
	size_t len;
};
int oracle_addr_count(void);
const struct oracle_addr *oracle_addr_get(int i);

#endif /* PROPEL_TOSTR_ORACLE_H */
