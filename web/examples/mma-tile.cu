// A tensor-core tile from CUDA: one warp multiplies a 16x16 tile of A by a
// 16x8 tile of B (half precision) into a 16x8 tile of D (single precision).
// CUDA C++ has no function for these instructions, so the kernel writes
// them as inline PTX (asm volatile), as CUTLASS does:
//
//   1. the warp copies A and B from global into shared memory;
//   2. ldmatrix.x4 loads A's four 8x8 quarters into each lane's A fragment
//      (lane 8j+r supplies the address of row r of quarter j);
//   3. ldmatrix.x2.trans loads B transposed, the column layout mma wants;
//   4. mma.sync.aligned.m16n8k16 computes D = A*B + 0 on the fragments;
//   5. each lane stores the four D elements it holds.

extern "C" __global__ void mma_tile(const __half *a, const __half *b, float *d) {
  __shared__ __align__(16) __half sa[16 * 16];
  __shared__ __align__(16) __half sb[16 * 8];
  unsigned lane = threadIdx.x;

  // 1. A: 16 bytes per lane; B: 8 bytes per lane.
  reinterpret_cast<uint4 *>(sa)[lane] = reinterpret_cast<const uint4 *>(a)[lane];
  reinterpret_cast<uint2 *>(sb)[lane] = reinterpret_cast<const uint2 *>(b)[lane];
  __syncthreads();

  // 2. Lane 8j+r points at row 8(j&1)+r of A, columns from 8(j>>1).
  unsigned r = lane % 8, j = lane / 8;
  unsigned aaddr = __cvta_generic_to_shared(&sa[(8 * (j & 1) + r) * 16 + 8 * (j >> 1)]);
  unsigned fa[4];
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(fa[0]), "=r"(fa[1]), "=r"(fa[2]), "=r"(fa[3]) : "r"(aaddr));

  // 3. Lane l (< 16) points at row l of B; .trans hands each lane two
  //    consecutive k of one column n.
  unsigned baddr = __cvta_generic_to_shared(&sb[(lane % 16) * 8]);
  unsigned fb[2];
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(fb[0]), "=r"(fb[1]) : "r"(baddr));

  // 4. D = A*B + 0.
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
               : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));

  // 5. Lane l holds D[g][2q], D[g][2q+1], D[g+8][2q], D[g+8][2q+1]
  //    with g = l/4, q = l%4.
  unsigned g = lane / 4, q = lane % 4;
  reinterpret_cast<float2 *>(d)[(g * 8 + 2 * q) / 2] = make_float2(acc[0], acc[1]);
  reinterpret_cast<float2 *>(d)[((g + 8) * 8 + 2 * q) / 2] = make_float2(acc[2], acc[3]);
}
