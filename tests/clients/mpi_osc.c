/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MPI one-sided communication for the clients suite (test_mpi_rxm.sh),
 * the PGAS pattern of an MPI job: every check verifies data and aborts
 * the job on a mismatch.
 *   - active target (fences): every rank puts a distinct block into every
 *     rank's window, then gets one back from its right neighbour;
 *   - MPI_Accumulate (sum) from every rank on one element;
 *   - passive target (lock_all, flush): MPI_Fetch_and_op counters;
 *   - MPI_Compare_and_swap as a lock word, taken and released by every
 *     rank in turn under exclusive locks.
 * Open MPI 4.1 carries windows over the pml (osc pt2pt, selected by the
 * test) when the job runs on pml cm: every operation is tagged messages
 * through the OFI MTL. Rank 0 prints "mpi_osc: OK <ranks>" at the end.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 4096	/* int64 elements each rank puts to each rank */
#define FOPS 200	/* fetch-and-add calls per rank */
#define CAS_ROUNDS 50	/* lock acquisitions per rank */

static void fail(const char *what, long v)
{
	fprintf(stderr, "mpi_osc: %s (%ld)\n", what, v);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static int64_t block_value(int origin, int target, int i)
{
	return (int64_t)origin * 1000000 + target * 10000 + i;
}

/* Every rank's block at every rank, then a block back by MPI_Get. */
static void put_get(int64_t *win_mem, MPI_Win win, int rank, int size)
{
	int64_t *src = malloc(sizeof(*src) * BLOCK * size);
	int64_t *back = malloc(sizeof(*back) * BLOCK);
	int right = (rank + 1) % size;

	if (!src || !back)
		fail("out of memory", 0);
	MPI_Win_fence(0, win);
	for (int t = 0; t < size; t++) {
		/* one source block per target: an origin buffer may not be
		 * reused before the epoch closes */
		for (int i = 0; i < BLOCK; i++)
			src[t * BLOCK + i] = block_value(rank, t, i);
		MPI_Put(src + t * BLOCK, BLOCK, MPI_INT64_T, t,
			(MPI_Aint)rank * BLOCK, BLOCK, MPI_INT64_T, win);
	}
	MPI_Win_fence(0, win);
	for (int o = 0; o < size; o++)
		for (int i = 0; i < BLOCK; i++)
			if (win_mem[o * BLOCK + i] != block_value(o, rank, i))
				fail("MPI_Put: wrong element", o * BLOCK + i);
	MPI_Get(back, BLOCK, MPI_INT64_T, right, (MPI_Aint)rank * BLOCK,
		BLOCK, MPI_INT64_T, win);
	MPI_Win_fence(0, win);
	for (int i = 0; i < BLOCK; i++)
		if (back[i] != block_value(rank, right, i))
			fail("MPI_Get: wrong element", i);
	free(src);
	free(back);
}

int main(int argc, char **argv)
{
	int rank, size;
	int64_t *mem, one = 1, old, got;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Win_allocate(sizeof(*mem) * BLOCK * size, sizeof(*mem),
			 MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	for (int i = 0; i < BLOCK * size; i++)
		mem[i] = -1;

	put_get(mem, win, rank, size);

	/* element 0 of rank 0: a sum of one per call from every rank */
	if (rank == 0)
		mem[0] = 0;
	MPI_Win_fence(0, win);
	for (int k = 0; k < 100; k++)
		MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T,
			       MPI_SUM, win);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	if (rank == 0 && mem[0] != 100 * size)
		fail("MPI_Accumulate: wrong sum", (long)mem[0]);

	/* element 1 of rank 0: fetch-and-add under a passive epoch */
	if (rank == 0)
		mem[1] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock_all(0, win);
	for (int k = 0; k < FOPS; k++) {
		MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 1, MPI_SUM, win);
		MPI_Win_flush(0, win);
		if (old < 0 || old >= (int64_t)FOPS * size)
			fail("MPI_Fetch_and_op: impossible old value", (long)old);
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
	MPI_Get(&got, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win);
	MPI_Win_unlock(0, win);
	if (got != (int64_t)FOPS * size)
		fail("MPI_Fetch_and_op: wrong total", (long)got);

	/* element 2 of rank 0: a lock word (0 free, else holder + 1) */
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		mem[2] = 0;
		MPI_Win_unlock(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (int k = 0; k < CAS_ROUNDS; k++) {
		int64_t free_word = 0, mine = rank + 1, seen;

		do {
			MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
			MPI_Compare_and_swap(&mine, &free_word, &seen,
					     MPI_INT64_T, 0, 2, win);
			MPI_Win_unlock(0, win);
		} while (seen != 0);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		MPI_Compare_and_swap(&free_word, &mine, &seen, MPI_INT64_T, 0,
				     2, win);
		MPI_Win_unlock(0, win);
		if (seen != mine)
			fail("MPI_Compare_and_swap: lock held by another",
			     (long)seen);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	if (rank == 0)
		printf("mpi_osc: OK %d\n", size);
	MPI_Finalize();
	return 0;
}
