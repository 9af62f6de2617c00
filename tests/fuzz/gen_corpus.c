/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes the seed corpus of the tcp fuzz targets: valid headers of every
 * op and CM kind (and a few just past a rule) in wire order, one file
 * each, under DIR/tcp_hdr and DIR/tcp_cm. The files are committed;
 * rerun after a change to tcp_proto.h:
 *
 *   cc -I include -I prov/tcp tests/fuzz/gen_corpus.c -o /tmp/gen &&
 *   /tmp/gen tests/fuzz/corpus
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tcp_proto.h"

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

static void hdr(const char *name, uint8_t op, uint8_t flags, uint16_t status,
		uint64_t size, const uint64_t *limits)
{
	struct tcp_hdr h = {
		.op = op, .flags = flags, .status = htole16(status),
		.id = htole32(0x00010007), .size = htole64(size),
		.tag_addr = htole64(0x7f0000001000ull),
		.key = htole64(0x100), .data = htole64(0x1122334455667788ull),
	};
	uint64_t lim[2];

	if (limits) {
		lim[0] = htole64(limits[0]);
		lim[1] = htole64(limits[1]);
	}
	put("tcp_hdr", name, &h, sizeof(h), limits ? lim : NULL,
	    limits ? sizeof(lim) : 0);
}

static void cm(const char *name, uint32_t magic, uint8_t version,
	       uint8_t kind, uint16_t data_len, uint8_t expect,
	       size_t data_bytes)
{
	struct tcp_cm_msg m = {
		.magic = htole32(magic), .version = version, .kind = kind,
		.data_len = htole16(data_len),
	};
	uint8_t rest[1 + 512];

	rest[0] = expect;
	for (size_t i = 1; i < sizeof(rest); i++)
		rest[i] = (uint8_t)(i * 7);
	put("tcp_cm", name, &m, sizeof(m), rest, 1 + data_bytes);
}

int main(int argc, char **argv)
{
	const uint64_t small[2] = { 4096, 1024 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	root = argv[1];
	mkdir(root, 0755);
	hdr("msg", TCP_OP_MSG, 0, 0, 64, NULL);
	hdr("msg_cqdata", TCP_OP_MSG, TCP_F_CQ_DATA, 0, 4096, NULL);
	hdr("msg_ack", TCP_OP_MSG, TCP_F_ACK_REQ, 0, 0, NULL);
	hdr("tagged", TCP_OP_TAGGED, 0, 0, 1 << 20, NULL);
	hdr("write", TCP_OP_WRITE, TCP_F_ACK_REQ, 0, 65536, NULL);
	hdr("write_cqdata", TCP_OP_WRITE, TCP_F_ACK_REQ | TCP_F_CQ_DATA, 0,
	    8, small);
	hdr("read_req", TCP_OP_READ_REQ, 0, 0, 1 << 20, NULL);
	hdr("read_req_limit", TCP_OP_READ_REQ, 0, 0, 1024, small);
	hdr("read_resp", TCP_OP_READ_RESP, 0, 0, 4096, NULL);
	hdr("read_resp_err", TCP_OP_READ_RESP, 0, 13, 0, NULL);
	hdr("ack", TCP_OP_ACK, 0, 0, 0, NULL);
	hdr("ack_err", TCP_OP_ACK, 0, 22, 0, NULL);
	/* one rule broken each */
	hdr("bad_op0", 0, 0, 0, 0, NULL);
	hdr("bad_op7", TCP_OP_MAX + 1, 0, 0, 0, NULL);
	hdr("bad_flags", TCP_OP_MSG, 0x80, 0, 0, NULL);
	hdr("bad_size", TCP_OP_MSG, 0, 0, 4097, small);
	hdr("bad_ack_size", TCP_OP_ACK, 0, 0, 8, NULL);
	hdr("bad_resp_both", TCP_OP_READ_RESP, 0, 5, 16, NULL);

	cm("req", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_REQ, 0, TCP_CM_REQ,
	   0);
	cm("req_data200", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_REQ, 200,
	   TCP_CM_REQ, 200);
	cm("req_data_max", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_REQ,
	   TCP_CM_DATA_MAX, TCP_CM_REQ, TCP_CM_DATA_MAX);
	cm("accept", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_ACCEPT, 100, 0,
	   100);
	cm("reject", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_REJECT, 60, 0,
	   60);
	cm("bad_magic", TCP_CM_MAGIC ^ 1, TCP_PROTO_VERSION, TCP_CM_REQ, 0,
	   TCP_CM_REQ, 0);
	cm("bad_version", TCP_CM_MAGIC, TCP_PROTO_VERSION + 1, TCP_CM_REQ, 0,
	   TCP_CM_REQ, 0);
	cm("bad_len", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_ACCEPT,
	   TCP_CM_DATA_MAX + 1, 0, 300);
	cm("bad_kind", TCP_CM_MAGIC, TCP_PROTO_VERSION, TCP_CM_REQ, 0, 0, 0);
	return 0;
}
