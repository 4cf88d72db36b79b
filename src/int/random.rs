//! The random generator shared by every engine: limb `j` of element `i` is a
//! hash of (seed, i*L + j), so the CPU and the GPU produce the same bits.
//! The CUDA twin of these functions is in `kernels/int_rand.cu`; keep them
//! in step.

use rayon::prelude::*;

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Limb number `idx` (counting over the whole array) of stream `seed`.
#[inline]
pub fn limb(seed: u64, idx: u64) -> u64 {
    mix64(mix64(seed).wrapping_add(idx.wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// The length in limbs of element `i`, uniform in `min..=max`.
#[inline]
pub fn length(seed: u64, i: u64, min: u64, max: u64) -> u64 {
    let h = mix64(mix64(seed ^ 0xD1B5_4A32_D192_ED03).wrapping_add(i.wrapping_mul(GOLDEN)));
    min + ((h as u128 * (max - min + 1) as u128) >> 64) as u64
}

/// Fills `data` (elements of `limbs` limbs): element lengths uniform in
/// `min..=max` limbs, the top limb of that length forced non-zero.
pub fn fill(data: &mut [u64], limbs: usize, seed: u64, min: usize, max: usize) {
    data.par_chunks_mut(limbs).enumerate().for_each(|(i, e)| {
        let n = if min == max {
            max
        } else {
            length(seed, i as u64, min as u64, max as u64) as usize
        };
        let base = (i * limbs) as u64;
        for (j, x) in e.iter_mut().enumerate() {
            *x = if j < n {
                limb(seed, base + j as u64)
            } else {
                0
            };
        }
        if min != max && e[n - 1] == 0 {
            e[n - 1] = 1;
        }
    });
}
