/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scalable endpoints under concurrency (suites integration and
 * concurrency; ThreadSanitizer in CI): a thread per context on both
 * sides. The sender process has a scalable endpoint with SEP_MT_CTX
 * transmit contexts, one thread each, thread j sending SEP_MT_MSGS
 * messages to receive context j of the receiver (fi_rx_addr). The
 * receiver's scalable endpoint (FI_PROGRESS_AUTO, FI_THREAD_SAFE) has
 * SEP_MT_CTX receive contexts, one thread each keeping receives posted
 * and reading its own CQ while the progress thread moves the data. Every
 * message must arrive once, in order, on the context it named.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shm_conf_test.h"

#define SEP_MT_CTX	2
#define SEP_MT_MSGS	3000
#define SEP_MT_POSTED	16
#define SEP_MT_BITS	1

struct board {
	_Atomic int ready;
	char name[128];
};

static struct board *B;

struct side {
	struct fid_fabric *fab;
	struct fid_domain *dom;
	struct fi_info *info;
	struct fid_av *av;
	struct fid_ep *sep, *ctx[SEP_MT_CTX];
	struct fid_cq *cq[SEP_MT_CTX];
};

static void side_open(struct side *s, enum fi_progress progress, int tx)
{
	struct fi_av_attr ava = { .type = FI_AV_TABLE,
				  .rx_ctx_bits = SEP_MT_BITS };
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED,
				  .wait_obj = FI_WAIT_NONE, .size = 1024 };
	int i;

	/* no FI_SOURCE_ERR: the sender is not in the receiver's AV */
	SHM_CHECK(shm_test_getinfo(FI_MSG | FI_TAGGED | FI_NAMED_RX_CTX,
				   FI_THREAD_SAFE, progress, &s->info) == 0);
	s->info->ep_attr->tx_ctx_cnt = tx ? SEP_MT_CTX : 1;
	s->info->ep_attr->rx_ctx_cnt = tx ? 1 : SEP_MT_CTX;
	SHM_CHECK(fi_fabric(s->info->fabric_attr, &s->fab, NULL) == 0);
	SHM_CHECK(fi_domain(s->fab, s->info, &s->dom, NULL) == 0);
	SHM_CHECK(fi_av_open(s->dom, &ava, &s->av, NULL) == 0);
	SHM_CHECK(fi_scalable_ep(s->dom, s->info, &s->sep, NULL) == 0);
	SHM_CHECK(fi_scalable_ep_bind(s->sep, &s->av->fid, 0) == 0);
	for (i = 0; i < SEP_MT_CTX; i++) {
		SHM_CHECK((tx ? fi_tx_context(s->sep, i, NULL, &s->ctx[i],
					      NULL) :
			   fi_rx_context(s->sep, i, NULL, &s->ctx[i],
					 NULL)) == 0);
		SHM_CHECK(fi_cq_open(s->dom, &cqa, &s->cq[i], NULL) == 0);
		SHM_CHECK(fi_ep_bind(s->ctx[i], &s->cq[i]->fid,
				     tx ? FI_TRANSMIT : FI_RECV) == 0);
		SHM_CHECK(fi_enable(s->ctx[i]) == 0);
	}
	SHM_CHECK(fi_enable(s->sep) == 0);
}

static void side_close(struct side *s)
{
	for (int i = 0; i < SEP_MT_CTX; i++) {
		SHM_CHECK(fi_close(&s->ctx[i]->fid) == 0);
		SHM_CHECK(fi_close(&s->cq[i]->fid) == 0);
	}
	SHM_CHECK(fi_close(&s->sep->fid) == 0);
	SHM_CHECK(fi_close(&s->av->fid) == 0);
	SHM_CHECK(fi_close(&s->dom->fid) == 0);
	SHM_CHECK(fi_close(&s->fab->fid) == 0);
	fi_freeinfo(s->info);
}

static struct side S;
static fi_addr_t peer;

static void *send_thread(void *arg)
{
	int j = (int)(intptr_t)arg;
	struct fi_cq_tagged_entry ce;
	uint64_t v;
	int done = 0;

	for (v = 0; v < SEP_MT_MSGS; v++) {
		SHM_CHECK(CONF_RETRY(S.cq[j], fi_tsend(S.ctx[j], &v, sizeof(v),
			NULL, fi_rx_addr(peer, j, SEP_MT_BITS), (uint64_t)j,
			NULL)) == 0);
		while (fi_cq_read(S.cq[j], &ce, 1) == 1) {
			done++;
			shm_test_progress();
		}
	}
	while (done < SEP_MT_MSGS) {
		conf_wait(S.cq[j], &ce);
		done++;
		shm_test_progress();
	}
	return NULL;
}

static void sender(void *arg)
{
	pthread_t t[SEP_MT_CTX];

	(void)arg;
	while (!atomic_load(&B->ready))
		usleep(1000);
	side_open(&S, FI_PROGRESS_MANUAL, 1);
	SHM_CHECK(fi_av_insert(S.av, B->name, 1, &peer, 0, NULL) == 1);
	for (intptr_t j = 0; j < SEP_MT_CTX; j++)
		SHM_CHECK(pthread_create(&t[j], NULL, send_thread,
					 (void *)j) == 0);
	for (int j = 0; j < SEP_MT_CTX; j++)
		SHM_CHECK(pthread_join(t[j], NULL) == 0);
	side_close(&S);
}

static void *recv_thread(void *arg)
{
	int i = (int)(intptr_t)arg, posted = 0, nfree = SEP_MT_POSTED, s;
	uint64_t buf[SEP_MT_POSTED], next = 0;
	int free_slot[SEP_MT_POSTED];
	struct fi_cq_tagged_entry ce;

	for (s = 0; s < SEP_MT_POSTED; s++)
		free_slot[s] = s;
	while (next < SEP_MT_MSGS) {
		while (nfree && posted < SEP_MT_MSGS) {
			s = free_slot[--nfree];
			SHM_CHECK(fi_trecv(S.ctx[i], &buf[s], sizeof(buf[s]),
					   NULL, FI_ADDR_UNSPEC, 0, ~0ULL,
					   &buf[s]) == 0);
			posted++;
		}
		if (fi_cq_read(S.cq[i], &ce, 1) != 1)
			continue;
		s = (int)((uint64_t *)ce.op_context - buf);
		SHM_CHECK(s >= 0 && s < SEP_MT_POSTED);
		/* the context named, in the sender's order */
		SHM_CHECK(ce.tag == (uint64_t)i && buf[s] == next);
		next++;
		free_slot[nfree++] = s;
		shm_test_progress();
	}
	return NULL;
}

int main(void)
{
	pthread_t t[SEP_MT_CTX];
	size_t len = sizeof(B->name);
	pid_t pid;

	B = mmap(NULL, sizeof(*B), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	SHM_CHECK(B != MAP_FAILED);
	/* forked before this process starts any thread */
	pid = shm_test_spawn(sender, NULL);
	shm_test_watchdog_start();
	side_open(&S, FI_PROGRESS_AUTO, 0);
	SHM_CHECK(S.info->domain_attr->data_progress == FI_PROGRESS_AUTO);
	SHM_CHECK(fi_getname(&S.sep->fid, B->name, &len) == 0);
	atomic_store(&B->ready, 1);
	for (intptr_t i = 0; i < SEP_MT_CTX; i++)
		SHM_CHECK(pthread_create(&t[i], NULL, recv_thread,
					 (void *)i) == 0);
	for (int i = 0; i < SEP_MT_CTX; i++)
		SHM_CHECK(pthread_join(t[i], NULL) == 0);
	SHM_CHECK(shm_test_wait(pid) == 0);
	side_close(&S);
	fprintf(stderr, "received %d x %d messages\n", SEP_MT_CTX,
		SEP_MT_MSGS);
	return 0;
}
