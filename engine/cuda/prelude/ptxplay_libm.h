// ptxplay_libm.h: the double-precision core of the prelude's math library,
// written in CUDA (included by ptxplay_libdevice.h). The algorithms are
// fdlibm's (exp, log, log2, log10, the sin/cos kernels, atan, atan2, cbrt)
// with an exact Payne-Hanek reduction by pi/2 for large arguments and a
// double-double logarithm for pow. The single-precision functions that are
// not written on their own evaluate these in double and round once.
// Accuracy per function is in docs/cuda.md. A product whose rounded value
// an error-free sum or product relies on is written __PTXPLAY_MUL
// (mul.rn.f64, which is never fused): CUDA compiles with
// -ffp-contract=fast, which would fuse it into the following add.
#pragma once
#ifndef __PTXPLAY_FN
#define __PTXPLAY_FN __device__ __forceinline__
#endif
#ifndef __PTXPLAY_MUL
#define __PTXPLAY_MUL(a, b) __nvvm_mul_rn_d((a), (b))
#endif

__PTXPLAY_FN double __ptxplay_bits2d(unsigned long long b) { return __builtin_bit_cast(double, b); }
__PTXPLAY_FN unsigned long long __ptxplay_d2bits(double d) { return __builtin_bit_cast(unsigned long long, d); }

// x * 2^n for any int n, rounding once where the result is normal and at
// most twice (through 2^-1000) where it is subnormal.
__PTXPLAY_FN double __ptxplay_scalbn(double x, int n) {
  if (n > 1023) { x *= 0x1p1023; n -= 1023; if (n > 1023) { x *= 0x1p1023; n -= 1023; if (n > 1023) n = 1023; } }
  else if (n < -1022) { x *= 0x1p-969; n += 969; if (n < -1022) { x *= 0x1p-969; n += 969; if (n < -1022) n = -1022; } }
  return x * __ptxplay_bits2d((unsigned long long)(0x3ff + n) << 52);
}

// exp(hi - lo) * 2^k for |hi - lo| <= ln2/2 (fdlibm's exp kernel).
__PTXPLAY_FN double __ptxplay_exp_kernel(double hi, double lo, int k) {
  double r = hi - lo, t = r * r;
  double c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03 + t * (6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06 + t * 4.13813679705723846039e-08))));
  double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return __ptxplay_scalbn(y, k);
}

// exp(xh + xl) for a double-double argument (|xl| <= ulp(xh)).
__PTXPLAY_FN double __ptxplay_exp_dd(double xh, double xl) {
  if (xh != xh) return xh;
  if (xh > 709.782712893384) return __builtin_inf();
  if (xh < -745.1332191019412) return 0.0;
  double k = __builtin_rint(xh * 1.44269504088896338700e+00);
  double hi = xh - k * 6.93147180369123816490e-01; // exact: ln2hi has 32 bits
  double lo = k * 1.90821492927058770002e-10 - xl;
  return __ptxplay_exp_kernel(hi, lo, (int)k);
}

// exp: CUDA documents 1 ulp.
__PTXPLAY_FN double __ptxplay_exp(double x) {
  if (x != x) return x;
  if (__builtin_fabs(x) < 0x1p-54) return 1.0 + x;
  return __ptxplay_exp_dd(x, 0.0);
}

// exp2: CUDA documents 1 ulp. 2^x = 2^k * exp(f*ln2), f*ln2 in double-double.
__PTXPLAY_FN double __ptxplay_exp2(double x) {
  if (x != x) return x;
  if (x >= 1024.0) return __builtin_inf();
  if (x < -1080.0) return 0.0;
  double k = __builtin_rint(x), f = x - k;
  double h = __PTXPLAY_MUL(f, 6.93147180559945286227e-01);
  double l = __builtin_fma(f, 6.93147180559945286227e-01, -h) + f * 2.31904681384629955842e-17;
  return __ptxplay_exp_kernel(h, -l, (int)k);
}

// The parts of log(x) for finite x > 0: x = 2^k * (1+f), 1+f in
// [sqrt(1/2), sqrt(2)), log(1+f) = f - hfsq + s*(hfsq+R).
__PTXPLAY_FN int __ptxplay_log_split(double x, double *f, double *s) {
  unsigned long long b = __ptxplay_d2bits(x);
  int k = 0;
  if (b < 0x0010000000000000ull) { x *= 0x1p54; b = __ptxplay_d2bits(x); k = -54; }
  unsigned hx = (unsigned)(b >> 32) + (0x3ff00000u - 0x3fe6a09eu);
  k += (int)(hx >> 20) - 0x3ff;
  hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
  double m = __ptxplay_bits2d(((unsigned long long)hx << 32) | (b & 0xffffffffull));
  *f = m - 1.0;
  *s = *f / (2.0 + *f);
  return k;
}
__PTXPLAY_FN double __ptxplay_log_R(double s) {
  double z = s * s, w = z * z;
  double t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  double t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  return t1 + t2;
}
// log: CUDA documents 1 ulp.
__PTXPLAY_FN double __ptxplay_log(double x) {
  if (x != x || x == __builtin_inf()) return x;
  if (x < 0.0) return __builtin_nan("");
  if (x == 0.0) return -__builtin_inf();
  double f, s;
  double dk = __ptxplay_log_split(x, &f, &s);
  double hfsq = 0.5 * f * f, R = __ptxplay_log_R(s);
  return s * (hfsq + R) + dk * 1.90821492927058770002e-10 - hfsq + f + dk * 6.93147180369123816490e-01;
}
// log2, log10: CUDA documents 1 ulp (fdlibm's log2/log10).
__PTXPLAY_FN double __ptxplay_log2_10(double x, int ten) {
  if (x != x || x == __builtin_inf()) return x;
  if (x < 0.0) return __builtin_nan("");
  if (x == 0.0) return -__builtin_inf();
  double f, s;
  double y = __ptxplay_log_split(x, &f, &s);
  double hfsq = 0.5 * f * f, R = __ptxplay_log_R(s);
  double hi = f - hfsq;
  hi = __ptxplay_bits2d(__ptxplay_d2bits(hi) & 0xffffffff00000000ull);
  double lo = f - hi - hfsq + s * (hfsq + R);
  if (ten) {
    double val_hi = hi * 4.34294481878168880939e-01;
    double y2 = y * 3.01029995663611771306e-01;
    double val_lo = y * 3.69423907715893078616e-13 + (lo + hi) * 2.50829467116452752298e-11 + lo * 4.34294481878168880939e-01;
    double w = y2 + val_hi;
    val_lo += (y2 - w) + val_hi;
    return val_lo + w;
  }
  double val_hi = hi * 1.44269504072144627571e+00;
  double val_lo = (lo + hi) * 1.67517131648865118353e-10 + lo * 1.44269504072144627571e+00;
  double w = y + val_hi;
  val_lo += (y - w) + val_hi;
  return val_lo + w;
}

// log(x) as a double-double (relative error about 2^-64) for finite x > 0,
// for pow: log(1+f) = 2s + (2/3)s^3 + 2s*z^2*(1/5 + z/7 + ...), z = s^2,
// with s = f/(2+f) and the first two terms in double-double.
__PTXPLAY_FN void __ptxplay_log_dd(double x, double *rh, double *rl) {
  double f, s0;
  int k = __ptxplay_log_split(x, &f, &s0);
  // 2+f as a double-double, s = f/(2+f) as a double-double.
  double dh = 2.0 + f, dl = f - (dh - 2.0);
  double sh = f / dh;
  double sl = (__builtin_fma(-sh, dh, f) - sh * dl) / dh;
  double zh = __PTXPLAY_MUL(sh, sh), zl = __builtin_fma(sh, sh, -zh) + 2.0 * sh * sl;
  double z = zh;
  double q = 1.0 / 27;
  q = 1.0 / 25 + z * q; q = 1.0 / 23 + z * q; q = 1.0 / 21 + z * q; q = 1.0 / 19 + z * q;
  q = 1.0 / 17 + z * q; q = 1.0 / 15 + z * q; q = 1.0 / 13 + z * q; q = 1.0 / 11 + z * q;
  q = 1.0 / 9 + z * q; q = 1.0 / 7 + z * q; q = 0.2 + z * q;
  double tail = 2.0 * sh * z * z * q;
  // s^3 * 2/3 in double-double.
  double ch = __PTXPLAY_MUL(sh, zh), cl = __builtin_fma(sh, zh, -ch) + sh * zl + sl * zh;
  const double t3h = 6.66666666666666629659e-01, t3l = 3.70074341541718826264e-17;
  double th = __PTXPLAY_MUL(ch, t3h), tl = __builtin_fma(ch, t3h, -th) + ch * t3l + cl * t3h;
  // k*ln2 in double-double.
  const double ln2h = 6.93147180559945286227e-01, ln2l = 2.31904681384629955842e-17;
  double kh = __PTXPLAY_MUL((double)k, ln2h), kl = __builtin_fma((double)k, ln2h, -kh) + k * ln2l;
  // Sum kh + 2sh + th + (kl + 2sl + tl + tail) with error-free additions.
  double a = kh, b = 2.0 * sh;
  double u = a + b, bb = u - a, e = (a - (u - bb)) + (b - bb);
  double v = u + th; bb = v - u; e += (u - (v - bb)) + (th - bb);
  e += kl + 2.0 * sl + tl + tail;
  double r = v + e;
  *rh = r;
  *rl = e - (r - v);
}

// pow: CUDA documents 2 ulp. exp(y * log(x)) with log(x) in double-double.
__PTXPLAY_FN int __ptxplay_int_kind(double y) { // 0: not an integer, 1: odd, 2: even
  if (__builtin_trunc(y) != y) return 0;
  if (__builtin_fabs(y) >= 0x1p53) return 2;
  return ((long long)y & 1) ? 1 : 2;
}
__PTXPLAY_FN double __ptxplay_pow(double x, double y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (x != x || y != y) return x + y;
  int yk = __ptxplay_int_kind(y);
  double ax = __builtin_fabs(x);
  if (__builtin_fabs(y) == __builtin_inf()) {
    if (ax == 1.0) return 1.0;
    return (ax < 1.0) == (y < 0) ? __builtin_inf() : 0.0;
  }
  if (x == 0.0 || ax == __builtin_inf()) {
    bool big = (x == 0.0) == (y < 0); // result is infinite
    double r = big ? __builtin_inf() : 0.0;
    return (yk == 1 && __builtin_signbit(x)) ? -r : r;
  }
  double sign = 1.0;
  if (x < 0.0) {
    if (yk == 0) return __builtin_nan("");
    if (yk == 1) sign = -1.0;
  }
  double lh, ll;
  __ptxplay_log_dd(ax, &lh, &ll);
  double eh = __PTXPLAY_MUL(y, lh), el = __builtin_fma(y, lh, -eh) + y * ll;
  double e = eh + el;
  el = el - (e - eh);
  return sign * __ptxplay_exp_dd(e, el);
}

// Reduction by pi/2: x = n*pi/2 + (y[0] + y[1]), |y| <= pi/4 (about),
// returns n. Cody-Waite with three 33-bit parts of pi/2 (fdlibm's medium
// case) below 2^20*pi/2, and Payne-Hanek with 192 bits of 2/pi (exact to
// about 2^-130 of the remainder) above.
__PTXPLAY_FN unsigned __ptxplay_2opi_word(int k) {
  const unsigned w[42] = {
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu,
    0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u,
    0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du, 0xa9e39161u, 0x5ee61b08u};
  return (k < 0 || k >= 42) ? 0u : w[k];
}
// Bits i .. i+63 of 2/pi (bit i has weight 2^-i; bits i <= 0 are 0).
__PTXPLAY_FN unsigned long long __ptxplay_2opi_bits(int i) {
  int j = i - 1;
  int w = j >> 5, sh = j & 31;
  unsigned long long hi = ((unsigned long long)__ptxplay_2opi_word(w) << 32) | __ptxplay_2opi_word(w + 1);
  if (sh == 0) return hi;
  return (hi << sh) | (__ptxplay_2opi_word(w + 2) >> (32 - sh));
}
__PTXPLAY_FN int __ptxplay_rem_pio2(double x, double *y) {
  double ax = __builtin_fabs(x);
  if (ax < 1.6470993291652855e+06) { // 2^20 * pi/2
    double fn = __builtin_rint(x * 6.36619772367581382433e-01);
    double r = x - fn * 1.57079632673412561417e+00;
    double w = fn * 6.07710050650619224932e-11;
    double t = r;
    w = fn * 6.07710050630396597660e-11;
    r = t - w;
    w = fn * 2.02226624879595063154e-21 - ((t - r) - w);
    t = r;
    w = fn * 2.02226624871116645580e-21;
    r = t - w;
    w = fn * 8.47842766036889956997e-32 - ((t - r) - w);
    y[0] = r - w;
    y[1] = (r - y[0]) - w;
    return (int)(long long)fn;
  }
  // x = m * 2^e, m a 53-bit integer.
  unsigned long long b = __ptxplay_d2bits(ax);
  int e = (int)(b >> 52) - 1075;
  unsigned long long m = (b & 0x000fffffffffffffull) | 0x0010000000000000ull;
  unsigned long long w0 = __ptxplay_2opi_bits(e - 1), w1 = __ptxplay_2opi_bits(e + 63), w2 = __ptxplay_2opi_bits(e + 127);
  // P = m * (w0:w1:w2); x*2/pi mod 4 = P * 2^-190 mod 4.
  unsigned __int128 p2 = (unsigned __int128)m * w2, p1 = (unsigned __int128)m * w1, p0 = (unsigned __int128)m * w0;
  unsigned long long L0 = (unsigned long long)p2;
  unsigned __int128 c = (p2 >> 64) + (unsigned long long)p1;
  unsigned long long L1 = (unsigned long long)c;
  c = (c >> 64) + (p1 >> 64) + (unsigned long long)p0;
  unsigned long long L2 = (unsigned long long)c;
  int n = (int)(L2 >> 62);
  // The fraction, 190 bits, scaled to 192: A = (a2:a1:a0) * 2^-192.
  unsigned long long a2 = (L2 << 2) | (L1 >> 62), a1 = (L1 << 2) | (L0 >> 62), a0 = L0 << 2;
  bool neg = false;
  if (a2 >> 63) { // fraction >= 1/2: take fraction - 1 and n + 1
    a0 = ~a0 + 1;
    a1 = ~a1 + (a0 == 0);
    a2 = ~a2 + (a0 == 0 && a1 == 0);
    n++;
    neg = true;
  }
  int shift = 0;
  if (a2 == 0) { a2 = a1; a1 = a0; a0 = 0; shift += 64; }
  if (a2 == 0) { a2 = a1; a1 = 0; shift += 64; }
  if (a2 == 0) { y[0] = y[1] = 0.0; return n; }
  int lz = __builtin_clzll(a2);
  if (lz) { a2 = (a2 << lz) | (a1 >> (64 - lz)); a1 = (a1 << lz) | (a0 >> (64 - lz)); }
  shift += lz;
  // fraction = (a2 + a1*2^-64) * 2^(-64-shift), as a double-double.
  double fh = (double)(a2 >> 11), fl = (double)(a2 & 0x7ff) + (double)a1 * 0x1p-64;
  fh = __ptxplay_scalbn(fh, 11 - 64 - shift);
  fl = __ptxplay_scalbn(fl, -64 - shift);
  // times pi/2.
  const double ph = 1.57079632679489655800e+00, pl = 6.12323399573676603587e-17;
  double rh = __PTXPLAY_MUL(fh, ph), rl = __builtin_fma(fh, ph, -rh) + (fh * pl + fl * ph);
  double r = rh + rl;
  rl = rl - (r - rh);
  if (neg) { r = -r; rl = -rl; }
  if (x < 0) { r = -r; rl = -rl; n = -n; }
  y[0] = r;
  y[1] = rl;
  return n;
}

// fdlibm's sin and cos kernels on [-pi/4, pi/4], x + y the argument.
__PTXPLAY_FN double __ptxplay_ksin(double x, double y) {
  double z = x * x, w = z * z;
  double r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * 2.75573137070700676789e-06) + z * w * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10);
  double v = z * x;
  return x - ((z * (0.5 * y - v * r) - y) - v * -1.66666666666666324348e-01);
}
__PTXPLAY_FN double __ptxplay_kcos(double x, double y) {
  double z = x * x, w = z * z;
  double r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * 2.48015872894767294178e-05)) + w * w * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11));
  double hz = 0.5 * z;
  w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * r - x * y));
}
// sin, cos: CUDA documents 2 ulp; tan 2 ulp (the kernels' quotient).
__PTXPLAY_FN double __ptxplay_sincos(double x, int cosine) {
  if (!(__builtin_fabs(x) < __builtin_inf())) return x - x;
  if (!cosine && __builtin_fabs(x) < 0x1p-26) return x;
  double y[2];
  int n = __ptxplay_rem_pio2(x, y) + cosine;
  switch (n & 3) {
  case 0: return __ptxplay_ksin(y[0], y[1]);
  case 1: return __ptxplay_kcos(y[0], y[1]);
  case 2: return -__ptxplay_ksin(y[0], y[1]);
  default: return -__ptxplay_kcos(y[0], y[1]);
  }
}
// fdlibm's tan kernel: tan(x + y) (odd = 0) or -1/tan(x + y) (odd = 1).
__PTXPLAY_FN double __ptxplay_ktan(double x, double y, int odd) {
  const double T[13] = {3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02, 2.18694882948595424599e-02,
    8.86323982359930005737e-03, 3.59207910759131235356e-03, 1.45620945432529025516e-03, 5.88041240820264096874e-04,
    2.46463134818469906812e-04, 7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
    2.59073051863633712884e-05};
  bool big = __builtin_fabs(x) >= 0.6744, neg = x < 0;
  if (big) {
    if (neg) { x = -x; y = -y; }
    x = (7.85398163397448278999e-01 - x) + (3.06161699786838301793e-17 - y);
    y = 0.0;
  }
  double z = x * x, w = z * z;
  double r = T[1] + w * (T[3] + w * (T[5] + w * (T[7] + w * (T[9] + w * T[11]))));
  double v = z * (T[2] + w * (T[4] + w * (T[6] + w * (T[8] + w * (T[10] + w * T[12])))));
  double s = z * x;
  r = y + z * (s * (r + v) + y) + s * T[0];
  w = x + r;
  if (big) {
    s = 1 - 2 * odd;
    v = s - 2.0 * (x + (r - w * w / (w + s)));
    return neg ? -v : v;
  }
  if (!odd) return w;
  double w0 = __ptxplay_bits2d(__ptxplay_d2bits(w) & 0xffffffff00000000ull);
  v = r - (w0 - x);
  double a = -1.0 / w, a0 = __ptxplay_bits2d(__ptxplay_d2bits(a) & 0xffffffff00000000ull);
  return a0 + a * (1.0 + a0 * w0 + a0 * v);
}
__PTXPLAY_FN double __ptxplay_tan(double x) {
  if (!(__builtin_fabs(x) < __builtin_inf())) return x - x;
  if (__builtin_fabs(x) < 0x1p-27) return x;
  double y[2];
  int n = __ptxplay_rem_pio2(x, y);
  return __ptxplay_ktan(y[0], y[1], n & 1);
}

// atan: CUDA documents 2 ulp (fdlibm's atan).
__PTXPLAY_FN double __ptxplay_atan(double x) {
  const double atanhi[4] = {4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, 1.57079632679489655800e+00};
  const double atanlo[4] = {2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17};
  if (x != x) return x;
  double ax = __builtin_fabs(x);
  if (ax >= 0x1p66) return __builtin_copysign(atanhi[3] + atanlo[3], x);
  int id;
  if (ax < 0.4375) {
    if (ax < 0x1p-27) return x;
    id = -1;
  } else if (ax < 1.1875) {
    if (ax < 0.6875) { id = 0; ax = (2.0 * ax - 1.0) / (2.0 + ax); }
    else { id = 1; ax = (ax - 1.0) / (ax + 1.0); }
  } else if (ax < 2.4375) { id = 2; ax = (ax - 1.5) / (1.0 + 1.5 * ax); }
  else { id = 3; ax = -1.0 / ax; }
  double t = id < 0 ? x : ax;
  double z = t * t, w = z * z;
  double s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01 + w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02 + w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
  double s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01 + w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02 + w * -3.65315727442169155270e-02))));
  if (id < 0) return t - t * (s1 + s2);
  double r = atanhi[id] - ((t * (s1 + s2) - atanlo[id]) - t);
  return x < 0 ? -r : r;
}
// atan2: CUDA documents 2 ulp (fdlibm's atan2).
__PTXPLAY_FN double __ptxplay_atan2(double y, double x) {
  const double pi = 3.1415926535897931160e+00, pi_lo = 1.2246467991473531772e-16, pio2 = 1.5707963267948965580e+00, pio4 = 7.8539816339744827900e-01;
  if (x != x || y != y) return x + y;
  if (x == 1.0) return __ptxplay_atan(y);
  bool ny = __builtin_signbit(y), nx = __builtin_signbit(x);
  if (y == 0.0) return nx ? (ny ? -pi : pi) : y;
  if (x == 0.0) return ny ? -pio2 : pio2;
  double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
  if (ax == __builtin_inf()) {
    if (ay == __builtin_inf()) return ny ? (nx ? -3.0 * pio4 : -pio4) : (nx ? 3.0 * pio4 : pio4);
    return nx ? (ny ? -pi : pi) : (ny ? -0.0 : 0.0);
  }
  if (ay == __builtin_inf()) return ny ? -pio2 : pio2;
  int k = (int)(__ptxplay_d2bits(ay) >> 52) - (int)(__ptxplay_d2bits(ax) >> 52);
  double z;
  if (k > 60) z = pio2 + 0.5 * pi_lo;
  else if (nx && k < -60) z = 0.0;
  else z = __ptxplay_atan(__builtin_fabs(y / x));
  if (!nx) return ny ? -z : z;
  return ny ? (z - pi_lo) - pi : pi - (z - pi_lo);
}

// e^r - 1 = r + r^2/2 + r^3 p(r) for |r| <= 0.35 (Taylor to r^16/16!).
__PTXPLAY_FN double __ptxplay_expm1_p(double x) {
  double p = 1.0 / 20922789888000.0; // 1/16!
  p = 1.0 / 1307674368000.0 + x * p; p = 1.0 / 87178291200.0 + x * p; p = 1.0 / 6227020800.0 + x * p;
  p = 1.0 / 479001600.0 + x * p; p = 1.0 / 39916800.0 + x * p; p = 1.0 / 3628800.0 + x * p;
  p = 1.0 / 362880.0 + x * p; p = 1.0 / 40320.0 + x * p; p = 1.0 / 5040.0 + x * p; p = 1.0 / 720.0 + x * p;
  p = 1.0 / 120.0 + x * p; p = 1.0 / 24.0 + x * p; p = 1.0 / 6.0 + x * p;
  return p;
}
__PTXPLAY_FN double __ptxplay_expm1_small(double x) {
  double x2 = x * x;
  return x + (0.5 * x2 + x2 * x * __ptxplay_expm1_p(x));
}
// expm1: e^x - 1 = (2^k - 1) + 2^k * (e^r - 1), x = k*ln2 + r.
__PTXPLAY_FN double __ptxplay_expm1(double x) {
  if (x != x) return x;
  if (x > 709.0) return __ptxplay_exp(x);
  if (x < -40.0) return -1.0;
  double k = __builtin_rint(x * 1.44269504088896338700e+00);
  double hi = x - k * 6.93147180369123816490e-01, lo = k * 1.90821492927058770002e-10;
  double r = hi - lo, rl = (hi - r) - lo;
  double em = __ptxplay_expm1_small(r);
  em += rl * (1.0 + em);
  if (k == 0) return em;
  if (k > 1020) return __ptxplay_scalbn(1.0 + em, (int)k);
  double tk = __ptxplay_scalbn(1.0, (int)k);
  return (tk - 1.0) + tk * em;
}
// exp(|x|)/2 for large |x| without overflow in between: 2*exp(|x| - 2ln2).
__PTXPLAY_FN double __ptxplay_half_exp_big(double ax) {
  const double l2h = 1.38629436111989057245e+00, l2l = 4.63809362769259911684e-17; // 2ln2
  double xh = ax - l2h, e = (ax - xh) - l2h;
  return 2.0 * __ptxplay_exp_dd(xh, e - l2l);
}
// Double-double helpers: exp(x) as hi + lo for |x| < 709, e^r - 1 for
// |r| <= 0.35, and a quotient.
__PTXPLAY_FN void __ptxplay_two_sum(double a, double b, double *s, double *e) {
  double t = a + b, bb = t - a;
  *s = t;
  *e = (a - (t - bb)) + (b - bb);
}
__PTXPLAY_FN void __ptxplay_exp_dd2(double x, double *eh, double *el) {
  double k = __builtin_rint(x * 1.44269504088896338700e+00);
  double hi = x - k * 6.93147180369123816490e-01, lo = k * 1.90821492927058770002e-10;
  double r = hi - lo, rl = (hi - r) - lo, t = r * r;
  double c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03 + t * (6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06 + t * 4.13813679705723846039e-08))));
  double u = (r * c) / (2.0 - c); // e^r = 1 + r + u
  double s, e;
  __ptxplay_two_sum(1.0, r, &s, &e);
  e += rl + u + rl * r;
  double h = s + e;
  *el = __ptxplay_scalbn(e - (h - s), (int)k);
  *eh = __ptxplay_scalbn(h, (int)k);
}
__PTXPLAY_FN void __ptxplay_expm1_small_dd(double r, double *h, double *l) {
  double q = __PTXPLAY_MUL(r, r), ql = __builtin_fma(r, r, -q);
  double tail = q * r * __ptxplay_expm1_p(r);
  double s, e;
  __ptxplay_two_sum(r, 0.5 * q, &s, &e);
  e += 0.5 * ql + tail;
  *h = s + e;
  *l = e - (*h - s);
}
__PTXPLAY_FN double __ptxplay_div_dd(double ah, double al, double bh, double bl) {
  double q = ah / bh;
  return q + ((__builtin_fma(-q, bh, ah) + al - q * bl) / bh);
}
// sinh, cosh, tanh: CUDA documents 2, 1, 1 ulp. exp in double-double
// (expm1's Taylor series near 0).
__PTXPLAY_FN double __ptxplay_sinh(double x) {
  double ax = __builtin_fabs(x), r;
  if (!(ax < __builtin_inf())) return x;
  if (ax < 0x1p-28) return x;
  if (ax < 0.35) {
    // (t + t/(t+1))/2, t = e^ax - 1
    double th, tl, dh, dl, s, e;
    __ptxplay_expm1_small_dd(ax, &th, &tl);
    __ptxplay_two_sum(th, 1.0, &dh, &dl);
    double q = __ptxplay_div_dd(th, tl, dh, dl + tl);
    __ptxplay_two_sum(th, q, &s, &e);
    r = 0.5 * (s + (e + tl));
  } else if (ax < 22.0) {
    double eh, el;
    __ptxplay_exp_dd2(ax, &eh, &el);
    double ih = 1.0 / eh, il = (__builtin_fma(-ih, eh, 1.0) - ih * el) / eh;
    double s, e;
    __ptxplay_two_sum(eh, -ih, &s, &e);
    r = 0.5 * (s + (e + el - il));
  } else {
    r = __ptxplay_half_exp_big(ax);
  }
  return __builtin_copysign(r, x);
}
__PTXPLAY_FN double __ptxplay_cosh(double x) {
  double ax = __builtin_fabs(x);
  if (ax != ax) return ax;
  if (ax < 22.0) {
    double eh, el;
    __ptxplay_exp_dd2(ax, &eh, &el);
    double ih = 1.0 / eh, il = (__builtin_fma(-ih, eh, 1.0) - ih * el) / eh;
    double s, e;
    __ptxplay_two_sum(eh, ih, &s, &e);
    return 0.5 * (s + (e + el + il));
  }
  return __ptxplay_half_exp_big(ax);
}
__PTXPLAY_FN double __ptxplay_tanh(double x) {
  double ax = __builtin_fabs(x), r;
  if (ax != ax) return x;
  if (ax < 0x1p-55) return x;
  if (ax > 22.0) r = 1.0;
  else if (ax < 0.175) {
    // -t/(t+2), t = e^(-2ax) - 1
    double th, tl, dh, dl;
    __ptxplay_expm1_small_dd(-2.0 * ax, &th, &tl);
    __ptxplay_two_sum(th, 2.0, &dh, &dl);
    r = __ptxplay_div_dd(-th, -tl, dh, dl + tl);
  } else {
    // (E-1)/(E+1), E = e^(2ax)
    double eh, el, nh, nl, dh, dl;
    __ptxplay_exp_dd2(2.0 * ax, &eh, &el);
    __ptxplay_two_sum(eh, -1.0, &nh, &nl);
    __ptxplay_two_sum(eh, 1.0, &dh, &dl);
    r = __ptxplay_div_dd(nh, nl + el, dh, dl + el);
  }
  return __builtin_copysign(r, x);
}

// cbrt: CUDA documents 1 ulp. An estimate from the exponent, three Newton
// steps, and a final step in double-double.
__PTXPLAY_FN double __ptxplay_cbrt(double x) {
  double ax = __builtin_fabs(x);
  if (ax == 0.0 || !(ax < __builtin_inf())) return x + x;
  int k = 0;
  if (ax < 0x1p-1000) { ax *= 0x1p999; k = -333; }
  else if (ax > 0x1p1000) { ax *= 0x1p-999; k = 333; }
  unsigned long long b = __ptxplay_d2bits(ax);
  double t = __ptxplay_bits2d(b / 3 + 0x2a9f7893782da1ceull); // rough cube root
  for (int i = 0; i < 4; i++) t = t - (t * t * t - ax) / (3.0 * t * t);
  // One more step with the residual t^3 - ax computed exactly.
  double t2 = __PTXPLAY_MUL(t, t), t2l = __builtin_fma(t, t, -t2);
  double t3 = __PTXPLAY_MUL(t2, t), t3l = __builtin_fma(t2, t, -t3) + t2l * t;
  double res = (t3 - ax) + t3l;
  t = t - res / (3.0 * t2);
  return __builtin_copysign(__ptxplay_scalbn(t, k), x);
}

// hypot: CUDA documents 2 ulp. Scaled sqrt of x^2 + y^2 with the squares
// in double-double.
__PTXPLAY_FN double __ptxplay_hypot(double x, double y) {
  double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
  if (ax == __builtin_inf() || ay == __builtin_inf()) return __builtin_inf();
  if (ax != ax || ay != ay) return ax + ay;
  if (ax < ay) { double t = ax; ax = ay; ay = t; }
  if (ay == 0.0) return ax;
  int e = (int)(__ptxplay_d2bits(ax) >> 52) - 1023;
  if (e < -1000) e = -1000;
  double sx = __ptxplay_scalbn(ax, -e), sy = __ptxplay_scalbn(ay, -e);
  double h = __PTXPLAY_MUL(sx, sx), hl = __builtin_fma(sx, sx, -h);
  double l = __PTXPLAY_MUL(sy, sy), ll = __builtin_fma(sy, sy, -l);
  double s = h + l, sl = (h - s) + l + hl + ll;
  double r = __builtin_sqrt(s + sl);
  // One Newton correction: r += (s + sl - r^2) / (2r).
  double r2 = __PTXPLAY_MUL(r, r), r2l = __builtin_fma(r, r, -r2);
  r = r + (((s - r2) + sl) - r2l) / (2.0 * r);
  return __ptxplay_scalbn(r, e);
}

// fmod, remainder: exact (0 ulp), by long division on the significands.
__PTXPLAY_FN double __ptxplay_fmod(double x, double y, int nearest) {
  double ax = __builtin_fabs(x), ay = __builtin_fabs(y);
  if (x != x || y != y || ax == __builtin_inf() || ay == 0.0) return __builtin_nan("");
  if (ay == __builtin_inf()) return x;
  if (ax < ay && !nearest) return x;
  // r = ax mod ay, exactly: subtract ay * 2^j for j from the exponent gap down.
  double r = ax;
  int q = 0;
  if (r >= ay) {
    int ex = (int)(__ptxplay_d2bits(r) >> 52), ey = (int)(__ptxplay_d2bits(ay) >> 52);
    int gap = ex - ey;
    if (ex == 0 || ey == 0) { // subnormals: work scaled by 2^600
      double sr = r * 0x1p600, sy = ay * 0x1p600;
      gap = (int)(__ptxplay_d2bits(sr) >> 52) - (int)(__ptxplay_d2bits(sy) >> 52);
      if (ey != 0) sy = ay, sr = r; // only x subnormal cannot be >= a normal y
      for (int j = gap; j >= 0; j--) {
        double d = __ptxplay_scalbn(sy, j);
        q <<= 1;
        if (sr >= d) { sr -= d; q |= 1; }
      }
      r = ey == 0 ? sr * 0x1p-600 : sr;
    } else {
      for (int j = gap; j >= 0; j--) {
        double d = __ptxplay_scalbn(ay, j);
        q <<= 1;
        if (r >= d) { r -= d; q |= 1; }
      }
    }
  }
  if (nearest) {
    // remainder: r or r - ay, the nearer to 0 (a tie goes to even q).
    if (r > 0.5 * ay || (r == 0.5 * ay && (q & 1))) r -= ay;
  }
  return x < 0 ? -r : r;
}

// erf, erfc: CUDA documents 2 ulp (erf) and 5 ulp (erfc; 4 for erfcf).
// erf: its Taylor series below 0.5, the series of positive terms
// erf(x) = 2/sqrt(pi) e^(-x^2) sum (2x^2)^n x / (2n+1)!! below 3, and
// 1 - erfc(x) above, with erfc(x) from its continued fraction (Lentz).
__PTXPLAY_FN double __ptxplay_exp_negsq(double x) { // exp(-x^2), x^2 in double-double
  double h = __PTXPLAY_MUL(x, x), l = __builtin_fma(x, x, -h);
  return __ptxplay_exp_dd(-h, -l);
}
// erf(x) for 0 <= x < 3 as a double-double: the Taylor series
// 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)) summed in double-double
// (its terms reach 120 times the sum near 3).
__PTXPLAY_FN void __ptxplay_erf_dd(double x, double *rh, double *rl) {
  double x2h = __PTXPLAY_MUL(x, x), x2l = __builtin_fma(x, x, -x2h);
  double th = x, tl = 0.0, sh = x, sl = 0.0;
  for (int n = 1; n < 80; n++) {
    // t *= -x^2 / n
    double ph = __PTXPLAY_MUL(th, x2h), pl = __builtin_fma(th, x2h, -ph) + th * x2l + tl * x2h;
    double q = ph / n, ql = (__builtin_fma(-q, (double)n, ph) + pl) / n;
    th = -q; tl = -ql;
    double u = th / (2 * n + 1), ul = (__builtin_fma(-u, (double)(2 * n + 1), th) + tl) / (2 * n + 1);
    double s, e;
    __ptxplay_two_sum(sh, u, &s, &e);
    e += sl + ul;
    sh = s + e; sl = e - (sh - s);
    if (__builtin_fabs(u) < 0x1p-110 * sh) break;
  }
  const double ch = 1.12837916709551255857e+00, cl = 1.53294217873840306e-17; // 2/sqrt(pi)
  double h = __PTXPLAY_MUL(sh, ch), l = __builtin_fma(sh, ch, -h) + sh * cl + sl * ch;
  *rh = h + l;
  *rl = l - (*rh - h);
}
__PTXPLAY_FN double __ptxplay_erfc_cf(double x) { // x >= 3
  // erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
  double f = x, C = x, D = 0.0;
  for (int n = 1; n < 500; n++) {
    double a = 0.5 * n;
    D = x + a * D; C = x + a / C;
    D = 1.0 / D;
    double delta = C * D;
    f *= delta;
    if (__builtin_fabs(delta - 1.0) < 0x1p-60) break;
  }
  return __ptxplay_exp_negsq(x) / f * 5.64189583547756286948e-01;
}
__PTXPLAY_FN double __ptxplay_erf(double x) {
  if (x != x) return x;
  double ax = __builtin_fabs(x);
  if (ax < 3.0) { double h, l; __ptxplay_erf_dd(ax, &h, &l); return __builtin_copysign(h + l, x); }
  if (ax > 6.0) return __builtin_copysign(1.0, x);
  return __builtin_copysign(1.0 - __ptxplay_erfc_cf(ax), x);
}
__PTXPLAY_FN double __ptxplay_erfc(double x) {
  if (x != x) return x;
  if (x <= -3.0) return x < -27.3 ? 2.0 : 2.0 - __ptxplay_erfc_cf(-x);
  if (x < 3.0) {
    double h, l;
    __ptxplay_erf_dd(__builtin_fabs(x), &h, &l);
    if (x < 0) return (1.0 + h) + l;
    return (1.0 - h) - l;
  }
  if (x > 27.3) return 0.0;
  return __ptxplay_erfc_cf(x);
}
