// Divergence: each thread counts the Collatz steps of its own number.
//
// The 32 lanes of a warp share one program counter. At the if/else the
// warp splits: the even lanes run their path while the odd lanes wait,
// then the other way round, and they reconverge after the if/else. The
// loop exit diverges too: a lane whose number reached 1 sits out the
// remaining iterations of the others.

extern "C" __global__ void collatz(const unsigned *start, unsigned *steps_out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = start[i];
  unsigned steps = 0;
  while (x > 1) {
    if (x % 2 == 0)
      x = x / 2;
    else
      x = 3 * x + 1;
    steps++;
  }
  steps_out[i] = steps;
}
