/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test helper library, loaded with dlopen after the memhooks monitor
 * started: its munmap call goes through its own GOT slot, which the
 * monitor's dlopen hook must patch.
 */
#include <stddef.h>

#include <sys/mman.h>

int pl_mrc_dl_unmap(void *addr, size_t len);

__attribute__((visibility("default")))
int pl_mrc_dl_unmap(void *addr, size_t len)
{
	return munmap(addr, len);
}
