// ptxplay_prelude.h: what a CUDA kernel needs to compile without the CUDA
// toolkit. The compiler passes it with -include before the user's file.
// It defines the qualifiers, vector types and built-in variables, pulls in
// clang's own CUDA headers (built-in variables, device functions, math
// wrappers, warp intrinsics), adds the atomic overloads, __half and
// __nv_bfloat16 basics and printf, and defines the libdevice __nv_*
// functions those headers call (ptxplay_libdevice.h). Accuracy per function
// is documented in docs/cuda.md.
#pragma once
#define __PTXPLAY__ 1
#define CUDA_VERSION 12000
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __restrict__ __restrict
#define __grid_constant__ __attribute__((grid_constant))

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef unsigned int cuuint32_t;
typedef unsigned long long cuuint64_t;

#define CHAR_BIT 8
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#define UINT_MAX 4294967295u
#define LLONG_MAX 9223372036854775807ll
#define LLONG_MIN (-LLONG_MAX - 1)
#define ULLONG_MAX 18446744073709551615ull
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define NULL nullptr

// Vector types with CUDA's sizes and alignments.
#define __PTXPLAY_VEC(T, N, A1, A2, A4)                                      \
  struct __align__(A1) N##1 { T x; };                                         \
  struct __align__(A2) N##2 { T x, y; };                                      \
  struct N##3 { T x, y, z; };                                                 \
  struct __align__(A4) N##4 { T x, y, z, w; };                                \
  __host__ __device__ inline N##1 make_##N##1(T x) { return N##1{x}; }        \
  __host__ __device__ inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; } \
  __host__ __device__ inline N##3 make_##N##3(T x, T y, T z) {                \
    return N##3{x, y, z};                                                     \
  }                                                                           \
  __host__ __device__ inline N##4 make_##N##4(T x, T y, T z, T w) {           \
    return N##4{x, y, z, w};                                                  \
  }
__PTXPLAY_VEC(signed char, char, 1, 2, 4)
__PTXPLAY_VEC(unsigned char, uchar, 1, 2, 4)
__PTXPLAY_VEC(short, short, 2, 4, 8)
__PTXPLAY_VEC(unsigned short, ushort, 2, 4, 8)
__PTXPLAY_VEC(int, int, 4, 8, 16)
__PTXPLAY_VEC(float, float, 4, 8, 16)
__PTXPLAY_VEC(long, long, 8, 16, 16)
__PTXPLAY_VEC(unsigned long, ulong, 8, 16, 16)
__PTXPLAY_VEC(long long, longlong, 8, 16, 16)
__PTXPLAY_VEC(unsigned long long, ulonglong, 8, 16, 16)
__PTXPLAY_VEC(double, double, 8, 16, 16)
#undef __PTXPLAY_VEC
struct __align__(4) uint1 { unsigned int x; };
struct __align__(8) uint2 { unsigned int x, y; };
struct uint3 { unsigned int x, y, z; };
struct __align__(16) uint4 { unsigned int x, y, z, w; };
__host__ __device__ inline uint1 make_uint1(unsigned x) { return uint1{x}; }
__host__ __device__ inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
__host__ __device__ inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
__host__ __device__ inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

// threadIdx, blockIdx, blockDim, gridDim, warpSize (clang's header).
#include <__clang_cuda_builtin_vars.h>
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }

// clang's device functions (__popc, __syncthreads_count, __fmaf_rn, the
// __*Atomic* helpers, ...), math wrappers (expf -> __nv_expf, ...) and warp
// intrinsics (__shfl*_sync, __ballot_sync, __reduce_*_sync, __ldg, ...).
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
// clang's intrinsics header calls __isShared and __cvta_generic_to_shared
// in its sm_90 functions (__isCtaShared, __cluster_map_shared_rank, ...)
// before its own __nv_cvta_*_impl that they are made of (defined below):
// declared here, every target compiles.
__device__ inline unsigned __isShared(const void *p);
__device__ inline size_t __cvta_generic_to_shared(const void *p);
// clang-19's __clang_cuda_intrinsics.h passes (mask, value) to the
// __nvvm_redux_sync_* builtins, which take (value, mask): its
// __reduce_*_sync are renamed out of the way and defined below.
#define __reduce_add_sync __clang19_reduce_add_sync
#define __reduce_min_sync __clang19_reduce_min_sync
#define __reduce_max_sync __clang19_reduce_max_sync
#define __reduce_or_sync __clang19_reduce_or_sync
#define __reduce_and_sync __clang19_reduce_and_sync
#define __reduce_xor_sync __clang19_reduce_xor_sync
#include <__clang_cuda_intrinsics.h>
#undef __reduce_add_sync
#undef __reduce_min_sync
#undef __reduce_max_sync
#undef __reduce_or_sync
#undef __reduce_and_sync
#undef __reduce_xor_sync
__device__ inline unsigned __reduce_add_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_add(v, mask); }
__device__ inline int __reduce_add_sync(unsigned mask, int v) { return __nvvm_redux_sync_add(v, mask); }
__device__ inline unsigned __reduce_min_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_umin(v, mask); }
__device__ inline int __reduce_min_sync(unsigned mask, int v) { return __nvvm_redux_sync_min(v, mask); }
__device__ inline unsigned __reduce_max_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_umax(v, mask); }
__device__ inline int __reduce_max_sync(unsigned mask, int v) { return __nvvm_redux_sync_max(v, mask); }
__device__ inline unsigned __reduce_or_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_or(v, mask); }
__device__ inline unsigned __reduce_and_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_and(v, mask); }
__device__ inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_xor(v, mask); }

// Address-space conversions (CUDA's sm_20_intrinsics.h): a shared
// address for ldmatrix, cp.async or mbarrier in inline asm is
// (unsigned)__cvta_generic_to_shared(p).
__device__ inline size_t __cvta_generic_to_global(const void *p) { return __nv_cvta_generic_to_global_impl(p); }
__device__ inline size_t __cvta_generic_to_shared(const void *p) { return __nv_cvta_generic_to_shared_impl(p); }
__device__ inline size_t __cvta_generic_to_constant(const void *p) { return __nv_cvta_generic_to_constant_impl(p); }
__device__ inline size_t __cvta_generic_to_local(const void *p) { return __nv_cvta_generic_to_local_impl(p); }
__device__ inline void *__cvta_global_to_generic(size_t a) { return __nv_cvta_global_to_generic_impl(a); }
__device__ inline void *__cvta_shared_to_generic(size_t a) { return __nv_cvta_shared_to_generic_impl(a); }
__device__ inline void *__cvta_constant_to_generic(size_t a) { return __nv_cvta_constant_to_generic_impl(a); }
__device__ inline void *__cvta_local_to_generic(size_t a) { return __nv_cvta_local_to_generic_impl(a); }
// The address-space tests (CUDA's sm_20_intrinsics.h).
__device__ inline unsigned __isGlobal(const void *p) { return __nvvm_isspacep_global(p); }
__device__ inline unsigned __isShared(const void *p) { return __nvvm_isspacep_shared(p); }
__device__ inline unsigned __isConstant(const void *p) { return __nvvm_isspacep_const(p); }
__device__ inline unsigned __isLocal(const void *p) { return __nvvm_isspacep_local(p); }

// __syncthreads is a clang builtin; __syncwarp comes from __clang_cuda_intrinsics.h.

// __match_*_sync overloads (CUDA's sm_70_rt.hpp): sm_70 and later, as
// clang's __match32/64_*_sync (before sm_70 they did not compile at all).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
__device__ inline unsigned int __match_any_sync(unsigned int m, unsigned int v) { return __match32_any_sync(m, v); }
__device__ inline unsigned int __match_any_sync(unsigned int m, int v) { return __match32_any_sync(m, (unsigned)v); }
__device__ inline unsigned int __match_any_sync(unsigned int m, float v) { return __match32_any_sync(m, __float_as_uint(v)); }
__device__ inline unsigned int __match_any_sync(unsigned int m, unsigned long long v) { return __match64_any_sync(m, v); }
__device__ inline unsigned int __match_any_sync(unsigned int m, long long v) { return __match64_any_sync(m, (unsigned long long)v); }
__device__ inline unsigned int __match_all_sync(unsigned int m, unsigned int v, int *p) { return __match32_all_sync(m, v, p); }
__device__ inline unsigned int __match_all_sync(unsigned int m, int v, int *p) { return __match32_all_sync(m, (unsigned)v, p); }
__device__ inline unsigned int __match_all_sync(unsigned int m, float v, int *p) { return __match32_all_sync(m, __float_as_uint(v), p); }
__device__ inline unsigned int __match_all_sync(unsigned int m, unsigned long long v, int *p) { return __match64_all_sync(m, v, p); }
__device__ inline unsigned int __match_all_sync(unsigned int m, long long v, int *p) { return __match64_all_sync(m, (unsigned long long)v, p); }
#endif

// Atomic functions (CUDA's device_atomic_functions.h overloads).
__device__ inline int atomicAdd(int *p, int v) { return __iAtomicAdd(p, v); }
__device__ inline unsigned int atomicAdd(unsigned int *p, unsigned int v) { return __uAtomicAdd(p, v); }
__device__ inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __ullAtomicAdd(p, v); }
__device__ inline float atomicAdd(float *p, float v) { return __fAtomicAdd(p, v); }
__device__ inline double atomicAdd(double *p, double v) { return __dAtomicAdd(p, v); }
__device__ inline int atomicSub(int *p, int v) { return __iAtomicAdd(p, -v); }
__device__ inline unsigned int atomicSub(unsigned int *p, unsigned int v) { return __uAtomicAdd(p, 0u - v); }
__device__ inline int atomicExch(int *p, int v) { return __iAtomicExch(p, v); }
__device__ inline unsigned int atomicExch(unsigned int *p, unsigned int v) { return __uAtomicExch(p, v); }
__device__ inline unsigned long long atomicExch(unsigned long long *p, unsigned long long v) { return __ullAtomicExch(p, v); }
__device__ inline float atomicExch(float *p, float v) { return __fAtomicExch(p, v); }
__device__ inline int atomicMin(int *p, int v) { return __iAtomicMin(p, v); }
__device__ inline unsigned int atomicMin(unsigned int *p, unsigned int v) { return __uAtomicMin(p, v); }
__device__ inline long long atomicMin(long long *p, long long v) { return __illAtomicMin(p, v); }
__device__ inline unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { return __ullAtomicMin(p, v); }
__device__ inline int atomicMax(int *p, int v) { return __iAtomicMax(p, v); }
__device__ inline unsigned int atomicMax(unsigned int *p, unsigned int v) { return __uAtomicMax(p, v); }
__device__ inline long long atomicMax(long long *p, long long v) { return __illAtomicMax(p, v); }
__device__ inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { return __ullAtomicMax(p, v); }
__device__ inline unsigned int atomicInc(unsigned int *p, unsigned int v) { return __uAtomicInc(p, v); }
__device__ inline unsigned int atomicDec(unsigned int *p, unsigned int v) { return __uAtomicDec(p, v); }
__device__ inline int atomicCAS(int *p, int c, int v) { return __iAtomicCAS(p, c, v); }
__device__ inline unsigned int atomicCAS(unsigned int *p, unsigned int c, unsigned int v) { return __uAtomicCAS(p, c, v); }
__device__ inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v) { return __ullAtomicCAS(p, c, v); }
__device__ inline int atomicAnd(int *p, int v) { return __iAtomicAnd(p, v); }
__device__ inline unsigned int atomicAnd(unsigned int *p, unsigned int v) { return __uAtomicAnd(p, v); }
__device__ inline unsigned long long atomicAnd(unsigned long long *p, unsigned long long v) { return __ullAtomicAnd(p, v); }
__device__ inline int atomicOr(int *p, int v) { return __iAtomicOr(p, v); }
__device__ inline unsigned int atomicOr(unsigned int *p, unsigned int v) { return __uAtomicOr(p, v); }
__device__ inline unsigned long long atomicOr(unsigned long long *p, unsigned long long v) { return __ullAtomicOr(p, v); }
__device__ inline int atomicXor(int *p, int v) { return __iAtomicXor(p, v); }
__device__ inline unsigned int atomicXor(unsigned int *p, unsigned int v) { return __uAtomicXor(p, v); }
__device__ inline unsigned long long atomicXor(unsigned long long *p, unsigned long long v) { return __ullAtomicXor(p, v); }

// __half and __nv_bfloat16 basics: clang's _Float16 and __bf16 with the
// conversion and arithmetic functions of cuda_fp16.h / cuda_bf16.h.
typedef _Float16 __half;
typedef _Float16 half;
struct __align__(4) __half2 { __half x, y; };
typedef __bf16 __nv_bfloat16;
struct __align__(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
__device__ inline __half __float2half(float f) { return (__half)f; }
__device__ inline __half __float2half_rn(float f) { return (__half)f; }
__device__ inline float __half2float(__half h) { return (float)h; }
__device__ inline __half __hadd(__half a, __half b) { return a + b; }
__device__ inline __half __hsub(__half a, __half b) { return a - b; }
__device__ inline __half __hmul(__half a, __half b) { return a * b; }
__device__ inline __half __hfma(__half a, __half b, __half c) { return __builtin_fmaf16(a, b, c); }
__device__ inline __half2 __floats2half2_rn(float a, float b) { return __half2{(__half)a, (__half)b}; }
__device__ inline __half2 __float2half2_rn(float a) { return __half2{(__half)a, (__half)a}; }
__device__ inline float __low2float(__half2 h) { return (float)h.x; }
__device__ inline float __high2float(__half2 h) { return (float)h.y; }
__device__ inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
__device__ inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
__device__ inline __nv_bfloat16 __float2bfloat16(float f) { return (__nv_bfloat16)f; }
__device__ inline __nv_bfloat16 __float2bfloat16_rn(float f) { return (__nv_bfloat16)f; }
__device__ inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
__device__ inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{(__nv_bfloat16)a, (__nv_bfloat16)b}; }

// printf: clang lowers device printf to vprintf, which the emulator implements.
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ int vprintf(const char *, void *);
#define assert(e) ((e) ? (void)0 : __builtin_trap())

#include "ptxplay_libdevice.h"
