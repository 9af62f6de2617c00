/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fork() after registrations, on a real verbs device (inside the rxe VM,
 * run by rxe_wrap.sh). The parent registers a send buffer and uses it,
 * then forks; the child writes over its view of that buffer and then
 * opens the verbs provider itself. Checked:
 *  - the child runs: it is neither killed by a signal (a buffer the
 *    parent registered is touched in the child) nor crashes opening the
 *    provider; opening it works there (its own connection, a message
 *    checked byte for byte), or fails with a -FI_E* code that the child
 *    reports (the reference crashes here);
 *  - the parent's registration still names the parent's pages: what the
 *    parent writes into the buffer after the fork is what the wire
 *    carries (a registration left on the pages the child shares would
 *    send the old bytes), and the child's writes never show.
 * Exit 0: pass; 77: no verbs device here (skipped, says why); 1: fail.
 */
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vrb_test_conn.h"

#define LEN (1 << 20)

/* One message over a fresh connection of t, from sbuf (registered
 * there), checked against sbuf at the receiver. */
static void send_checked(struct vt *t, struct vt_conn *c, char *sbuf,
			 struct fid_mr *smr, char *rbuf, struct fid_mr *rmr)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	int sctx, rctx;

	memset(rbuf, 0, LEN);
	CHECK(fi_recv(c->srv, rbuf, LEN, fi_mr_desc(rmr), 0, &rctx));
	CHECK(fi_send(c->cli, sbuf, LEN, fi_mr_desc(smr), 0, &sctx));
	CHECK(vt_cq_wait(c->ccq, &e, &err));
	CHECK(vt_cq_wait(c->scq, &e, &err));
	EXPECT(e.op_context == &rctx && e.len == LEN);
	(void)t;
}

/* Does the kernel copy pinned pages into a child at fork (5.13 and
 * later)? Before that, fork safety means the registered pages are not
 * mapped in the child at all (MADV_DONTFORK), and touching them there
 * is the child's fault. */
static bool kernel_copies_pinned(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 5 || (major == 5 && minor >= 13);
}

/* The child: its copy of the parent's registered buffer is its own to
 * write; then the provider, opened anew. Exit 0 when it worked, 3 when
 * it refused with an error code (printed), 1 on a wrong result. */
static int child(char *pbuf, struct fi_info *pinfo)
{
	struct fid_fabric *fab;
	char *sbuf = malloc(LEN), *rbuf = malloc(LEN);
	struct fid_mr *smr, *rmr;
	struct vt_conn c;
	struct fi_info *hints = fi_allocinfo(), *info = NULL;
	struct vt t;
	int ret;

	if (kernel_copies_pinned())
		memset(pbuf, 0xcc, LEN);
	else
		printf("child: kernel before 5.13, the registered buffer is "
		       "not mapped here; not touched\n");
	hints->ep_attr->type = FI_EP_MSG;
	hints->fabric_attr->prov_name = strdup("verbs");
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->addr_format = FI_SOCKADDR_IN;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (ret) {
		printf("child: fi_getinfo(verbs) = %d (%s)\n", ret,
		       fi_strerror(-ret));
		/* the parent's fi_info does not get around it */
		ret = fi_fabric(pinfo->fabric_attr, &fab, NULL);
		printf("child: fi_fabric(the parent's info) = %d (%s)\n",
		       ret, fi_strerror(-ret));
		EXPECT(ret < 0);
		return 3;
	}
	fi_freeinfo(info);
	vt_open(&t, NULL);
	smr = vt_reg(&t, sbuf, LEN, FI_SEND);
	rmr = vt_reg(&t, rbuf, LEN, FI_RECV);
	vt_connect(&t, &c, NULL);
	memset(sbuf, 0x5a, LEN);
	send_checked(&t, &c, sbuf, smr, rbuf, rmr);
	EXPECT(!memcmp(sbuf, rbuf, LEN));
	vt_conn_close(&t, &c);
	CHECK(fi_close(&smr->fid));
	CHECK(fi_close(&rmr->fid));
	vt_close(&t);
	free(sbuf);
	free(rbuf);
	printf("child: opened verbs, connected and sent after fork\n");
	return 0;
}

int main(void)
{
	char *sbuf = malloc(LEN), *rbuf = malloc(LEN);
	struct fid_mr *smr, *rmr;
	struct vt_conn c;
	struct vt t;
	size_t i;
	pid_t pid;
	int st;

	vt_open(&t, NULL);
	smr = vt_reg(&t, sbuf, LEN, FI_SEND);
	rmr = vt_reg(&t, rbuf, LEN, FI_RECV);
	vt_connect(&t, &c, NULL);
	for (i = 0; i < LEN; i++)
		sbuf[i] = (char)(i * 7);
	send_checked(&t, &c, sbuf, smr, rbuf, rmr);
	EXPECT(!memcmp(sbuf, rbuf, LEN));
	fflush(stdout);
	pid = fork();
	EXPECT(pid >= 0);
	if (pid == 0)
		_exit((st = child(sbuf, t.info), fflush(stdout), st));
	EXPECT(waitpid(pid, &st, 0) == pid);
	if (WIFSIGNALED(st))
		vt_fail("the child died of signal %d", WTERMSIG(st));
	EXPECT(WIFEXITED(st) &&
	       (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 3));
	/* the parent writes after the fork (its pages are copied on write
	 * if they are shared): the wire must carry these bytes */
	for (i = 0; i < LEN; i++)
		sbuf[i] = (char)(i * 11 + 1);
	send_checked(&t, &c, sbuf, smr, rbuf, rmr);
	for (i = 0; i < LEN; i++)
		if (rbuf[i] != (char)(i * 11 + 1))
			vt_fail("byte %zu on the wire is %#x, not the parent's "
				"%#x (a registration of pages the fork left "
				"behind)", i, (unsigned char)rbuf[i],
				(unsigned char)(i * 11 + 1));
	vt_conn_close(&t, &c);
	CHECK(fi_close(&smr->fid));
	CHECK(fi_close(&rmr->fid));
	vt_close(&t);
	free(sbuf);
	free(rbuf);
	printf("PASS: verbs fork (child %s)\n", WEXITSTATUS(st) ? "refused "
	       "the provider with an error code" : "used the provider");
	return 0;
}
