/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shm endpoint's calls beside data transfer, one process (suite
 * unit). One scenario per run, named by argv[1]:
 *
 *   avremove   fi_av_remove of a peer, then a send: -FI_EADDRNOTAVAIL,
 *              no completion; inserted again it is usable again
 *   sizeleft   fi_tx_size_left / fi_rx_size_left: -FI_EOPBADSTATE before
 *              fi_enable, then the sizes fi_getinfo gave, less what is
 *              posted
 *   alias      fi_ep_alias: an alias with other op flags (FI_COMPLETION
 *              under FI_SELECTIVE_COMPLETION), the endpoint's unchanged;
 *              the endpoint's close refuses while an alias is open
 *   self       an endpoint sends to its own address (FI_LOCAL_COMM
 *              loopback), inline and bounce-buffer sizes
 *   cntrwait   fi_cntr_wait on FI_WAIT_UNSPEC counters: a timeout, then
 *              waits that the data path satisfies (manual progress)
 *   mr         fi_mr_regv / fi_mr_regattr through the engine, raw keys
 *              through the domain's fi_control (FI_MAP_RAW_MR /
 *              FI_UNMAP_KEY)
 *   userid     a sender inserted with FI_AV_USER_ID: FI_SOURCE reports
 *              the user's value (fi_av(3)), for a message matched at
 *              once, one queued first and a peek; a directed receive
 *              still names the sender by its fi_addr_t
 *   srcremove  FI_SOURCE across fi_av_remove and a second insert of the
 *              sender: the address the receiver resolved per sender is
 *              not reported once the sender is gone, and the new
 *              fi_addr_t is reported after it is inserted again
 */
#include <stdlib.h>
#include <unistd.h>

#include "shm_conf_test.h"

/* ---- avremove ---- */

static void t_avremove(void)
{
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	char buf[8];

	open2(&a, &b, NULL, NULL, NULL, &to_a);
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	SHM_CHECK(fi_send(b.ep, "x", 2, NULL, to_a, NULL) == 0);
	conf_wait(a.rcq, &e);
	conf_wait(b.tcq, &e);	/* the peer's handle is open now */
	SHM_CHECK(fi_av_remove(b.av, &to_a, 1, 0) == 0);
	SHM_CHECK(fi_send(b.ep, "x", 2, NULL, to_a, NULL) == -FI_EADDRNOTAVAIL);
	SHM_CHECK(fi_inject(b.ep, "x", 2, to_a) == -FI_EADDRNOTAVAIL);
	SHM_CHECK(fi_tsend(b.ep, "x", 2, NULL, to_a, 1, NULL) ==
		  -FI_EADDRNOTAVAIL);
	conf_none(b.tcq);
	/* inserted again: usable again */
	to_a = cep_insert(&b, &a);
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	SHM_CHECK(fi_send(b.ep, "y", 2, NULL, to_a, NULL) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(!strcmp(buf, "y"));
	cep_close(&a);
	cep_close(&b);
}

/* ---- sizeleft ---- */
/* Through the ops table: the inline wrappers are marked deprecated. */

static void t_sizeleft(void)
{
	struct cep_opts o = { .no_enable = 1 };
	struct cep a;
	char buf[8];

	SHM_CHECK(cep_open(&C, &a, &o) == 0);
	SHM_CHECK(a.ep->ops->tx_size_left(a.ep) == -FI_EOPBADSTATE);
	SHM_CHECK(a.ep->ops->rx_size_left(a.ep) == -FI_EOPBADSTATE);
	SHM_CHECK(fi_enable(a.ep) == 0);
	SHM_CHECK(a.ep->ops->tx_size_left(a.ep) == (ssize_t)C.info->tx_attr->size);
	SHM_CHECK(a.ep->ops->rx_size_left(a.ep) == (ssize_t)C.info->rx_attr->size);
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  buf) == 0);
	SHM_CHECK(a.ep->ops->rx_size_left(a.ep) ==
		  (ssize_t)C.info->rx_attr->size - 1);
	SHM_CHECK(fi_cancel(&a.ep->fid, buf) == 0);
	SHM_CHECK(a.ep->ops->rx_size_left(a.ep) == (ssize_t)C.info->rx_attr->size);
	cep_close(&a);
}

/* ---- alias ---- */

static void t_alias(void)
{
	struct cep_opts o = { .tx_bind = FI_SELECTIVE_COMPLETION };
	struct cep a, b;
	fi_addr_t to_a;
	struct fi_cq_tagged_entry e;
	struct fid_ep *al = NULL, *bad = NULL;
	uint64_t flags;
	char buf[8];

	open2(&a, &b, NULL, &o, NULL, &to_a);
	SHM_CHECK(fi_ep_alias(b.ep, &bad, FI_TRANSMIT | FI_RECV) == -FI_EINVAL);
	SHM_CHECK(fi_ep_alias(b.ep, &bad, FI_COMPLETION) == -FI_EINVAL);
	SHM_CHECK(fi_ep_alias(b.ep, &al, FI_TRANSMIT | FI_COMPLETION) == 0);
	flags = FI_TRANSMIT;
	SHM_CHECK(fi_control(&al->fid, FI_GETOPSFLAG, &flags) == 0);
	SHM_CHECK(flags & FI_COMPLETION);
	/* through b: no completion (selective); through the alias: one */
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	SHM_CHECK(fi_send(b.ep, "ep", 3, NULL, to_a, buf) == 0);
	conf_wait(a.rcq, &e);
	conf_none(b.tcq);
	SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	SHM_CHECK(fi_send(al, "al", 3, NULL, to_a, buf) == 0);
	conf_wait(a.rcq, &e);
	SHM_CHECK(!strcmp(buf, "al"));
	conf_wait(b.tcq, &e);
	SHM_CHECK(e.op_context == buf);
	/* the endpoint's own flags did not change */
	flags = FI_TRANSMIT;
	SHM_CHECK(fi_control(&b.ep->fid, FI_GETOPSFLAG, &flags) == 0);
	SHM_CHECK(!(flags & FI_COMPLETION));
	/* aliases go first */
	SHM_CHECK(fi_close(&b.ep->fid) == -FI_EBUSY);
	SHM_CHECK(fi_close(&al->fid) == 0);
	cep_close(&a);
	cep_close(&b);
}

/* ---- mr ---- */

static void t_mr(void)
{
	static char r1[4096], r2[4096];
	struct iovec iov[2] = { { r1, sizeof(r1) }, { r2, sizeof(r2) } };
	struct fi_mr_attr attr = { .mr_iov = iov, .iov_count = 1,
				   .access = FI_REMOTE_READ | FI_REMOTE_WRITE,
				   .iface = FI_HMEM_SYSTEM };
	size_t limit = C.info->domain_attr->mr_iov_limit;
	struct fid_mr *mr = NULL, *mr2 = NULL, *bad = NULL;
	uint64_t key = 0, mapped = ~0ULL;
	uint8_t raw[8];
	size_t rawlen = sizeof(raw);

	SHM_CHECK(limit >= 1);
	SHM_CHECK(fi_mr_regv(C.domain, iov, 1, FI_REMOTE_READ, 0, 0, 0, &mr,
			     NULL) == 0);
	if (limit < 2)
		SHM_CHECK(fi_mr_regv(C.domain, iov, 2, FI_REMOTE_READ, 0, 0, 0,
				     &bad, NULL) == -FI_EINVAL);
	SHM_CHECK(fi_mr_regattr(C.domain, &attr, 0, &mr2) == 0);
	SHM_CHECK(fi_mr_key(mr) != fi_mr_key(mr2));
	attr.iface = (enum fi_hmem_iface)1000;
	SHM_CHECK(fi_mr_regattr(C.domain, &attr, 0, &bad) == -FI_EINVAL);
	SHM_CHECK(!bad);
	/* raw keys through the domain's fi_control */
	key = fi_mr_key(mr);
	SHM_CHECK(fi_mr_raw_attr(mr, NULL, raw, &rawlen, 0) == 0);
	SHM_CHECK(rawlen == sizeof(raw));
	SHM_CHECK(fi_mr_map_raw(C.domain, 0, raw, rawlen, &mapped, 0) == 0);
	SHM_CHECK(mapped == key);
	SHM_CHECK(fi_mr_unmap_key(C.domain, mapped) == 0);
	SHM_CHECK(fi_close(&mr->fid) == 0);
	SHM_CHECK(fi_close(&mr2->fid) == 0);
}

/* ---- self ---- */

static void t_self(void)
{
	static const struct cep_opts o;
	struct cep a;
	struct fi_cq_tagged_entry e;
	fi_addr_t me, from = FI_ADDR_UNSPEC;
	char big[20000], rbig[20000];

	SHM_CHECK(cep_open(&C, &a, &o) == 0);
	me = cep_insert(&a, &a);
	for (size_t len = 8; len <= sizeof(big); len += sizeof(big) - 8) {
		shm_test_fill(big, len, len);
		SHM_CHECK(fi_trecv(a.ep, rbig, sizeof(rbig), NULL, me, 4, 0,
				   rbig) == 0);
		SHM_CHECK(CONF_RETRY(a.tcq, fi_tsend(a.ep, big, len, NULL, me,
						     4, big)) == 0);
		SHM_CHECK(conf_read(a.rcq, &e, 1, NULL, &from) == 1);
		SHM_CHECK(e.op_context == rbig && e.len == len);
		SHM_CHECK(from == me);
		SHM_CHECK(shm_test_verify(rbig, len, len) == 0);
		conf_wait(a.tcq, &e);
		SHM_CHECK(e.op_context == big);
	}
	cep_close(&a);
}

/* ---- userid ---- */

static void t_userid(void)
{
	static const struct cep_opts o;
	struct fi_msg_tagged m = { .tag = 6, .addr = FI_ADDR_UNSPEC };
	struct fi_cq_tagged_entry e;
	fi_addr_t id = 0x5150, got = FI_ADDR_NOTAVAIL, from;
	struct cep a, b;
	char in[8] = "";
	int c;

	SHM_CHECK(cep_open(&C, &a, &o) == 0);
	SHM_CHECK(cep_open(&C, &b, &o) == 0);
	/* b knows a under the id; the fi_addr_t comes back as id too
	 * (fi_addr is in/out with FI_AV_USER_ID) */
	got = id;
	SHM_CHECK(fi_av_insert(b.av, a.name, 1, &got, FI_AV_USER_ID, NULL) ==
		  1);
	SHM_CHECK(fi_trecv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, 5, 0,
			   &c) == 0);
	SHM_CHECK(CONF_RETRY(a.tcq, fi_tsend(a.ep, "now", 4, NULL,
		cep_insert(&a, &b), 5, NULL)) == 0);
	SHM_CHECK(conf_read(b.rcq, &e, 1, NULL, &from) == 1);
	SHM_CHECK(e.op_context == &c && from == id);
	/* queued before its receive; a peek reports it the same way */
	SHM_CHECK(CONF_RETRY(a.tcq, fi_tsend(a.ep, "later", 6, NULL,
		cep_insert(&a, &b), 6, NULL)) == 0);
	for (;;) {
		struct fi_cq_err_entry err = { 0 };

		m.context = &c;
		SHM_CHECK(fi_trecvmsg(b.ep, &m, FI_PEEK) == 0);
		if (conf_read(b.rcq, &e, 1, &err, &from) == 1)
			break;
		SHM_CHECK(err.err == FI_ENOMSG);
	}
	SHM_CHECK(from == id);
	SHM_CHECK(fi_trecv(b.ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC, 6, 0,
			   &c) == 0);
	SHM_CHECK(conf_read(b.rcq, &e, 1, NULL, &from) == 1);
	SHM_CHECK(from == id && !strcmp(in, "later"));
	cep_close(&a);
	cep_close(&b);
}

/* ---- srcremove ---- */

/* b sends one message to a; what a's FI_SOURCE says of its sender:
 * its fi_addr_t, or FI_ADDR_NOTAVAIL for the error entry FI_SOURCE_ERR
 * asks for when the sender is not in a's AV (fi_cq(3)) */
static fi_addr_t src_of_one(struct cep *a, struct cep *b, fi_addr_t to_a)
{
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_tagged_entry e;
	fi_addr_t from = 0x77;
	char in[8] = "";
	int r;

	SHM_CHECK(fi_recv(a->ep, in, sizeof(in), NULL, FI_ADDR_UNSPEC,
			  NULL) == 0);
	SHM_CHECK(CONF_RETRY(b->tcq, fi_send(b->ep, "src", 4, NULL, to_a,
					     NULL)) == 0);
	r = conf_read(a->rcq, &e, 1, &err, &from);
	SHM_CHECK(r == 1 || (r == -FI_EAVAIL && err.err == FI_EADDRNOTAVAIL));
	SHM_CHECK(!strcmp(in, "src"));	/* placed either way */
	conf_wait(b->tcq, &e);
	return r == 1 ? from : FI_ADDR_NOTAVAIL;
}

static void t_srcremove(void)
{
	static const struct cep_opts o;
	fi_addr_t to_a, b_in_a, again;
	struct cep a, b;
	int i;

	SHM_CHECK(cep_open(&C, &a, &o) == 0);
	SHM_CHECK(cep_open(&C, &b, &o) == 0);
	to_a = cep_insert(&b, &a);
	b_in_a = cep_insert(&a, &b);
	/* the first message resolves the sender, the next ones reuse it */
	for (i = 0; i < 3; i++)
		SHM_CHECK(src_of_one(&a, &b, to_a) == b_in_a);
	SHM_CHECK(fi_av_remove(a.av, &b_in_a, 1, 0) == 0);
	for (i = 0; i < 2; i++)
		SHM_CHECK(src_of_one(&a, &b, to_a) == FI_ADDR_NOTAVAIL);
	again = cep_insert(&a, &b);
	SHM_CHECK(again != FI_ADDR_NOTAVAIL);
	for (i = 0; i < 2; i++)
		SHM_CHECK(src_of_one(&a, &b, to_a) == again);
	cep_close(&a);
	cep_close(&b);
}

/* ---- cntrwait ---- */

static void t_cntrwait(void)
{
	struct cep_opts o = { .counters = 1, .cntr_wait = FI_WAIT_UNSPEC };
	struct cep a, b;
	fi_addr_t to_a;
	char buf[8];

	open2(&a, &b, &o, &o, NULL, &to_a);
	/* nothing happens: the wait times out */
	SHM_CHECK(fi_cntr_wait(a.rcntr, 1, 10) == -FI_ETIMEDOUT);
	for (uint64_t i = 1; i <= 3; i++) {
		SHM_CHECK(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
				  NULL) == 0);
		SHM_CHECK(fi_send(b.ep, "w", 2, NULL, to_a, NULL) == 0);
		/* the wait itself drives the progress that completes it */
		SHM_CHECK(fi_cntr_wait(a.rcntr, i, -1) == 0);
		SHM_CHECK(fi_cntr_wait(b.scntr, i, -1) == 0);
		SHM_CHECK(fi_cntr_read(a.rcntr) == i);
	}
	cep_close(&a);
	cep_close(&b);
}

static const struct conf_scenario scenarios[] = {
	{ "avremove", t_avremove }, { "sizeleft", t_sizeleft },
	{ "alias", t_alias }, { "mr", t_mr }, { "self", t_self },
	{ "cntrwait", t_cntrwait }, { "userid", t_userid },
	{ "srcremove", t_srcremove },
};

int main(int argc, char **argv)
{
	return conf_main(argc, argv, scenarios,
			 sizeof(scenarios) / sizeof(scenarios[0]));
}
