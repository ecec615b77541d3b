// Warp shuffle reduction: each warp sums its 32 floats without shared
// memory.
//
// __shfl_down_sync(mask, v, delta) gives each lane the value of v in the
// lane delta places above it (shfl.sync.down in the PTX). Adding it halves
// the number of partial sums each time: after deltas 16, 8, 4, 2 and 1,
// lane 0 holds the sum of the warp.

extern "C" __global__ void warp_sum(const float *in, float *warp_sums) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int delta = 16; delta > 0; delta /= 2)
    v += __shfl_down_sync(0xffffffff, v, delta);
  if (threadIdx.x % 32 == 0)
    warp_sums[i / 32] = v;
}
