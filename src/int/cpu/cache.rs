//! The last-level cache size, read once from the OS, and the choice it
//! drives: plain or non-temporal stores for the memory-bound batch add/sub.
//!
//! Non-temporal stores skip the read for ownership of the output (a quarter
//! of the traffic) but also bypass the cache: when the inputs and the output
//! together fit in the last-level cache, plain stores keep everything there
//! and a repeated operation runs at cache speed instead.

use std::sync::OnceLock;

/// Used when the OS does not say (today's default before the size was read:
/// streaming from 3 x 8 MiB).
const FALLBACK_LLC: usize = 48 << 20;

/// Bytes of last-level cache this process can use: `MPARRAY_CPU_LLC` (bytes,
/// K/M/G suffix allowed) if set, else the sum of the distinct highest-level
/// caches of the online CPUs (Linux sysfs), else 48 MiB.
pub fn llc_bytes() -> usize {
    static LLC: OnceLock<usize> = OnceLock::new();
    *LLC.get_or_init(|| {
        if let Ok(s) = std::env::var("MPARRAY_CPU_LLC")
            && let Some(b) = crate::engine::parse_bytes(&s)
        {
            return b;
        }
        sysfs_llc(std::path::Path::new("/sys/devices/system/cpu")).unwrap_or(FALLBACK_LLC)
    })
}

/// Whether a batch add/sub whose operands and result total `bytes` writes
/// its result with non-temporal stores: when they exceed half the
/// last-level cache (the rest holds other data, and a cache shared with
/// other tenants is never all ours). `MPARRAY_CPU_STREAM=0` or `1` forces
/// either way; the bits are the same.
pub fn stream_for(bytes: usize) -> bool {
    static FORCED: OnceLock<Option<bool>> = OnceLock::new();
    let forced = *FORCED.get_or_init(|| match std::env::var("MPARRAY_CPU_STREAM").as_deref() {
        Ok("1") => Some(true),
        Ok("0") => Some(false),
        _ => None,
    });
    forced.unwrap_or(bytes > llc_bytes() / 2)
}

/// The sum of the sizes of the distinct highest-level data or unified
/// caches under `root` (`cpuN/cache/indexK/{level,type,size,shared_cpu_list}`):
/// CPUs that share one cache list the same `shared_cpu_list`, counted once.
pub(crate) fn sysfs_llc(root: &std::path::Path) -> Option<usize> {
    let mut best: Option<(u32, Vec<(String, usize)>)> = None;
    for cpu in std::fs::read_dir(root).ok()?.flatten() {
        let name = cpu.file_name();
        let name = name.to_string_lossy();
        if !name
            .strip_prefix("cpu")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        {
            continue;
        }
        let Ok(dirs) = std::fs::read_dir(cpu.path().join("cache")) else {
            continue;
        };
        for idx in dirs.flatten() {
            let p = idx.path();
            let read = |f: &str| {
                std::fs::read_to_string(p.join(f))
                    .ok()
                    .map(|s| s.trim().to_string())
            };
            let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
            else {
                continue;
            };
            if kind == "Instruction" {
                continue;
            }
            let (Ok(level), Some(size)) = (level.parse::<u32>(), crate::engine::parse_bytes(&size))
            else {
                continue;
            };
            let shared = read("shared_cpu_list").unwrap_or_else(|| name.to_string());
            match &mut best {
                Some((l, _)) if *l > level => {}
                Some((l, v)) if *l == level => {
                    if !v.iter().any(|(s, _)| *s == shared) {
                        v.push((shared, size));
                    }
                }
                _ => best = Some((level, vec![(shared, size)])),
            }
        }
    }
    let total: usize = best?.1.iter().map(|(_, s)| s).sum();
    (total > 0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(
        root: &std::path::Path,
        cpu: usize,
        idx: usize,
        level: u32,
        kind: &str,
        size: &str,
        shared: &str,
    ) {
        let d = root.join(format!("cpu{cpu}/cache/index{idx}"));
        std::fs::create_dir_all(&d).unwrap();
        for (f, v) in [
            ("level", level.to_string()),
            ("type", kind.into()),
            ("size", size.into()),
            ("shared_cpu_list", shared.into()),
        ] {
            std::fs::write(d.join(f), format!("{v}\n")).unwrap();
        }
    }

    /// Two L3 instances (two groups of CPUs) are summed once each; L1/L2
    /// and instruction caches are ignored; `cpufreq`-like entries skipped.
    #[test]
    fn sysfs_llc_sums_distinct_instances() {
        let root = std::env::temp_dir().join(format!("mparray-llc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for cpu in 0..4 {
            write(&root, cpu, 0, 1, "Data", "48K", &cpu.to_string());
            write(&root, cpu, 1, 1, "Instruction", "32K", &cpu.to_string());
            write(&root, cpu, 2, 2, "Unified", "1024K", &cpu.to_string());
            let shared = if cpu < 2 { "0-1" } else { "2-3" };
            write(&root, cpu, 3, 3, "Unified", "32768K", shared);
        }
        std::fs::create_dir_all(root.join("cpufreq")).unwrap();
        assert_eq!(sysfs_llc(&root), Some(64 << 20));
        // Only L2 known: its instances.
        let r2 = root.join("l2only");
        for cpu in 0..2 {
            write(&r2, cpu, 0, 2, "Unified", "2M", &cpu.to_string());
        }
        assert_eq!(sysfs_llc(&r2), Some(4 << 20));
        assert_eq!(sysfs_llc(&root.join("missing")), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
