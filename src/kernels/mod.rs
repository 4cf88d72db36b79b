//! CUDA C++ kernel sources, one `.cu` file per family of operations, with
//! shared device helpers in `common.cuh`. Sources are compiled at run time by
//! NVRTC (see `engine::cuda::compile`); an [`Instance`] is one source with
//! its compile-time parameters (passed as `-D` defines, which select template
//! specialisations inside the source).

use std::fmt::Write as _;

/// One kernel source file.
#[derive(Debug)]
pub struct KernelSource {
    pub name: &'static str,
    pub code: &'static str,
}

/// Shared device helpers, textually included where a source says
/// `#include "common.cuh"`.
pub const COMMON: &str = include_str!("common.cuh");

/// Addition, subtraction and the fused add chains.
pub static INT_ADD: KernelSource = KernelSource {
    name: "int_add",
    code: include_str!("int_add.cu"),
};
/// Multiplication (low half and full product) and the fused polynomial.
pub static INT_MUL: KernelSource = KernelSource {
    name: "int_mul",
    code: include_str!("int_mul.cu"),
};
/// Division with remainder.
pub static INT_DIV: KernelSource = KernelSource {
    name: "int_div",
    code: include_str!("int_div.cu"),
};
/// Comparisons, shifts, bit logic, bit counts, square-root steps and the
/// primality screen.
pub static INT_BITS: KernelSource = KernelSource {
    name: "int_bits",
    code: include_str!("int_bits.cu"),
};
/// Modular arithmetic: powm, Montgomery form, gcd, inverse.
pub static INT_MODULAR: KernelSource = KernelSource {
    name: "int_modular",
    code: include_str!("int_modular.cu"),
};
/// Random inputs generated on the device (same bits as the CPU generator).
pub static INT_RAND: KernelSource = KernelSource {
    name: "int_rand",
    code: include_str!("int_rand.cu"),
};

/// Number-theoretic transforms for huge-integer multiplication.
pub static HUGE_NTT: KernelSource = KernelSource {
    name: "huge_ntt",
    code: include_str!("huge_ntt.cu"),
};
/// Linear-time primitives on one huge integer (carry scans, shifts).
pub static HUGE_LINEAR: KernelSource = KernelSource {
    name: "huge_linear",
    code: include_str!("huge_linear.cu"),
};

/// Per-element float code shared by the float kernels (MPFR's semantics),
/// pasted where a source says `#include "float_common.cuh"`.
pub const FLOAT_COMMON: &str = include_str!("float_common.cuh");

/// log2, log10, log1p, expm1 and the hyperbolic functions of float_func.cu,
/// pasted where it says `#include "float_func_explog.cuh"`.
pub const FLOAT_FUNC_EXPLOG: &str = include_str!("float_func_explog.cuh");

/// Float add, sub, mul, div, sqrt, fma, fms (tiers by limb count).
pub static FLOAT_ARITH: KernelSource = KernelSource {
    name: "float_arith",
    code: include_str!("float_arith.cu"),
};
/// Float add, sub, mul, fma, fms from 17 limbs up: a group of lanes per
/// element (one instantiation; limb counts and group size at run time).
pub static FLOAT_WIDE: KernelSource = KernelSource {
    name: "float_wide",
    code: include_str!("float_wide.cu"),
};
/// Float neg, abs, set_prec, mul_2si, min, max and cmp.
pub static FLOAT_MISC: KernelSource = KernelSource {
    name: "float_misc",
    code: include_str!("float_misc.cu"),
};

/// tan, sin_cos, atan2, hypot, pow, agm, pasted where float_func.cu says
/// `#include "float_func_trig.cuh"`.
pub const FLOAT_FUNC_TRIG: &str = include_str!("float_func_trig.cuh");

/// Correctly rounded exp, exp2, log, sin, cos, atan (tiers by fixed-point limbs).
pub static FLOAT_FUNC: KernelSource = KernelSource {
    name: "float_func",
    code: include_str!("float_func.cu"),
};
/// The complex functions, div and pow (float_cfunc, float_cdiv, float_cpow):
/// float_func.cu's value cores without its kernels, float_func's tiers.
pub static FLOAT_CFUNC: KernelSource = KernelSource {
    name: "float_cfunc",
    code: include_str!("float_cfunc.cu"),
};

/// The exact BLAS reductions (gemm, gemv, dot, syrk): fixed-point
/// accumulation, epilogue and host fallback flags (tiers by fixed-point
/// words).
pub static BLAS: KernelSource = KernelSource {
    name: "blas",
    code: include_str!("blas.cu"),
};

/// The fused Ehrlich-Aberth iteration (one block per root; tiers by limbs).
pub static ROOTS: KernelSource = KernelSource {
    name: "roots",
    code: include_str!("roots.cu"),
};

/// Every kernel source, for listings and the CI compile check.
pub fn sources() -> [&'static KernelSource; 15] {
    [
        &INT_ADD,
        &INT_MUL,
        &INT_DIV,
        &INT_RAND,
        &INT_BITS,
        &INT_MODULAR,
        &HUGE_NTT,
        &HUGE_LINEAR,
        &FLOAT_ARITH,
        &FLOAT_WIDE,
        &FLOAT_MISC,
        &FLOAT_FUNC,
        &FLOAT_CFUNC,
        &BLAS,
        &ROOTS,
    ]
}

/// A source plus its compile-time parameters.
#[derive(Clone, Debug)]
pub struct Instance {
    pub source: &'static KernelSource,
    pub defines: Vec<(&'static str, i64)>,
    /// A first-use module: compiled with NVRTC's `--Ofast-compile` at
    /// [`fast_compile_level`] (a fraction of the compile time, the same
    /// code semantics; notes/kernels.md).
    pub first_use: bool,
}

/// NVRTC's `--Ofast-compile` level of the first-use modules:
/// `$MPARRAY_FAST_COMPILE` (`0`, `min`, `mid`, `max`), else `min`; `0`
/// (or `off`) compiles them as the others, fully optimised.
pub fn fast_compile_level() -> &'static str {
    static LEVEL: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    LEVEL.get_or_init(|| {
        match std::env::var("MPARRAY_FAST_COMPILE")
            .as_deref()
            .map(str::trim)
        {
            Ok("0") | Ok("off") => "0",
            Ok("mid") => "mid",
            Ok("max") => "max",
            _ => "min",
        }
    })
}

impl Instance {
    pub fn new(source: &'static KernelSource, defines: &[(&'static str, i64)]) -> Instance {
        Instance {
            source,
            defines: defines.to_vec(),
            first_use: false,
        }
    }

    /// This instance as a first-use module (`--Ofast-compile`, see
    /// [`fast_compile_level`]).
    pub fn for_first_use(mut self) -> Instance {
        self.first_use = true;
        self
    }

    /// This instance fully optimised (not a first-use module).
    pub fn optimised(mut self) -> Instance {
        self.first_use = false;
        self
    }

    /// The `--Ofast-compile` level this instance is compiled with, if any.
    pub fn fast_level(&self) -> Option<&'static str> {
        Some(fast_compile_level()).filter(|l| self.first_use && *l != "0")
    }

    /// The registry key: source name plus defines.
    pub fn key(&self) -> String {
        let mut k = self.source.name.to_string();
        for (n, v) in &self.defines {
            let _ = write!(k, ",{n}={v}");
        }
        if let Some(l) = self.fast_level() {
            let _ = write!(k, ",Ofc={l}");
        }
        k
    }

    /// NVRTC options for this instance.
    pub fn options(&self) -> Vec<String> {
        let mut o: Vec<String> = self
            .defines
            .iter()
            .map(|(n, v)| format!("-D{n}={v}"))
            .collect();
        if let Some(l) = self.fast_level() {
            o.push(format!("--Ofast-compile={l}"));
        }
        o
    }

    /// The source with its includes pasted in (NVRTC has no file system).
    pub fn full_source(&self) -> String {
        self.source
            .code
            .replace("#include \"float_func.cu\"", FLOAT_FUNC.code)
            .replace("#include \"float_func_explog.cuh\"", FLOAT_FUNC_EXPLOG)
            .replace("#include \"float_func_trig.cuh\"", FLOAT_FUNC_TRIG)
            .replace("#include \"float_common.cuh\"", FLOAT_COMMON)
            .replace("#include \"common.cuh\"", COMMON)
    }
}

/// The instantiations a warmed machine uses: every source's modules, the
/// function kernels' modules of all functions at every tier
/// (`mparray kernels compile --cache` stores these).
pub fn warm_instances() -> Vec<Instance> {
    let mut v = Vec::new();
    v.extend(crate::int::cuda::instances());
    v.extend(crate::huge::cuda::instances());
    v.extend(crate::float::cuda::instances());
    v.extend(crate::float::func::cuda::instances());
    v.extend(crate::complex::cuda_func::instances());
    v.extend(crate::linalg::cuda::instances());
    v.extend(crate::complex::cuda_roots::warm_instances());
    v
}

/// The function kernels' one-family modules at every tier: what a first
/// use compiles instead of the module of all functions when that one is
/// not in the kernel cache (float_func.cu's `FF_ONLY`, float_cfunc.cu's
/// `CF_ONLY`).
pub fn family_instances() -> Vec<Instance> {
    let mut v = crate::float::func::cuda::family_instances();
    v.extend(crate::complex::cuda_func::family_instances());
    v
}

/// Every instantiation the library can request.
pub fn all_instances() -> Vec<Instance> {
    let mut v = warm_instances();
    v.extend(family_instances());
    let warm: Vec<String> = v.iter().map(Instance::key).collect();
    v.extend(
        crate::complex::cuda_roots::instances()
            .into_iter()
            .filter(|i| !warm.contains(&i.key())),
    );
    v
}

/// CI's check (`mparray kernels compile --set ci`), each with whether only
/// NVRTC's front end runs: the warm set compiled to CUBINs, its function
/// modules of every function (float_func and float_cfunc at the 16 tiers,
/// 1,500 of the step's ~2,000 CPU seconds at full optimisation) with
/// `--Ofast-compile` as the first-use modules (about 4 s each: the same
/// front end, preprocessed text and template instantiations; a
/// code generation checked, not the optimiser's full one, which the GPU
/// runs that warm their cache do), and the one-family modules at the
/// smallest tier through the front end (below).
pub fn ci_instances() -> Vec<(Instance, bool)> {
    let func =
        |i: &Instance| std::ptr::eq(i.source, &FLOAT_FUNC) || std::ptr::eq(i.source, &FLOAT_CFUNC);
    let mut v: Vec<(Instance, bool)> = warm_instances()
        .into_iter()
        .map(|i| {
            if func(&i) {
                (i.for_first_use(), false)
            } else {
                (i, false)
            }
        })
        .collect();
    v.extend(ci_front_end_instances().into_iter().map(|i| (i, true)));
    v
}

/// What CI checks besides compiling the warm set: every one-family module
/// at the smallest tier, through NVRTC's front end only
/// (`engine::cuda::compile::check_front_end`). A family module is its full
/// module's text with the other functions' `case` lines and kernels
/// removed by the preprocessor (no definition removed, nothing added): what
/// can differ is what the front end sees (a name or variable left unused),
/// which this checks; the code it hands to ptxas is a subset of the full
/// module's, compiled at every tier by the warm set (notes/kernels.md).
pub fn ci_front_end_instances() -> Vec<Instance> {
    let smallest = format!("FF_K={}", crate::float::func::cuda::FUNC_TIERS[0]);
    family_instances()
        .into_iter()
        .filter(|i| i.key().split(',').any(|d| d == smallest))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first-use module carries the `--Ofast-compile` level in its
    /// options and its key (so a cache and an engine keep it apart from
    /// the fully optimised module of the same text); the families are
    /// first-use modules, the warm set is not.
    #[test]
    fn first_use_modules_compile_fast_under_their_own_key() {
        let full = Instance::new(&FLOAT_FUNC, &[("FF_K", 3)]);
        let fast = full.clone().for_first_use();
        let ofc = |i: &Instance| i.options().iter().any(|o| o.starts_with("--Ofast-compile"));
        assert!(!ofc(&full));
        assert_eq!(full.key(), "float_func,FF_K=3");
        match fast_compile_level() {
            "0" => assert_eq!(fast.key(), full.key()),
            l => {
                assert_eq!(fast.key(), format!("float_func,FF_K=3,Ofc={l}"));
                assert!(fast.options().contains(&format!("--Ofast-compile={l}")));
            }
        }
        assert!(family_instances().iter().all(|i| i.first_use));
        assert!(warm_instances().iter().all(|i| !i.first_use));
    }

    /// CI's set: the warm set (its function modules as first-use ones),
    /// then the 29 families at the smallest tier through the front end.
    #[test]
    fn ci_set_is_the_warm_set_and_the_families_front_ends() {
        let warm = warm_instances();
        let ci = ci_instances();
        assert_eq!(ci.len(), warm.len() + 29);
        for ((c, fe), w) in ci.iter().zip(&warm) {
            assert!(!fe);
            assert_eq!(c.defines, w.defines);
            let func = w.source.name == "float_func" || w.source.name == "float_cfunc";
            assert_eq!(c.first_use, func, "{}", w.key());
        }
        assert!(ci[warm.len()..].iter().all(|(i, fe)| *fe && i.first_use));
    }
}
