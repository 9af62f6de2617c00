/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shared region of one shm endpoint: the ONLY definition of what two
 * processes see in common (STYLE.md habit 4). Everything here is read and
 * written by several processes, possibly built from different propel
 * versions: a peer checks SHM_LAYOUT_MAGIC and SHM_LAYOUT_VERSION before
 * touching anything else, and takes the geometry (slot count, slot size,
 * bounce buffer count and size, table sizes) from the header, never from
 * its own parameters, so processes started with different FI_SHM_*
 * settings still talk.
 *
 * The region's OWNER is the endpoint that created it; it is the receiver
 * of everything queued here and the only consumer of the command queue.
 * Every other process mapping it is a PEER (a sender to the owner).
 *
 *   offset 0        struct shm_region_hdr     (geometry, identity, state)
 *   hdr.ctl_off     struct shm_ctl            (asleep flag, tail, head)
 *   hdr.peer_off    peer_count x struct shm_peer_ent
 *   hdr.sar_off     sar_chan_count x struct shm_sar_chan descriptors
 *   (below claim_off) cmdq_slots x 64-bit claim words, in DESCENDING
 *                   order: slot i's at claim_off - 8 (i + 1), so that
 *                   the line of slots 0..7 starts the page of slot 0
 *                   (shm_cmdq.c)
 *   hdr.claim_off   three lines of padding (the first is the claim
 *                   line's pair for the adjacent-line prefetcher)
 *   hdr.cmdq_off    cmdq_slots x cmdq_slot_size bytes, claim_off + 192
 *                   (each slot: struct shm_cmd + inline payload)
 *   hdr.sarbuf_off  sar_chan_count x SHM_SAR_RING x sar_buf_size bytes
 *   hdr.split_off   split_count x struct shm_split_job (split copies)
 *
 * What a peer costs (docs/transport.md, "What a peer costs"): a sender
 * maps the whole region but touches only the pages it uses. The header,
 * the control lines and the first peer entries share page 0, and slot 0
 * shares its page with the claim words of slots 0..7, so a sender that
 * opened the peer and sent one small message holds two pages of it. Nothing is
 * written at creation beyond the header: every table reads zero until
 * used (a zero claim word is the slot's first round, shm_cmdq.c (1)), so
 * the kernel's fault-around finds no other page to map into a peer.
 *
 * Synchronization table (who may run what at the same time, per region):
 *
 *                   | cmdq push | cmdq pop | peer claim | sar fill | sar drain | arm/wake
 *   cmdq push (peer)|    yes    |   yes    |    yes     |   yes    |   yes     |   yes
 *   cmdq pop (owner)|    yes    |   no     |    yes     |   yes    |   no      |   no
 *   peer claim      |    yes    |   yes    |    yes     |   yes    |   yes     |   yes
 *   sar fill (owner |    yes    |   yes    |    yes     | no (same |   yes     |   yes
 *     of THIS region|           |          |            | channel) |           |
 *   sar drain (a    |    yes    |   no     |    yes     |   yes    | no (same  |   no
 *     receiver)     |           |          |            |          |  channel) |
 *   arm (owner)     |    yes    |   no     |    yes     |   yes    |   no      |   no
 *
 * "owner" operations are serialized by the owner endpoint (its progress
 * source runs under the progress token). Note the SAR direction: bounce
 * buffers live in the SENDER's region (the sender is their only writer,
 * so allocation needs no cross-process atomics); the receiver maps the
 * sender's region to drain them.
 */
#ifndef PROPEL_SHM_LAYOUT_H
#define PROPEL_SHM_LAYOUT_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl_atomic.h"

#define SHM_LAYOUT_MAGIC	0x4d48534c45504f52ull	/* "ROPELSHM" */
/* Bump on ANY change of a struct below or of the meaning of a field. */
#define SHM_LAYOUT_VERSION	11u	/* 2: RMA and atomic commands;
					 * 3: SHM_CF_IN_HDR;
					 * 4: split copies (SHM_OP_SPLIT);
					 * 5: claim table (shm_cmdq.c);
					 * 6: no MR key table (the target
					 * validates every access); the
					 * atomic request defined here;
					 * 7: the wake socket's address
					 * in the header;
					 * 8: the consumer may claim a
					 * position itself to skip it
					 * (shm_cmdq.c (6)); headers
					 * checked by shm_layout_check;
					 * 9: claim words in their slots,
					 * zero for the first round; the
					 * peer table on the first page;
					 * 10: the claim table again, in
					 * descending order, ending on the
					 * page of slot 0;
					 * 11: a message's receive context
					 * in SHM_CF_RX_MASK */

#define SHM_CACHELINE		64
/* Longest endpoint name (FI_ADDR_STR text, NUL included). */
#define SHM_NAME_MAX		112
/* Room for the wake socket's abstract address (sun_path bytes, the
 * leading NUL included); the kernel's autobind names take 6. */
#define SHM_WAKE_ADDR_MAX	28
/* Buffers per SAR channel: the sender may run this many chunks ahead. */
#define SHM_SAR_RING		4
/* Most iovecs a CMA command carries inline (more: the sender uses SAR). */
#define SHM_CMA_IOV_MAX		4

/* shm_region_hdr.state */
enum shm_region_state {
	SHM_REGION_INIT = 0,	/* being built by the owner: keep out */
	SHM_REGION_READY = 1,	/* accepting commands */
	SHM_REGION_CLOSING = 2,	/* owner is closing: push fails -FI_ECONNRESET */
};

/* Region header. Written once by the owner before state goes READY
 * (release), read-only afterwards except `state`. */
struct shm_region_hdr {
	uint64_t magic;			/* SHM_LAYOUT_MAGIC */
	uint32_t version;		/* SHM_LAYOUT_VERSION */
	uint32_t hdr_size;		/* sizeof(struct shm_region_hdr) */
	uint64_t total_size;		/* bytes mapped */
	pl_atomic_u32 state;		/* enum shm_region_state; owner stores
					 * release, peers load acquire */
	int32_t owner_pid;		/* creator (tgid) */
	uint64_t owner_start;		/* creator's start time, clock ticks
					 * since boot (/proc/PID/stat field
					 * 22): tells a reused pid apart */
	uint32_t owner_uid;		/* creator's uid */
	uint32_t flags;			/* SHM_RF_* */

	/* geometry, owner-written before READY */
	uint32_t cmdq_slots;		/* power of two */
	uint32_t cmdq_slot_size;	/* bytes per slot, multiple of 64 */
	uint32_t inline_max;		/* cmdq_slot_size - sizeof(shm_cmd) */
	uint32_t peer_count;		/* entries in the peer table */
	uint32_t sar_chan_count;	/* SAR channels */
	uint32_t sar_buf_size;		/* bytes per bounce buffer */
	uint32_t split_count;		/* split copy jobs */
	uint64_t ctl_off, cmdq_off, peer_off, sar_off, sarbuf_off;
	uint64_t split_off;
	uint64_t claim_off;		/* end of the claim words (they
					 * descend from here) */
	/* The owner's wake-up socket (shm_wake.h): an abstract Unix
	 * address the kernel chose (autobind), so that no other process
	 * can take it first; owner-written before READY. A peer copies it
	 * once when it maps the region and checks it (abstract, in
	 * bounds) before use: like all of the header, it is input. */
	uint32_t wake_len;		/* bytes of wake_addr used */
	uint8_t wake_addr[SHM_WAKE_ADDR_MAX];	/* sun_path bytes, [0] = 0 */
	uint8_t rsvd[256 - 136 - 4 - SHM_WAKE_ADDR_MAX];
};
static_assert(sizeof(struct shm_region_hdr) == 256, "shm header size");
static_assert(offsetof(struct shm_region_hdr, ctl_off) == 80 &&
	      offsetof(struct shm_region_hdr, claim_off) == 128 &&
	      offsetof(struct shm_region_hdr, wake_addr) == 140,
	      "shm header offsets");

/* Region flags */
#define SHM_RF_CMA	(1u << 0)	/* owner passed the CMA probe: peers
					 * may process_vm_read/write it */

/* Control words, one cache line each: producers poll `asleep` and bump
 * `tail`, the owner writes `head`; sharing a line would bounce it. */
struct shm_ctl {
	/* Wake-up protocol (shm_wake.c, base's pl_evcount.h): the owner
	 * stores 1 before it sleeps, then a seq_cst fence, then re-checks
	 * its queue; a producer publishes a command, fences seq_cst, and
	 * if it reads 1, CASes it to 0 and signals the owner's socket. */
	pl_atomic_u32 asleep;
	uint8_t pad0[SHM_CACHELINE - 4];
	/* Next position to claim: a HINT every producer advances with a
	 * relaxed CAS; slot state words are the truth (shm_cmdq.c). */
	pl_atomic_u64 tail;
	uint8_t pad1[SHM_CACHELINE - 8];
	/* consumer position: the owner stores it (release) after it has
	 * read a command, producers load it (acquire) to learn that a slot
	 * is theirs to write again (shm_cmdq.c A1/A2). */
	pl_atomic_u64 head;
	pl_atomic_u64 dropped;	/* slots skipped: claimer died (relaxed) */
	uint8_t pad2[SHM_CACHELINE - 16];
};
static_assert(sizeof(struct shm_ctl) == 3 * SHM_CACHELINE, "shm ctl size");

/*
 * Command queue words (64 bits): [63:62] phase, [61:22] position (40
 * bits, wraps; compared with modular arithmetic), [21:0] pid (pid_max <=
 * 2^22 on Linux). Two per slot, on different lines:
 *  - the claim word (claim table, below the queue): zero (FREE) at
 *    creation, then CLAIMED(pos, claimer pid) for each position it
 *    serves;
 *  - the state word (shm_cmd.state, the line the consumer polls): the
 *    producer stores READY(pos) when the command is complete.
 * See shm_cmdq.c for the algorithm and its correctness argument.
 */
#define SHM_CMDQ_POS_BITS	40
#define SHM_CMDQ_PID_BITS	22

/* shm_cmd.op */
enum shm_op {
	SHM_OP_MSG = 1,		/* a message (proto says how its data moves) */
	SHM_OP_ACK = 2,		/* receiver -> sender: xfer_id delivered */
	SHM_OP_NOP = 3,		/* tests, wake-up probes */
	/* RMA and atomics (shm_xfer_rma.c). The target validates key, range
	 * and access against its own registrations before any byte moves,
	 * and answers every one with SHM_OP_ACK (status 0 or -FI_E*). */
	SHM_OP_WRITE = 4,	/* as SHM_OP_MSG (any proto), but the data
				 * goes to target address `tag` under `key`;
				 * always acknowledged (SAR: by `done`) */
	SHM_OP_READ = 5,	/* INLINE, payload struct shm_cmd_cma: the
				 * initiator's pid and result iovecs; `size`
				 * bytes from `tag` under `key` */
	SHM_OP_ATOMIC = 6,	/* INLINE, payload: the provider's atomic
				 * request (`size` bytes); target `tag`,
				 * `key`; the result comes back as DATA */
	SHM_OP_DATA = 7,	/* target -> initiator, INLINE: `size` bytes
				 * of a read or fetch result, at offset
				 * `cq_data` of request `xfer_id` (all DATA
				 * of a request precede its ACK) */
	SHM_OP_SPLIT = 8,	/* receiver -> sender of a CMA message: help
				 * copy it. Job `tag` of the receiver's
				 * region, generation `cq_data`; `xfer_id`
				 * the message's (its ACK follows) */
};

/* shm_cmd.proto */
enum shm_proto {
	SHM_PROTO_INLINE = 0,	/* data follows the command in the slot */
	SHM_PROTO_SAR = 1,	/* data in the sender's bounce channel */
	SHM_PROTO_CMA = 2,	/* receiver process_vm_readv's sender iovs */
};

/* shm_cmd.flags */
#define SHM_CF_ACK	(1u << 0)	/* sender wants SHM_OP_ACK (DC, CMA) */
#define SHM_CF_TAGGED	(1u << 1)	/* tag is meaningful */
#define SHM_CF_CQ_DATA	(1u << 2)	/* cq_data is meaningful */
/* SHM_OP_ACK of a CMA message whose copy the kernel refused: the sender
 * resends the data by SAR as a continuation; cq_data = receiver cookie. */
#define SHM_CF_RESEND	(1u << 3)
/* SHM_PROTO_SAR continuation of such a message (not matched again): tag =
 * the receiver's cookie from the SHM_CF_RESEND ack. */
#define SHM_CF_CONT	(1u << 4)
/* SHM_OP_MSG, SHM_PROTO_INLINE, size <= 8: the payload is in the key
 * word (unused by messages), not after the command. The receiver then
 * reads one line per message instead of two, and the second miss was a
 * serial one (it can only start once the state word reads READY). */
#define SHM_CF_IN_HDR	(1u << 5)
/* Bits 16..31: the receive context of a scalable endpoint the message
 * is for (fi_rx_addr; layout version 11), 0 otherwise. Foreign: the
 * receiving endpoint checks it against its own count of contexts. */
#define SHM_CF_RX_SHIFT	16
#define SHM_CF_RX_MASK	(0xffffu << SHM_CF_RX_SHIFT)
#define SHM_CMD_HDR_PAYLOAD_MAX	8u	/* sizeof(shm_cmd.key), asserted below */

/*
 * One command: the first 64 bytes of a slot. Written by the producer
 * between its claim and its READY store; read by the owner after it loads
 * READY (acquire); nobody else touches it.
 */
struct shm_cmd {
	pl_atomic_u64 state;	/* cmdq phase word, see above */
	uint8_t op;		/* enum shm_op */
	uint8_t proto;		/* enum shm_proto */
	uint16_t src_idx;	/* sender's entry in THIS region's peer table */
	uint32_t flags;		/* SHM_CF_* */
	uint64_t size;		/* message bytes (any proto) */
	uint64_t tag;
	uint64_t cq_data;
	uint64_t xfer_id;	/* sender's cookie, echoed by SHM_OP_ACK */
	uint32_t src_gen;	/* generation of peer entry src_idx */
	int32_t status;		/* SHM_OP_ACK: 0 or -FI_E* (truncation...) */
	uint64_t key;		/* SHM_OP_WRITE/READ/ATOMIC: target MR key;
				 * SHM_OP_MSG with SHM_CF_IN_HDR: payload */
};
static_assert(sizeof(struct shm_cmd) == SHM_CACHELINE, "shm cmd size");
static_assert(sizeof(((struct shm_cmd *)0)->key) == SHM_CMD_HDR_PAYLOAD_MAX,
	      "SHM_CF_IN_HDR payloads fill the key word");

/* Payload of a SHM_PROTO_SAR command (in the slot after shm_cmd). */
struct shm_cmd_sar {
	uint32_t chan;		/* channel index in the SENDER's region */
	uint32_t chan_gen;	/* channel generation at allocation */
};

/* Payload of a SHM_PROTO_CMA command. */
struct shm_cmd_cma {
	int32_t pid;		/* sender's pid for process_vm_readv */
	uint32_t iov_cnt;	/* <= SHM_CMA_IOV_MAX */
	struct {
		uint64_t base;
		uint64_t len;
	} iov[SHM_CMA_IOV_MAX];
};
static_assert(sizeof(struct shm_cmd_cma) == 8 + 16 * SHM_CMA_IOV_MAX,
	      "shm cma payload");

/*
 * Peer table entry in the RECEIVER's region: a sender claims a free entry
 * once (CAS from FREE to BUSY with gen + 1, acquire), writes its pid,
 * start time and name, then stores LIVE|gen (release: pairs with the
 * owner's acquire load in shm_xfer_rpeer). Commands name it by index and
 * generation. The claimer frees it at close (release store of FREE, the
 * next claim bumps gen); another sender may take over a LIVE entry whose
 * claimer died (shm_xfer_peer_open's second pass, a CAS, so a live
 * release wins).
 */
#define SHM_PEER_FREE		0u
#define SHM_PEER_BUSY		1u	/* claimed, name being written */
#define SHM_PEER_LIVE		2u	/* name published */
struct shm_peer_ent {
	pl_atomic_u32 state;	/* low 2 bits SHM_PEER_*, high 30 gen */
	int32_t pid;		/* claimer, written while BUSY */
	uint64_t start;		/* claimer's start time */
	char name[SHM_NAME_MAX]; /* claimer's FI_ADDR_STR name, written while
				  * BUSY */
};
static_assert(sizeof(struct shm_peer_ent) == 128, "shm peer entry size");

/*
 * SAR channel descriptor in the SENDER's region. The sender (region
 * owner) allocates a free channel locally (it is the only allocator),
 * bumps `gen`, and names (chan, gen) in the SHM_PROTO_SAR command.
 * Each ring buffer b has a word buf_state[b]:
 *   0                     empty, sender may fill
 *   (chunk << 1) | 1      full with chunk number `chunk` (relaxed-free:
 *                         sender stores release after writing the data;
 *                         receiver loads acquire before copying it)
 * The receiver stores 0 (release: its copy-out happens before the sender
 * reuses the buffer, pairing with the sender's acquire load) after
 * draining. The sender never writes a buffer whose word is not 0: that is
 * the flow control, a slow receiver only stalls the sender.
 * `done` is stored by the receiver (release) once it has consumed the
 * last chunk or discarded the message (value: 1 + status code offset);
 * the sender loads it (acquire) to complete and recycle the channel.
 */
struct shm_sar_chan {
	pl_atomic_u32 gen;	/* sender-written (release at allocation) */
	pl_atomic_u32 done;	/* 0 pending; receiver stores 1 + (-status) */
	uint8_t pad0[SHM_CACHELINE - 8];
	pl_atomic_u64 buf_state[SHM_SAR_RING];
	uint8_t pad1[SHM_CACHELINE - 8 * SHM_SAR_RING];
};
static_assert(sizeof(struct shm_sar_chan) == 2 * SHM_CACHELINE,
	      "shm sar channel size");

/*
 * Split copy job, in the RECEIVER's region (algorithm and proof:
 * shm_xfer_split.c). The receiver of a large CMA message copies chunks
 * from the front while the sender, told by SHM_OP_SPLIT, writes chunks
 * from the back with process_vm_writev: two cores move one message.
 *
 * `claim` holds gen[63:48] | lo[47:24] | hi[23:0]: chunks [lo, hi) are
 * still unclaimed. Only the owner (receiver) moves lo, only the helper
 * (sender) moves hi, both by CAS, so a chunk is copied by one side.
 * The owner writes len, chunk and iov (relaxed atomics: a late helper
 * may read them while the owner reuses the job; its CAS on a changed
 * gen then fails and it drops what it read), then publishes them with a
 * release store of a new gen; the helper loads `claim` with acquire.
 * The helper counts each chunk it is done with in help_done (acq_rel
 * RMW, after its copy; the owner loads it with acquire), having stored
 * help_err (release) first when that chunk's copy failed; it then stops.
 */
#define SHM_SPLIT_JOBS		8
#define SHM_SPLIT_IDX_BITS	24
struct shm_split_job {
	pl_atomic_u64 claim;
	uint8_t pad0[SHM_CACHELINE - 8];
	pl_atomic_u64 help_done;	/* helper-written */
	pl_atomic_u32 help_err;		/* 0, or the positive FI_E* code */
	uint8_t pad1[SHM_CACHELINE - 12];
	/* owner-written before the gen that names them */
	pl_atomic_u64 len;		/* bytes the job moves */
	pl_atomic_u64 chunk;		/* bytes per chunk (the last: less) */
	pl_atomic_u64 iov_cnt;		/* <= SHM_CMA_IOV_MAX */
	pl_atomic_u64 iov[SHM_CMA_IOV_MAX][2];	/* receiver's base, len */
	uint8_t pad2[2 * SHM_CACHELINE - 24 - 16 * SHM_CMA_IOV_MAX];
};
static_assert(sizeof(struct shm_split_job) == 4 * SHM_CACHELINE,
	      "shm split job size");

/*
 * Atomic request (SHM_OP_ATOMIC), the inline payload of the command at
 * the target (shm_atomic.h applies it): this header, count operands, then
 * (compare kind) count compare values, each element of datatype's size.
 */
/* Operand bytes one request carries (each of buf and compare): count
 * limit = SHM_ATOMIC_MAX_BYTES / datatype size. Sized so that a compare
 * request (header + 2 x 64) fits 192 inline bytes. */
#define SHM_ATOMIC_MAX_BYTES	64

enum shm_atomic_kind {
	SHM_ATOMIC_WRITE = 0,	/* fi_atomic: no result */
	SHM_ATOMIC_FETCH = 1,	/* fi_fetch_atomic */
	SHM_ATOMIC_COMPARE = 2,	/* fi_compare_atomic */
};

struct shm_atomic_req {
	uint8_t op;		/* enum fi_op */
	uint8_t datatype;	/* enum fi_datatype */
	uint8_t kind;		/* enum shm_atomic_kind */
	uint8_t pad;
	uint32_t count;		/* elements */
	uint8_t data[];		/* operands, then compare values */
};
static_assert(sizeof(struct shm_atomic_req) == 8 &&
	      offsetof(struct shm_atomic_req, count) == 4 &&
	      offsetof(struct shm_atomic_req, data) == 8,
	      "shm atomic request layout");
static_assert(sizeof(struct shm_atomic_req) + 2 * SHM_ATOMIC_MAX_BYTES <=
	      192, "a compare request fits 192 inline bytes");

/* Geometry an owner asks for; shm_region_layout() fills the offsets. */
struct shm_layout_req {
	uint32_t cmdq_slots;	/* rounded up to a power of two */
	uint32_t inline_max;	/* rounded up so slots are 64-byte multiples */
	uint32_t peer_count;
	uint32_t sar_chan_count;
	uint32_t sar_buf_size;	/* rounded up to 64 */
	uint32_t split_count;
	/* published in the header (shm_region_hdr.wake_*); 0: none */
	uint32_t wake_len;
	const uint8_t *wake_addr;
};

/*
 * Fill hdr's geometry and offsets from req (rounding as above) and return
 * the region size in bytes, or 0 when req is out of range (zero counts,
 * more than 2^20 slots, inline > 64 KiB...). shm_layout.c.
 */
size_t shm_layout_compute(const struct shm_layout_req *req,
			  struct shm_region_hdr *hdr);

/*
 * Is h (a PRIVATE copy of a header another process wrote) a header of
 * ours, of this version, whose geometry is within our limits and whose
 * every table lies inside a file of file_size bytes? Exactly the layout
 * shm_layout_compute makes of its own counts, or false. The one check a
 * mapped region's geometry passes before anything indexes through it.
 */
bool shm_layout_check(const struct shm_region_hdr *h, uint64_t file_size);

#endif /* PROPEL_SHM_LAYOUT_H */
