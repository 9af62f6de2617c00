/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An MPI program for the clients suite (test_mpi_rxm.sh): every check
 * verifies data and aborts the job on a mismatch.
 *   - ping-pong between rank pairs (0-1, 2-3, ...) at sizes from 0 bytes
 *     to 4 MiB, across the eager and segmented protocols' boundaries;
 *   - receives with MPI_ANY_SOURCE and MPI_ANY_TAG: rank 0 takes one
 *     message from every other rank and checks who sent it (the source
 *     and the tag carry the sender's rank);
 *   - MPI_Allreduce and MPI_Alltoall;
 *   - a send to itself.
 * Rank 0 prints "mpi_check: OK <ranks>" at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, long v)
{
	fprintf(stderr, "mpi_check: %s (%ld)\n", what, v);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void fill(unsigned char *p, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 13 + i * 7 + (i >> 10));
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 0, 1, 8, 100, 16000, 16344, 16345,
				     70000, 1 << 20, 4 << 20 };
	int rank, size, peer, i, n, got;
	unsigned char *out, *in;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	out = malloc(4 << 20);
	in = malloc(4 << 20);
	if (!out || !in)
		fail("malloc", 0);

	peer = rank ^ 1;
	for (i = 0; peer < size && i < (int)(sizeof(sizes) / sizeof(*sizes));
	     i++) {
		n = sizes[i];
		fill(out, (size_t)n, i);
		if (rank & 1) {
			MPI_Recv(in, n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &got);
			if (got != n || memcmp(in, out, (size_t)n))
				fail("ping: wrong data", n);
			MPI_Send(in, n, MPI_BYTE, peer, i, MPI_COMM_WORLD);
		} else {
			MPI_Send(out, n, MPI_BYTE, peer, i, MPI_COMM_WORLD);
			memset(in, 0, (size_t)n);
			MPI_Recv(in, n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &st);
			if (memcmp(in, out, (size_t)n))
				fail("pong: wrong data", n);
		}
	}

	/* any source, any tag: the source and the tag name the sender */
	if (rank) {
		MPI_Send(&rank, 1, MPI_INT, 0, 1000 + rank, MPI_COMM_WORLD);
	} else {
		int seen = 0, v;

		for (i = 1; i < size; i++) {
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
				 MPI_COMM_WORLD, &st);
			if (v != st.MPI_SOURCE || st.MPI_TAG != 1000 + v ||
			    (seen & (1 << v)))
				fail("any source: wrong sender", v);
			seen |= 1 << v;
		}
	}

	/* to itself */
	fill(out, 5000, 99);
	MPI_Sendrecv(out, 5000, MPI_BYTE, rank, 7, in, 5000, MPI_BYTE, rank,
		     7, MPI_COMM_WORLD, &st);
	if (memcmp(in, out, 5000))
		fail("self: wrong data", rank);

	{
		int v = rank + 1, sum = 0, *a = malloc(sizeof(int) * size),
		    *b = malloc(sizeof(int) * size);

		MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		if (sum != size * (size + 1) / 2)
			fail("allreduce", sum);
		for (i = 0; i < size; i++)
			a[i] = rank * 100 + i;
		MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
		for (i = 0; i < size; i++)
			if (b[i] != i * 100 + rank)
				fail("alltoall", b[i]);
		free(a);
		free(b);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank)
		printf("mpi_check: OK %d\n", size);
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}
