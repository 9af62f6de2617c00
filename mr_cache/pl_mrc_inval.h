/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pl_mrc_inval: the process-wide log of invalidated address ranges, the
 * lock-free queue between the memory monitors (producers) and every
 * registration cache (consumers, each with its own cursor).
 *
 * It is a broadcast ring of PL_MRC_INVAL_SLOTS slots in static storage:
 * publishing allocates nothing and takes no lock, so it is safe in the
 * userfaultfd reader (which must never wait for a thread that may be
 * stuck in munmap holding malloc's lock) and in an application's
 * memory hook. A consumer that falls more than a ring behind is told
 * so (-FI_EOVERFLOW) and must treat every range as invalid: ranges are
 * never silently lost.
 *
 * Synchronization table: may X run at the same time as Y?
 *
 *                 publish   consume (other cursor)   consume (same cursor)
 *   publish       yes       yes                      yes
 *   consume       yes       yes                      no (cursor owner's lock)
 *
 * Edges (labels used in pl_mrc_inval.c):
 *   P1 release: a slot's sequence store publishes its range; pairs with C1.
 *   C1 acquire: a consumer's load of the slot sequence.
 *   P0 acquire: a producer waits for the previous lap's writer of its slot
 *      to finish (pairs with that writer's P1), so two laps never mix.
 *   S1/S2 seqlock: a consumer re-reads the sequence after copying the range
 *      (acquire fence) to detect a lap that overwrote it meanwhile.
 */
#ifndef PROPEL_PL_MRC_INVAL_H
#define PROPEL_PL_MRC_INVAL_H

#include <stdint.h>

#define PL_MRC_INVAL_SLOTS 8192u	/* a power of two */

/* Record that [start, end) changed. Any thread, any context; lock-free
 * except that it waits (spinning, bounded by another producer's few
 * stores) for the producer of the same slot one lap earlier. */
void pl_mrc_inval_publish(uintptr_t start, uintptr_t end);

/* The position the next publish will take: a new consumer starts here. */
uint64_t pl_mrc_inval_pos(void);

/*
 * Hand fn every range published between *cursor_p and now, oldest first,
 * and advance *cursor_p. Returns 0, or -FI_EOVERFLOW when ranges were
 * overwritten before being read (the cursor then jumps to now and the
 * caller must consider everything invalid). Waits for a producer that
 * claimed a slot and has not yet filled it (a few stores away).
 * The caller serializes calls on one cursor.
 */
int pl_mrc_inval_consume(uint64_t *cursor_p,
			 void (*fn)(uintptr_t start, uintptr_t end, void *arg),
			 void *arg);

#endif /* PROPEL_PL_MRC_INVAL_H */
