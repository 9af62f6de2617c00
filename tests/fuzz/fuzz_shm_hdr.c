/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target: shm_layout_check (prov/shm/transport/shm_layout.c), the gate
 * every shm region header passes, as a private copy, before a process indexes
 * anything through it (DESIGN.md section 7a).
 *
 * Input, two forms chosen by the first byte:
 *   even: the 256 bytes of a header as another process left them
 *         (shorter: zero-filled), then 8 bytes of file size;
 *   odd:  a request (6 x 32-bit counts) laid out by shm_layout_compute,
 *         then (offset, byte) pairs patched over the header it made: a
 *         scribble over a real header, which a raw header rarely
 *         resembles.
 * Whatever is accepted must satisfy every rule shm_layout.h states, each
 * table inside the file, or the target aborts (a crash to libFuzzer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shm_layout.h"

#define FUZZ_REQUIRE(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Every rule an accepted header h of a file_size-byte file obeys. */
static void fuzz_hdr_rules(const struct shm_region_hdr *h, uint64_t file_size)
{
	uint64_t n = h->cmdq_slots, end = file_size;

	FUZZ_REQUIRE(h->total_size == file_size);
	FUZZ_REQUIRE(n && !(n & (n - 1)) && n <= (1u << 20));
	FUZZ_REQUIRE(h->cmdq_slot_size == sizeof(struct shm_cmd) +
					  h->inline_max);
	FUZZ_REQUIRE(!(h->inline_max % SHM_CACHELINE) &&
		     h->inline_max >= sizeof(struct shm_cmd_cma) &&
		     h->inline_max <= 65536 + SHM_CACHELINE);
	FUZZ_REQUIRE(h->peer_count && h->peer_count <= 65535);
	FUZZ_REQUIRE(h->sar_chan_count <= 4096);
	FUZZ_REQUIRE(!h->sar_chan_count || (h->sar_buf_size >= 64 &&
		     h->sar_buf_size <= (16u << 20)));
	FUZZ_REQUIRE(h->split_count <= 64);
	FUZZ_REQUIRE(h->wake_len <= SHM_WAKE_ADDR_MAX);
	FUZZ_REQUIRE(h->ctl_off >= sizeof(*h) &&
		     h->ctl_off + sizeof(struct shm_ctl) <= end);
	/* the claim words descend from claim_off, above the SAR table */
	FUZZ_REQUIRE(h->claim_off >= n * 8 &&
		     h->claim_off - n * 8 >= h->sar_off +
		     (uint64_t)h->sar_chan_count * sizeof(struct shm_sar_chan));
	FUZZ_REQUIRE(h->claim_off <= h->cmdq_off);
	FUZZ_REQUIRE(h->cmdq_off + n * h->cmdq_slot_size <= end);
	FUZZ_REQUIRE(h->peer_off + (uint64_t)h->peer_count *
		     sizeof(struct shm_peer_ent) <= end);
	FUZZ_REQUIRE(h->sar_off + (uint64_t)h->sar_chan_count *
		     sizeof(struct shm_sar_chan) <= end);
	FUZZ_REQUIRE(h->sarbuf_off + (uint64_t)h->sar_chan_count *
		     SHM_SAR_RING * h->sar_buf_size <= end);
	FUZZ_REQUIRE(h->split_off + (uint64_t)h->split_count *
		     sizeof(struct shm_split_job) <= end);
	/* aligned as the shared atomics need */
	FUZZ_REQUIRE(!(h->ctl_off % SHM_CACHELINE) &&
		     !(h->claim_off % 8) && !(h->cmdq_off % SHM_CACHELINE) &&
		     !(h->peer_off % 8) && !(h->sar_off % SHM_CACHELINE) &&
		     !(h->split_off % SHM_CACHELINE));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shm_region_hdr h;
	uint64_t file_size = 0;
	bool ok;

	if (!size)
		return 0;
	memset(&h, 0, sizeof(h));
	if (!(data[0] & 1)) {
		data++, size--;
		memcpy(&h, data, size < sizeof(h) ? size : sizeof(h));
		if (size >= sizeof(h) + 8)
			memcpy(&file_size, data + sizeof(h), 8);
	} else {
		struct shm_layout_req req;
		size_t i;

		data++, size--;
		if (size < 24)
			return 0;
		req = (struct shm_layout_req){
			.cmdq_slots = get32(data) % (1u << 21),
			.inline_max = get32(data + 4) % 70000,
			.peer_count = get32(data + 8) % 70000,
			.sar_chan_count = get32(data + 12) % 5000,
			.sar_buf_size = get32(data + 16) % (17u << 20),
			.split_count = get32(data + 20) % 70,
		};
		file_size = shm_layout_compute(&req, &h);
		if (!file_size)
			return 0;
		for (i = 24; i + 1 < size; i += 2)
			((uint8_t *)&h)[data[i] % sizeof(h)] = data[i + 1];
	}
	ok = shm_layout_check(&h, file_size);
	/* a check, not a transformation: the same verdict twice */
	FUZZ_REQUIRE(ok == shm_layout_check(&h, file_size));
	if (ok)
		fuzz_hdr_rules(&h, file_size);
	return 0;
}
