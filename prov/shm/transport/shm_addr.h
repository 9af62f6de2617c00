/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * shm endpoint names, in the reference's FI_ADDR_STR forms (fi_shm(7)):
 *
 *   "fi_shm://<pid>:<uid>:<idx>"  an endpoint opened without a chosen
 *                                 address: the fi_getinfo default source
 *                                 "fi_shm://<pid>" (or "fi_shm://<node>")
 *                                 plus ":<uid>:<endpoint index>";
 *   "fi_ns://<node>:<service>", "fi_ns://<service>", or any
 *   "<prefix>://<text>" given by the application: used as is.
 *
 * An address is the NUL-terminated string, addrlen = strlen + 1 (what
 * fi_getname returns and fi_av_insert takes). Two names that differ only
 * in their prefix name the same region, as with the reference.
 *
 * Region (shm_open) names are propel's own, so they never collide with
 * the reference's regions or another user's:
 *   fi_shm://P:U:I      -> /propel-shm-U-P-I
 *   prefix://text       -> /propel-shm-<our uid>-n-text  ('/' -> '_')
 * All functions are pure (thread-safe); outputs are written only on
 * success.
 */
#ifndef PROPEL_SHM_ADDR_H
#define PROPEL_SHM_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SHM_ADDR_PREFIX		"fi_shm://"
#define SHM_ADDR_NS_PREFIX	"fi_ns://"

/*
 * What fi_getinfo puts in src_addr/dest_addr from node and service:
 *   node && service -> "fi_ns://node:service", service -> "fi_ns://service",
 *   node -> "fi_shm://node", neither -> "fi_shm://<pid>"; a node that is
 *   already "prefix://..." is used as is.
 * Returns the length written (without NUL), -FI_ETOOSMALL, -FI_EINVAL.
 */
int shm_addr_resolve(const char *node, const char *service, char *buf,
		     size_t len);

/*
 * May node name this host, as a destination? shm reaches this host only,
 * so fi_getinfo refuses any other (-FI_ENODATA, as a negative test of
 * fabtests expects). Yes for: a "prefix://" name or all digits (shm's
 * own node-local names: a pid), "localhost", this host's name (or its
 * first label, or a name whose first label it is), an IPv4/IPv6 literal
 * that is a loopback address or one of this host's interfaces. Any
 * other name is not looked up (no resolver traffic for a name shm could
 * not reach anyway).
 */
bool shm_addr_node_local(const char *node);

/* The endpoint name for source address src: fi_shm:// sources get
 * ":<uid>:<idx>" appended, anything else is kept. Returns the length. */
int shm_addr_ep_name(const char *src, uid_t uid, unsigned idx, char *buf,
		     size_t len);

/* "fi_shm://<pid>:<uid>:<idx>" directly. */
int shm_addr_format(pid_t pid, uid_t uid, unsigned idx, char *buf,
		    size_t len);

/* Split "fi_shm://<pid>:<uid>:<idx>". -FI_EINVAL for any other form. */
int shm_addr_parse(const char *addr, pid_t *pid_p, uid_t *uid_p,
		   unsigned *idx_p);

/* Is (addr, addrlen) a usable name: NUL-terminated within addrlen, has
 * "://" and a non-empty rest, shorter than SHM_NAME_MAX? 0 or -FI_EINVAL. */
int shm_addr_check(const void *addr, size_t addrlen);

/* The shm_open name of the region of endpoint `addr`. */
int shm_addr_region_name(const char *addr, char *buf, size_t len);

#endif /* PROPEL_SHM_ADDR_H */
