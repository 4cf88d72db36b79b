//! x86-64 inner loops with BMI2 (`mulx`) and ADX (`adcx`/`adox`): two carry
//! chains run side by side, as in GMP's loops for recent Intel and AMD
//! cores. Callers check the CPU first (`arith::use_asm`) and pass whole
//! blocks of four limbs; loop control uses `lea` and `jrcxz`, which leave
//! the carry flags alone.

use std::arch::asm;

/// `r[..4*blocks] = a * b + c`; returns the high limb.
///
/// # Safety
/// BMI2 and ADX present; `r` and `a` valid for `4*blocks` limbs, `blocks >= 1`.
#[target_feature(enable = "bmi2,adx")]
pub unsafe fn mul_1(r: *mut u64, a: *const u64, blocks: usize, b: u64, c: u64) -> u64 {
    debug_assert!(blocks >= 1);
    let mut c = c;
    unsafe {
        asm!(
            "xor {t0:e}, {t0:e}",
            "2:",
            "mulx {t1}, {t0}, qword ptr [{ap}]",
            "adcx {t0}, {c}",
            "mov qword ptr [{rp}], {t0}",
            "mulx {c}, {t0}, qword ptr [{ap} + 8]",
            "adcx {t0}, {t1}",
            "mov qword ptr [{rp} + 8], {t0}",
            "mulx {t1}, {t0}, qword ptr [{ap} + 16]",
            "adcx {t0}, {c}",
            "mov qword ptr [{rp} + 16], {t0}",
            "mulx {c}, {t0}, qword ptr [{ap} + 24]",
            "adcx {t0}, {t1}",
            "mov qword ptr [{rp} + 24], {t0}",
            "lea {ap}, [{ap} + 32]",
            "lea {rp}, [{rp} + 32]",
            "lea rcx, [rcx - 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            "mov {t0:e}, 0",
            "adcx {c}, {t0}",
            ap = inout(reg) a => _,
            rp = inout(reg) r => _,
            c = inout(reg) c,
            t0 = out(reg) _,
            t1 = out(reg) _,
            inout("rcx") blocks => _,
            in("rdx") b,
            options(nostack),
        );
    }
    c
}

/// `r[..n] += a * b`; returns the carry limb.
///
/// # Safety
/// BMI2 and ADX present; `r` and `a` valid for `n >= 1` limbs.
#[target_feature(enable = "bmi2,adx")]
pub unsafe fn addmul_1(r: *mut u64, a: *const u64, n: usize, b: u64) -> u64 {
    debug_assert!(n >= 1);
    // Enter the four-limb loop at slot j so that it ends on a whole block;
    // the pointers start j limbs early (never read there).
    let j = (4 - n % 4) % 4;
    let mut c = 0u64;
    unsafe {
        asm!(
            "cmp {j}, 2",
            "jb 2f",
            "je 4f",
            // j = 3: carry in t1
            "mov {t1}, {c}",
            "xor {t0:e}, {t0:e}",
            "jmp 8f",
            "2:",
            "test {j}, {j}",
            "jz 3f",
            // j = 1: carry in t1
            "mov {t1}, {c}",
            "xor {t0:e}, {t0:e}",
            "jmp 6f",
            "3:",
            "xor {t0:e}, {t0:e}",
            "jmp 5f",
            "4:",
            "xor {t0:e}, {t0:e}",
            "jmp 7f",
            "5:",
            "mulx {t1}, {t0}, qword ptr [{ap}]",
            "adox {t0}, {c}",
            "adcx {t0}, qword ptr [{rp}]",
            "mov qword ptr [{rp}], {t0}",
            "6:",
            "mulx {c}, {t0}, qword ptr [{ap} + 8]",
            "adox {t0}, {t1}",
            "adcx {t0}, qword ptr [{rp} + 8]",
            "mov qword ptr [{rp} + 8], {t0}",
            "7:",
            "mulx {t1}, {t0}, qword ptr [{ap} + 16]",
            "adox {t0}, {c}",
            "adcx {t0}, qword ptr [{rp} + 16]",
            "mov qword ptr [{rp} + 16], {t0}",
            "8:",
            "mulx {c}, {t0}, qword ptr [{ap} + 24]",
            "adox {t0}, {t1}",
            "adcx {t0}, qword ptr [{rp} + 24]",
            "mov qword ptr [{rp} + 24], {t0}",
            "lea {ap}, [{ap} + 32]",
            "lea {rp}, [{rp} + 32]",
            "lea rcx, [rcx - 1]",
            "jrcxz 9f",
            "jmp 5b",
            "9:",
            "mov {t0:e}, 0",
            "adox {c}, {t0}",
            "adcx {c}, {t0}",
            ap = inout(reg) a.wrapping_sub(j) => _,
            rp = inout(reg) r.wrapping_sub(j) => _,
            j = in(reg) j,
            c = inout(reg) c,
            t0 = out(reg) _,
            t1 = out(reg) _,
            inout("rcx") (n + j) / 4 => _,
            in("rdx") b,
            options(nostack),
        );
    }
    c
}

/// `r[..n] -= a * b`; returns the borrow limb. The product row is added in
/// one's complement (`r + ~x + 1`), so both chains are additions.
///
/// # Safety
/// BMI2 and ADX present; `r` and `a` valid for `n >= 1` limbs.
#[target_feature(enable = "bmi2,adx")]
pub unsafe fn submul_1(r: *mut u64, a: *const u64, n: usize, b: u64) -> u64 {
    debug_assert!(n >= 1);
    // Enter the four-limb loop at slot j so that it ends on a whole block;
    // the pointers start j limbs early (never read there).
    let j = (4 - n % 4) % 4;
    let mut c = 0u64;
    unsafe {
        asm!(
            "cmp {j}, 2",
            "jb 2f",
            "je 4f",
            // j = 3: carry in t1
            "mov {t1}, {c}",
            "xor {t0:e}, {t0:e}", "stc",
            "jmp 8f",
            "2:",
            "test {j}, {j}",
            "jz 3f",
            // j = 1: carry in t1
            "mov {t1}, {c}",
            "xor {t0:e}, {t0:e}", "stc",
            "jmp 6f",
            "3:",
            "xor {t0:e}, {t0:e}", "stc",
            "jmp 5f",
            "4:",
            "xor {t0:e}, {t0:e}", "stc",
            "jmp 7f",
            "5:",
            "mulx {t1}, {t0}, qword ptr [{ap}]",
            "adox {t0}, {c}",
            "not {t0}",
            "adcx {t0}, qword ptr [{rp}]",
            "mov qword ptr [{rp}], {t0}",
            "6:",
            "mulx {c}, {t0}, qword ptr [{ap} + 8]",
            "adox {t0}, {t1}",
            "not {t0}",
            "adcx {t0}, qword ptr [{rp} + 8]",
            "mov qword ptr [{rp} + 8], {t0}",
            "7:",
            "mulx {t1}, {t0}, qword ptr [{ap} + 16]",
            "adox {t0}, {c}",
            "not {t0}",
            "adcx {t0}, qword ptr [{rp} + 16]",
            "mov qword ptr [{rp} + 16], {t0}",
            "8:",
            "mulx {c}, {t0}, qword ptr [{ap} + 24]",
            "adox {t0}, {t1}",
            "not {t0}",
            "adcx {t0}, qword ptr [{rp} + 24]",
            "mov qword ptr [{rp} + 24], {t0}",
            "lea {ap}, [{ap} + 32]",
            "lea {rp}, [{rp} + 32]",
            "lea rcx, [rcx - 1]",
            "jrcxz 9f",
            "jmp 5b",
            "9:",
            "mov {t0:e}, 0",
            "adox {c}, {t0}",
            "cmc",
            "adcx {c}, {t0}",
            ap = inout(reg) a.wrapping_sub(j) => _,
            rp = inout(reg) r.wrapping_sub(j) => _,
            j = in(reg) j,
            c = inout(reg) c,
            t0 = out(reg) _,
            t1 = out(reg) _,
            inout("rcx") (n + j) / 4 => _,
            in("rdx") b,
            options(nostack),
        );
    }
    c
}

/// `r = a + b` (or `a - b` with `SUB`) over `4*blocks` limbs with carry
/// (borrow) in `c`; returns the carry (borrow) out. `r` may equal `a` or `b`.
/// With `NT` the results are written with non-temporal stores (`movnti`:
/// no read for ownership of `r`; the caller issues `sfence` before another
/// thread reads `r`).
///
/// # Safety
/// Pointers valid for `4*blocks` limbs, `blocks >= 1`; plain x86-64.
#[inline]
pub unsafe fn add_sub_n<const SUB: bool, const NT: bool>(
    r: *mut u64,
    a: *const u64,
    b: *const u64,
    blocks: usize,
    c: bool,
) -> bool {
    debug_assert!(blocks >= 1);
    let mut c = c as u64;
    macro_rules! chain {
        ($op:literal, $st:literal) => {
            unsafe {
                asm!(
                    // CF = c (c is 0 or 1: 0 - 1 borrows)
                    "neg {c}",
                    "2:",
                    "mov {t0}, qword ptr [{ap}]",
                    concat!($op, " {t0}, qword ptr [{bp}]"),
                    "mov {t1}, qword ptr [{ap} + 8]",
                    concat!($op, " {t1}, qword ptr [{bp} + 8]"),
                    concat!($st, " qword ptr [{rp}], {t0}"),
                    concat!($st, " qword ptr [{rp} + 8], {t1}"),
                    "mov {t0}, qword ptr [{ap} + 16]",
                    concat!($op, " {t0}, qword ptr [{bp} + 16]"),
                    "mov {t1}, qword ptr [{ap} + 24]",
                    concat!($op, " {t1}, qword ptr [{bp} + 24]"),
                    concat!($st, " qword ptr [{rp} + 16], {t0}"),
                    concat!($st, " qword ptr [{rp} + 24], {t1}"),
                    "lea {ap}, [{ap} + 32]",
                    "lea {bp}, [{bp} + 32]",
                    "lea {rp}, [{rp} + 32]",
                    "dec {n}",
                    "jnz 2b",
                    "mov {c:e}, 0",
                    "adc {c:e}, 0",
                    ap = inout(reg) a => _,
                    bp = inout(reg) b => _,
                    rp = inout(reg) r => _,
                    n = inout(reg) blocks => _,
                    c = inout(reg) c,
                    t0 = out(reg) _,
                    t1 = out(reg) _,
                    options(nostack),
                );
            }
        };
    }
    match (SUB, NT) {
        (true, false) => chain!("sbb", "mov"),
        (false, false) => chain!("adc", "mov"),
        (true, true) => chain!("sbb", "movnti"),
        (false, true) => chain!("adc", "movnti"),
    }
    c != 0
}

/// Schoolbook `r[..an+bn] = a * b` with `an = 4*blocks`, one row of
/// `mulx`/`adcx`/`adox` per limb of `b`.
///
/// # Safety
/// BMI2 and ADX present; `r` valid for `an + bn` limbs, `a` for `an`, `b`
/// for `bn >= 1`, `blocks >= 1`; `r` overlaps neither input.
#[target_feature(enable = "bmi2,adx")]
pub unsafe fn mul_basecase(r: *mut u64, a: *const u64, blocks: usize, b: *const u64, bn: usize) {
    debug_assert!(blocks >= 1 && bn >= 1);
    unsafe {
        asm!(
            // Row 0: r = a * b[0].
            "mov rdx, qword ptr [{bp}]",
            "mov rcx, {blocks}",
            "xor {c:e}, {c:e}",
            "2:",
            "mulx {t1}, {t0}, qword ptr [{ap}]",
            "adcx {t0}, {c}",
            "mov qword ptr [{rp}], {t0}",
            "mulx {c}, {t0}, qword ptr [{ap} + 8]",
            "adcx {t0}, {t1}",
            "mov qword ptr [{rp} + 8], {t0}",
            "mulx {t1}, {t0}, qword ptr [{ap} + 16]",
            "adcx {t0}, {c}",
            "mov qword ptr [{rp} + 16], {t0}",
            "mulx {c}, {t0}, qword ptr [{ap} + 24]",
            "adcx {t0}, {t1}",
            "mov qword ptr [{rp} + 24], {t0}",
            "lea {ap}, [{ap} + 32]",
            "lea {rp}, [{rp} + 32]",
            "lea rcx, [rcx - 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            "mov {t0:e}, 0",
            "adcx {c}, {t0}",
            "mov qword ptr [{rp}], {c}",
            // Rows 1..bn: r[j..] += a * b[j].
            "4:",
            "dec {rows}",
            "jz 9f",
            "lea {bp}, [{bp} + 8]",
            "mov rdx, qword ptr [{bp}]",
            "sub {ap}, {an8}",
            "sub {rp}, {an8}",
            "lea {rp}, [{rp} + 8]",
            "mov rcx, {blocks}",
            "xor {c:e}, {c:e}",
            "5:",
            "mulx {t1}, {t0}, qword ptr [{ap}]",
            "adox {t0}, {c}",
            "adcx {t0}, qword ptr [{rp}]",
            "mov qword ptr [{rp}], {t0}",
            "mulx {c}, {t0}, qword ptr [{ap} + 8]",
            "adox {t0}, {t1}",
            "adcx {t0}, qword ptr [{rp} + 8]",
            "mov qword ptr [{rp} + 8], {t0}",
            "mulx {t1}, {t0}, qword ptr [{ap} + 16]",
            "adox {t0}, {c}",
            "adcx {t0}, qword ptr [{rp} + 16]",
            "mov qword ptr [{rp} + 16], {t0}",
            "mulx {c}, {t0}, qword ptr [{ap} + 24]",
            "adox {t0}, {t1}",
            "adcx {t0}, qword ptr [{rp} + 24]",
            "mov qword ptr [{rp} + 24], {t0}",
            "lea {ap}, [{ap} + 32]",
            "lea {rp}, [{rp} + 32]",
            "lea rcx, [rcx - 1]",
            "jrcxz 6f",
            "jmp 5b",
            "6:",
            "mov {t0:e}, 0",
            "adox {c}, {t0}",
            "adcx {c}, {t0}",
            "mov qword ptr [{rp}], {c}",
            "jmp 4b",
            "9:",
            ap = inout(reg) a => _,
            bp = inout(reg) b => _,
            rp = inout(reg) r => _,
            rows = inout(reg) bn => _,
            blocks = in(reg) blocks,
            an8 = in(reg) blocks * 32,
            c = out(reg) _,
            t0 = out(reg) _,
            t1 = out(reg) _,
            out("rcx") _,
            out("rdx") _,
            options(nostack),
        );
    }
}
