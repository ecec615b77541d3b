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
// The continued fraction F(x) = x + (1/2)/(x + 1/(x + (3/2)/(x + ...))) for
// x >= 3, with erfc(x) = exp(-x^2) / (sqrt(pi) F(x)), evaluated from its
// tail up: each step contracts the error of the one before, where the
// forward (Lentz) product of hundreds of factors near 1 gathered their
// rounding errors (erfc(4.72) was 90 ulp off, erfcx(3e16) 457 ulp). Its
// length leaves a truncation error far below 2^-60 relative.
__PTXPLAY_FN double __ptxplay_erfc_F(double x) {
  int n = x < 120.0 ? 60 + (int)(2400.0 / (x * x)) : 4;
  if (n > 400) n = 400;
  double t = x;
  for (; n >= 1; n--) t = x + (0.5 * n) / t;
  return t;
}
__PTXPLAY_FN double __ptxplay_erfc_cf(double x) { // x >= 3
  return __ptxplay_exp_negsq(x) / __ptxplay_erfc_F(x) * 5.64189583547756286948e-01;
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

// ---- Functions built on the double-double parts above. ----

// log(vh + vl) for vh > 0 (|vl| <= ulp(vh)) as a double-double.
__PTXPLAY_FN void __ptxplay_log_of_dd(double vh, double vl, double *rh, double *rl) {
  double h, l;
  __ptxplay_log_dd(vh, &h, &l);
  l += vl / vh;
  *rh = h + l;
  *rl = l - (*rh - h);
}
// log1p(xh + xl), xh > -1: log(u) + c/u with u + c = 1 + xh + xl exactly.
__PTXPLAY_FN double __ptxplay_log1p_dd(double xh, double xl) {
  double u, c;
  __ptxplay_two_sum(1.0, xh, &u, &c);
  c += xl;
  double h, l;
  __ptxplay_log_dd(u, &h, &l);
  return h + (l + c / u);
}
// log1p: CUDA documents 1 ulp.
__PTXPLAY_FN double __ptxplay_log1p(double x) {
  if (x != x || x == __builtin_inf()) return x;
  if (x < -1.0) return __builtin_nan("");
  if (x == -1.0) return -__builtin_inf();
  if (__builtin_fabs(x) < 0x1p-54) return x;
  if (x > 0x1p60) return __ptxplay_log(x);
  return __ptxplay_log1p_dd(x, 0.0);
}
// expm1: CUDA documents 1 ulp. e^x as a double-double minus 1 (the Taylor
// series of e^r - 1 in double-double near 0).
__PTXPLAY_FN double __ptxplay_expm1_acc(double x) {
  if (x != x) return x;
  if (__builtin_fabs(x) < 0x1p-54) return x;
  if (x > 709.0) return __ptxplay_exp(x);
  if (x < -40.0) return -1.0;
  double h, l;
  if (__builtin_fabs(x) < 0.35) { __ptxplay_expm1_small_dd(x, &h, &l); return h + l; }
  __ptxplay_exp_dd2(x, &h, &l);
  double s, e;
  __ptxplay_two_sum(h, -1.0, &s, &e);
  return s + (e + l);
}
// exp10: CUDA documents 1 ulp. exp(x ln10) with x ln10 in double-double.
__PTXPLAY_FN double __ptxplay_exp10(double x) {
  if (x != x) return x;
  if (x > 308.3) return __builtin_inf();
  if (x < -323.7) return 0.0;
  if (__builtin_fabs(x) < 0x1p-56) return 1.0 + x;
  const double l10h = 2.30258509299404590109e+00, l10l = -2.17075622338224935e-16;
  double h = __PTXPLAY_MUL(x, l10h), l = __builtin_fma(x, l10h, -h) + x * l10l;
  double s = h + l;
  return __ptxplay_exp_dd(s, l - (s - h));
}
// sqrt(ah + al) as a double-double (ah > 0).
__PTXPLAY_FN void __ptxplay_sqrt_dd(double ah, double al, double *sh, double *sl) {
  double s = __builtin_sqrt(ah);
  *sh = s;
  *sl = (__builtin_fma(-s, s, ah) + al) / (2.0 * s);
}
// atan(qh + ql) for a double-double argument.
__PTXPLAY_FN double __ptxplay_atan_dd(double qh, double ql) {
  return __ptxplay_atan(qh) + ql / (1.0 + qh * qh);
}
// 1 - x^2 as a double-double for |x| <= 1.
__PTXPLAY_FN void __ptxplay_one_minus_sq(double x, double *h, double *l) {
  double ax = __builtin_fabs(x);
  if (ax >= 0.5) { // (1 - ax)(1 + ax), 1 - ax exact
    double a = 1.0 - ax, ph, pl;
    __ptxplay_two_sum(1.0, ax, &ph, &pl);
    double m = __PTXPLAY_MUL(a, ph);
    double ml = __builtin_fma(a, ph, -m) + a * pl;
    *h = m + ml;
    *l = ml - (*h - m);
  } else {
    double q = __PTXPLAY_MUL(ax, ax), ql = __builtin_fma(ax, ax, -q);
    double s, e;
    __ptxplay_two_sum(1.0, -q, &s, &e);
    e -= ql;
    *h = s + e;
    *l = e - (*h - s);
  }
}
// asin, acos: CUDA documents 2 ulp. asin x = atan(x / sqrt(1-x^2)),
// acos x = atan(sqrt(1-x^2) / x) (pi minus that for x < 0), quotients and
// the square root in double-double.
__PTXPLAY_FN double __ptxplay_asin(double x) {
  double ax = __builtin_fabs(x);
  if (!(ax <= 1.0)) return __builtin_nan("");
  if (ax < 0x1p-28) return x;
  if (ax == 1.0) return __builtin_copysign(1.57079632679489655800e+00, x);
  double dh, dl, sh, sl;
  __ptxplay_one_minus_sq(ax, &dh, &dl);
  __ptxplay_sqrt_dd(dh, dl, &sh, &sl);
  double qh = ax / sh, ql = (__builtin_fma(-qh, sh, ax) - qh * sl) / sh;
  return __builtin_copysign(__ptxplay_atan_dd(qh, ql), x);
}
__PTXPLAY_FN double __ptxplay_acos(double x) {
  double ax = __builtin_fabs(x);
  if (!(ax <= 1.0)) return __builtin_nan("");
  const double pio2h = 1.57079632679489655800e+00, pio2l = 6.12323399573676603587e-17;
  if (ax < 0x1p-60) return pio2h + (pio2l - x);
  if (x == 1.0) return 0.0;
  if (x == -1.0) return 2.0 * pio2h + 2.0 * pio2l;
  double dh, dl, sh, sl;
  __ptxplay_one_minus_sq(ax, &dh, &dl);
  __ptxplay_sqrt_dd(dh, dl, &sh, &sl);
  double qh = sh / ax, ql = (__builtin_fma(-qh, ax, sh) + sl) / ax;
  double a = __ptxplay_atan(qh), al = ql / (1.0 + qh * qh);
  if (x > 0) return a + al;
  double s, e;
  __ptxplay_two_sum(2.0 * pio2h, -a, &s, &e);
  return s + (e + 2.0 * pio2l - al);
}
// asinh, acosh, atanh: CUDA documents 2 ulp (each). Logarithms of
// double-double arguments.
__PTXPLAY_FN double __ptxplay_asinh(double x) {
  double ax = __builtin_fabs(x);
  if (!(ax < __builtin_inf()) || ax < 0x1p-28) return x;
  double r;
  if (ax > 0x1p28) {
    r = __ptxplay_log(ax) + 6.93147180559945286227e-01;
  } else {
    // sqrt(ax^2 + 1) in double-double
    double q = __PTXPLAY_MUL(ax, ax), ql = __builtin_fma(ax, ax, -q);
    double s, e, sh, sl;
    __ptxplay_two_sum(q, 1.0, &s, &e);
    e += ql;
    double h = s + e;
    __ptxplay_sqrt_dd(h, e - (h - s), &sh, &sl);
    if (ax >= 2.0) { // log(ax + sqrt(ax^2 + 1))
      double vh, vl, rh, rl;
      __ptxplay_two_sum(ax, sh, &vh, &vl);
      vl += sl;
      __ptxplay_log_of_dd(vh, vl, &rh, &rl);
      r = rh + rl;
    } else { // log1p(ax + ax^2 / (1 + sqrt(ax^2 + 1)))
      double dh, dl;
      __ptxplay_two_sum(1.0, sh, &dh, &dl);
      double t = __ptxplay_div_dd(q, ql, dh, dl + sl);
      double wh, wl;
      __ptxplay_two_sum(ax, t, &wh, &wl);
      r = __ptxplay_log1p_dd(wh, wl);
    }
  }
  return __builtin_copysign(r, x);
}
__PTXPLAY_FN double __ptxplay_acosh(double x) {
  if (x != x) return x;
  if (x < 1.0) return __builtin_nan("");
  if (x == __builtin_inf()) return x;
  if (x > 0x1p28) return __ptxplay_log(x) + 6.93147180559945286227e-01;
  double dh, dl, sh, sl;
  if (x < 2.0) { // log1p(t + sqrt(t (t + 2))), t = x - 1 exact
    double t = x - 1.0;
    double p = __PTXPLAY_MUL(t, t + 2.0), pl = __builtin_fma(t, t + 2.0, -p); // t + 2 exact
    if (p == 0.0) return 0.0;
    double h = p + pl;
    __ptxplay_sqrt_dd(h, pl - (h - p), &sh, &sl);
    double wh, wl;
    __ptxplay_two_sum(t, sh, &wh, &wl);
    return __ptxplay_log1p_dd(wh, wl + sl);
  }
  // log(x + sqrt(x^2 - 1))
  double q = __PTXPLAY_MUL(x, x), ql = __builtin_fma(x, x, -q);
  double s, e;
  __ptxplay_two_sum(q, -1.0, &s, &e);
  e += ql;
  dh = s + e; dl = e - (dh - s);
  __ptxplay_sqrt_dd(dh, dl, &sh, &sl);
  double vh, vl, rh, rl;
  __ptxplay_two_sum(x, sh, &vh, &vl);
  __ptxplay_log_of_dd(vh, vl + sl, &rh, &rl);
  return rh + rl;
}
__PTXPLAY_FN double __ptxplay_atanh(double x) {
  double ax = __builtin_fabs(x);
  if (!(ax <= 1.0)) return __builtin_nan("");
  if (ax == 1.0) return __builtin_copysign(__builtin_inf(), x);
  if (ax < 0x1p-28) return x;
  // atanh = log1p(2ax / (1 - ax)) / 2, the quotient in double-double
  double dh, dl;
  __ptxplay_two_sum(1.0, -ax, &dh, &dl);
  double qh = 2.0 * ax / dh;
  double ql = (__builtin_fma(-qh, dh, 2.0 * ax) - qh * dl) / dh;
  double s = qh + ql;
  return __builtin_copysign(0.5 * __ptxplay_log1p_dd(s, ql - (s - qh)), x);
}

// sinpi, cospi: CUDA documents 2 ulp (1 for the float versions). x = n/2 + f
// exactly, |f| <= 1/4, then the sin/cos kernels on pi*f in double-double.
__PTXPLAY_FN double __ptxplay_sincospi(double x, int cosine) {
  if (!(__builtin_fabs(x) < __builtin_inf())) return x - x;
  double n = __builtin_fabs(x) >= 0x1p52 ? 2.0 * x : __builtin_rint(2.0 * x);
  double f = __builtin_fabs(x) >= 0x1p52 ? 0.0 : x - 0.5 * n;
  int q = (__builtin_fabs(n) >= 0x1p53 ? 0 : (int)((long long)n & 3)) + cosine;
  const double pih = 3.14159265358979311600e+00, pil = 1.22464679914735317723e-16;
  double h = __PTXPLAY_MUL(f, pih), l = __builtin_fma(f, pih, -h) + f * pil;
  double s = h + l;
  l = l - (s - h);
  double r;
  switch (q & 3) {
  case 0: r = __ptxplay_ksin(s, l); break;
  case 1: r = __ptxplay_kcos(s, l); break;
  case 2: r = -__ptxplay_ksin(s, l); break;
  default: r = -__ptxplay_kcos(s, l); break;
  }
  if (r == 0.0) r = cosine ? 0.0 : __builtin_copysign(0.0, x); // sinpi(±n) = ±0, cospi(n + 1/2) = +0
  return r;
}

// Vector norms: sqrt(sum a_i^2) and its reciprocal (CUDA documents 2 ulp
// for norm3d/norm4d/norm, 1 for rnorm3d/rnorm4d, rhypot). Scaled by the
// largest exponent, the squares summed in double-double, one Newton
// correction of sqrt (or 1/sqrt) against that sum.
__PTXPLAY_FN double __ptxplay_normn(int n, const double *a, int recip) {
  double m = 0.0;
  bool nan = false;
  for (int i = 0; i < n; i++) {
    double v = __builtin_fabs(a[i]);
    if (v == __builtin_inf()) return recip ? 0.0 : __builtin_inf();
    if (v != v) nan = true;
    else if (v > m) m = v;
  }
  if (nan) return __builtin_nan("");
  if (m == 0.0) return recip ? __builtin_inf() : 0.0;
  int e = (int)(__ptxplay_d2bits(m) >> 52) - 1023;
  if (e < -1000) e = -1000;
  double sh = 0.0, sl = 0.0;
  for (int i = 0; i < n; i++) {
    double v = __ptxplay_scalbn(a[i], -e);
    double p = __PTXPLAY_MUL(v, v), pl = __builtin_fma(v, v, -p);
    double s, t;
    __ptxplay_two_sum(sh, p, &s, &t);
    sl += t + pl;
    sh = s;
  }
  double h = sh + sl;
  sl = sl - (h - sh);
  sh = h;
  if (recip) {
    double y = 1.0 / __builtin_sqrt(sh);
    // y += y (1 - S y^2) / 2
    double y2 = __PTXPLAY_MUL(y, y), y2l = __builtin_fma(y, y, -y2);
    double p = __PTXPLAY_MUL(sh, y2), pl = __builtin_fma(sh, y2, -p) + sh * y2l + sl * y2;
    double r = (1.0 - p) - pl;
    y = y + 0.5 * y * r;
    return __ptxplay_scalbn(y, -e);
  }
  double r = __builtin_sqrt(sh);
  double r2 = __PTXPLAY_MUL(r, r), r2l = __builtin_fma(r, r, -r2);
  r = r + (((sh - r2) + sl) - r2l) / (2.0 * r);
  return __ptxplay_scalbn(r, e);
}
// rsqrt: CUDA documents 1 ulp.
__PTXPLAY_FN double __ptxplay_rsqrt(double x) {
  if (x != x || x < 0.0) return __builtin_nan("");
  if (x == 0.0) return __builtin_copysign(__builtin_inf(), x);
  if (x == __builtin_inf()) return 0.0;
  int k = 0;
  if (x < 0x1p-1000) { x *= 0x1p1000; k = 500; }
  else if (x > 0x1p1000) { x *= 0x1p-1000; k = -500; }
  double y = 1.0 / __builtin_sqrt(x);
  double y2 = __PTXPLAY_MUL(y, y), y2l = __builtin_fma(y, y, -y2);
  double p = __PTXPLAY_MUL(x, y2), pl = __builtin_fma(x, y2, -p) + x * y2l;
  y = y + 0.5 * y * ((1.0 - p) - pl);
  return __ptxplay_scalbn(y, k);
}
// rcbrt: CUDA documents 1 ulp. 1/cbrt(x) and one Newton correction
// against x y^3 in double-double.
__PTXPLAY_FN double __ptxplay_rcbrt(double x) {
  double ax = __builtin_fabs(x);
  if (ax != ax) return x;
  if (ax == 0.0) return __builtin_copysign(__builtin_inf(), x);
  if (ax == __builtin_inf()) return __builtin_copysign(0.0, x);
  int k = 0;
  if (ax < 0x1p-900) { ax *= 0x1p999; k = 333; }
  else if (ax > 0x1p900) { ax *= 0x1p-999; k = -333; }
  double y = 1.0 / __ptxplay_cbrt(ax);
  double a = __PTXPLAY_MUL(y, y), al = __builtin_fma(y, y, -a);
  double b = __PTXPLAY_MUL(a, y), bl = __builtin_fma(a, y, -b) + al * y;
  double c = __PTXPLAY_MUL(ax, b), cl = __builtin_fma(ax, b, -c) + ax * bl;
  y = y + y * (((1.0 - c) - cl) * (1.0 / 3.0));
  return __builtin_copysign(__ptxplay_scalbn(y, k), x);
}

// lgamma(2 + z) for |z| <= 1/2: (1 - gamma) z + sum_k (-1)^k (zeta(k) - 1)/k z^k.
__PTXPLAY_FN double __ptxplay_lgamma2(double z) {
  const double c[39] = {3.22467033424113203e-01, -6.73523010531981020e-02, 2.05808084277845464e-02, -7.38555102867398568e-03, 2.89051033074152336e-03, -1.19275391170326102e-03, 5.09669524743042450e-04, -2.23154758453579386e-04, 9.94575127818085310e-05, -4.49262367381331420e-05, 2.05072127756706911e-05, -9.43948827526839672e-06, 4.37486678990748817e-06, -2.03921575380136619e-06, 9.55141213040741935e-07, -4.49246919876456619e-07, 2.12071848055546646e-07, -1.00432248239680991e-07, 4.76981016936398040e-08, -2.27110946089431635e-08, 1.08386592148969546e-08, -5.18347504197004664e-09, 2.48367454380247848e-09, -1.19214014058609115e-09, 5.73136724167886225e-10, -2.75952288512423336e-10, 1.33047643742444888e-10, -6.42296456383809960e-11, 3.10442477473222756e-11, -1.50213840807541417e-11, 7.27597448023907917e-12, -3.52774247657591507e-12, 1.71199179055961798e-12, -8.31538584142028498e-13, 4.04220052528944019e-13, -1.96647563109661653e-13, 9.57363038783855557e-14, -4.66407602642837444e-14, 2.27373696006597242e-14};
  double p = c[38];
  for (int k = 37; k >= 0; k--) p = c[k] + z * p;
  return z * (4.22784335098467139393e-01 + z * p);
}
// Stirling's series for x >= 12 as a double-double:
// (x - 1/2) log x - x + log(2 pi)/2 + 1/(12x) - 1/(360x^3) + ...
__PTXPLAY_FN void __ptxplay_lgamma_stirling(double x, double *rh, double *rl) {
  double lh, ll;
  __ptxplay_log_dd(x, &lh, &ll);
  double t = x - 0.5;
  double ph = __PTXPLAY_MUL(t, lh), pl = __builtin_fma(t, lh, -ph) + t * ll;
  double s, e;
  __ptxplay_two_sum(ph, -x, &s, &e);
  double w = 1.0 / x, w2 = w * w;
  double ser = w * (1.0 / 12 + w2 * (-1.0 / 360 + w2 * (1.0 / 1260 + w2 * (-1.0 / 1680 + w2 * (1.0 / 1188 + w2 * (-691.0 / 360360 + w2 * (1.0 / 156)))))));
  double s2, e2;
  __ptxplay_two_sum(s, 9.18938533204672669541e-01, &s2, &e2); // log(2 pi)/2
  e = e + e2 + pl + ser + 2.28201013685773855e-17;
  *rh = s2 + e;
  *rl = e - (*rh - s2);
}
// lgamma: CUDA documents 4 ulp (lgammaf 6 ulp) outside [-11.0001,
// -2.2637] (larger inside, near the negative zeros). The series above on
// [1.5, 2.5), recurrences to it below 12, Stirling above, and the
// reflection formula below -2.
__PTXPLAY_FN double __ptxplay_lgamma_pos(double x) { // x >= 12 or in [0.5, 12)
  if (x > 0x1p1000) return x * (__ptxplay_log(x) - 1.0);
  if (x >= 12.0) { double h, l; __ptxplay_lgamma_stirling(x, &h, &l); return h + l; }
  if (x >= 1.5) {
    double p = 1.0, y = x;
    while (y >= 2.5) { y -= 1.0; p *= y; }
    double g = __ptxplay_lgamma2(y - 2.0);
    return p == 1.0 ? g : g + __ptxplay_log(p);
  }
  return __ptxplay_lgamma2(x - 1.0) - __ptxplay_log1p(x - 1.0);
}
__PTXPLAY_FN double __ptxplay_lgamma(double x) {
  if (x != x) return x;
  double ax = __builtin_fabs(x);
  if (ax == __builtin_inf()) return __builtin_inf();
  if (x <= 0.0 && __builtin_trunc(x) == x) return __builtin_inf();
  if (ax < 0x1p-60) return -__ptxplay_log(ax);
  if (x > 0x1p1000) return x * (__ptxplay_log(x) - 1.0);
  if (x >= 12.0) { double h, l; __ptxplay_lgamma_stirling(x, &h, &l); return h + l; }
  if (x >= 1.5) { // down to [1.5, 2.5)
    double p = 1.0, y = x;
    while (y >= 2.5) { y -= 1.0; p *= y; }
    double g = __ptxplay_lgamma2(y - 2.0);
    return p == 1.0 ? g : g + __ptxplay_log(p);
  }
  if (x >= 0.5) return __ptxplay_lgamma2(x - 1.0) - __ptxplay_log1p(x - 1.0); // lgamma(x+1) - log x
  if (x > -2.5) { // up to [0.5, 1.5): lgamma(x) = lgamma(x + n) - log|x (x+1) ... (x+n-1)|
    double p = 1.0, y = x;
    while (y < 0.5) { p *= y; y += 1.0; }
    return __ptxplay_lgamma2(y - 1.0) - __ptxplay_log1p(y - 1.0) - __ptxplay_log(__builtin_fabs(p));
  }
  // Reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x).
  double s = __builtin_fabs(__ptxplay_sincospi(x, 0));
  return 1.14472988584940017414e+00 - __ptxplay_log(s) - __ptxplay_lgamma_pos(1.0 - x);
}
// tgamma: CUDA documents 10 ulp (tgammaf 5 ulp). exp of Stirling's series
// in double-double above 12; below, exp of the series on [1.5, 2.5) times
// or divided by the product of the recurrence, kept in double-double
// (and scaled, below -170).
__PTXPLAY_FN double __ptxplay_tgamma(double x) {
  if (x != x) return x;
  if (x == 0.0) return __builtin_copysign(__builtin_inf(), x);
  if (x == __builtin_inf()) return x;
  if (x < 0.0 && __builtin_trunc(x) == x) return __builtin_nan("");
  if (x > 171.7) return __builtin_inf();
  if (x < -190.0) return __builtin_copysign(0.0, __ptxplay_sincospi(x, 0));
  // Gamma(x) = 1/x - Euler's gamma + O(x): 1/x overflows below 2^-1024.
  if (__builtin_fabs(x) < 0x1p-60) return 1.0 / x - 5.77215664901532860607e-01;
  if (x >= 12.0) { double h, l; __ptxplay_lgamma_stirling(x, &h, &l); return __ptxplay_exp_dd(h, l); }
  double ph = 1.0, pl = 0.0, y = x;
  int pe = 0;
  bool up = y < 1.5;
  while (y >= 2.5) { y -= 1.0; double h = __PTXPLAY_MUL(ph, y); pl = __builtin_fma(ph, y, -h) + pl * y; ph = h; }
  while (y < 1.5) {
    double h = __PTXPLAY_MUL(ph, y); pl = __builtin_fma(ph, y, -h) + pl * y; ph = h;
    if (__builtin_fabs(ph) > 0x1p600) { ph *= 0x1p-600; pl *= 0x1p-600; pe += 600; }
    y += 1.0;
  }
  double g = __ptxplay_exp(__ptxplay_lgamma2(y - 2.0));
  if (!up) return g * ph + g * pl;
  double q = g / ph, ql = (__builtin_fma(-q, ph, g) - q * pl) / ph;
  return __ptxplay_scalbn(q + ql, -pe);
}

// erfcx(x) = exp(x^2) erfc(x): CUDA documents 4 ulp. 1/(sqrt(pi) F(x))
// above 3, exp(x^2) (x^2 in double-double) times erfc below.
__PTXPLAY_FN double __ptxplay_erfcx(double x) {
  if (x != x) return x;
  if (x >= 3.0) return x == __builtin_inf() ? 0.0 : 5.64189583547756286948e-01 / __ptxplay_erfc_F(x);
  if (x < -26.7) return __builtin_inf();
  double h = __PTXPLAY_MUL(x, x), l = __builtin_fma(x, x, -h);
  return __ptxplay_exp_dd(h, l) * __ptxplay_erfc(x);
}
// erfc(xh + xl) = erfc(xh) - xl 2/sqrt(pi) exp(-xh^2).
__PTXPLAY_FN double __ptxplay_erfc_dd(double xh, double xl) {
  return __ptxplay_erfc(xh) - xl * 1.12837916709551255857e+00 * __ptxplay_exp_negsq(xh);
}
// normcdf(x) = erfc(-x/sqrt 2)/2: CUDA documents 5 ulp. The quotient in
// double-double (erfc is steep: its relative slope is 2x there).
__PTXPLAY_FN double __ptxplay_normcdf(double x) {
  if (x != x) return x;
  if (x > 8.3) return 1.0;
  if (x < -38.5) return 0.0;
  const double rh = 7.07106781186547572737e-01, rl = -4.83364665672645672553e-17; // 1/sqrt 2
  double h = __PTXPLAY_MUL(-x, rh), l = __builtin_fma(-x, rh, -h) - x * rl;
  return 0.5 * __ptxplay_erfc_dd(h, l);
}
// erfcinv: CUDA documents 6 ulp (erfcinvf 4 ulp); erfinv 5 ulp (erfinvf 2).
// Giles' approximation, then Halley steps on erfc (or, for tiny arguments,
// Newton on log erfc(x) = -x^2 - log(sqrt(pi) F(x)), which never underflows).
__PTXPLAY_FN double __ptxplay_erfinv_guess(double y, double w) { // w = -log((1-y)(1+y))
  double p;
  if (w < 5.0) {
    w = w - 2.5;
    p = 2.81022636e-08; p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w; p = 0.246640727 + p * w; p = 1.50140941 + p * w;
  } else {
    w = __builtin_sqrt(w) - 3.0;
    p = -0.000200214257; p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w; p = 1.00167406 + p * w; p = 2.83297682 + p * w;
  }
  return p * y;
}
// erfinv(ay) for 0 <= ay < 1/2: Halley steps on erf in double-double (erf
// of a small x keeps its relative accuracy, erfc near 1 does not).
__PTXPLAY_FN double __ptxplay_erfinv_small(double ay) {
  if (ay < 0x1p-60) return ay * 8.86226925452758013649e-01; // sqrt(pi)/2
  double x = __ptxplay_erfinv_guess(ay, -__ptxplay_log1p(-ay * ay));
  for (int i = 0; i < 3; i++) {
    double eh, el;
    __ptxplay_erf_dd(x, &eh, &el);
    double f = (eh - ay) + el;
    double d = 1.12837916709551255857e+00 * __ptxplay_exp_negsq(x);
    x = x - f / (d + x * f);
  }
  return x;
}
__PTXPLAY_FN double __ptxplay_erfcinv(double z) {
  if (z != z || z < 0.0 || z > 2.0) return __builtin_nan("");
  if (z == 0.0) return __builtin_inf();
  if (z == 2.0) return -__builtin_inf();
  if (z == 1.0) return 0.0;
  double sg = 1.0;
  if (z > 1.0) { z = 2.0 - z; sg = -1.0; } // 2 - z exact
  double x;
  if (z < 1e-10) { // (x > 4.5 > 3; Giles' guess is poor beyond z = 1e-16)
    double lz = __ptxplay_log(z);
    x = __builtin_sqrt(-lz);
    for (int i = 0; i < 6; i++) { // log erfc(x) - log z = 0
      double F = __ptxplay_erfc_F(x);
      double h = __PTXPLAY_MUL(x, x), l = __builtin_fma(x, x, -h);
      double g = ((-h - lz) - __ptxplay_log(1.77245385090551602730e+00 * F)) - l;
      x = x + g / (2.0 * F);
    }
    return sg * x;
  }
  double y = 1.0 - z; // exact for z >= 1/2; erf(x) = y
  if (z > 0.5) return sg * __ptxplay_erfinv_small(y); // erfc near 1 loses x's relative accuracy
  x = __ptxplay_erfinv_guess(y, -__ptxplay_log(z * (2.0 - z)));
  for (int i = 0; i < 3; i++) {
    double f = __ptxplay_erfc(x) - z;
    double d = -1.12837916709551255857e+00 * __ptxplay_exp_negsq(x);
    x = x - f / (d + x * f);
  }
  return sg * x;
}
__PTXPLAY_FN double __ptxplay_erfinv(double y) {
  double ay = __builtin_fabs(y);
  if (!(ay <= 1.0)) return __builtin_nan("");
  if (ay == 1.0) return __builtin_copysign(__builtin_inf(), y);
  if (ay >= 0.5) return __builtin_copysign(__ptxplay_erfcinv(1.0 - ay), y); // 1 - ay exact
  return __builtin_copysign(__ptxplay_erfinv_small(ay), y);
}
// normcdfinv(p) = -sqrt(2) erfcinv(2p): CUDA documents 8 ulp (5 for the float version).
__PTXPLAY_FN double __ptxplay_normcdfinv(double p) {
  return -1.41421356237309514547e+00 * __ptxplay_erfcinv(2.0 * p);
}
