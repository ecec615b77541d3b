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
__PTXPLAY_NV float __nv_roundf(float x) { float t = __builtin_truncf(x); return __builtin_fabsf(x - t) >= 0.5f ? t + __builtin_copysignf(1.0f, x) : t; }
__PTXPLAY_NV double __nv_round(double x) { double t = __builtin_trunc(x); return __builtin_fabs(x - t) >= 0.5 ? t + __builtin_copysign(1.0, x) : t; }
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
