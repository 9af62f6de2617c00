/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two-rank MPI micro-benchmark for perf/mpi/compare.sh: the same program
 * runs on every MPI transport being compared (Open MPI's pml cm over
 * propel's or the reference's tcp;ofi_rxm, and pml ob1 with its own
 * shared-memory BTL), so that only the transport differs.
 *   lat   8-byte ping-pong: one line per repetition, "lat <us>", the
 *         one-way time (half the round trip) averaged over the
 *         repetition's iterations;
 *   bw    1 MiB messages, a window of them in flight, then a 4-byte
 *         acknowledgement: one line per repetition, "bw <MB/s>".
 * Every received buffer's first and last byte are checked, so a
 * transport that skips the copy cannot look fast.
 * Usage: mpi_bench lat|bw REPS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAT_ITERS	20000
#define LAT_WARMUP	2000
#define BW_SIZE		(1 << 20)
#define BW_WINDOW	32
#define BW_ROUNDS	20

static void check(const unsigned char *p, size_t n, unsigned char v)
{
	if (n && (p[0] != v || p[n - 1] != v)) {
		fprintf(stderr, "mpi_bench: wrong data\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void lat(int rank, int reps)
{
	unsigned char out[8], in[8];
	int peer = !rank, r, i;

	for (r = 0; r < reps; r++) {
		double t0 = 0;

		for (i = 0; i < LAT_WARMUP + LAT_ITERS; i++) {
			if (i == LAT_WARMUP)
				t0 = MPI_Wtime();
			memset(out, (unsigned char)i, sizeof(out));
			if (!rank) {
				MPI_Send(out, 8, MPI_BYTE, peer, 1,
					 MPI_COMM_WORLD);
				MPI_Recv(in, 8, MPI_BYTE, peer, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(in, 8, MPI_BYTE, peer, 1,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(out, 8, MPI_BYTE, peer, 1,
					 MPI_COMM_WORLD);
			}
			check(in, 8, (unsigned char)i);
		}
		if (!rank)
			printf("lat %.3f\n", (MPI_Wtime() - t0) * 1e6 /
			       LAT_ITERS / 2);
	}
}

static void bw(int rank, int reps)
{
	unsigned char *buf = malloc((size_t)BW_SIZE * BW_WINDOW);
	MPI_Request req[BW_WINDOW];
	int peer = !rank, r, k, w, ack = 0;

	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 7, (size_t)BW_SIZE * BW_WINDOW);
	for (r = 0; r < reps; r++) {
		double t0 = MPI_Wtime();

		/* the first round warms up (registrations, connections) */
		for (k = 0; k <= BW_ROUNDS; k++) {
			if (k == 1)
				t0 = MPI_Wtime();
			for (w = 0; w < BW_WINDOW; w++) {
				unsigned char *p = buf + (size_t)w * BW_SIZE;

				if (!rank)
					MPI_Isend(p, BW_SIZE, MPI_BYTE, peer,
						  2, MPI_COMM_WORLD, &req[w]);
				else
					MPI_Irecv(p, BW_SIZE, MPI_BYTE, peer,
						  2, MPI_COMM_WORLD, &req[w]);
			}
			MPI_Waitall(BW_WINDOW, req, MPI_STATUSES_IGNORE);
			if (rank) {
				for (w = 0; w < BW_WINDOW; w++)
					check(buf + (size_t)w * BW_SIZE,
					      BW_SIZE, 7);
				MPI_Send(&ack, 1, MPI_INT, peer, 3,
					 MPI_COMM_WORLD);
			} else {
				MPI_Recv(&ack, 1, MPI_INT, peer, 3,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		}
		if (!rank)
			printf("bw %.1f\n", (double)BW_SIZE * BW_WINDOW *
			       BW_ROUNDS / (MPI_Wtime() - t0) / 1e6);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	int rank, size, reps;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	reps = argc > 2 ? atoi(argv[2]) : 5;
	if (size != 2 || argc < 2 || reps < 1) {
		if (!rank)
			fprintf(stderr, "usage: mpirun -np 2 %s lat|bw REPS\n",
				argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!strcmp(argv[1], "lat"))
		lat(rank, reps);
	else
		bw(rank, reps);
	MPI_Finalize();
	return 0;
}
