/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Region geometry (shm_layout.h): computing it from a request, and
 * checking a header some other process wrote (DESIGN.md section 7a:
 * memory another process can write is input). Pure functions over a
 * private copy, no shared memory touched: tests/fuzz/fuzz_shm_hdr.c feeds
 * shm_layout_check arbitrary bytes.
 */
#include <stdbool.h>
#include <string.h>

#include "shm_layout.h"

#define SHM_ALIGN_UP(x, a)	(((x) + (a) - 1) / (a) * (a))
#define SHM_PAGE		4096u

size_t shm_layout_compute(const struct shm_layout_req *req,
			 struct shm_region_hdr *hdr)
{
	uint64_t off, slots = 1, inl;

	if (!req->cmdq_slots || req->cmdq_slots > (1u << 20) ||
	    req->inline_max > 65536 || !req->peer_count ||
	    req->peer_count > 65535 || req->sar_chan_count > 4096 ||
	    (req->sar_chan_count && (req->sar_buf_size < 64 ||
				     req->sar_buf_size > (16u << 20))) ||
	    req->split_count > 64 || req->wake_len > SHM_WAKE_ADDR_MAX ||
	    (req->wake_len && !req->wake_addr))
		return 0;
	while (slots < req->cmdq_slots)
		slots <<= 1;
	/* A SAR or CMA command must fit whatever the inline size. */
	inl = SHM_ALIGN_UP(req->inline_max, SHM_CACHELINE);
	if (inl < sizeof(struct shm_cmd_cma))
		inl = SHM_ALIGN_UP(sizeof(struct shm_cmd_cma), SHM_CACHELINE);

	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = SHM_LAYOUT_MAGIC;
	hdr->version = SHM_LAYOUT_VERSION;
	hdr->hdr_size = sizeof(*hdr);
	hdr->cmdq_slots = (uint32_t)slots;
	hdr->cmdq_slot_size = (uint32_t)(sizeof(struct shm_cmd) + inl);
	hdr->inline_max = (uint32_t)inl;
	hdr->peer_count = req->peer_count;
	hdr->sar_chan_count = req->sar_chan_count;
	hdr->sar_buf_size = req->sar_chan_count ?
		SHM_ALIGN_UP(req->sar_buf_size, SHM_CACHELINE) : 0;
	hdr->split_count = req->split_count;
	hdr->wake_len = req->wake_len;
	if (req->wake_len)
		memcpy(hdr->wake_addr, req->wake_addr, req->wake_len);

	off = SHM_ALIGN_UP(sizeof(*hdr), SHM_CACHELINE);
	hdr->ctl_off = off;
	off += sizeof(struct shm_ctl);
	/* the peer table next: its first entries share page 0 with the
	 * header and the control lines, which a sender reads anyway */
	hdr->peer_off = off;
	off += (uint64_t)req->peer_count * sizeof(struct shm_peer_ent);
	hdr->sar_off = off;
	off += (uint64_t)req->sar_chan_count * sizeof(struct shm_sar_chan);
	/* The claim words (producers' lines, apart from the slots the
	 * consumer polls: shm_cmdq.c), in descending order, so that the
	 * line of slots 0..7 starts a page (P) and slot 0 follows on that
	 * page after a line of padding: the page a first message needs.
	 * The consumer reads forward from the slots and never streams
	 * into them. Slot 0 starts 256 bytes into P: the claim line, its
	 * pair for the adjacent-line prefetcher, and two more lines (with
	 * slot 0 right after the pair, 256-byte messages streamed 5-10 %
	 * slower than with the page-aligned queue of version 8; at 256
	 * bytes the difference was within the noise). */
	off = SHM_ALIGN_UP(off + slots * sizeof(uint64_t) - SHM_CACHELINE,
			   SHM_PAGE);
	hdr->claim_off = off + SHM_CACHELINE;
	hdr->cmdq_off = off + 4 * SHM_CACHELINE;
	off = hdr->cmdq_off + slots * hdr->cmdq_slot_size;
	off = SHM_ALIGN_UP(off, SHM_PAGE);
	hdr->sarbuf_off = off;
	off += (uint64_t)req->sar_chan_count * SHM_SAR_RING *
	       hdr->sar_buf_size;
	hdr->split_off = off;
	off += (uint64_t)req->split_count * sizeof(struct shm_split_job);
	off = SHM_ALIGN_UP(off, SHM_PAGE);
	hdr->total_size = off;
	return (size_t)off;
}

bool shm_layout_check(const struct shm_region_hdr *h, uint64_t file_size)
{
	struct shm_layout_req req;
	struct shm_region_hdr ref;

	if (h->magic != SHM_LAYOUT_MAGIC || h->version != SHM_LAYOUT_VERSION ||
	    h->hdr_size != sizeof(*h) || h->total_size != file_size ||
	    h->wake_len > SHM_WAKE_ADDR_MAX)
		return false;
	/* The geometry must be exactly what our own layout makes of it:
	 * that bounds every count and size by our limits (the checks of
	 * shm_layout_compute) and puts every table at the offset we would
	 * have chosen, inside a file of the size the header states, which
	 * is the size we mapped. Nothing is trusted that a peer could
	 * have chosen freely. */
	req = (struct shm_layout_req){
		.cmdq_slots = h->cmdq_slots,
		.inline_max = h->inline_max,
		.peer_count = h->peer_count,
		.sar_chan_count = h->sar_chan_count,
		.sar_buf_size = h->sar_buf_size,
		.split_count = h->split_count,
		.wake_len = h->wake_len,
		.wake_addr = h->wake_addr,
	};
	if (!shm_layout_compute(&req, &ref))
		return false;
	return ref.cmdq_slots == h->cmdq_slots &&
	       ref.cmdq_slot_size == h->cmdq_slot_size &&
	       ref.inline_max == h->inline_max &&
	       ref.sar_buf_size == h->sar_buf_size &&
	       ref.ctl_off == h->ctl_off && ref.claim_off == h->claim_off &&
	       ref.cmdq_off == h->cmdq_off && ref.peer_off == h->peer_off &&
	       ref.sar_off == h->sar_off && ref.sarbuf_off == h->sarbuf_off &&
	       ref.split_off == h->split_off &&
	       ref.total_size == h->total_size;
}
