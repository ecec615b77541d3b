// Matrix transpose through shared memory, with and without bank conflicts.
//
// Each block of 32x8 threads moves one 32x32 tile: it reads rows of the
// tile from `in` (coalesced), stores them in shared memory, waits at the
// barrier, then reads the tile back column-wise and writes rows of `out`.
// Each thread handles 4 elements, 8 rows apart.
//
// Shared memory has 32 banks of 4-byte words: word k lives in bank k % 32.
// - transpose_conflicts uses tile[32][32]: reading a column, lane t reads
//   word t*32 + c, so all 32 lanes hit the same bank (a 32-way conflict).
// - transpose_padded uses tile[32][33]: the extra word per row shifts each
//   row by one bank, so lane t reads bank (t + c) % 32, no conflict.
// The launch spec's "entry" picks one.

#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_conflicts(const float *in, float *out, unsigned width) {
  __shared__ float tile[TILE][TILE];
  unsigned x = blockIdx.x * TILE + threadIdx.x;
  unsigned y = blockIdx.y * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transpose_padded(const float *in, float *out, unsigned width) {
  __shared__ float tile[TILE][TILE + 1];
  unsigned x = blockIdx.x * TILE + threadIdx.x;
  unsigned y = blockIdx.y * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (unsigned j = 0; j < TILE; j += ROWS)
    out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}
