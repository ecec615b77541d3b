// Shared-memory reduction: each block sums 128 floats.
//
// Every thread loads one element into shared memory. Then, in each round,
// the first half of the still-active threads adds the element `stride`
// places further on (stride = 64, 32, ..., 1) until sdata[0] holds the
// block's sum, which thread 0 writes to partial[blockIdx.x].
//
// __syncthreads() is the barrier (bar.sync 0 in the PTX): no thread
// starts a round before every thread of the block finished the previous one.

extern "C" __global__ void block_sum(const float *in, float *partial) {
  __shared__ float sdata[128];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride)
      sdata[tid] += sdata[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}
