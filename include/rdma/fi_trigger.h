/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * propel: triggered and deferred operations of the OFI API.
 *
 * A triggered operation is an ordinary data-transfer call whose context
 * points at a struct fi_triggered_context (or ..._context2) describing
 * the condition that releases it.  Deferred work queues a fully described
 * operation on a domain via fi_control(FI_QUEUE_WORK).
 */
#ifndef PROPEL_RDMA_FI_TRIGGER_H
#define PROPEL_RDMA_FI_TRIGGER_H

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_atomic.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What releases a triggered operation. */
enum fi_trigger_event {
	FI_TRIGGER_THRESHOLD = 0,	/* struct fi_trigger_threshold */
	FI_TRIGGER_XPU       = 1	/* struct fi_trigger_xpu */
};

/* Kind of operation carried by a struct fi_deferred_work. */
enum fi_op_type {
	FI_OP_RECV           = 0,
	FI_OP_SEND           = 1,
	FI_OP_TRECV          = 2,
	FI_OP_TSEND          = 3,
	FI_OP_READ           = 4,
	FI_OP_WRITE          = 5,
	FI_OP_ATOMIC         = 6,
	FI_OP_FETCH_ATOMIC   = 7,
	FI_OP_COMPARE_ATOMIC = 8,
	FI_OP_CNTR_SET       = 9,
	FI_OP_CNTR_ADD       = 10
};

/* Fire once the counter reaches threshold. */
struct fi_trigger_threshold {
	struct fid_cntr *cntr;
	size_t threshold;
};

/* A device-side variable written by the accelerator to release work. */
struct fi_trigger_var {
	enum fi_datatype datatype;
	int count;
	void *addr;
	union {
		uint8_t val8;
		uint16_t val16;
		uint32_t val32;
		uint64_t val64;
		uint8_t *data;
	} value;
};

struct fi_trigger_xpu {
	int count;			/* entries in var[] */
	enum fi_hmem_iface iface;
	union {
		uint64_t reserved;
		int cuda;
		int ze;
	} device;
	struct fi_trigger_var *var;
};

/* Operation descriptors: the target endpoint (or counter), the message
 * exactly as the matching *msg() call would take it, and its flags. */

struct fi_op_msg {
	struct fid_ep *ep;
	struct fi_msg msg;
	uint64_t flags;
};

struct fi_op_tagged {
	struct fid_ep *ep;
	struct fi_msg_tagged msg;
	uint64_t flags;
};

struct fi_op_rma {
	struct fid_ep *ep;
	struct fi_msg_rma msg;
	uint64_t flags;
};

struct fi_op_atomic {
	struct fid_ep *ep;
	struct fi_msg_atomic msg;
	uint64_t flags;
};

struct fi_op_fetch_atomic {
	struct fid_ep *ep;
	struct fi_msg_atomic msg;
	struct fi_msg_fetch fetch;
	uint64_t flags;
};

struct fi_op_compare_atomic {
	struct fid_ep *ep;
	struct fi_msg_atomic msg;
	struct fi_msg_fetch fetch;
	struct fi_msg_compare compare;
	uint64_t flags;
};

struct fi_op_cntr {
	struct fid_cntr *cntr;
	uint64_t value;
};

#ifdef FABRIC_DIRECT
#include <rdma/fi_direct_trigger.h>
#endif

#ifndef FABRIC_DIRECT_TRIGGER

/* Passed in place of an operation's context, so it must occupy exactly
 * the space of struct fi_context (4 pointers) ... */
struct fi_triggered_context {
	enum fi_trigger_event event_type;
	union {
		struct fi_trigger_threshold threshold;
		struct fi_trigger_xpu xpu;
		void *internal[3];
	} trigger;
};

/* ... and this one that of struct fi_context2 (8 pointers). */
struct fi_triggered_context2 {
	enum fi_trigger_event event_type;
	union {
		struct fi_trigger_threshold threshold;
		struct fi_trigger_xpu xpu;
		void *internal[7];
	} trigger;
};

/* Argument of fi_control(domain, FI_QUEUE_WORK / FI_CANCEL_WORK): run
 * the operation once triggering_cntr reaches threshold, then bump
 * completion_cntr.  `context` is reserved for the provider. */
struct fi_deferred_work {
	struct fi_context2 context;

	uint64_t threshold;
	struct fid_cntr *triggering_cntr;
	struct fid_cntr *completion_cntr;

	enum fi_op_type op_type;

	union {
		struct fi_op_msg *msg;
		struct fi_op_tagged *tagged;
		struct fi_op_rma *rma;
		struct fi_op_atomic *atomic;
		struct fi_op_fetch_atomic *fetch_atomic;
		struct fi_op_compare_atomic *compare_atomic;
		struct fi_op_cntr *cntr;
	} op;
};

#endif /* !FABRIC_DIRECT_TRIGGER */

#ifdef __cplusplus
}
#endif

#endif /* PROPEL_RDMA_FI_TRIGGER_H */
