/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes the seed corpus of the shm fuzz targets (fuzz_shm_hdr.c,
 * fuzz_shm_cmd.c): region headers as shm_layout_compute makes them
 * (raw, and as requests to scribble over), commands of every op and
 * protocol, and a few just past a rule; one file each, under
 * DIR/shm_hdr and DIR/shm_cmd. The files are committed; rerun after a
 * change to shm_layout.h:
 *
 *   cc -I include -I base/include -I prov/shm -I prov/shm/transport \
 *      tests/fuzz/gen_corpus_shm.c prov/shm/transport/shm_layout.c \
 *      -o /tmp/gen_shm && /tmp/gen_shm tests/fuzz/corpus
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shm_layout.h"

static const char *root;

static void put(const char *dir, const char *name, const void *a,
		size_t alen, const void *b, size_t blen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", root, dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen ||
	    (blen && fwrite(b, 1, blen, f) != blen) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A raw header (form "even") of req, optionally with one field bent. */
static void raw_hdr(const char *name, struct shm_layout_req req,
		    size_t bend_off, uint32_t bend_val)
{
	uint8_t buf[1 + sizeof(struct shm_region_hdr) + 8] = { 0 };
	struct shm_region_hdr h;
	uint64_t size = shm_layout_compute(&req, &h);

	if (!size) {
		fprintf(stderr, "%s: request out of range\n", name);
		exit(1);
	}
	if (bend_off)
		memcpy((uint8_t *)&h + bend_off, &bend_val, 4);
	memcpy(buf + 1, &h, sizeof(h));
	memcpy(buf + 1 + sizeof(h), &size, 8);
	put("shm_hdr", name, buf, sizeof(buf), NULL, 0);
}

/* A request to lay out and scribble over (form "odd"). */
static void req_hdr(const char *name, const uint32_t counts[6],
		    const uint8_t *patches, size_t plen)
{
	uint8_t buf[1 + 24 + 64];

	buf[0] = 1;
	memcpy(buf + 1, counts, 24);
	memcpy(buf + 25, patches, plen);
	put("shm_hdr", name, buf, 25 + plen, NULL, 0);
}

static void cmd(const char *name, uint8_t op, uint8_t proto, uint32_t flags,
		uint64_t size, uint32_t iov_cnt)
{
	uint8_t buf[2 + sizeof(struct shm_cmd) + sizeof(struct shm_cmd_cma)];
	struct shm_cmd c;
	struct shm_cmd_cma cma;

	memset(&c, 0, sizeof(c));
	memset(&cma, 0, sizeof(cma));
	c.op = op;
	c.proto = proto;
	c.flags = flags;
	c.size = size;
	c.src_idx = 3;
	c.src_gen = 7;
	c.xfer_id = 0x0000000500000002ull;
	c.tag = 0x1234;
	cma.pid = 4242;
	cma.iov_cnt = iov_cnt;
	cma.iov[0].base = 0x7f0000001000ull;
	cma.iov[0].len = size;
	buf[0] = 16;	/* inline size 16 x 64 = 1024 */
	buf[1] = 0;
	memcpy(buf + 2, &c, sizeof(c));
	memcpy(buf + 2 + sizeof(c), &cma, sizeof(cma));
	put("shm_cmd", name, buf, sizeof(buf), NULL, 0);
}

static_assert(offsetof(struct shm_region_hdr, inline_max) == 56 &&
	      offsetof(struct shm_region_hdr, peer_count) == 60 &&
	      offsetof(struct shm_region_hdr, sar_chan_count) == 64,
	      "the patches below name these offsets");

int main(int argc, char **argv)
{
	const struct shm_layout_req def = {
		.cmdq_slots = 1024, .inline_max = 1024, .peer_count = 256,
		.sar_chan_count = 16, .sar_buf_size = 65536, .split_count = 8,
	}, small = {
		.cmdq_slots = 16, .inline_max = 0, .peer_count = 1,
		.sar_chan_count = 0, .sar_buf_size = 0, .split_count = 0,
	};
	const uint32_t c_def[6] = { 1024, 1024, 256, 16, 65536, 8 },
		       c_big[6] = { 1u << 20, 65536, 65535, 4096, 16u << 20,
				    64 };
	/* (offset, byte) patches: peer_count (offset 60) to 65535, the
	 * top byte of sar_chan_count (64) and of sar_buf_size (68),
	 * inline_max (56) past 128 KiB */
	const uint8_t p_peer[] = { 60, 0xff, 61, 0xff },
		      p_sar[] = { 67, 0x80, 70, 0x01 },
		      p_inl[] = { 58, 0x03 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	root = argv[1];
	raw_hdr("raw_default", def, 0, 0);
	raw_hdr("raw_small", small, 0, 0);
	raw_hdr("bad_peer_count", def,
		offsetof(struct shm_region_hdr, peer_count), 65535);
	raw_hdr("bad_inline", def,
		offsetof(struct shm_region_hdr, inline_max), 5000);
	raw_hdr("bad_sar", def,
		offsetof(struct shm_region_hdr, sar_chan_count), 1u << 31);
	raw_hdr("bad_cmdq_off", def,
		offsetof(struct shm_region_hdr, cmdq_off), 64);
	raw_hdr("bad_version", def,
		offsetof(struct shm_region_hdr, version), SHM_LAYOUT_VERSION + 1);
	req_hdr("req_default", c_def, NULL, 0);
	req_hdr("req_big", c_big, NULL, 0);
	req_hdr("req_peer_scribbled", c_def, p_peer, sizeof(p_peer));
	req_hdr("req_sar_scribbled", c_def, p_sar, sizeof(p_sar));
	req_hdr("req_inline_scribbled", c_def, p_inl, sizeof(p_inl));

	cmd("msg_inline", SHM_OP_MSG, SHM_PROTO_INLINE, SHM_CF_TAGGED, 200, 0);
	cmd("msg_in_hdr", SHM_OP_MSG, SHM_PROTO_INLINE, SHM_CF_IN_HDR, 8, 0);
	/* a receive context of a scalable endpoint (layout 11) */
	cmd("msg_rx_ctx", SHM_OP_MSG, SHM_PROTO_INLINE,
	    SHM_CF_TAGGED | (5u << SHM_CF_RX_SHIFT), 16, 0);
	cmd("msg_sar", SHM_OP_MSG, SHM_PROTO_SAR, SHM_CF_CQ_DATA, 100000, 0);
	cmd("msg_cma", SHM_OP_MSG, SHM_PROTO_CMA, SHM_CF_ACK, 1 << 20, 2);
	cmd("msg_cont", SHM_OP_MSG, SHM_PROTO_SAR, SHM_CF_CONT, 1 << 20, 0);
	cmd("write_inline", SHM_OP_WRITE, SHM_PROTO_INLINE, SHM_CF_ACK, 64, 0);
	cmd("read", SHM_OP_READ, SHM_PROTO_INLINE, 0, 4096, 1);
	cmd("atomic", SHM_OP_ATOMIC, SHM_PROTO_INLINE, 0, 24, 0);
	cmd("data", SHM_OP_DATA, SHM_PROTO_INLINE, 0, 512, 0);
	cmd("ack", SHM_OP_ACK, SHM_PROTO_INLINE, SHM_CF_RESEND, 0, 0);
	cmd("split", SHM_OP_SPLIT, SHM_PROTO_INLINE, 0, 0, 0);
	cmd("nop", SHM_OP_NOP, SHM_PROTO_INLINE, 0, 0, 0);
	cmd("bad_inline_size", SHM_OP_MSG, SHM_PROTO_INLINE, 0, 5000, 0);
	cmd("bad_in_hdr", SHM_OP_WRITE, SHM_PROTO_INLINE, SHM_CF_IN_HDR, 8, 0);
	cmd("bad_cma_iovs", SHM_OP_MSG, SHM_PROTO_CMA, 0, 1 << 20, 5);
	cmd("bad_read_proto", SHM_OP_READ, SHM_PROTO_SAR, 0, 4096, 1);
	cmd("bad_proto", SHM_OP_MSG, 3, 0, 10, 0);
	cmd("unknown_op", 99, SHM_PROTO_INLINE, 0, 0, 0);
	return 0;
}
