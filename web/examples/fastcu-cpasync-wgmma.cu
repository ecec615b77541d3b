// fast.cu's matmulKernel2 with its TMA loads replaced by cp.async: a wgmma
// GEMM whose operands reach shared memory through plain cp.async, compiled
// to sm_90a PTX by the playground's CUDA front door:
//
//   ptxplay cc -arch sm_90a -O 2 fastcu-cpasync-wgmma.cu
//
// (fastcu-cpasync-wgmma.ptx is a header and then that output, unchanged).
//
// Origin: https://github.com/pranjalssh/fast.cu, examples/matmul/matmul_2.cuh
// at commit 38eb642e0c081231d6f695978be63604bd7c689b. Copyright (c) 2024
// Pranjal Shankhdhar, MIT licence (LICENSE-fast.cu next to this file).
//
// No public sm_90a GEMM that feeds wgmma with plain cp.async (and carries a
// licence) was found, so this is fast.cu's published TMA kernel with its
// loads adapted, and only those:
//   - the parameters are the addresses of A (M x K) and B (N x K), both
//     row-major bf16, instead of their tensor maps;
//   - the load step (TMA by thread 0 + two cuda::barrier mbarriers) is
//     load_tile_128B below, run by all 128 threads for each operand: 16-byte
//     cp.async.cg copies that write the tile in the layout the TMA's 128B
//     swizzle gives (16-byte chunk j of row r lands at r*128 + (j ^ r%8)*16),
//     then cp.async.commit_group / wait_group 0, fence.proxy.async (the
//     copies are generic-proxy writes that wgmma reads through the async
//     proxy) and __syncthreads;
//   - the barriers, their initialisation and the CUDA-toolkit includes go.
// The descriptors, the four wgmma per K step, the wgmma fence/commit/wait
// and the epilogue are the published code, unchanged. At the end, the
// instantiation runKernel2 launches (BM = BN = BK = 64, WGMMA 64x64x16,
// 128 threads).

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdint>

typedef __nv_bfloat16 bf16;
#define memset __builtin_memset
// nvcc accepts `__shared__ alignas(128) bf16 sA[...]`; clang does not take
// alignas after an attribute, so it is spelled as the GNU attribute here.
#define alignas(n) __attribute__((aligned(n)))

// The adapted load: a ROWS x 64 bf16 tile (128 bytes a row) from rows
// row0.. and columns col0.. of a row-major matrix with ld elements a row,
// into dst in the TMA's 128B-swizzle layout.
template <int ROWS, int COLS>
__device__ void load_tile_128B(bf16 *dst, const bf16 *src, int ld, int row0, int col0) {
    static_assert(COLS == 64, "one 128-byte swizzle row per tile row");
    unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    for (int c = threadIdx.x; c < ROWS * 8; c += blockDim.x) {
        int r = c / 8, j = c % 8;
        const bf16 *g = src + (size_t)(row0 + r) * ld + col0 + j * 8;
        unsigned s = base + r * 128 + ((j ^ (r % 8)) * 16);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(s), "l"(g) : "memory");
    }
}

// ---- published device code (matmul_2.cuh), loads adapted as said above ----

namespace M2 {


__device__ static inline uint64_t matrix_descriptor_encode(uint64_t x) { return (((x) & 0x3FFFF) >> 0x4); }

__device__ uint64_t make_smem_desc(bf16* ptr) {
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
    uint64_t desc = 0x0000000000000000;
    desc |= matrix_descriptor_encode(addr);
    desc |= matrix_descriptor_encode((uint64_t)16) << 16;
    desc |= matrix_descriptor_encode((uint64_t)1024) << 32;
    desc |= 1llu << 62; // 128B swizzle
    return desc;
  }


__device__ void warpgroup_arrive() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ void warpgroup_commit_batch() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N>
__device__ void warpgroup_wait() {
    static_assert(N >= 0 && N <= 7, "WGMMA wait: N must be in range [0, 7]");
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

template<int ScaleD, int ScaleA, int ScaleB, int TransA, int TransB>
__device__ void wgmma64(float d[4][8], bf16* sA, bf16* sB) {
    uint64_t desc_a = make_smem_desc(&sA[0]);
    uint64_t desc_b = make_smem_desc(&sB[0]);
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0,   %1,   %2,   %3,   %4,   %5,   %6,   %7,   "
        " %8,   %9,   %10,  %11,  %12,  %13,  %14,  %15,  "
        " %16,  %17,  %18,  %19,  %20,  %21,  %22,  %23,  "
        " %24,  %25,  %26,  %27,  %28,  %29,  %30,  %31},"
        " %32,"
        " %33,"
        " %34, %35, %36, %37, %38;\n"
        "}\n"
        : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[0][4]), "+f"(d[0][5]),
          "+f"(d[0][6]), "+f"(d[0][7]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
          "+f"(d[1][4]), "+f"(d[1][5]), "+f"(d[1][6]), "+f"(d[1][7]), "+f"(d[2][0]), "+f"(d[2][1]),
          "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[2][4]), "+f"(d[2][5]), "+f"(d[2][6]), "+f"(d[2][7]),
          "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[3][4]), "+f"(d[3][5]),
          "+f"(d[3][6]), "+f"(d[3][7])
        : "l"(desc_a), "l"(desc_b), "n"(int32_t(ScaleD)), "n"(int32_t(ScaleA)),
          "n"(int32_t(ScaleB)), "n"(int32_t(TransA)), "n"(int32_t(TransB)));
}

template<int BM, int BN, int BK, int WGMMA_M, int WGMMA_N, int WGMMA_K, int NUM_THREADS>
__global__ void __launch_bounds__(NUM_THREADS) matmulKernel2(int M, int N, int K, bf16* C, const bf16* A, const bf16* B) {
    __shared__ alignas(128) bf16 sA[BM*BK];
    __shared__ alignas(128) bf16 sB[BK*BN];
    float d[WGMMA_N/16][8];
    static_assert(sizeof(d) * 128 == BM * BN * sizeof(float));
    memset(d, 0, sizeof(d));

    const int num_blocks_k = K / BK;
    int num_block_n = blockIdx.x % (N / BN);
    int num_block_m = blockIdx.x / (N / BN);

    for (int block_k_iter = 0; block_k_iter < num_blocks_k; ++block_k_iter) {
        // Load (adapted: cp.async instead of TMA and mbarriers)
        load_tile_128B<BM, BK>(&sA[0], A, K, num_block_m*BM, block_k_iter*BK);
        load_tile_128B<BN, BK>(&sB[0], B, K, num_block_n*BN, block_k_iter*BK);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
    
        // Compute
        warpgroup_arrive();
        wgmma64<1, 1, 1, 0, 0>(d, &sA[0], &sB[0]);
        wgmma64<1, 1, 1, 0, 0>(d, &sA[WGMMA_K], &sB[WGMMA_K]);
        wgmma64<1, 1, 1, 0, 0>(d, &sA[2*WGMMA_K], &sB[2*WGMMA_K]);
        wgmma64<1, 1, 1, 0, 0>(d, &sA[3*WGMMA_K], &sB[3*WGMMA_K]);
        warpgroup_commit_batch();
        warpgroup_wait<0>();
    }

    // Store
    {
        int tid = threadIdx.x;
        int lane = tid % 32;
        int warp = tid / 32;
        uint32_t row = warp*16 + lane / 4;
        bf16 *block_C = C + num_block_n*BN*M + num_block_m*BM;

        for (int m_it = 0; m_it < BM/WGMMA_M; ++m_it) {
            for (int n_it = 0; n_it < BN/WGMMA_N; ++n_it) {
                for (int w = 0; w < WGMMA_N/16; ++w) {
                    int col = 16*w + 2*(tid % 4);
                    #define IDX(i, j) ((j + n_it*WGMMA_N)*M + ((i) + m_it*WGMMA_M))

                    block_C[IDX(row, col)] = d[w][0];
                    block_C[IDX(row, col+1)] = d[w][1];
                    block_C[IDX(row+8, col)] = d[w][2];
                    block_C[IDX(row+8, col+1)] = d[w][3];
    
                    block_C[IDX(row, col+8)] = d[w][4];
                    block_C[IDX(row, col+9)] = d[w][5];
                    block_C[IDX(row+8, col+8)] = d[w][6];
                    block_C[IDX(row+8, col+9)] = d[w][7];

                    #undef IDX
                }
            }
        }
    }
}

template __global__ void matmulKernel2<64, 64, 64, 64, 64, 16, 128>(int M, int N, int K, bf16 *C, const bf16 *A, const bf16 *B);

} // namespace M2
