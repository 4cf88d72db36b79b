//! The library example of README.md (a test checks that they are the same).
use mparray::{Engine, IntArray, Radix};

fn main() -> mparray::Result<()> {
    // CUDA if a GPU, its driver and NVRTC are usable; else the CPU.
    let engine = Engine::best();
    println!("engine: {}", engine.describe());

    // 256-bit numbers from strings (decimal or 0x-hex), moved to the engine.
    let a = IntArray::from_strs(256, &["123456789012345678901234567890", "0xffff", "7"])?
        .to_engine(&engine)?;
    let b = IntArray::from_strs(256, &["987654321", "0x10", "2"])?.to_engine(&engine)?;

    let sum = a.add(&b)?; // modulo 2^256
    let prod = a.mul(&b)?; // the low 256 bits
    let wide = a.mul_wide(&b)?; // all 512 bits
    let (q, r) = a.divrem(&b)?; // floor quotient and remainder
    println!("{:?}", sum.to_strings(Radix::Dec)?);
    println!("{:?} ({} bits)", prod.to_strings(Radix::Hex)?, prod.bits());
    println!("{:?} ({} bits)", wide.to_strings(Radix::Hex)?, wide.bits());
    let (qs, rs) = (q.to_strings(Radix::Dec)?, r.to_strings(Radix::Dec)?);
    println!("{qs:?} {rs:?}");

    // 65536 random 4096-bit numbers generated on the engine (the same seed
    // gives the same bits on every engine); results stay on the engine
    // until read back.
    let x = IntArray::random(&engine, 1 << 16, 4096, 1)?;
    let y = IntArray::random(&engine, 1 << 16, 4096, 2)?;
    let z = x.mul(&y)?.to_host()?;
    println!("{}...", &z.to_strings(Radix::Hex)?[0][..24]);

    // Bad input is an error value that names the element.
    if let Err(e) = IntArray::from_strs(64, &["1", "12a"]) {
        println!("{e}");
    }
    let zero = IntArray::from_strs(256, &["1", "0", "0"])?.to_engine(&engine)?;
    if let Err(e) = a.divrem(&zero) {
        println!("{e}");
    }
    Ok(())
}
