//! The float and complex example of README.md (a test checks that they are the same).
use mparray::complex::{CFunc, CRound};
use mparray::{ComplexArray, Engine, FloatArray, Round};

fn main() -> mparray::Result<()> {
    let engine = Engine::best();
    let (p, rnd) = (200, Round::Nearest);

    // Floats with MPFR's semantics: parsed on the host, moved to the engine,
    // computed there; ternary values stay on the engine until read.
    let x = FloatArray::from_strs(p, &["0.5", "-1e-30", "inf"])?.into_engine(&engine)?;
    let (e, t) = x.exp(p, rnd)?.add_ternary(&x, 53, Round::Down)?;
    println!("{:?} {:?}", e.to_dec_strings(17, rnd)?, t.to_vec()?);

    // 65536 random 512-bit floats drawn on the engine (the same bits on
    // every engine) and a chain of correctly rounded functions, computed on
    // the engine and on the CPU: the same bits.
    let chain = |e: &Engine| -> mparray::Result<FloatArray> {
        let r = FloatArray::random_unit(e, 1 << 16, 512, 7)?;
        r.sin(512, rnd)?.atan2(&r.cos(512, rnd)?, 512, rnd)
    };
    let (y, y_cpu) = (chain(&engine)?, chain(&Engine::Cpu)?);
    println!(
        "{} (same bits: {})",
        y.to_dec_strings(30, rnd)?[0],
        y == y_cpu
    );

    // Complex numbers with MPC's semantics, one rounding mode per part.
    let z = ComplexArray::new(
        FloatArray::from_strs(p, &["1", "0"])?,
        FloatArray::from_strs(p, &["1", "-0"])?,
    )?
    .into_engine(&engine)?;
    let w = z.func(CFunc::Log, 64, 64, CRound::new(Round::Nearest, Round::Zero))?;
    println!("{:?}", w.to_dec_strings(20, rnd)?);

    // Bad operands are errors that say what is wrong (operands on different
    // engines too: move one with to_engine).
    let one = FloatArray::from_strs(p, &["1"])?.into_engine(&engine)?;
    if let Err(e) = x.add(&one, p, rnd) {
        println!("{e}");
    }
    Ok(())
}
