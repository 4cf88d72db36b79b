//! Host memory and the CPU add/sub store choice, end to end: an input or
//! an array larger than the memory allowed (`MPARRAY_HOST_MEM_LIMIT`, or
//! the address space) is an error naming the sizes, never an abort; batch
//! add/sub give malachite's sums with plain and with non-temporal stores
//! (the choice driven by `MPARRAY_CPU_LLC`).
mod common;

use std::process::{Command, Output};

use common::{Rng, Tmp};
use malachite_base::num::arithmetic::traits::Pow;
use malachite_nz::natural::Natural;
use mparray::{Engine, Error, FloatArray, IntArray};

fn run(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(common::mparray_bin());
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(args).output().expect("running mparray")
}

fn hex(x: &Natural) -> String {
    format!("{x:#x}")
}

impl Rng {
    fn nat(&mut self, bits: u64) -> Natural {
        let limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| self.next()).collect();
        Natural::from_limbs_asc(&limbs) % Natural::from(2u32).pow(bits)
    }
}

/// Writes `n` random `bits`-bit numbers in hex; returns them and the path.
fn numbers(tmp: &Tmp, name: &str, rng: &mut Rng, n: usize, bits: u64) -> (Vec<Natural>, String) {
    let v: Vec<Natural> = (0..n).map(|_| rng.nat(bits)).collect();
    let text: String = v.iter().map(|x| hex(x) + "\n").collect();
    let p = tmp.0.join(name);
    std::fs::write(&p, text).unwrap();
    (v, p.to_str().unwrap().to_string())
}

/// An input larger than MPARRAY_HOST_MEM_LIMIT: exit status 1 and a message
/// with the file, its size and the limit; under a larger limit the same
/// command gives malachite's sums.
#[test]
fn input_over_the_host_limit_is_an_error() {
    let tmp = Tmp::new();
    let mut rng = Rng(common::seed());
    let (a, fa) = numbers(&tmp, "a.txt", &mut rng, 200, 256);
    let (b, fb) = numbers(&tmp, "b.txt", &mut rng, 200, 256);
    let size = std::fs::metadata(&fa).unwrap().len();
    assert!(size > 4096, "{size}");
    let args = ["int", "add", "--bits", "256", "--engine", "cpu", &fa, &fb];
    let o = run(&[("MPARRAY_HOST_MEM_LIMIT", "4K")], &args);
    let msg = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{msg}");
    for want in [
        "out of host memory",
        "a.txt",
        &format!("{size} bytes"),
        "MPARRAY_HOST_MEM_LIMIT",
    ] {
        assert!(msg.contains(want), "{msg:?} lacks {want:?}");
    }
    assert!(!msg.contains("panicked") && o.stdout.is_empty(), "{msg}");
    // Standard input is read in pieces, each growth checked.
    let o = Command::new(common::mparray_bin())
        .env("MPARRAY_HOST_MEM_LIMIT", "4K")
        .args(["int", "add", "--bits", "256", "--engine", "cpu", "-", &fb])
        .stdin(std::fs::File::open(&fa).unwrap())
        .output()
        .unwrap();
    let msg = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("out of host memory") && msg.contains("<stdin>"),
        "{msg}"
    );
    // Within the limit: the sums.
    let o = run(&[("MPARRAY_HOST_MEM_LIMIT", "64M")], &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = Natural::from(2u32).pow(256);
    let want: String = a
        .iter()
        .zip(&b)
        .map(|(x, y)| hex(&((x + y) % &m)) + "\n")
        .collect();
    assert!(String::from_utf8(o.stdout).unwrap() == want);
}

/// Arrays beyond the address space: errors naming the operation, not a
/// capacity-overflow panic or an allocation abort.
#[test]
fn impossible_arrays_are_errors() {
    let e = IntArray::zeros(&Engine::Cpu, usize::MAX / 64, 64).unwrap_err();
    assert!(matches!(e, Error::HostMemory { .. }), "{e}");
    assert!(e.to_string().contains("int array"), "{e}");
    let e = FloatArray::zeros(&Engine::Cpu, usize::MAX / 16, 64).unwrap_err();
    assert!(
        matches!(e, Error::HostMemory { .. } | Error::Invalid(_)),
        "{e}"
    );
}

/// Batch add and sub with the last-level cache said to be 1 KiB (so every
/// batch here stores non-temporally) and 1 GiB (plain stores): both give
/// malachite's results, at widths around the 4-limb blocks of the
/// non-temporal loop and batches on both sides of the threshold.
#[test]
fn add_sub_with_either_store_kind() {
    let tmp = Tmp::new();
    let mut rng = Rng(common::seed() ^ 0x11c);
    for (bits, n) in [(64u64, 3000usize), (320, 700), (4096, 40)] {
        let (a, fa) = numbers(&tmp, &format!("a{bits}.txt"), &mut rng, n, bits);
        let (b, fb) = numbers(&tmp, &format!("b{bits}.txt"), &mut rng, n, bits);
        let m = Natural::from(2u32).pow(bits);
        let w = bits.to_string();
        for op in ["add", "sub"] {
            let want: String = a
                .iter()
                .zip(&b)
                .map(|(x, y)| {
                    let r = if op == "add" {
                        (x + y) % &m
                    } else {
                        (x + &m - y) % &m
                    };
                    hex(&r) + "\n"
                })
                .collect();
            for llc in ["1K", "1G"] {
                let args = ["int", op, "--bits", &w, "--engine", "cpu", &fa, &fb];
                let o = run(&[("MPARRAY_CPU_LLC", llc)], &args);
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                assert!(
                    String::from_utf8(o.stdout).unwrap() == want,
                    "{op} at {bits} bits with MPARRAY_CPU_LLC={llc}"
                );
            }
        }
    }
}
