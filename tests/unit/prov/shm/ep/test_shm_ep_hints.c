/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What clients ask of fi_getinfo, carried through to the shm endpoint:
 * one process, several endpoints of one domain opened from the hints a
 * scenario builds (suite unit). One scenario per run, named by argv[1]:
 *
 *   multirecv  rx op_flags FI_MULTI_RECV in the hints: fi_getinfo reports
 *              it, and plain fi_recv posts a multi-receive buffer that
 *              takes five messages back to back
 *   inject     tx op_flags FI_INJECT in the hints: reported, and plain
 *              fi_send injects (beyond inject_size it is -FI_EINVAL)
 *   mrmode0    a tagged-only client with mr_mode 0 is served, and its
 *              messages flow
 *   mrlocal    a messages-only client with FI_MR_LOCAL | FI_MR_ALLOCATED
 *              (fi_unexpected_msg's) is served; its local descriptors work
 *   tagformat  ep_attr->mem_tag_format is reported, and a client's own
 *              comes back
 *   appkeys    mr_mode 0 with RMA: the application's keys, refused when
 *              already in use in the domain (-FI_ENOKEY)
 *   anymode    hints that offer every mr_mode bit with RMA (fabtests'
 *              fi_multi_mr): the answer requires none of them, so the
 *              client's own keys and offsets from 0 address two MRs, and
 *              each MR's bound counter counts only the writes to it
 */
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fi_rma.h>

#include "shm_conf_test.h"

/* mr_mode bits a client supporting every kind of registration sets */
#define MR_ANY (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | \
		FI_MR_PROV_KEY)

/* Hints as a client builds them: RDM on shm, caps, mr_mode. */
static struct fi_info *hints_new(uint64_t caps, int mr_mode)
{
	struct fi_info *h = fi_allocinfo();

	SHM_CHECK(h != NULL);
	h->ep_attr->type = FI_EP_RDM;
	h->caps = caps;
	h->domain_attr->mr_mode = mr_mode;
	h->fabric_attr->prov_name = strdup("shm");
	return h;
}

/* Open C's fabric and domain from hints (freed here). */
static void open_with(struct fi_info *h)
{
	memset(&C, 0, sizeof(C));
	SHM_CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &C.info) ==
		  0);
	fi_freeinfo(h);
	SHM_CHECK(fi_fabric(C.info->fabric_attr, &C.fabric, NULL) == 0);
	SHM_CHECK(fi_domain(C.fabric, C.info, &C.domain, NULL) == 0);
}

static void t_multirecv(void)
{
	struct fi_info *h = hints_new(FI_MSG | FI_MULTI_RECV, MR_ANY);
	struct fi_cq_tagged_entry e;
	char buf[1024], msg[16];
	struct cep a, b;
	fi_addr_t ab;
	size_t min = 0;

	h->rx_attr->op_flags = FI_MULTI_RECV;
	open_with(h);
	SHM_CHECK(C.info->rx_attr->op_flags == FI_MULTI_RECV);
	open2(&a, &b, NULL, NULL, &ab, NULL);
	SHM_CHECK(fi_setopt(&b.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			    &min, sizeof(min)) == 0);
	memset(buf, 0, sizeof(buf));
	/* one receive, the endpoint's defaults: a multi-receive buffer */
	SHM_CHECK(fi_recv(b.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  buf) == 0);
	for (int i = 0; i < 5; i++) {
		memset(msg, 'a' + i, sizeof(msg));
		SHM_CHECK(CONF_RETRY(a.tcq, fi_send(a.ep, msg, sizeof(msg),
						    NULL, ab, NULL)) == 0);
		conf_wait(a.tcq, &e);
	}
	for (int i = 0; i < 5; i++) {
		conf_wait(b.rcq, &e);
		SHM_CHECK(e.op_context == buf);
		SHM_CHECK(e.len == sizeof(msg));
		SHM_CHECK(e.buf == buf + i * sizeof(msg));
		SHM_CHECK(buf[i * sizeof(msg)] == 'a' + i);
	}
	cep_close(&a);
	cep_close(&b);
}

static void t_inject(void)
{
	struct fi_info *h = hints_new(FI_MSG, MR_ANY);
	struct fi_cq_tagged_entry e;
	char msg[64], in[64];
	struct cep a, b;
	char *big;
	fi_addr_t ab;

	h->tx_attr->op_flags = FI_INJECT | FI_COMPLETION;
	open_with(h);
	SHM_CHECK(C.info->tx_attr->op_flags == (FI_INJECT | FI_COMPLETION));
	open2(&a, &b, NULL, NULL, &ab, NULL);
	big = calloc(1, C.info->tx_attr->inject_size + 1);
	SHM_CHECK(big != NULL);
	/* an inject beyond inject_size is refused: the default is applied */
	SHM_CHECK(fi_send(a.ep, big, C.info->tx_attr->inject_size + 1, NULL,
			  ab, NULL) == -FI_EINVAL);
	free(big);
	SHM_CHECK(fi_recv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, in) ==
		  0);
	memset(msg, 'x', sizeof(msg));
	SHM_CHECK(CONF_RETRY(a.tcq, fi_send(a.ep, msg, sizeof(msg), NULL, ab,
					    msg)) == 0);
	memset(msg, 0, sizeof(msg));	/* an inject's buffer is free */
	conf_wait(a.tcq, &e);
	SHM_CHECK(e.op_context == msg);
	conf_wait(b.rcq, &e);
	SHM_CHECK(e.len == sizeof(in) && in[0] == 'x' && in[63] == 'x');
	cep_close(&a);
	cep_close(&b);
}

static void t_mrmode0(void)
{
	struct fi_info *h = hints_new(FI_TAGGED, 0);
	struct fi_cq_tagged_entry e;
	uint64_t out = 42, in = 0;
	struct cep a, b;
	fi_addr_t ab;

	open_with(h);
	SHM_CHECK(C.info->domain_attr->mr_mode == 0);
	SHM_CHECK(!(C.info->caps & (FI_RMA | FI_ATOMIC)));
	open2(&a, &b, NULL, NULL, &ab, NULL);
	SHM_CHECK(fi_trecv(b.ep, &in, sizeof(in), NULL, FI_ADDR_UNSPEC, 7, 0,
			   &in) == 0);
	SHM_CHECK(CONF_RETRY(a.tcq, fi_tsend(a.ep, &out, sizeof(out), NULL,
					     ab, 7, &out)) == 0);
	conf_wait(a.tcq, &e);
	conf_wait(b.rcq, &e);
	SHM_CHECK(e.tag == 7 && in == 42);
	cep_close(&a);
	cep_close(&b);
}

/* fi_unexpected_msg's registration modes, messages only */
static void t_mrlocal(void)
{
	struct fi_info *h = hints_new(FI_MSG, FI_MR_LOCAL | FI_MR_ALLOCATED);
	struct fi_cq_tagged_entry e;
	char out[32], in[32];
	struct fid_mr *mo, *mi;
	struct cep a, b;
	fi_addr_t ab;

	open_with(h);
	SHM_CHECK(!(C.info->domain_attr->mr_mode &
		    (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY)));
	open2(&a, &b, NULL, NULL, &ab, NULL);
	/* local descriptors, the same requested key twice: the keys of a
	 * domain without RMA are the provider's */
	SHM_CHECK(fi_mr_reg(C.domain, out, sizeof(out), FI_SEND, 0, 1, 0,
			    &mo, NULL) == 0);
	SHM_CHECK(fi_mr_reg(C.domain, in, sizeof(in), FI_RECV, 0, 1, 0, &mi,
			    NULL) == 0);
	SHM_CHECK(fi_recv(b.ep, in, sizeof(in), fi_mr_desc(mi),
			  FI_ADDR_UNSPEC, in) == 0);
	memset(out, 'm', sizeof(out));
	SHM_CHECK(CONF_RETRY(a.tcq, fi_send(a.ep, out, sizeof(out),
					    fi_mr_desc(mo), ab, out)) == 0);
	conf_wait(a.tcq, &e);
	conf_wait(b.rcq, &e);
	SHM_CHECK(e.len == sizeof(in) && in[0] == 'm' && in[31] == 'm');
	SHM_CHECK(fi_close(&mo->fid) == 0);
	SHM_CHECK(fi_close(&mi->fid) == 0);
	cep_close(&a);
	cep_close(&b);
}

/* the tag format is reported (the generic one: any layout in 64 bits),
 * and the one a client asks for comes back */
static void t_tagformat(void)
{
	struct fi_info *h = hints_new(FI_TAGGED, 0), *info;

	SHM_CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &info) ==
		  0);
	SHM_CHECK(info->ep_attr->mem_tag_format == 0xaaaaaaaaaaaaaaaaULL);
	fi_freeinfo(info);
	h->ep_attr->mem_tag_format = 0x0000ffffffffffffULL;
	SHM_CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &info) ==
		  0);
	SHM_CHECK(info->ep_attr->mem_tag_format == 0x0000ffffffffffffULL);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

/* mr_mode 0 with RMA: the application's keys, unique per domain, and
 * offsets (fi_mr_key gives the requested key back) */
static void t_appkeys(void)
{
	struct fi_info *h = hints_new(FI_RMA | FI_ATOMIC, 0);
	static char buf[256];
	struct fid_mr *m1, *m2;

	open_with(h);
	SHM_CHECK(C.info->domain_attr->mr_mode == 0);
	SHM_CHECK(fi_mr_reg(C.domain, buf, 128, FI_REMOTE_WRITE, 0, 7, 0, &m1,
			    NULL) == 0);
	SHM_CHECK(fi_mr_key(m1) == 7);
	SHM_CHECK(fi_mr_reg(C.domain, buf + 128, 128, FI_REMOTE_WRITE, 0, 7,
			    0, &m2, NULL) == -FI_ENOKEY);
	SHM_CHECK(fi_close(&m1->fid) == 0);
	SHM_CHECK(fi_mr_reg(C.domain, buf + 128, 128, FI_REMOTE_WRITE, 0, 7,
			    0, &m2, NULL) == 0);
	SHM_CHECK(fi_close(&m2->fid) == 0);
}

/* Drive both endpoints until cntr reaches want. */
static void cntr_reach(struct cep *a, struct cep *b, struct fid_cntr *cntr,
		       uint64_t want)
{
	while (fi_cntr_read(cntr) < want) {
		(void)fi_cq_read(a->tcq, NULL, 0);
		(void)fi_cq_read(b->rcq, NULL, 0);
	}
}

static void t_anymode(void)
{
	struct fi_info *h = hints_new(FI_MSG | FI_RMA | FI_RMA_EVENT, MR_ANY);
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	static char dst[2][4096], src[4096];
	struct fid_cntr *cntr[2];
	struct fi_cq_tagged_entry e;
	struct fid_mr *mr[2];
	struct cep a, b;
	fi_addr_t ab;

	open_with(h);
	SHM_CHECK(!(C.info->domain_attr->mr_mode &
		    (FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_LOCAL |
		     FI_MR_ALLOCATED)));
	open2(&a, &b, NULL, NULL, &ab, NULL);
	for (int i = 0; i < 2; i++) {
		SHM_CHECK(fi_cntr_open(C.domain, &ca, &cntr[i], NULL) == 0);
		SHM_CHECK(fi_mr_reg(C.domain, dst[i], sizeof(dst[i]),
				    FI_REMOTE_WRITE, 0, i + 1, 0, &mr[i],
				    NULL) == 0);
		SHM_CHECK(fi_mr_key(mr[i]) == (uint64_t)i + 1);
		SHM_CHECK(fi_mr_bind(mr[i], &cntr[i]->fid, FI_REMOTE_WRITE) ==
			  0);
	}
	/* offset 0 of key 2, then the last 8 bytes of key 1 */
	memset(src, 'w', sizeof(src));
	SHM_CHECK(CONF_RETRY(a.tcq, fi_write(a.ep, src, sizeof(src), NULL, ab,
					     0, 2, src)) == 0);
	conf_wait(a.tcq, &e);
	cntr_reach(&a, &b, cntr[1], 1);
	SHM_CHECK(dst[1][0] == 'w' && dst[1][4095] == 'w' && dst[0][0] == 0);
	SHM_CHECK(fi_cntr_read(cntr[0]) == 0);
	SHM_CHECK(CONF_RETRY(a.tcq, fi_write(a.ep, src, 8, NULL, ab, 4088, 1,
					     src)) == 0);
	conf_wait(a.tcq, &e);
	cntr_reach(&a, &b, cntr[0], 1);
	SHM_CHECK(dst[0][4088] == 'w' && dst[0][4087] == 0);
	SHM_CHECK(fi_cntr_read(cntr[1]) == 1);
	for (int i = 0; i < 2; i++) {
		SHM_CHECK(fi_close(&mr[i]->fid) == 0);
		SHM_CHECK(fi_close(&cntr[i]->fid) == 0);
	}
	cep_close(&a);
	cep_close(&b);
}

static const struct conf_scenario scenarios[] = {
	{ "multirecv", t_multirecv },
	{ "inject", t_inject },
	{ "mrmode0", t_mrmode0 },
	{ "mrlocal", t_mrlocal },
	{ "tagformat", t_tagformat },
	{ "appkeys", t_appkeys },
	{ "anymode", t_anymode },
};

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";

	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]);
	     i++) {
		if (strcmp(s, scenarios[i].name))
			continue;
		shm_test_watchdog_start();
		scenarios[i].fn();
		conf_close(&C);
		return 0;
	}
	fprintf(stderr, "usage: %s <scenario>\n", argv[0]);
	return 2;
}
