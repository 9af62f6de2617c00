/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scalable endpoints on ofi_rxm over tcp (rdm_sep.h; the receive context
 * rides in RXM_F_RX_MASK), through the public API, two scalable
 * endpoints in one process over loopback: every transmit context of B
 * sends to every receive context of A by fi_rx_addr, eager and
 * rendezvous sizes; each message completes on the CQ of the receive
 * context it named, with its own bytes and B's address (FI_SOURCE); each
 * send on its transmit context's CQ. A message naming a context A does
 * not have is dropped; a context index past the header's 8 bits is
 * refused at the sender (-FI_EINVAL).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "rxm_test.h"

#define NCTX	2
#define BITS	9	/* room for 512 contexts: past the header's 8 bits */

struct sep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_ep *sep, *tx[NCTX], *rx[NCTX];
	struct fid_cq *tcq[NCTX], *rcq[NCTX];
	char name[64];
	size_t namelen;
};

static void sep_open(struct sep *s)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_av_attr ava = { .type = FI_AV_TABLE, .rx_ctx_bits = BITS };

	memset(s, 0, sizeof(*s));
	CHECK(hints);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_SOURCE | FI_NAMED_RX_CTX;
	hints->ep_attr->tx_ctx_cnt = NCTX;
	hints->ep_attr->rx_ctx_cnt = NCTX;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	CHECK_EQ(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			    hints, &s->info), 0);
	fi_freeinfo(hints);
	CHECK(s->info->ep_attr->rx_ctx_cnt == NCTX);
	CHECK_EQ(fi_fabric(s->info->fabric_attr, &s->fabric, NULL), 0);
	CHECK_EQ(fi_domain(s->fabric, s->info, &s->domain, NULL), 0);
	CHECK_EQ(fi_av_open(s->domain, &ava, &s->av, NULL), 0);
	CHECK_EQ(fi_scalable_ep(s->domain, s->info, &s->sep, NULL), 0);
	CHECK_EQ(fi_scalable_ep_bind(s->sep, &s->av->fid, 0), 0);
	for (int i = 0; i < NCTX; i++) {
		CHECK_EQ(fi_tx_context(s->sep, i, NULL, &s->tx[i], NULL), 0);
		CHECK_EQ(fi_rx_context(s->sep, i, NULL, &s->rx[i], NULL), 0);
		CHECK_EQ(fi_cq_open(s->domain, &cqa, &s->tcq[i], NULL), 0);
		CHECK_EQ(fi_cq_open(s->domain, &cqa, &s->rcq[i], NULL), 0);
		CHECK_EQ(fi_ep_bind(s->tx[i], &s->tcq[i]->fid, FI_TRANSMIT),
			 0);
		CHECK_EQ(fi_ep_bind(s->rx[i], &s->rcq[i]->fid, FI_RECV), 0);
		CHECK_EQ(fi_enable(s->tx[i]), 0);
		CHECK_EQ(fi_enable(s->rx[i]), 0);
	}
	CHECK_EQ(fi_enable(s->sep), 0);
	s->namelen = sizeof(s->name);
	CHECK_EQ(fi_getname(&s->sep->fid, s->name, &s->namelen), 0);
}

static void sep_close(struct sep *s)
{
	for (int i = 0; i < NCTX; i++) {
		CHECK_EQ(fi_close(&s->tx[i]->fid), 0);
		CHECK_EQ(fi_close(&s->rx[i]->fid), 0);
		CHECK_EQ(fi_close(&s->tcq[i]->fid), 0);
		CHECK_EQ(fi_close(&s->rcq[i]->fid), 0);
	}
	CHECK_EQ(fi_close(&s->sep->fid), 0);
	CHECK_EQ(fi_close(&s->av->fid), 0);
	CHECK_EQ(fi_close(&s->domain->fid), 0);
	CHECK_EQ(fi_close(&s->fabric->fid), 0);
	fi_freeinfo(s->info);
}

static struct sep A, B;

/* Read one entry from cq, driving both sides (reading any CQ of a
 * domain drives its progress): 1, or 0 after polls passes. */
static int read_one(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		    fi_addr_t *src, long polls)
{
	struct fi_cq_tagged_entry x;

	for (long i = 0; polls < 0 || i < polls; i++) {
		ssize_t n = src ? fi_cq_readfrom(cq, e, 1, src) :
				  fi_cq_read(cq, e, 1);

		if (n == 1) {
			rxm_test_beat();
			return 1;
		}
		CHECK_EQ(n, -FI_EAGAIN);
		(void)fi_cq_read(A.tcq[0], &x, 0);
		(void)fi_cq_read(B.tcq[0], &x, 0);
	}
	return 0;
}

int main(void)
{
	static const size_t sizes[] = { 16, 200000 };	/* eager, rndv */
	struct fi_cq_tagged_entry e;
	fi_addr_t a_at_b, b_at_a, from;
	uint8_t *buf[NCTX], *src;
	size_t len;

	rxm_test_start();
	sep_open(&A);
	sep_open(&B);
	CHECK_EQ(fi_av_insert(B.av, A.name, 1, &a_at_b, 0, NULL), 1);
	CHECK_EQ(fi_av_insert(A.av, B.name, 1, &b_at_a, 0, NULL), 1);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		len = sizes[z];
		src = malloc(len);
		CHECK(src);
		for (int j = 0; j < NCTX; j++) {
			for (int i = 0; i < NCTX; i++) {
				buf[i] = calloc(1, len);
				CHECK(buf[i]);
				CHECK_EQ(fi_recv(A.rx[i], buf[i], len, NULL,
						 FI_ADDR_UNSPEC, buf[i]), 0);
			}
			for (int i = 0; i < NCTX; i++) {
				fill(src, len, (unsigned)(16 * j + i));
				do {
					ssize_t r = fi_send(B.tx[j], src, len,
						NULL, fi_rx_addr(a_at_b, i,
								 BITS),
						&B.tx[j]);
					if (r != -FI_EAGAIN) {
						CHECK_EQ(r, 0);
						break;
					}
					(void)fi_cq_read(B.tcq[j], &e, 0);
				} while (1);
				/* to context i, from B, with its bytes */
				CHECK(read_one(A.rcq[i], &e, &from, -1));
				CHECK(e.op_context == buf[i] && e.len == len);
				CHECK(from == b_at_a);
				CHECK(!memcmp(buf[i], src, len));
				CHECK(read_one(B.tcq[j], &e, NULL, -1));
				CHECK(e.op_context == &B.tx[j]);
			}
			for (int i = 0; i < NCTX; i++)
				free(buf[i]);
		}
		free(src);
	}
	/* a context A does not have: dropped, its contexts see nothing */
	len = 16;
	src = calloc(1, len);
	buf[0] = calloc(1, len);
	CHECK(src && buf[0]);
	CHECK_EQ(fi_recv(A.rx[0], buf[0], len, NULL, FI_ADDR_UNSPEC, NULL), 0);
	CHECK_EQ(fi_send(B.tx[0], src, len, NULL, fi_rx_addr(a_at_b, NCTX,
							     BITS), NULL), 0);
	CHECK(read_one(B.tcq[0], &e, NULL, -1));
	CHECK(!read_one(A.rcq[0], &e, NULL, 20000));
	/* the header names at most 255 */
	CHECK_EQ(fi_send(B.tx[0], src, len, NULL, fi_rx_addr(a_at_b, 256,
							     BITS), NULL),
		 -FI_EINVAL);
	free(src);
	sep_close(&B);
	sep_close(&A);
	free(buf[0]);
	return 0;
}
