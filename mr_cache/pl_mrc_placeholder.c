/* SPDX-License-Identifier: BSD-2-Clause */
/* The registration cache lands with issue [M1]; this keeps the layer linkable. */
int pl_mrc_layer_present;
