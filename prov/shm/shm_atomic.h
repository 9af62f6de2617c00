/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomic operations of the shm provider (fi_atomic(3)): which (op,
 * datatype) pairs it does, the request an initiator sends, and the
 * target-side application.
 *
 * Strategy: the TARGET applies every atomic, in its progress, under one
 * process-wide mutex (rdm_atomic_apply, rdm_atomic.h). Requests from any
 * number of processes, through any endpoint of the target process, on the same
 * words are therefore applied one at a time, each as a whole (all count
 * elements), and a fetch returns the values its own update replaced.
 * Hardware atomics on memory mapped in both processes are not used: the
 * application's memory is private to the target (FI_MR_VIRT_ADDR over
 * ordinary heap), and this keeps long double and complex types, and the
 * key/range/access check, on one path.
 *
 * Thread-safe (rdm_atomic_apply serializes itself). The core builds the
 * request (rdm_ep_atomic.c) and the target checks and applies it
 * (rdm_rma_atomic); shm carries it unchanged in one inline command.
 */
#ifndef PROPEL_SHM_ATOMIC_H
#define PROPEL_SHM_ATOMIC_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include "rdm_atomic.h"
#include "rdm_rma.h"
#include "shm_layout.h"

/* The request an initiator sends (struct shm_atomic_req, its kinds and
 * SHM_ATOMIC_MAX_BYTES) crosses processes: shm_layout.h. */

/* The wire's kinds are rdm's (shm_layout.h carries them as bytes). */
static_assert(SHM_ATOMIC_WRITE == (int)RDM_ATOMIC_WRITE &&
	      SHM_ATOMIC_FETCH == (int)RDM_ATOMIC_FETCH &&
	      SHM_ATOMIC_COMPARE == (int)RDM_ATOMIC_COMPARE,
	      "shm atomic kinds are rdm's");

/* The request crosses as the core builds it (rdm_rma.h): same layout. */
static_assert(sizeof(struct shm_atomic_req) ==
	      sizeof(struct rdm_atomic_req) &&
	      offsetof(struct shm_atomic_req, count) ==
	      offsetof(struct rdm_atomic_req, count) &&
	      offsetof(struct shm_atomic_req, data) ==
	      offsetof(struct rdm_atomic_req, data),
	      "shm atomic request is rdm's");
static_assert(SHM_ATOMIC_MAX_BYTES <= RDM_ATOMIC_MAX_BYTES,
	      "the core builds shm's largest request");

#endif /* PROPEL_SHM_ATOMIC_H */
