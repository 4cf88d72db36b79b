//! GEMM on a 2-D grid of ranks.
