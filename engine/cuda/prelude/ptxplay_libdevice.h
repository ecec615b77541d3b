// ptxplay_libdevice.h: the libdevice __nv_* functions that clang's CUDA
// headers call, written in CUDA so that no libdevice.bc is needed. Each is
// inline (emitted only where used). Accuracy (ulp, as CUDA documents it and
// as tested by engine/cuda's math sweep) is listed in docs/cuda.md. A
// __nv_* function that is not defined here stays an .extern .func in the
// PTX and engine/cuda reports it as unsupported at its CUDA line.
#pragma once
#define __PTXPLAY_NV extern "C" __device__ __forceinline__

// Integer intrinsics.
__PTXPLAY_NV int __nv_popc(unsigned int x) { return __builtin_popcount(x); }
__PTXPLAY_NV int __nv_popcll(unsigned long long x) { return __builtin_popcountll(x); }
__PTXPLAY_NV int __nv_clz(int x) { int r; asm("clz.b32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__PTXPLAY_NV int __nv_clzll(long long x) { int r; asm("clz.b64 %0, %1;" : "=r"(r) : "l"(x)); return r; }
__PTXPLAY_NV unsigned int __nv_brev(unsigned int x) { return __builtin_bitreverse32(x); }
__PTXPLAY_NV unsigned long long __nv_brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__PTXPLAY_NV int __nv_ffs(int x) { return __builtin_ffs(x); }
__PTXPLAY_NV int __nv_ffsll(long long x) { return __builtin_ffsll(x); }
__PTXPLAY_NV unsigned int __nv_byte_perm(unsigned int a, unsigned int b, unsigned int s) { unsigned r; asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s)); return r; }
__PTXPLAY_NV int __nv_mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__PTXPLAY_NV unsigned int __nv_umulhi(unsigned int a, unsigned int b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
__PTXPLAY_NV long long __nv_mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
__PTXPLAY_NV unsigned long long __nv_umul64hi(unsigned long long a, unsigned long long b) { return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
__PTXPLAY_NV int __nv_mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
__PTXPLAY_NV unsigned int __nv_umul24(unsigned int a, unsigned int b) { return (a & 0xffffff) * (b & 0xffffff); }
__PTXPLAY_NV int __nv_hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
__PTXPLAY_NV int __nv_rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
__PTXPLAY_NV int __nv_uhadd(unsigned int a, unsigned int b) { return (int)(((unsigned long long)a + b) >> 1); }
__PTXPLAY_NV unsigned int __nv_urhadd(unsigned int a, unsigned int b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
__PTXPLAY_NV int __nv_sad(int a, int b, int c) { return (int)((unsigned)c + (a > b ? (unsigned)a - (unsigned)b : (unsigned)b - (unsigned)a)); }
__PTXPLAY_NV unsigned int __nv_usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }

// Bit casts and classification.
__PTXPLAY_NV int __nv_float_as_int(float x) { return __builtin_bit_cast(int, x); }
__PTXPLAY_NV unsigned int __nv_float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
__PTXPLAY_NV float __nv_int_as_float(int x) { return __builtin_bit_cast(float, x); }
__PTXPLAY_NV float __nv_uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__PTXPLAY_NV unsigned long long __nv_double_as_longlong(double x) { return __builtin_bit_cast(unsigned long long, x); }
__PTXPLAY_NV double __nv_longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__PTXPLAY_NV int __nv_double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__PTXPLAY_NV int __nv_double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__PTXPLAY_NV double __nv_hiloint2double(int hi, int lo) { return __builtin_bit_cast(double, ((unsigned long long)(unsigned)hi << 32) | (unsigned)lo); }
__PTXPLAY_NV int __nv_isnanf(float x) { return x != x; }
__PTXPLAY_NV int __nv_isnand(double x) { return x != x; }
__PTXPLAY_NV int __nv_isinff(float x) { return __builtin_fabsf(x) == __builtin_inff(); }
__PTXPLAY_NV int __nv_isinfd(double x) { return __builtin_fabs(x) == __builtin_inf(); }
__PTXPLAY_NV int __nv_finitef(float x) { return __builtin_fabsf(x) < __builtin_inff(); }
__PTXPLAY_NV int __nv_isfinited(double x) { return __builtin_fabs(x) < __builtin_inf(); }
__PTXPLAY_NV int __nv_signbitf(float x) { return __builtin_bit_cast(unsigned, x) >> 31; }
__PTXPLAY_NV int __nv_signbitd(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 63); }

// Correctly rounded arithmetic and conversions (0 ulp): single PTX instructions.
__PTXPLAY_NV float __nv_fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf_rz(float a, float b, float c) { return __nvvm_fma_rz_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf_ru(float a, float b, float c) { return __nvvm_fma_rp_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf_rd(float a, float b, float c) { return __nvvm_fma_rm_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__PTXPLAY_NV double __nv_fma_rn(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
__PTXPLAY_NV double __nv_fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
__PTXPLAY_NV float __nv_fadd_rn(float a, float b) { return __nvvm_add_rn_f(a, b); }
__PTXPLAY_NV float __nv_fadd_rz(float a, float b) { return __nvvm_add_rz_f(a, b); }
__PTXPLAY_NV float __nv_fmul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
__PTXPLAY_NV float __nv_fmul_rz(float a, float b) { return __nvvm_mul_rz_f(a, b); }
__PTXPLAY_NV float __nv_fsub_rn(float a, float b) { return __nvvm_add_rn_f(a, -b); }
__PTXPLAY_NV float __nv_fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
__PTXPLAY_NV float __nv_fdiv_rz(float a, float b) { return __nvvm_div_rz_f(a, b); }
__PTXPLAY_NV float __nv_frcp_rn(float a) { return __nvvm_rcp_rn_f(a); }
__PTXPLAY_NV float __nv_fsqrt_rn(float a) { return __nvvm_sqrt_rn_f(a); }
__PTXPLAY_NV double __nv_dadd_rn(double a, double b) { return __nvvm_add_rn_d(a, b); }
__PTXPLAY_NV double __nv_dmul_rn(double a, double b) { return __nvvm_mul_rn_d(a, b); }
__PTXPLAY_NV double __nv_ddiv_rn(double a, double b) { return __nvvm_div_rn_d(a, b); }
__PTXPLAY_NV double __nv_drcp_rn(double a) { return __nvvm_rcp_rn_d(a); }
__PTXPLAY_NV double __nv_dsqrt_rn(double a) { return __nvvm_sqrt_rn_d(a); }
__PTXPLAY_NV int __nv_float2int_rn(float x) { return __nvvm_f2i_rn(x); }
__PTXPLAY_NV int __nv_float2int_rz(float x) { return __nvvm_f2i_rz(x); }
__PTXPLAY_NV int __nv_float2int_rd(float x) { return __nvvm_f2i_rm(x); }
__PTXPLAY_NV int __nv_float2int_ru(float x) { return __nvvm_f2i_rp(x); }
__PTXPLAY_NV unsigned int __nv_float2uint_rn(float x) { return __nvvm_f2ui_rn(x); }
__PTXPLAY_NV unsigned int __nv_float2uint_rz(float x) { return __nvvm_f2ui_rz(x); }
__PTXPLAY_NV float __nv_int2float_rn(int x) { return __nvvm_i2f_rn(x); }
__PTXPLAY_NV float __nv_uint2float_rn(unsigned int x) { return __nvvm_ui2f_rn(x); }
__PTXPLAY_NV float __nv_double2float_rn(double x) { return __nvvm_d2f_rn(x); }
__PTXPLAY_NV double __nv_int2double_rn(int x) { return (double)x; }
__PTXPLAY_NV float __nv_saturatef(float x) { return __nvvm_saturate_f(x); }

// Approximate intrinsics (__expf, __sinf, __fdividef, ...): the PTX .approx
// instructions, with their PTX-documented error.
__PTXPLAY_NV float __nv_fast_fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
__PTXPLAY_NV float __nv_fast_expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
__PTXPLAY_NV float __nv_fast_exp10f(float x) { return __nvvm_ex2_approx_f(x * 3.3219280948873622f); }
__PTXPLAY_NV float __nv_fast_log2f(float x) { return __nvvm_lg2_approx_f(x); }
__PTXPLAY_NV float __nv_fast_logf(float x) { return __nvvm_lg2_approx_f(x) * 0.69314718055994531f; }
__PTXPLAY_NV float __nv_fast_log10f(float x) { return __nvvm_lg2_approx_f(x) * 0.30102999566398120f; }
__PTXPLAY_NV float __nv_fast_sinf(float x) { return __nvvm_sin_approx_f(x); }
__PTXPLAY_NV float __nv_fast_cosf(float x) { return __nvvm_cos_approx_f(x); }
__PTXPLAY_NV float __nv_fast_tanf(float x) { return __nvvm_sin_approx_f(x) / __nvvm_cos_approx_f(x); }
__PTXPLAY_NV void __nv_fast_sincosf(float x, float *s, float *c) { *s = __nvvm_sin_approx_f(x); *c = __nvvm_cos_approx_f(x); }
__PTXPLAY_NV float __nv_fast_powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }

// Exact math functions (0 ulp).
__PTXPLAY_NV float __nv_fabsf(float x) { return __builtin_fabsf(x); }
__PTXPLAY_NV double __nv_fabs(double x) { return __builtin_fabs(x); }
__PTXPLAY_NV float __nv_floorf(float x) { return __builtin_floorf(x); }
__PTXPLAY_NV double __nv_floor(double x) { return __builtin_floor(x); }
__PTXPLAY_NV float __nv_ceilf(float x) { return __builtin_ceilf(x); }
__PTXPLAY_NV double __nv_ceil(double x) { return __builtin_ceil(x); }
__PTXPLAY_NV float __nv_truncf(float x) { return __builtin_truncf(x); }
__PTXPLAY_NV double __nv_trunc(double x) { return __builtin_trunc(x); }
__PTXPLAY_NV float __nv_rintf(float x) { return __builtin_rintf(x); }
__PTXPLAY_NV double __nv_rint(double x) { return __builtin_rint(x); }
__PTXPLAY_NV float __nv_nearbyintf(float x) { return __builtin_rintf(x); }
// x - trunc(x) is exact, but only for the x the caller rounded: CUDA's
// default -ffp-contract=fast would fuse a caller's product x = a*b into
// fma(a, b, -t) once this is inlined (llround(a * 1e-3) was 1 off). The
// add.rn of __nvvm_add_rn_* is never contracted.
__PTXPLAY_NV float __nv_roundf(float x) { float t = __builtin_truncf(x); return __builtin_fabsf(__nvvm_add_rn_f(x, -t)) >= 0.5f ? t + __builtin_copysignf(1.0f, x) : t; }
__PTXPLAY_NV double __nv_round(double x) { double t = __builtin_trunc(x); return __builtin_fabs(__nvvm_add_rn_d(x, -t)) >= 0.5 ? t + __builtin_copysign(1.0, x) : t; }
__PTXPLAY_NV float __nv_fminf(float a, float b) { return __builtin_fminf(a, b); }
__PTXPLAY_NV float __nv_fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
__PTXPLAY_NV double __nv_fmin(double a, double b) { return __builtin_fmin(a, b); }
__PTXPLAY_NV double __nv_fmax(double a, double b) { return __builtin_fmax(a, b); }
__PTXPLAY_NV float __nv_copysignf(float a, float b) { return __builtin_copysignf(a, b); }
__PTXPLAY_NV double __nv_copysign(double a, double b) { return __builtin_copysign(a, b); }
__PTXPLAY_NV float __nv_sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
__PTXPLAY_NV double __nv_sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
__PTXPLAY_NV float __nv_fdimf(float a, float b) { return a > b ? a - b : (a != a || b != b ? a + b : 0.0f); }
__PTXPLAY_NV int __nv_abs(int x) { return x < 0 ? -x : x; }
__PTXPLAY_NV long long __nv_llabs(long long x) { return x < 0 ? -x : x; }
__PTXPLAY_NV int __nv_min(int a, int b) { return a < b ? a : b; }
__PTXPLAY_NV int __nv_max(int a, int b) { return a > b ? a : b; }
__PTXPLAY_NV unsigned int __nv_umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__PTXPLAY_NV unsigned int __nv_umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__PTXPLAY_NV long long __nv_llmin(long long a, long long b) { return a < b ? a : b; }
__PTXPLAY_NV long long __nv_llmax(long long a, long long b) { return a > b ? a : b; }
__PTXPLAY_NV unsigned long long __nv_ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__PTXPLAY_NV unsigned long long __nv_ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
// rsqrtf: CUDA documents 2 ulp; rsqrt.approx.
__PTXPLAY_NV float __nv_rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
__PTXPLAY_NV float __nv_frsqrt_rn(float x) { return __nvvm_rcp_rn_f(__nvvm_sqrt_rn_f(x)); }

// 2^n for an integer n in [-252, 254] without overflow in the intermediate.
__device__ __forceinline__ float __ptxplay_ldexpf(float x, int n) {
  if (n > 127) { x *= 0x1p127f; n -= 127; }
  if (n < -126) { x *= 0x1p-126f; n += 126; if (n < -126) { x *= 0x1p-126f; n += 126; } }
  return x * __builtin_bit_cast(float, (unsigned)(n + 127) << 23);
}

// expf: CUDA documents 2 ulp. Cody-Waite reduction x = j*ln2 + r, then
// 2^(r*log2e) by ex2.approx and a scale by 2^j.
__PTXPLAY_NV float __nv_expf(float x) {
  if (x != x) return x;
  if (x > 88.72284f) return __builtin_inff();
  if (x < -103.97208f) return 0.0f;
  float j = __builtin_rintf(x * 1.44269504f);
  float r = __builtin_fmaf(j, -0.693145752f, x);
  r = __builtin_fmaf(j, -1.42860677e-06f, r);
  return __ptxplay_ldexpf(__nvvm_ex2_approx_f(r * 1.44269504f), (int)j);
}
// exp2f: CUDA documents 2 ulp.
__PTXPLAY_NV float __nv_exp2f(float x) {
  if (x != x) return x;
  if (x >= 128.0f) return __builtin_inff();
  if (x < -150.0f) return 0.0f;
  float j = __builtin_rintf(x);
  return __ptxplay_ldexpf(__nvvm_ex2_approx_f(x - j), (int)j);
}
// exp10f: CUDA documents 2 ulp.
__PTXPLAY_NV float __nv_exp10f(float x) {
  if (x != x) return x;
  if (x > 38.5318394f) return __builtin_inff();
  if (x < -45.1544994f) return 0.0f;
  float j = __builtin_rintf(x * 3.32192809f);
  float r = __builtin_fmaf(j, -0.301025391f, x);
  r = __builtin_fmaf(j, -4.60503907e-06f, r);
  return __ptxplay_ldexpf(__nvvm_ex2_approx_f(r * 3.32192809f), (int)j);
}

// logf (CUDA: 1 ulp) and log2f (CUDA: 1 ulp): the fdlibm algorithm on
// x = m*2^k with m in [sqrt(1/2), sqrt(2)).
__device__ __forceinline__ float __ptxplay_log_parts(float x, float *fo, float *hfsqo, float *ro) {
  unsigned ix = __builtin_bit_cast(unsigned, x);
  int k = 0;
  if (ix < 0x00800000u) { k -= 25; x *= 0x1p25f; ix = __builtin_bit_cast(unsigned, x); }
  ix += 0x3f800000u - 0x3f3504f3u;
  k += (int)(ix >> 23) - 127;
  ix = (ix & 0x007fffffu) + 0x3f3504f3u;
  float f = __builtin_bit_cast(float, ix) - 1.0f;
  float s = f / (2.0f + f), z = s * s, w = z * z;
  float t1 = w * (0.40000972152f + w * 0.24279078841f);
  float t2 = z * (0.66666662693f + w * 0.28498786688f);
  float hfsq = 0.5f * f * f;
  *fo = f; *hfsqo = hfsq; *ro = s * (hfsq + t2 + t1);
  return (float)k;
}
__PTXPLAY_NV float __nv_logf(float x) {
  if (x != x || x == __builtin_inff()) return x;
  if (x < 0.0f) return __builtin_nanf("");
  if (x == 0.0f) return -__builtin_inff();
  float f, hfsq, r;
  float k = __ptxplay_log_parts(x, &f, &hfsq, &r);
  return r + k * 9.0580006145e-06f - hfsq + f + k * 6.9313812256e-01f;
}
__PTXPLAY_NV float __nv_log2f(float x) {
  if (x != x || x == __builtin_inff()) return x;
  if (x < 0.0f) return __builtin_nanf("");
  if (x == 0.0f) return -__builtin_inff();
  float f, hfsq, r;
  float k = __ptxplay_log_parts(x, &f, &hfsq, &r);
  float hi = f - hfsq;
  hi = __builtin_bit_cast(float, __builtin_bit_cast(unsigned, hi) & 0xfffff000u);
  float lo = (f - hi) - hfsq + r;
  return (lo + hi) * -1.7605285393e-04f + lo * 1.4428710938e+00f + hi * 1.4428710938e+00f + k;
}
// log10f: CUDA documents 2 ulp.
__PTXPLAY_NV float __nv_log10f(float x) {
  if (x != x || x == __builtin_inff()) return x;
  if (x < 0.0f) return __builtin_nanf("");
  if (x == 0.0f) return -__builtin_inff();
  float f, hfsq, r;
  float k = __ptxplay_log_parts(x, &f, &hfsq, &r);
  float hi = f - hfsq;
  hi = __builtin_bit_cast(float, __builtin_bit_cast(unsigned, hi) & 0xfffff000u);
  float lo = (f - hi) - hfsq + r;
  return k * 7.9034151668e-07f + (lo + hi) * -3.1689971365e-05f + lo * 4.3432617188e-01f + hi * 4.3432617188e-01f + k * 3.0102920532e-01f;
}

// The double-precision core (exp, log, sin, pow, atan, erf, ...).
#define __PTXPLAY_FN __device__ __forceinline__
#include "ptxplay_libm.h"

// sinf, cosf, tanf (CUDA: 2, 2, 4 ulp): the double sin/cos/tan (exact
// reduction by pi/2 over the whole range, Payne-Hanek above 2^20*pi/2),
// rounded once.
__PTXPLAY_NV float __nv_sinf(float x) { return (float)__ptxplay_sincos(x, 0); }
__PTXPLAY_NV float __nv_cosf(float x) { return (float)__ptxplay_sincos(x, 1); }
__PTXPLAY_NV void __nv_sincosf(float x, float *s, float *c) { *s = __nv_sinf(x); *c = __nv_cosf(x); }
__PTXPLAY_NV float __nv_tanf(float x) { return (float)__ptxplay_tan(x); }

// Single precision through the double core, rounded once (bounds CUDA
// documents: powf 4, sinhf 3, coshf 2, tanhf 2, asinf 2, acosf 2, atanf 2,
// atan2f 3, erff 2, erfcf 4, cbrtf 1, hypotf 3 ulp; fmodf, remainderf 0).
__PTXPLAY_NV float __nv_powf(float x, float y) { return (float)__ptxplay_pow(x, y); }
__PTXPLAY_NV float __nv_sinhf(float x) { return (float)__ptxplay_sinh(x); }
__PTXPLAY_NV float __nv_coshf(float x) { return (float)__ptxplay_cosh(x); }
__PTXPLAY_NV float __nv_tanhf(float x) { return (float)__ptxplay_tanh(x); }
__PTXPLAY_NV float __nv_atanf(float x) { return (float)__ptxplay_atan(x); }
__PTXPLAY_NV float __nv_atan2f(float y, float x) { return (float)__ptxplay_atan2(y, x); }
// asin x = atan2(x, sqrt((1-x)(1+x))): for a float x, (1-x)(1+x) is exact in double.
__PTXPLAY_NV float __nv_asinf(float x) {
  double d = x;
  if (!(__builtin_fabs(d) <= 1.0)) return __builtin_nanf("");
  return (float)__ptxplay_atan2(d, __builtin_sqrt((1.0 - d) * (1.0 + d)));
}
__PTXPLAY_NV float __nv_acosf(float x) {
  double d = x;
  if (!(__builtin_fabs(d) <= 1.0)) return __builtin_nanf("");
  return (float)__ptxplay_atan2(__builtin_sqrt((1.0 - d) * (1.0 + d)), d);
}
__PTXPLAY_NV float __nv_erff(float x) { return (float)__ptxplay_erf(x); }
__PTXPLAY_NV float __nv_erfcf(float x) { return (float)__ptxplay_erfc(x); }
__PTXPLAY_NV float __nv_cbrtf(float x) { return (float)__ptxplay_cbrt(x); }
__PTXPLAY_NV float __nv_hypotf(float x, float y) {
  double a = x, b = y;
  if (__builtin_fabs(a) == __builtin_inf() || __builtin_fabs(b) == __builtin_inf()) return __builtin_inff();
  return (float)__builtin_sqrt(a * a + b * b); // a*a, b*b exact; one rounding each for the sum and sqrt
}
__PTXPLAY_NV float __nv_fmodf(float x, float y) { return (float)__ptxplay_fmod(x, y, 0); }
__PTXPLAY_NV float __nv_remainderf(float x, float y) { return (float)__ptxplay_fmod(x, y, 1); }

// Double precision (bounds CUDA documents: exp, exp2, log, log2, log10,
// cosh, tanh, cbrt 1 ulp; sin, cos, tan, pow, atan, atan2, sinh, erf,
// hypot 2 ulp; fmod, remainder 0).
__PTXPLAY_NV double __nv_exp(double x) { return __ptxplay_exp(x); }
__PTXPLAY_NV double __nv_exp2(double x) { return __ptxplay_exp2(x); }
__PTXPLAY_NV double __nv_log(double x) { return __ptxplay_log(x); }
__PTXPLAY_NV double __nv_log2(double x) { return __ptxplay_log2_10(x, 0); }
__PTXPLAY_NV double __nv_log10(double x) { return __ptxplay_log2_10(x, 1); }
__PTXPLAY_NV double __nv_sin(double x) { return __ptxplay_sincos(x, 0); }
__PTXPLAY_NV double __nv_cos(double x) { return __ptxplay_sincos(x, 1); }
__PTXPLAY_NV void __nv_sincos(double x, double *s, double *c) { *s = __ptxplay_sincos(x, 0); *c = __ptxplay_sincos(x, 1); }
__PTXPLAY_NV double __nv_tan(double x) { return __ptxplay_tan(x); }
__PTXPLAY_NV double __nv_pow(double x, double y) { return __ptxplay_pow(x, y); }
__PTXPLAY_NV double __nv_atan(double x) { return __ptxplay_atan(x); }
__PTXPLAY_NV double __nv_atan2(double y, double x) { return __ptxplay_atan2(y, x); }
__PTXPLAY_NV double __nv_sinh(double x) { return __ptxplay_sinh(x); }
__PTXPLAY_NV double __nv_cosh(double x) { return __ptxplay_cosh(x); }
__PTXPLAY_NV double __nv_tanh(double x) { return __ptxplay_tanh(x); }
__PTXPLAY_NV double __nv_erf(double x) { return __ptxplay_erf(x); }
__PTXPLAY_NV double __nv_cbrt(double x) { return __ptxplay_cbrt(x); }
__PTXPLAY_NV double __nv_hypot(double x, double y) { return __ptxplay_hypot(x, y); }
__PTXPLAY_NV double __nv_fmod(double x, double y) { return __ptxplay_fmod(x, y, 0); }
__PTXPLAY_NV double __nv_remainder(double x, double y) { return __ptxplay_fmod(x, y, 1); }

// Double precision, continued (bounds CUDA documents: asin, acos, asinh,
// acosh, atanh, sinpi, cospi, norm3d, norm4d, norm 2 ulp; exp10, expm1,
// log1p, rsqrt, rcbrt, rhypot, rnorm3d, rnorm4d, rnorm 1 ulp; erfc 5,
// erfcx 4, erfinv 5, erfcinv 6, normcdf 5, normcdfinv 8, lgamma 4 (outside
// [-11.0001, -2.2637]), tgamma 10 ulp).
__PTXPLAY_NV double __nv_asin(double x) { return __ptxplay_asin(x); }
__PTXPLAY_NV double __nv_acos(double x) { return __ptxplay_acos(x); }
__PTXPLAY_NV double __nv_asinh(double x) { return __ptxplay_asinh(x); }
__PTXPLAY_NV double __nv_acosh(double x) { return __ptxplay_acosh(x); }
__PTXPLAY_NV double __nv_atanh(double x) { return __ptxplay_atanh(x); }
__PTXPLAY_NV double __nv_exp10(double x) { return __ptxplay_exp10(x); }
__PTXPLAY_NV double __nv_expm1(double x) { return __ptxplay_expm1_acc(x); }
__PTXPLAY_NV double __nv_log1p(double x) { return __ptxplay_log1p(x); }
__PTXPLAY_NV double __nv_erfc(double x) { return __ptxplay_erfc(x); }
__PTXPLAY_NV double __nv_erfcx(double x) { return __ptxplay_erfcx(x); }
__PTXPLAY_NV double __nv_erfinv(double x) { return __ptxplay_erfinv(x); }
__PTXPLAY_NV double __nv_erfcinv(double x) { return __ptxplay_erfcinv(x); }
__PTXPLAY_NV double __nv_normcdf(double x) { return __ptxplay_normcdf(x); }
__PTXPLAY_NV double __nv_normcdfinv(double x) { return __ptxplay_normcdfinv(x); }
__PTXPLAY_NV double __nv_lgamma(double x) { return __ptxplay_lgamma(x); }
__PTXPLAY_NV double __nv_tgamma(double x) { return __ptxplay_tgamma(x); }
__PTXPLAY_NV double __nv_sinpi(double x) { return __ptxplay_sincospi(x, 0); }
__PTXPLAY_NV double __nv_cospi(double x) { return __ptxplay_sincospi(x, 1); }
__PTXPLAY_NV void __nv_sincospi(double x, double *s, double *c) { *s = __ptxplay_sincospi(x, 0); *c = __ptxplay_sincospi(x, 1); }
__PTXPLAY_NV double __nv_rsqrt(double x) { return __ptxplay_rsqrt(x); }
__PTXPLAY_NV double __nv_rcbrt(double x) { return __ptxplay_rcbrt(x); }
__PTXPLAY_NV double __nv_rhypot(double x, double y) { double a[2] = {x, y}; return __ptxplay_normn(2, a, 1); }
__PTXPLAY_NV double __nv_norm3d(double a, double b, double c) { double v[3] = {a, b, c}; return __ptxplay_normn(3, v, 0); }
__PTXPLAY_NV double __nv_rnorm3d(double a, double b, double c) { double v[3] = {a, b, c}; return __ptxplay_normn(3, v, 1); }
__PTXPLAY_NV double __nv_norm4d(double a, double b, double c, double d) { double v[4] = {a, b, c, d}; return __ptxplay_normn(4, v, 0); }
__PTXPLAY_NV double __nv_rnorm4d(double a, double b, double c, double d) { double v[4] = {a, b, c, d}; return __ptxplay_normn(4, v, 1); }
__PTXPLAY_NV double __nv_norm(int n, const double *a) { return __ptxplay_normn(n, a, 0); }
__PTXPLAY_NV double __nv_rnorm(int n, const double *a) { return __ptxplay_normn(n, a, 1); }

// Single precision through the double core, rounded once (bounds CUDA
// documents: expm1f, log1pf, sinpif, cospif, rcbrtf 1 ulp; erfinvf,
// rhypotf, norm3df, rnorm3df, norm4df, rnorm4df, normf, rnormf 2;
// asinhf, atanhf 3; acoshf, erfcinvf, erfcxf 4; tgammaf, normcdff,
// normcdfinvf 5; lgammaf 6 outside [-10.001, -2.264]).
__PTXPLAY_NV float __nv_expm1f(float x) { return (float)__ptxplay_expm1_acc(x); }
__PTXPLAY_NV float __nv_log1pf(float x) { return (float)__ptxplay_log1p(x); }
__PTXPLAY_NV float __nv_asinhf(float x) { return (float)__ptxplay_asinh(x); }
__PTXPLAY_NV float __nv_acoshf(float x) { return (float)__ptxplay_acosh(x); }
__PTXPLAY_NV float __nv_atanhf(float x) { return (float)__ptxplay_atanh(x); }
__PTXPLAY_NV float __nv_sinpif(float x) { return (float)__ptxplay_sincospi(x, 0); }
__PTXPLAY_NV float __nv_cospif(float x) { return (float)__ptxplay_sincospi(x, 1); }
__PTXPLAY_NV void __nv_sincospif(float x, float *s, float *c) { *s = __nv_sinpif(x); *c = __nv_cospif(x); }
__PTXPLAY_NV float __nv_erfcxf(float x) { return (float)__ptxplay_erfcx(x); }
__PTXPLAY_NV float __nv_erfinvf(float x) { return (float)__ptxplay_erfinv(x); }
__PTXPLAY_NV float __nv_erfcinvf(float x) { return (float)__ptxplay_erfcinv(x); }
__PTXPLAY_NV float __nv_normcdff(float x) { return (float)__ptxplay_normcdf(x); }
__PTXPLAY_NV float __nv_normcdfinvf(float x) { return (float)__ptxplay_normcdfinv(x); }
__PTXPLAY_NV float __nv_lgammaf(float x) { return (float)__ptxplay_lgamma(x); }
__PTXPLAY_NV float __nv_tgammaf(float x) { return (float)__ptxplay_tgamma(x); }
__PTXPLAY_NV float __nv_rcbrtf(float x) { return (float)__ptxplay_rcbrt(x); }
__PTXPLAY_NV float __nv_rhypotf(float x, float y) { double a[2] = {x, y}; return (float)__ptxplay_normn(2, a, 1); }
__PTXPLAY_NV float __nv_norm3df(float a, float b, float c) { double v[3] = {a, b, c}; return (float)__ptxplay_normn(3, v, 0); }
__PTXPLAY_NV float __nv_rnorm3df(float a, float b, float c) { double v[3] = {a, b, c}; return (float)__ptxplay_normn(3, v, 1); }
__PTXPLAY_NV float __nv_norm4df(float a, float b, float c, float d) { double v[4] = {a, b, c, d}; return (float)__ptxplay_normn(4, v, 0); }
__PTXPLAY_NV float __nv_rnorm4df(float a, float b, float c, float d) { double v[4] = {a, b, c, d}; return (float)__ptxplay_normn(4, v, 1); }
__PTXPLAY_NV float __nv_normf(int n, const float *a) {
  double r = 0.0;
  for (int i = 0; i < n; i++) { double v[2] = {r, a[i]}; r = __ptxplay_normn(2, v, 0); } // hypot chain, exact-ish in double
  return (float)r;
}
__PTXPLAY_NV float __nv_rnormf(int n, const float *a) { float r = __nv_normf(n, a); return r == 0.0f ? __builtin_inff() : (float)(1.0 / (double)__nv_normf(n, a)); }

// Exact functions (0 ulp): decomposition, scaling, stepping, rounding.
__PTXPLAY_NV float __nv_frexpf(float x, int *e) {
  if (x == 0.0f || !(__builtin_fabsf(x) < __builtin_inff())) { *e = 0; return x + x; }
  int k = 0;
  if (__builtin_fabsf(x) < 0x1p-126f) { x *= 0x1p25f; k = -25; }
  unsigned b = __builtin_bit_cast(unsigned, x);
  *e = k + (int)((b >> 23) & 0xff) - 126;
  return __builtin_bit_cast(float, (b & 0x807fffffu) | 0x3f000000u);
}
__PTXPLAY_NV double __nv_frexp(double x, int *e) {
  if (x == 0.0 || !(__builtin_fabs(x) < __builtin_inf())) { *e = 0; return x + x; }
  int k = 0;
  if (__builtin_fabs(x) < 0x1p-1022) { x *= 0x1p54; k = -54; }
  unsigned long long b = __builtin_bit_cast(unsigned long long, x);
  *e = k + (int)((b >> 52) & 0x7ff) - 1022;
  return __builtin_bit_cast(double, (b & 0x800fffffffffffffull) | 0x3fe0000000000000ull);
}
__PTXPLAY_NV double __nv_ldexp(double x, int n) { return __ptxplay_scalbn(x, n < -2200 ? -2200 : n > 2200 ? 2200 : n); }
__PTXPLAY_NV double __nv_scalbn(double x, int n) { return __nv_ldexp(x, n); }
__PTXPLAY_NV float __nv_ldexpf(float x, int n) { return (float)__ptxplay_scalbn(x, n < -400 ? -400 : n > 400 ? 400 : n); } // exact in double, one rounding
__PTXPLAY_NV float __nv_scalbnf(float x, int n) { return __nv_ldexpf(x, n); }
__PTXPLAY_NV int __nv_ilogb(double x) {
  if (x != x) return -2147483647 - 1;
  if (x == 0.0) return -2147483647 - 1;
  if (__builtin_fabs(x) == __builtin_inf()) return 2147483647;
  int e; __nv_frexp(x, &e); return e - 1;
}
__PTXPLAY_NV int __nv_ilogbf(float x) {
  if (x != x) return -2147483647 - 1;
  if (x == 0.0f) return -2147483647 - 1;
  if (__builtin_fabsf(x) == __builtin_inff()) return 2147483647;
  int e; __nv_frexpf(x, &e); return e - 1;
}
__PTXPLAY_NV double __nv_logb(double x) {
  if (x != x) return x;
  if (x == 0.0) return -__builtin_inf();
  if (__builtin_fabs(x) == __builtin_inf()) return __builtin_inf();
  return (double)__nv_ilogb(x);
}
__PTXPLAY_NV float __nv_logbf(float x) {
  if (x != x) return x;
  if (x == 0.0f) return -__builtin_inff();
  if (__builtin_fabsf(x) == __builtin_inff()) return __builtin_inff();
  return (float)__nv_ilogbf(x);
}
__PTXPLAY_NV double __nv_modf(double x, double *ip) {
  double t = __builtin_trunc(x);
  *ip = t;
  return __builtin_fabs(x) == __builtin_inf() ? __builtin_copysign(0.0, x) : __builtin_copysign(__nvvm_add_rn_d(x, -t), x);
}
__PTXPLAY_NV float __nv_modff(float x, float *ip) {
  float t = __builtin_truncf(x);
  *ip = t;
  return __builtin_fabsf(x) == __builtin_inff() ? __builtin_copysignf(0.0f, x) : __builtin_copysignf(__nvvm_add_rn_f(x, -t), x);
}
__PTXPLAY_NV double __nv_nextafter(double x, double y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == 0.0) return __builtin_copysign(__builtin_bit_cast(double, 1ull), y);
  unsigned long long b = __builtin_bit_cast(unsigned long long, x);
  b += ((x < y) == (x > 0.0)) ? 1 : -1ull;
  return __builtin_bit_cast(double, b);
}
__PTXPLAY_NV float __nv_nextafterf(float x, float y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  if (x == 0.0f) return __builtin_copysignf(__builtin_bit_cast(float, 1u), y);
  unsigned b = __builtin_bit_cast(unsigned, x);
  b += ((x < y) == (x > 0.0f)) ? 1u : -1u;
  return __builtin_bit_cast(float, b);
}
__PTXPLAY_NV double __nv_fdim(double a, double b) { return a > b ? a - b : (a != a || b != b ? a + b : 0.0); }
// remquo: the remainder (exact) and the low bits of the quotient's magnitude with its sign.
__PTXPLAY_NV double __nv_remquo(double x, double y, int *q) {
  double r = __ptxplay_fmod(x, y, 1);
  *q = 0;
  if (r == r) {
    // (x - r) / y is an integer; its low 3 bits from the exact remainder of x mod 8y.
    double m = __ptxplay_fmod(x, 8.0 * y, 0);
    if (!(__builtin_fabs(8.0 * y) < __builtin_inf())) m = x;
    int n = (int)__builtin_rint(__builtin_fabs((m - r) / y)) & 7;
    *q = ((x < 0) != (y < 0)) ? -n : n;
  }
  return r;
}
__PTXPLAY_NV float __nv_remquof(float x, float y, int *q) { return (float)__nv_remquo(x, y, q); }
__PTXPLAY_NV long long __nv_llrint(double x) { return __nvvm_d2ll_rn(x); }
__PTXPLAY_NV long long __nv_llrintf(float x) { return __nvvm_f2ll_rn(x); }
__PTXPLAY_NV long long __nv_llround(double x) { return __nvvm_d2ll_rz(__nv_round(x)); }
__PTXPLAY_NV long long __nv_llroundf(float x) { return __nvvm_f2ll_rz(__nv_roundf(x)); }
__PTXPLAY_NV float __nv_powif(float x, int n) { return (float)__ptxplay_pow(x, (double)n); }
__PTXPLAY_NV double __nv_powi(double x, int n) { return __ptxplay_pow(x, (double)n); }

// Directed-rounding arithmetic and conversions (0 ulp): one PTX instruction each.
__PTXPLAY_NV float __nv_fadd_rd(float a, float b) { return __nvvm_add_rm_f(a, b); }
__PTXPLAY_NV float __nv_fadd_ru(float a, float b) { return __nvvm_add_rp_f(a, b); }
__PTXPLAY_NV float __nv_fsub_rz(float a, float b) { return __nvvm_add_rz_f(a, -b); }
__PTXPLAY_NV float __nv_fsub_rd(float a, float b) { return __nvvm_add_rm_f(a, -b); }
__PTXPLAY_NV float __nv_fsub_ru(float a, float b) { return __nvvm_add_rp_f(a, -b); }
__PTXPLAY_NV float __nv_fmul_rd(float a, float b) { return __nvvm_mul_rm_f(a, b); }
__PTXPLAY_NV float __nv_fmul_ru(float a, float b) { return __nvvm_mul_rp_f(a, b); }
__PTXPLAY_NV float __nv_fdiv_rd(float a, float b) { return __nvvm_div_rm_f(a, b); }
__PTXPLAY_NV float __nv_fdiv_ru(float a, float b) { return __nvvm_div_rp_f(a, b); }
__PTXPLAY_NV float __nv_frcp_rz(float a) { return __nvvm_rcp_rz_f(a); }
__PTXPLAY_NV float __nv_frcp_rd(float a) { return __nvvm_rcp_rm_f(a); }
__PTXPLAY_NV float __nv_frcp_ru(float a) { return __nvvm_rcp_rp_f(a); }
__PTXPLAY_NV float __nv_fsqrt_rz(float a) { return __nvvm_sqrt_rz_f(a); }
__PTXPLAY_NV float __nv_fsqrt_rd(float a) { return __nvvm_sqrt_rm_f(a); }
__PTXPLAY_NV float __nv_fsqrt_ru(float a) { return __nvvm_sqrt_rp_f(a); }
__PTXPLAY_NV float __nv_fmaf_ieee_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf_ieee_rz(float a, float b, float c) { return __nvvm_fma_rz_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf_ieee_rd(float a, float b, float c) { return __nvvm_fma_rm_f(a, b, c); }
__PTXPLAY_NV float __nv_fmaf_ieee_ru(float a, float b, float c) { return __nvvm_fma_rp_f(a, b, c); }
__PTXPLAY_NV double __nv_dadd_rz(double a, double b) { return __nvvm_add_rz_d(a, b); }
__PTXPLAY_NV double __nv_dadd_rd(double a, double b) { return __nvvm_add_rm_d(a, b); }
__PTXPLAY_NV double __nv_dadd_ru(double a, double b) { return __nvvm_add_rp_d(a, b); }
__PTXPLAY_NV double __nv_dsub_rn(double a, double b) { return __nvvm_add_rn_d(a, -b); }
__PTXPLAY_NV double __nv_dsub_rz(double a, double b) { return __nvvm_add_rz_d(a, -b); }
__PTXPLAY_NV double __nv_dsub_rd(double a, double b) { return __nvvm_add_rm_d(a, -b); }
__PTXPLAY_NV double __nv_dsub_ru(double a, double b) { return __nvvm_add_rp_d(a, -b); }
__PTXPLAY_NV double __nv_dmul_rz(double a, double b) { return __nvvm_mul_rz_d(a, b); }
__PTXPLAY_NV double __nv_dmul_rd(double a, double b) { return __nvvm_mul_rm_d(a, b); }
__PTXPLAY_NV double __nv_dmul_ru(double a, double b) { return __nvvm_mul_rp_d(a, b); }
__PTXPLAY_NV double __nv_ddiv_rz(double a, double b) { return __nvvm_div_rz_d(a, b); }
__PTXPLAY_NV double __nv_ddiv_rd(double a, double b) { return __nvvm_div_rm_d(a, b); }
__PTXPLAY_NV double __nv_ddiv_ru(double a, double b) { return __nvvm_div_rp_d(a, b); }
__PTXPLAY_NV double __nv_drcp_rz(double a) { return __nvvm_rcp_rz_d(a); }
__PTXPLAY_NV double __nv_drcp_rd(double a) { return __nvvm_rcp_rm_d(a); }
__PTXPLAY_NV double __nv_drcp_ru(double a) { return __nvvm_rcp_rp_d(a); }
__PTXPLAY_NV double __nv_dsqrt_rz(double a) { return __nvvm_sqrt_rz_d(a); }
__PTXPLAY_NV double __nv_dsqrt_rd(double a) { return __nvvm_sqrt_rm_d(a); }
__PTXPLAY_NV double __nv_dsqrt_ru(double a) { return __nvvm_sqrt_rp_d(a); }
__PTXPLAY_NV double __nv_fma_rz(double a, double b, double c) { return __nvvm_fma_rz_d(a, b, c); }
__PTXPLAY_NV double __nv_fma_rd(double a, double b, double c) { return __nvvm_fma_rm_d(a, b, c); }
__PTXPLAY_NV double __nv_fma_ru(double a, double b, double c) { return __nvvm_fma_rp_d(a, b, c); }
__PTXPLAY_NV float __nv_double2float_rz(double x) { return __nvvm_d2f_rz(x); }
__PTXPLAY_NV float __nv_double2float_rd(double x) { return __nvvm_d2f_rm(x); }
__PTXPLAY_NV float __nv_double2float_ru(double x) { return __nvvm_d2f_rp(x); }
__PTXPLAY_NV int __nv_double2int_rn(double x) { return __nvvm_d2i_rn(x); }
__PTXPLAY_NV int __nv_double2int_rz(double x) { return __nvvm_d2i_rz(x); }
__PTXPLAY_NV int __nv_double2int_rd(double x) { return __nvvm_d2i_rm(x); }
__PTXPLAY_NV int __nv_double2int_ru(double x) { return __nvvm_d2i_rp(x); }
__PTXPLAY_NV unsigned int __nv_double2uint_rn(double x) { return __nvvm_d2ui_rn(x); }
__PTXPLAY_NV unsigned int __nv_double2uint_rz(double x) { return __nvvm_d2ui_rz(x); }
__PTXPLAY_NV unsigned int __nv_double2uint_rd(double x) { return __nvvm_d2ui_rm(x); }
__PTXPLAY_NV unsigned int __nv_double2uint_ru(double x) { return __nvvm_d2ui_rp(x); }
__PTXPLAY_NV long long __nv_double2ll_rn(double x) { return __nvvm_d2ll_rn(x); }
__PTXPLAY_NV long long __nv_double2ll_rz(double x) { return __nvvm_d2ll_rz(x); }
__PTXPLAY_NV long long __nv_double2ll_rd(double x) { return __nvvm_d2ll_rm(x); }
__PTXPLAY_NV long long __nv_double2ll_ru(double x) { return __nvvm_d2ll_rp(x); }
__PTXPLAY_NV unsigned long long __nv_double2ull_rn(double x) { return __nvvm_d2ull_rn(x); }
__PTXPLAY_NV unsigned long long __nv_double2ull_rz(double x) { return __nvvm_d2ull_rz(x); }
__PTXPLAY_NV unsigned long long __nv_double2ull_rd(double x) { return __nvvm_d2ull_rm(x); }
__PTXPLAY_NV unsigned long long __nv_double2ull_ru(double x) { return __nvvm_d2ull_rp(x); }
__PTXPLAY_NV unsigned int __nv_float2uint_rd(float x) { return __nvvm_f2ui_rm(x); }
__PTXPLAY_NV unsigned int __nv_float2uint_ru(float x) { return __nvvm_f2ui_rp(x); }
__PTXPLAY_NV long long __nv_float2ll_rn(float x) { return __nvvm_f2ll_rn(x); }
__PTXPLAY_NV long long __nv_float2ll_rz(float x) { return __nvvm_f2ll_rz(x); }
__PTXPLAY_NV long long __nv_float2ll_rd(float x) { return __nvvm_f2ll_rm(x); }
__PTXPLAY_NV long long __nv_float2ll_ru(float x) { return __nvvm_f2ll_rp(x); }
__PTXPLAY_NV unsigned long long __nv_float2ull_rn(float x) { return __nvvm_f2ull_rn(x); }
__PTXPLAY_NV unsigned long long __nv_float2ull_rz(float x) { return __nvvm_f2ull_rz(x); }
__PTXPLAY_NV unsigned long long __nv_float2ull_rd(float x) { return __nvvm_f2ull_rm(x); }
__PTXPLAY_NV unsigned long long __nv_float2ull_ru(float x) { return __nvvm_f2ull_rp(x); }
// clang-19 lowers the six __nvvm_*2f_rz / __nvvm_*2d_rz builtins to cvt.rn
// (round to nearest): they are written as the PTX instruction instead.
__PTXPLAY_NV float __nv_int2float_rz(int x) { float r; asm("cvt.rz.f32.s32 %0, %1;" : "=f"(r) : "r"(x)); return r; }
__PTXPLAY_NV float __nv_int2float_rd(int x) { return __nvvm_i2f_rm(x); }
__PTXPLAY_NV float __nv_int2float_ru(int x) { return __nvvm_i2f_rp(x); }
__PTXPLAY_NV float __nv_uint2float_rz(unsigned int x) { float r; asm("cvt.rz.f32.u32 %0, %1;" : "=f"(r) : "r"(x)); return r; }
__PTXPLAY_NV float __nv_uint2float_rd(unsigned int x) { return __nvvm_ui2f_rm(x); }
__PTXPLAY_NV float __nv_uint2float_ru(unsigned int x) { return __nvvm_ui2f_rp(x); }
__PTXPLAY_NV double __nv_uint2double_rn(unsigned int x) { return (double)x; }
__PTXPLAY_NV float __nv_ll2float_rn(long long x) { return __nvvm_ll2f_rn(x); }
__PTXPLAY_NV float __nv_ll2float_rz(long long x) { float r; asm("cvt.rz.f32.s64 %0, %1;" : "=f"(r) : "l"(x)); return r; }
__PTXPLAY_NV float __nv_ll2float_rd(long long x) { return __nvvm_ll2f_rm(x); }
__PTXPLAY_NV float __nv_ll2float_ru(long long x) { return __nvvm_ll2f_rp(x); }
__PTXPLAY_NV float __nv_ull2float_rn(unsigned long long x) { return __nvvm_ull2f_rn(x); }
__PTXPLAY_NV float __nv_ull2float_rz(unsigned long long x) { float r; asm("cvt.rz.f32.u64 %0, %1;" : "=f"(r) : "l"(x)); return r; }
__PTXPLAY_NV float __nv_ull2float_rd(unsigned long long x) { return __nvvm_ull2f_rm(x); }
__PTXPLAY_NV float __nv_ull2float_ru(unsigned long long x) { return __nvvm_ull2f_rp(x); }
__PTXPLAY_NV double __nv_ll2double_rn(long long x) { return __nvvm_ll2d_rn(x); }
__PTXPLAY_NV double __nv_ll2double_rz(long long x) { double r; asm("cvt.rz.f64.s64 %0, %1;" : "=d"(r) : "l"(x)); return r; }
__PTXPLAY_NV double __nv_ll2double_rd(long long x) { return __nvvm_ll2d_rm(x); }
__PTXPLAY_NV double __nv_ll2double_ru(long long x) { return __nvvm_ll2d_rp(x); }
__PTXPLAY_NV double __nv_ull2double_rn(unsigned long long x) { return __nvvm_ull2d_rn(x); }
__PTXPLAY_NV double __nv_ull2double_rz(unsigned long long x) { double r; asm("cvt.rz.f64.u64 %0, %1;" : "=d"(r) : "l"(x)); return r; }
__PTXPLAY_NV double __nv_ull2double_rd(unsigned long long x) { return __nvvm_ull2d_rm(x); }
__PTXPLAY_NV double __nv_ull2double_ru(unsigned long long x) { return __nvvm_ull2d_rp(x); }
