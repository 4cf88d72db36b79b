//! Host memory: allocations of array storage and input text that are
//! checked first, so that a batch too large for the machine is an
//! [`Error::HostMemory`] naming the sizes instead of an abort. A lowered
//! limit (`MPARRAY_HOST_MEM_LIMIT`, bytes per allocation) makes the same
//! path testable on any machine.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Bytes from `123`, `64K`, `256M`, `2G` (also `32768K` as Linux sysfs
/// writes cache sizes); `None` for anything else or an overflow.
pub fn parse_bytes(s: &str) -> Option<usize> {
    let t = s.trim();
    let (num, mul) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1usize << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

/// A byte count for messages: exact, with a binary-prefixed figure beside
/// from 1 KiB on.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if b < 1024 {
        return format!("{b} bytes");
    }
    let (mut v, mut u) = (b as f64 / 1024.0, 0);
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{b} bytes ({v:.1} {})", UNITS[u])
}

/// The per-allocation limit from `MPARRAY_HOST_MEM_LIMIT`, if set (an
/// unreadable value is ignored: the limit exists for tests).
pub fn host_mem_limit() -> Option<usize> {
    static LIMIT: OnceLock<Option<usize>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("MPARRAY_HOST_MEM_LIMIT")
            .ok()
            .and_then(|s| parse_bytes(&s))
    })
}

/// Checks that `n` items of `T` for `op` may be allocated: their byte size
/// does not overflow and is within `MPARRAY_HOST_MEM_LIMIT` when set.
pub fn check<T>(op: &str, n: usize) -> Result<usize> {
    let bytes = n.checked_mul(std::mem::size_of::<T>());
    match (bytes, host_mem_limit()) {
        (Some(b), Some(l)) if b > l => Err(Error::HostMemory {
            op: op.to_string(),
            requested: b as u64,
            why: format!(
                "the limit MPARRAY_HOST_MEM_LIMIT is {}",
                human_bytes(l as u64)
            ),
        }),
        (Some(b), _) if b > isize::MAX as usize => Err(too_large(op, b as u64)),
        (Some(b), _) => Ok(b),
        (None, _) => Err(Error::HostMemory {
            op: op.to_string(),
            requested: u64::MAX,
            why: format!(
                "{n} items of {} bytes overflow the address space",
                std::mem::size_of::<T>()
            ),
        }),
    }
}

fn too_large(op: &str, b: u64) -> Error {
    Error::HostMemory {
        op: op.to_string(),
        requested: b,
        why: "more than the address space allows".into(),
    }
}

/// An empty vector with room for `n` items, or an error naming the sizes
/// when the allocator (or the limit) refuses.
pub fn with_capacity<T>(op: &str, n: usize) -> Result<Vec<T>> {
    let bytes = check::<T>(op, n)?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::HostMemory {
        op: op.to_string(),
        requested: bytes as u64,
        why: "the allocator refused (not enough memory on this machine)".into(),
    })?;
    Ok(v)
}

/// `n` copies of `x`, checked as [`with_capacity`].
pub fn filled<T: Clone>(op: &str, n: usize, x: T) -> Result<Vec<T>> {
    let mut v = with_capacity(op, n)?;
    v.resize(n, x);
    Ok(v)
}

/// Types whose all-zero bit pattern is their zero (`Default`) value.
pub trait Zeroable: Copy {}
impl Zeroable for u8 {}
impl Zeroable for i8 {}
impl Zeroable for u32 {}
impl Zeroable for u64 {}
impl Zeroable for i64 {}
impl Zeroable for bool {}

/// `n` zeros, checked as [`with_capacity`]; like `vec![0; n]` the memory
/// comes zeroed from the allocator (calloc), so untouched pages cost
/// nothing, which large outputs rely on for speed.
pub fn zeros<T: Zeroable>(op: &str, n: usize) -> Result<Vec<T>> {
    let bytes = check::<T>(op, n)?;
    if n == 0 || std::mem::size_of::<T>() == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| too_large(op, bytes as u64))?;
    // SAFETY: the layout has a non-zero size; a null pointer is checked.
    let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if p.is_null() {
        return Err(Error::HostMemory {
            op: op.to_string(),
            requested: bytes as u64,
            why: "the allocator refused (not enough memory on this machine)".into(),
        });
    }
    // SAFETY: allocated by the global allocator with the layout of n items
    // of T, all zero bits, which is a valid T (Zeroable).
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_byte_counts() {
        assert_eq!(parse_bytes("1234"), Some(1234));
        assert_eq!(parse_bytes(" 64K "), Some(64 << 10));
        assert_eq!(parse_bytes("32768K"), Some(32 << 20));
        assert_eq!(parse_bytes("256m"), Some(256 << 20));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        for bad in ["", "K", "-1", "1.5G", "12X", "99999999999999999999G"] {
            assert_eq!(parse_bytes(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(3 << 20), "3145728 bytes (3.0 MiB)");
    }

    /// An allocation the address space cannot hold is an error naming
    /// its size, not an abort.
    #[test]
    fn impossible_sizes_are_errors() {
        let e = with_capacity::<u64>("a test array", usize::MAX / 4).unwrap_err();
        assert!(e.to_string().contains("a test array"), "{e}");
        let e = zeros::<u64>("a test array", usize::MAX / 16).unwrap_err();
        assert!(e.to_string().contains("bytes"), "{e}");
        assert_eq!(zeros::<u64>("ok", 3).unwrap(), vec![0; 3]);
    }
}
