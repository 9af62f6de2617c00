/* SPDX-License-Identifier: BSD-2-Clause */
/* The progress engine lands with issue [E1]; this keeps the layer linkable. */
int pl_progress_layer_present;
