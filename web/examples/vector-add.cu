// Vector addition: c[i] = a[i] + b[i] for i < n.
//
// Each thread handles one element. The grid has more threads than
// elements (4 blocks of 64 threads = 256 threads for n = 200), so the
// threads past the end must skip the work: step through the last block
// and watch its first warp split at the bounds check.

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  c[i] = a[i] + b[i];
}
