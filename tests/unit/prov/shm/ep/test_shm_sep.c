/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scalable endpoints on shm (fi_scalable_ep, fi_tx_context,
 * fi_rx_context, FI_NAMED_RX_CTX; fi_endpoint(3) "SCALABLE ENDPOINTS"),
 * one process, two scalable endpoints of one domain. One scenario per
 * run, named by argv[1]:
 *
 *   sep        every transmit context of B sends to every receive
 *              context of A by fi_rx_addr: each message completes on the
 *              CQ of the receive context it named and nowhere else, with
 *              its own bytes and B's address (FI_SOURCE, without the
 *              context bits); each send completes on its transmit
 *              context's CQ
 *   sepunexp   messages for a receive context the application has not
 *              asked for yet wait in that context's queue, and a
 *              context asked for later receives them
 *   seperr     what is refused: data calls on the scalable endpoint
 *              itself, receives on a transmit context and sends on a
 *              receive context, an index out of range, a context handed
 *              out twice or reopened, the scalable endpoint's close while
 *              a context is open, FI_RMA on a scalable endpoint,
 *              shared contexts bound to a scalable endpoint; a
 *              message naming a context A does not have is dropped and
 *              A's contexts see nothing of it, as a plain endpoint drops
 *              one for any context but 0; fi_getinfo grants the
 *              contexts asked for
 */
#include <stdlib.h>
#include <unistd.h>

#include "shm_conf_test.h"

#define NTX 2
#define NRX 3
#define RX_BITS 2	/* room for 4 receive contexts */

struct sep {
	struct fi_info *info;
	struct fid_ep *sep;
	struct fid_av *av;
	struct fid_ep *tx[NTX], *rx[NRX];
	struct fid_cq *tcq[NTX], *rcq[NRX];
	char name[128];
	size_t namelen;
};

static struct fi_info *sep_info(int ntx, int nrx)
{
	struct fi_info *info = fi_dupinfo(C.info);

	SHM_CHECK(info != NULL);
	info->caps &= ~(FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE |
			FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT);
	info->caps |= FI_NAMED_RX_CTX;
	info->ep_attr->tx_ctx_cnt = (size_t)ntx;
	info->ep_attr->rx_ctx_cnt = (size_t)nrx;
	return info;
}

static void ctx_open(struct sep *s, int tx, int i)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE, .size = 64 };
	struct fid_ep **e = tx ? &s->tx[i] : &s->rx[i];
	struct fid_cq **cq = tx ? &s->tcq[i] : &s->rcq[i];

	SHM_CHECK((tx ? fi_tx_context(s->sep, i, NULL, e, NULL) :
			fi_rx_context(s->sep, i, NULL, e, NULL)) == 0);
	SHM_CHECK((*e)->fid.fclass == (tx ? FI_CLASS_TX_CTX :
					    FI_CLASS_RX_CTX));
	SHM_CHECK(fi_cq_open(C.domain, &cqa, cq, NULL) == 0);
	SHM_CHECK(fi_ep_bind(*e, &(*cq)->fid, tx ? FI_TRANSMIT : FI_RECV) ==
		  0);
	SHM_CHECK(fi_enable(*e) == 0);
}

/* A scalable endpoint with its AV; contexts opened when all is set. */
static void sep_open(struct sep *s, int open_all)
{
	struct fi_av_attr ava = { .type = FI_AV_TABLE,
				  .rx_ctx_bits = RX_BITS };

	memset(s, 0, sizeof(*s));
	s->info = sep_info(NTX, NRX);
	SHM_CHECK(fi_scalable_ep(C.domain, s->info, &s->sep, NULL) == 0);
	SHM_CHECK(s->sep->fid.fclass == FI_CLASS_SEP);
	SHM_CHECK(fi_av_open(C.domain, &ava, &s->av, NULL) == 0);
	SHM_CHECK(fi_scalable_ep_bind(s->sep, &s->av->fid, 0) == 0);
	for (int i = 0; open_all && i < NTX; i++)
		ctx_open(s, 1, i);
	for (int i = 0; open_all && i < NRX; i++)
		ctx_open(s, 0, i);
	SHM_CHECK(fi_enable(s->sep) == 0);
	s->namelen = sizeof(s->name);
	SHM_CHECK(fi_getname(&s->sep->fid, s->name, &s->namelen) == 0);
}

static void sep_close(struct sep *s)
{
	for (int i = 0; i < NTX; i++)
		if (s->tx[i]) {
			SHM_CHECK(fi_close(&s->tx[i]->fid) == 0);
			SHM_CHECK(fi_close(&s->tcq[i]->fid) == 0);
		}
	for (int i = 0; i < NRX; i++)
		if (s->rx[i]) {
			SHM_CHECK(fi_close(&s->rx[i]->fid) == 0);
			SHM_CHECK(fi_close(&s->rcq[i]->fid) == 0);
		}
	SHM_CHECK(fi_close(&s->sep->fid) == 0);
	SHM_CHECK(fi_close(&s->av->fid) == 0);
	fi_freeinfo(s->info);
}

static fi_addr_t sep_insert(struct sep *s, const struct sep *who)
{
	fi_addr_t a = FI_ADDR_NOTAVAIL;

	SHM_CHECK(fi_av_insert(s->av, who->name, 1, &a, 0, NULL) == 1);
	return a;
}

/* ---- sep ---- */

static void t_sep(void)
{
	struct fi_cq_tagged_entry e;
	struct sep a, b;
	fi_addr_t b_at_a, a_at_b, from;
	uint32_t buf[NRX][NTX], v;
	int got[NRX] = { 0 };

	sep_open(&a, 1);
	sep_open(&b, 1);
	b_at_a = sep_insert(&a, &b);
	a_at_b = sep_insert(&b, &a);
	/* one receive per (context, sender context), posted to a's
	 * receive context i */
	for (int i = 0; i < NRX; i++)
		for (int j = 0; j < NTX; j++)
			SHM_CHECK(fi_recv(a.rx[i], &buf[i][j], sizeof(v), NULL,
					  FI_ADDR_UNSPEC, &buf[i][j]) == 0);
	for (int j = 0; j < NTX; j++)
		for (int i = 0; i < NRX; i++) {
			v = (uint32_t)(0x100 * j + i);
			SHM_CHECK(CONF_RETRY(b.tcq[j], fi_send(b.tx[j], &v,
				sizeof(v), NULL, fi_rx_addr(a_at_b, i, RX_BITS),
				&b.tx[j])) == 0);
		}
	for (int i = 0; i < NRX; i++)
		for (int j = 0; j < NTX; j++) {
			SHM_CHECK(conf_read(a.rcq[i], &e, 1, NULL, &from) == 1);
			/* its own context's receive, B's base address */
			SHM_CHECK((uint32_t *)e.op_context >= buf[i] &&
				  (uint32_t *)e.op_context < buf[i] + NTX);
			SHM_CHECK((*(uint32_t *)e.op_context & 0xff) ==
				  (uint32_t)i);
			SHM_CHECK(from == b_at_a);
			got[i]++;
		}
	for (int i = 0; i < NRX; i++) {
		SHM_CHECK(got[i] == NTX);
		conf_none(a.rcq[i]);
	}
	/* each send completed on its own transmit context */
	for (int j = 0; j < NTX; j++) {
		for (int i = 0; i < NRX; i++) {
			conf_wait(b.tcq[j], &e);
			SHM_CHECK(e.op_context == &b.tx[j]);
		}
		conf_none(b.tcq[j]);
	}
	/* bounce-buffer and single-copy sizes, whose data moves in later
	 * progress passes of the scalable endpoint */
	for (size_t len = 4096; len <= (1u << 20); len *= 256) {
		char *src = malloc(len), *dst = calloc(1, len);

		SHM_CHECK(src && dst);
		for (size_t k = 0; k < len; k++)
			src[k] = (char)(k * 7 + len);
		SHM_CHECK(fi_recv(a.rx[2], dst, len, NULL, FI_ADDR_UNSPEC,
				  NULL) == 0);
		SHM_CHECK(fi_send(b.tx[1], src, len, NULL,
				  fi_rx_addr(a_at_b, 2, RX_BITS), NULL) == 0);
		conf_wait(a.rcq[2], &e);
		SHM_CHECK(e.len == len && !memcmp(src, dst, len));
		conf_wait(b.tcq[1], &e);
		free(src);
		free(dst);
	}
	sep_close(&b);
	sep_close(&a);
}

/* ---- sepunexp ---- */

static void t_sepunexp(void)
{
	struct fi_cq_tagged_entry e;
	struct sep a, b;
	fi_addr_t a_at_b;
	uint32_t v, r = 0;

	sep_open(&a, 0);
	ctx_open(&a, 0, 0);	/* only context 0 for now */
	sep_open(&b, 1);
	(void)sep_insert(&a, &b);
	a_at_b = sep_insert(&b, &a);
	v = 2;
	SHM_CHECK(fi_send(b.tx[0], &v, sizeof(v), NULL,
			  fi_rx_addr(a_at_b, 2, RX_BITS), NULL) == 0);
	v = 0;
	SHM_CHECK(fi_send(b.tx[0], &v, sizeof(v), NULL,
			  fi_rx_addr(a_at_b, 0, RX_BITS), NULL) == 0);
	conf_wait(b.tcq[0], &e);
	conf_wait(b.tcq[0], &e);
	/* context 0 takes its own message only */
	SHM_CHECK(fi_recv(a.rx[0], &r, sizeof(r), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	conf_wait(a.rcq[0], &e);
	SHM_CHECK(r == 0);
	SHM_CHECK(fi_recv(a.rx[0], &r, sizeof(r), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	conf_none(a.rcq[0]);
	/* context 2, asked for now, finds the message waiting */
	ctx_open(&a, 0, 2);
	SHM_CHECK(fi_recv(a.rx[2], &r, sizeof(r), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	conf_wait(a.rcq[2], &e);
	SHM_CHECK(r == 2);
	sep_close(&b);
	sep_close(&a);
}

/* ---- seperr ---- */

static void t_seperr(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_info *hints, *info;
	struct fid_ep *x, *sep2;
	struct sep a, b;
	fi_addr_t a_at_b;
	uint32_t v = 7, r = 0;

	sep_open(&a, 1);
	sep_open(&b, 1);
	(void)sep_insert(&a, &b);
	a_at_b = sep_insert(&b, &a);

	/* the scalable endpoint itself carries no data */
	SHM_CHECK(fi_send(a.sep, &v, sizeof(v), NULL, 0, NULL) ==
		  -FI_ENOSYS);
	SHM_CHECK(fi_recv(a.sep, &r, sizeof(r), NULL, 0, NULL) ==
		  -FI_ENOSYS);
	/* each context one way only */
	SHM_CHECK(fi_recv(a.tx[0], &r, sizeof(r), NULL, 0, NULL) ==
		  -FI_EOPNOTSUPP);
	SHM_CHECK(fi_send(a.rx[0], &v, sizeof(v), NULL, 0, NULL) ==
		  -FI_EOPNOTSUPP);
	/* shared contexts on a scalable endpoint are not offered */
	{
		struct fid_ep *srx;
		struct fid_stx *stx;
		struct sep c;

		c.info = sep_info(1, 1);
		SHM_CHECK(fi_scalable_ep(C.domain, c.info, &c.sep, NULL) == 0);
		SHM_CHECK(fi_srx_context(C.domain, NULL, &srx, NULL) == 0);
		SHM_CHECK(fi_stx_context(C.domain, NULL, &stx, NULL) == 0);
		SHM_CHECK(fi_ep_bind(c.sep, &srx->fid, 0) == -FI_EOPNOTSUPP);
		SHM_CHECK(fi_ep_bind(c.sep, &stx->fid, 0) == -FI_EOPNOTSUPP);
		SHM_CHECK(fi_close(&c.sep->fid) == 0);
		SHM_CHECK(fi_close(&srx->fid) == 0);
		SHM_CHECK(fi_close(&stx->fid) == 0);
		fi_freeinfo(c.info);
	}
	/* indexes */
	SHM_CHECK(fi_tx_context(a.sep, NTX, NULL, &x, NULL) == -FI_EINVAL);
	SHM_CHECK(fi_rx_context(a.sep, -1, NULL, &x, NULL) == -FI_EINVAL);
	SHM_CHECK(fi_rx_context(a.sep, 0, NULL, &x, NULL) == -FI_EBUSY);
	SHM_CHECK(fi_close(&a.sep->fid) == -FI_EBUSY);

	/* a context A does not have (index 3 fits the AV's bits) */
	SHM_CHECK(fi_send(b.tx[0], &v, sizeof(v), NULL,
			  fi_rx_addr(a_at_b, NRX, RX_BITS), NULL) == 0);
	conf_wait(b.tcq[0], &e);
	for (int i = 0; i < NRX; i++) {
		SHM_CHECK(fi_recv(a.rx[i], &r, sizeof(r), NULL,
				  FI_ADDR_UNSPEC, NULL) == 0);
		conf_none(a.rcq[i]);
	}

	/* a plain endpoint has receive context 0 only */
	{
		static const struct cep_opts none;
		fi_addr_t p_at_b = FI_ADDR_NOTAVAIL, b_at_p = FI_ADDR_NOTAVAIL;
		struct cep p;

		SHM_CHECK(cep_open(&C, &p, &none) == 0);
		SHM_CHECK(fi_av_insert(b.av, p.name, 1, &p_at_b, 0, NULL) ==
			  1);
		SHM_CHECK(fi_av_insert(p.av, b.name, 1, &b_at_p, 0, NULL) ==
			  1);
		SHM_CHECK(fi_recv(p.ep, &r, sizeof(r), NULL, FI_ADDR_UNSPEC,
				  NULL) == 0);
		v = 11;
		SHM_CHECK(fi_send(b.tx[0], &v, sizeof(v), NULL,
				  fi_rx_addr(p_at_b, 1, RX_BITS), NULL) == 0);
		conf_wait(b.tcq[0], &e);
		conf_none(p.rcq);
		v = 12;
		SHM_CHECK(fi_send(b.tx[0], &v, sizeof(v), NULL,
				  fi_rx_addr(p_at_b, 0, RX_BITS), NULL) == 0);
		conf_wait(b.tcq[0], &e);
		conf_wait(p.rcq, &e);
		SHM_CHECK(r == 12);
		cep_close(&p);
	}

	/* a closed context is not reopened */
	SHM_CHECK(fi_close(&a.tx[1]->fid) == 0);
	SHM_CHECK(fi_close(&a.tcq[1]->fid) == 0);
	a.tx[1] = NULL;
	SHM_CHECK(fi_tx_context(a.sep, 1, NULL, &x, NULL) == -FI_EBUSY);

	/* scalable endpoints carry messages only */
	hints = fi_dupinfo(C.info);
	hints->caps |= FI_RMA | FI_NAMED_RX_CTX;
	hints->ep_attr->rx_ctx_cnt = 2;
	SHM_CHECK(fi_scalable_ep(C.domain, hints, &sep2, NULL) ==
		  -FI_EOPNOTSUPP);
	fi_freeinfo(hints);

	/* fi_getinfo grants the contexts asked for */
	hints = fi_allocinfo();
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_NAMED_RX_CTX;
	hints->ep_attr->tx_ctx_cnt = 4;
	hints->ep_attr->rx_ctx_cnt = 8;
	hints->fabric_attr->prov_name = strdup("shm");
	SHM_CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints,
			     &info) == 0);
	SHM_CHECK(info->ep_attr->tx_ctx_cnt == 4 &&
		  info->ep_attr->rx_ctx_cnt == 8);
	SHM_CHECK(info->caps & FI_NAMED_RX_CTX);
	SHM_CHECK(info->domain_attr->max_ep_rx_ctx >= 8);
	fi_freeinfo(info);
	fi_freeinfo(hints);

	sep_close(&b);
	sep_close(&a);
}

static const struct conf_scenario scenarios[] = {
	{ "sep", t_sep }, { "sepunexp", t_sepunexp }, { "seperr", t_seperr },
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, scenarios,
			 sizeof(scenarios) / sizeof(scenarios[0]));
}
