/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_DELIVERY_COMPLETE on ofi_rxm over tcp (127.0.0.1): A sends to B, a
 * child process. Once their connection carried a first message, B stops
 * itself (SIGSTOP: none of its threads runs, its provider's included).
 * A plain 1000-byte send then completes (written to the connection:
 * transmit complete, the control); a send with FI_DELIVERY_COMPLETE must
 * not complete while B is stopped (A polls 200 ms), and completes once B
 * runs again (SIGCONT) and its side took the message. B checks all three
 * messages.
 */
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "rxm_test.h"

#define LEN	1000

static int peer_b(int rd, int wr)
{
	uint8_t in[3][LEN], want[LEN];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep b, *all[2] = { &b, &b };
	int i;
	char c = 'c';

	ep_open(&b);
	CHECK_EQ(write(wr, &b.namelen, sizeof(b.namelen)),
		 sizeof(b.namelen));
	CHECK_EQ(write(wr, b.name, b.namelen), (ssize_t)b.namelen);
	for (i = 0; i < 3; i++)
		CHECK_EQ(fi_recv(b.ep, in[i], LEN, NULL, FI_ADDR_UNSPEC,
				 in[i]), 0);
	phase = "B: the first message";
	CHECK_EQ(wait_one(all, 1, b.cq, &e, &err, NULL), 1);
	CHECK(e.op_context == in[0]);
	CHECK_EQ(write(wr, &c, 1), 1);
	raise(SIGSTOP);
	alarm(WATCH_S);		/* stopped time is no hang */
	phase = "B: the other two";
	for (i = 1; i < 3; i++) {
		CHECK_EQ(wait_one(all, 1, b.cq, &e, &err, NULL), 1);
		CHECK(e.op_context == in[i]);
		CHECK_EQ(e.len, LEN);
	}
	for (i = 0; i < 3; i++) {
		fill(want, LEN, (unsigned)i + 1);
		CHECK(!memcmp(in[i], want, LEN));
	}
	CHECK_EQ(read(rd, &c, 1), 1);	/* A is done */
	ep_close(&b);
	return 0;
}

int main(void)
{
	static uint8_t out[3][LEN];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct ep a, b_name, *only_a[1] = { &a };
	struct iovec iov = { out[2], LEN };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
			    .context = out[2] };
	int to_b[2], from_b[2], status, i;
	fi_addr_t b_at_a;
	pid_t pid;
	char c;

	rxm_test_start();
	CHECK_EQ(pipe(to_b), 0);
	CHECK_EQ(pipe(from_b), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		/* a failed A must not leave B stopped for ever */
		CHECK_EQ(prctl(PR_SET_PDEATHSIG, SIGKILL), 0);
		alarm(WATCH_S);		/* fork keeps no alarm */
		_exit(peer_b(to_b[0], from_b[1]));
	}
	ep_open(&a);
	CHECK_EQ(read(from_b[0], &b_name.namelen, sizeof(b_name.namelen)),
		 sizeof(b_name.namelen));
	CHECK(b_name.namelen <= sizeof(b_name.name));
	CHECK_EQ(read(from_b[0], b_name.name, b_name.namelen),
		 (ssize_t)b_name.namelen);
	b_at_a = insert(&a, &b_name);
	m.addr = b_at_a;
	for (i = 0; i < 3; i++)
		fill(out[i], LEN, (unsigned)i + 1);

	phase = "A: the first message";
	send_one(only_a, 1, &a, out[0], LEN, b_at_a, false, 0);
	CHECK_EQ(read(from_b[0], &c, 1), 1);
	CHECK_EQ(waitpid(pid, &status, WUNTRACED), pid);
	CHECK(WIFSTOPPED(status));

	phase = "A: a plain send completes while B is stopped";
	send_one(only_a, 1, &a, out[1], LEN, b_at_a, false, 0);

	phase = "A: FI_DELIVERY_COMPLETE waits for B";
	CHECK_EQ(fi_sendmsg(a.ep, &m, FI_COMPLETION | FI_DELIVERY_COMPLETE),
		 0);
	for (i = 0; i < 200; i++) {
		CHECK_EQ(fi_cq_read(a.cq, &e, 1), -FI_EAGAIN);
		usleep(1000);
	}
	CHECK_EQ(kill(pid, SIGCONT), 0);
	CHECK_EQ(wait_one(only_a, 1, a.cq, &e, &err, NULL), 1);
	CHECK(e.op_context == out[2]);

	c = 'd';
	CHECK_EQ(write(to_b[1], &c, 1), 1);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ep_close(&a);
	printf("FI_DELIVERY_COMPLETE waited for the stopped peer\n");
	return 0;
}
