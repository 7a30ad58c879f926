//! Dot-product kernels: wasm `simd128` versions when the build enables that
//! target feature, portable scalar versions otherwise.
//!
//! Invariants: both versions of a kernel compute the same sum up to float
//! rounding (the int8 kernels exactly); callers pass equal-length slices.
//! The scalar versions are always compiled so native tests exercise them.

/// `Σ a[i]·b[i]` over f32.
#[inline]
pub(crate) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot_f32(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_f32_scalar(a, b)
    }
}

/// `Σ a[i]·b[i]` over i8 with an i32 sum. Inputs must lie in `-127..=127`
/// (the quantizer guarantees it) so the SIMD path's i16 products cannot
/// overflow.
#[inline]
pub(crate) fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot_i8(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_scalar(a, b)
    }
}

/// Eight independent partial sums: float addition is not associative, so
/// LLVM only vectorizes a reduction whose lanes are written out like this.
#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), allow(dead_code))]
#[inline]
pub(crate) fn dot_f32_scalar(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
            *s += x * y;
        }
    }
    let mut tail = 0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    let [a0, a1, a2, a3, a4, a5, a6, a7] = acc;
    (a0 + a4) + (a1 + a5) + (a2 + a6) + (a3 + a7) + tail
}

#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), allow(dead_code))]
#[inline]
pub(crate) fn dot_i8_scalar(a: &[i8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    // Plain widening products: on baseline x86-64 (SSE2, no sign-extending
    // loads) no hand-shaped loop measured faster than this one.
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    pub(super) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (mut s0, mut s1, mut s2, mut s3) = (f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0));
        let mut i = 0;
        // SAFETY: every load reads 4 f32 at `i..i + 4 <= n` of both slices;
        // `v128_load` allows unaligned addresses.
        unsafe {
            let (pa, pb) = (a.as_ptr(), b.as_ptr());
            while i + 16 <= n {
                let ld = |p: *const f32, o: usize| v128_load(p.add(o) as *const v128);
                s0 = f32x4_add(s0, f32x4_mul(ld(pa, i), ld(pb, i)));
                s1 = f32x4_add(s1, f32x4_mul(ld(pa, i + 4), ld(pb, i + 4)));
                s2 = f32x4_add(s2, f32x4_mul(ld(pa, i + 8), ld(pb, i + 8)));
                s3 = f32x4_add(s3, f32x4_mul(ld(pa, i + 12), ld(pb, i + 12)));
                i += 16;
            }
            while i + 4 <= n {
                let x = v128_load(pa.add(i) as *const v128);
                let y = v128_load(pb.add(i) as *const v128);
                s0 = f32x4_add(s0, f32x4_mul(x, y));
                i += 4;
            }
        }
        let s = f32x4_add(f32x4_add(s0, s1), f32x4_add(s2, s3));
        let mut sum = (f32x4_extract_lane::<0>(s) + f32x4_extract_lane::<1>(s)) + (f32x4_extract_lane::<2>(s) + f32x4_extract_lane::<3>(s));
        for (x, y) in a.iter().zip(b).skip(i) {
            sum += x * y;
        }
        sum
    }

    pub(super) fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let (mut acc0, mut acc1) = (i32x4_splat(0), i32x4_splat(0));
        let mut i = 0;
        // SAFETY: each load reads 16 i8 at `i..i + 16 <= n` of both slices.
        unsafe {
            let (pa, pb) = (a.as_ptr(), b.as_ptr());
            // |x·y| ≤ 127² fits i16; pairwise sums of two fit i32.
            let step = |acc: v128, o: usize| {
                let x = v128_load(pa.add(o) as *const v128);
                let y = v128_load(pb.add(o) as *const v128);
                let lo = i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(x, y));
                let hi = i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(x, y));
                i32x4_add(acc, i32x4_add(lo, hi))
            };
            // Two accumulators: independent dependency chains per iteration.
            while i + 32 <= n {
                acc0 = step(acc0, i);
                acc1 = step(acc1, i + 16);
                i += 32;
            }
            if i + 16 <= n {
                acc0 = step(acc0, i);
                i += 16;
            }
        }
        let acc = i32x4_add(acc0, acc1);
        let mut sum =
            i32x4_extract_lane::<0>(acc) + i32x4_extract_lane::<1>(acc) + i32x4_extract_lane::<2>(acc) + i32x4_extract_lane::<3>(acc);
        for (&x, &y) in a.iter().zip(b).skip(i) {
            sum += x as i32 * y as i32;
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_kernels_match_naive_sums() {
        for n in [0, 1, 3, 7, 8, 9, 16, 17, 33, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| ((i * 7919) % 13) as f32 / 13.0 - 0.5).collect();
            let b: Vec<f32> = (0..n).map(|i| ((i * 104729) % 17) as f32 / 17.0 - 0.5).collect();
            let naive: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
            assert!((dot_f32_scalar(&a, &b) as f64 - naive).abs() < 1e-4, "n = {n}");
            assert!((dot_f32(&a, &b) as f64 - naive).abs() < 1e-4, "n = {n}");
            let qa: Vec<i8> = (0..n).map(|i| (i * 31) % 255 - 127).map(|v| v as i8).collect();
            let qb: Vec<i8> = (0..n).map(|i| (i * 57) % 255 - 127).map(|v| v as i8).collect();
            let exact: i32 = qa.iter().zip(&qb).map(|(x, y)| *x as i32 * *y as i32).sum();
            assert_eq!(dot_i8_scalar(&qa, &qb), exact);
            assert_eq!(dot_i8(&qa, &qb), exact);
        }
    }
}
