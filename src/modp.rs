//! Arithmetic modulo a 64-bit number, for setting up transforms (roots of
//! unity, inverses) and for checking results modulo random primes. Not for
//! inner loops: those use Shoup or Montgomery forms next to their transform.

/// `a * b mod p` (`p >= 1`; `a`, `b` any 64-bit values).
#[inline(always)]
pub fn mulmod(a: u64, b: u64, p: u64) -> u64 {
    (a as u128 * b as u128 % p as u128) as u64
}

/// `a^e mod p` (`p >= 1`; `a` any 64-bit value).
pub fn powmod(mut a: u64, mut e: u64, p: u64) -> u64 {
    let mut r = 1 % p;
    a %= p;
    while e > 0 {
        if e & 1 == 1 {
            r = mulmod(r, a, p);
        }
        a = mulmod(a, a, p);
        e >>= 1;
    }
    r
}

/// The inverse of `a` modulo a prime `p` (Fermat), for `a` not divisible by `p`.
pub fn inv(a: u64, p: u64) -> u64 {
    powmod(a, p - 2, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases() {
        let p = 0x3fff_ffee_0000_0001;
        assert_eq!(powmod(3, 0, p), 1);
        assert_eq!(powmod(5, 1, 1), 0);
        for a in [1u64, 2, 3, 12345, p - 1, u64::MAX] {
            assert_eq!(mulmod(a % p, inv(a % p, p), p), 1);
        }
        let m = 1_000_000_007;
        assert_eq!(powmod(2, 64, m), ((1u128 << 64) % m as u128) as u64);
    }
}
