/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared receive context under concurrency (suites integration and
 * concurrency; ThreadSanitizer in CI). Two sender processes stream
 * SRX_MT_MSGS tagged messages each, one to each of two endpoints bound
 * to one shared receive context of an FI_PROGRESS_AUTO, FI_THREAD_SAFE
 * domain. The receiver's main thread keeps receives posted to the
 * context while the domain's progress thread drives both endpoints
 * (each pass tries the context's one lock). Every message must complete
 * exactly once, in its sender's order, on the CQ of the endpoint it was
 * sent to, carrying its own bytes.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm_conf_test.h"

#define SRX_MT_MSGS	3000
#define SRX_MT_POSTED	48
#define SRX_MT_SENDERS	2

struct board {
	_Atomic int ready;
	char name[SRX_MT_SENDERS][128];
	size_t namelen[SRX_MT_SENDERS];
};

static struct board *B;

static void sender(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct conf c;
	struct cep e;
	static const struct cep_opts none;
	fi_addr_t to = FI_ADDR_NOTAVAIL;
	struct fi_cq_tagged_entry ce;
	uint64_t v;
	int done = 0;

	while (!atomic_load(&B->ready))
		usleep(1000);
	SHM_CHECK(conf_open(&c, CONF_CAPS) == 0);
	SHM_CHECK(cep_open(&c, &e, &none) == 0);
	SHM_CHECK(fi_av_insert(e.av, B->name[me], 1, &to, 0, NULL) == 1);
	for (v = 0; v < SRX_MT_MSGS; v++) {
		SHM_CHECK(CONF_RETRY(e.tcq, fi_tsend(e.ep, &v, sizeof(v), NULL,
						     to, (uint64_t)me, NULL)) ==
			  0);
		while (fi_cq_read(e.tcq, &ce, 1) == 1) {
			done++;
			shm_test_progress();
		}
	}
	while (done < SRX_MT_MSGS) {
		conf_wait(e.tcq, &ce);
		done++;
		shm_test_progress();
	}
	cep_close(&e);
	conf_close(&c);
}

int main(void)
{
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE, .size = 1024 };
	static uint64_t buf[SRX_MT_POSTED];
	uint64_t next[SRX_MT_SENDERS] = { 0 };
	struct fid_cq *cq[SRX_MT_SENDERS];
	struct fid_ep *ep[SRX_MT_SENDERS], *srx;
	struct fi_cq_tagged_entry ce;
	struct fi_info *info;
	struct fid_fabric *fab;
	struct fid_domain *dom;
	struct fid_av *av;
	int free_slot[SRX_MT_POSTED], nfree = SRX_MT_POSTED;
	int total = 0, posted_total = 0, i, k;
	pid_t pid[SRX_MT_SENDERS];

	B = mmap(NULL, sizeof(*B), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(B != MAP_FAILED);
	/* the senders are forked before this process starts any thread */
	for (i = 0; i < SRX_MT_SENDERS; i++)
		pid[i] = shm_test_spawn(sender, (void *)(intptr_t)i);
	shm_test_watchdog_start();

	/* no FI_SOURCE_ERR: the senders are not in the receiver's AV */
	SHM_CHECK(shm_test_getinfo(FI_MSG | FI_TAGGED, FI_THREAD_SAFE,
				   FI_PROGRESS_AUTO, &info) == 0);
	SHM_CHECK(info->domain_attr->data_progress == FI_PROGRESS_AUTO);
	SHM_CHECK(fi_fabric(info->fabric_attr, &fab, NULL) == 0);
	SHM_CHECK(fi_domain(fab, info, &dom, NULL) == 0);
	SHM_CHECK(fi_av_open(dom, &ava, &av, NULL) == 0);
	SHM_CHECK(fi_srx_context(dom, NULL, &srx, NULL) == 0);
	for (i = 0; i < SRX_MT_SENDERS; i++) {
		SHM_CHECK(fi_cq_open(dom, &cqa, &cq[i], NULL) == 0);
		SHM_CHECK(fi_endpoint(dom, info, &ep[i], NULL) == 0);
		SHM_CHECK(fi_ep_bind(ep[i], &av->fid, 0) == 0);
		SHM_CHECK(fi_ep_bind(ep[i], &cq[i]->fid,
				     FI_RECV | FI_TRANSMIT) == 0);
		SHM_CHECK(fi_ep_bind(ep[i], &srx->fid, 0) == 0);
		SHM_CHECK(fi_enable(ep[i]) == 0);
		B->namelen[i] = sizeof(B->name[i]);
		SHM_CHECK(fi_getname(&ep[i]->fid, B->name[i],
				     &B->namelen[i]) == 0);
	}
	atomic_store(&B->ready, 1);
	for (i = 0; i < SRX_MT_POSTED; i++)
		free_slot[i] = i;

	while (total < SRX_MT_SENDERS * SRX_MT_MSGS) {
		/* keep receives posted; the progress thread matches them */
		while (nfree && posted_total < SRX_MT_SENDERS * SRX_MT_MSGS) {
			int s = free_slot[--nfree];

			SHM_CHECK(fi_trecv(srx, &buf[s], sizeof(buf[s]), NULL,
					   FI_ADDR_UNSPEC, 0, ~0ULL,
					   &buf[s]) == 0);
			posted_total++;
		}
		for (k = 0; k < SRX_MT_SENDERS; k++) {
			if (fi_cq_read(cq[k], &ce, 1) != 1)
				continue;
			int s = (int)((uint64_t *)ce.op_context - buf);

			SHM_CHECK(s >= 0 && s < SRX_MT_POSTED);
			/* sender k sends to endpoint k only, in order */
			SHM_CHECK(ce.tag == (uint64_t)k && ce.len == 8);
			SHM_CHECK(buf[s] == next[k]);
			next[k]++;
			free_slot[nfree++] = s;
			total++;
			shm_test_progress();
		}
	}
	for (k = 0; k < SRX_MT_SENDERS; k++)
		SHM_CHECK(next[k] == SRX_MT_MSGS);
	for (i = 0; i < SRX_MT_SENDERS; i++)
		SHM_CHECK(shm_test_wait(pid[i]) == 0);
	for (i = 0; i < SRX_MT_SENDERS; i++) {
		SHM_CHECK(fi_close(&ep[i]->fid) == 0);
		SHM_CHECK(fi_close(&cq[i]->fid) == 0);
	}
	SHM_CHECK(fi_close(&srx->fid) == 0);
	SHM_CHECK(fi_close(&av->fid) == 0);
	SHM_CHECK(fi_close(&dom->fid) == 0);
	SHM_CHECK(fi_close(&fab->fid) == 0);
	fprintf(stderr, "received %d messages\n", total);
	fi_freeinfo(info);
	return 0;
}
