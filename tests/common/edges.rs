#![allow(dead_code)]
//! The range and precision edges of tests/edges_mpfr.txt (made by
//! scripts/edges_gen.py with GNU MPFR 4.2 and GNU MPC): parsing the file
//! into groups of one operation, precision and rounding mode, and
//! evaluating a group on an engine (shared by float_edges and
//! float_edges_cuda).

use malachite_nz::integer::Integer;
use mparray::complex::{CFunc, CRound, ComplexArray};
use mparray::float::func::{Func, Func2};
use mparray::{Engine, FloatArray, Round};

/// One line: the arguments and MPFR's (or MPC's) result and ternary.
#[derive(Clone)]
pub struct Case {
    pub line: String,
    pub args: Vec<String>,
    pub want: String,
    pub want_t: String,
}

/// Lines of one kind (`r` real, `c` complex), operation, output and input
/// precisions, rounding mode (and, for mul2/div2, exponent `k`).
#[derive(Clone)]
pub struct Group {
    pub kind: char,
    pub op: String,
    pub p: u64,
    pub q: u64,
    pub rnd: String,
    pub k: i64,
    pub cases: Vec<Case>,
}

pub fn groups() -> Vec<Group> {
    groups_in("tests/edges_mpfr.txt")
}

/// The groups of a file of the same format (`rel`: relative to the crate).
pub fn groups_in(rel: &str) -> Vec<Group> {
    let path = format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect(rel);
    let mut out: Vec<Group> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let parts: Vec<&str> = line.split(" | ").collect();
        assert_eq!(parts.len(), 3, "{line}");
        let w: Vec<&str> = parts[0].split(' ').collect();
        let (kind, op) = (w[0].chars().next().unwrap(), w[1].to_string());
        let (p, q, rnd) = (
            w[2].parse().unwrap(),
            w[3].parse().unwrap(),
            w[4].to_string(),
        );
        let mut args: Vec<String> = w[5..].iter().map(|s| s.to_string()).collect();
        let k = if kind == 'r' && (op == "mul2" || op == "div2") {
            args.pop().unwrap().parse().unwrap()
        } else {
            0
        };
        let case = Case {
            line: line.to_string(),
            args,
            want: parts[1].to_string(),
            want_t: parts[2].to_string(),
        };
        match out.last_mut() {
            Some(g)
                if g.kind == kind && g.op == op && (g.p, g.q, g.k) == (p, q, k) && g.rnd == rnd =>
            {
                g.cases.push(case)
            }
            _ => out.push(Group {
                kind,
                op,
                p,
                q,
                rnd,
                k,
                cases: vec![case],
            }),
        }
    }
    out
}

fn round(c: char) -> Round {
    Round::from_name(&c.to_string()).unwrap()
}

/// Argument `j` of every case, read at `q` bits to nearest, on `eng`.
fn arg(g: &Group, j: usize, eng: &Engine) -> FloatArray {
    let s: Vec<&str> = g.cases.iter().map(|c| c.args[j].as_str()).collect();
    FloatArray::from_strs_ternary(g.q, &s, Round::Nearest)
        .unwrap()
        .0
        .into_engine(eng)
        .unwrap()
}

/// The group evaluated on `eng`: per case the result as MPFR prints it
/// (`%Ra`, two for a complex result) and the ternary value(s).
pub fn eval(g: &Group, eng: &Engine) -> Result<Vec<(String, String)>, String> {
    let p = g.p;
    let hex = |a: &FloatArray| a.to_hex_strings().unwrap();
    let tern = |t: Vec<i8>| t.into_iter().map(|x| x.to_string()).collect::<Vec<_>>();
    if g.kind == 'r' {
        let rnd = round(g.rnd.chars().next().unwrap());
        let x = arg(g, 0, eng);
        let y = || arg(g, 1, eng);
        let (r, t) = match g.op.as_str() {
            "add" => x.add_ternary(&y(), p, rnd),
            "sub" => x.sub_ternary(&y(), p, rnd),
            "mul" => x.mul_ternary(&y(), p, rnd),
            "div" => x.div_ternary(&y(), p, rnd),
            "min" => x.min_ternary(&y(), p, rnd),
            "max" => x.max_ternary(&y(), p, rnd),
            "sqrt" => x.sqrt_ternary(p, rnd),
            "neg" => x.neg_ternary(p, rnd),
            "abs" => x.abs_ternary(p, rnd),
            "set" => x.set_prec_ternary(p, rnd),
            "mul2" => x.mul_2si_ternary(g.k, p, rnd),
            "div2" => x.div_2si_ternary(g.k, p, rnd),
            "fma" => x.fma_ternary(&y(), &arg(g, 2, eng), p, rnd),
            "fms" => x.fms_ternary(&y(), &arg(g, 2, eng), p, rnd),
            "pow_z" => {
                let z: Vec<Integer> = g.cases.iter().map(|c| c.args[1].parse().unwrap()).collect();
                x.pow_z_ternary(&z, p, rnd).map(|r| (r.0, r.1))
            }
            "atan2" => x
                .func2_ternary(&y(), Func2::Atan2, p, rnd)
                .map(|r| (r.0, r.1)),
            "hypot" => x
                .func2_ternary(&y(), Func2::Hypot, p, rnd)
                .map(|r| (r.0, r.1)),
            "pow" => x
                .func2_ternary(&y(), Func2::Pow, p, rnd)
                .map(|r| (r.0, r.1)),
            "agm" => x
                .func2_ternary(&y(), Func2::Agm, p, rnd)
                .map(|r| (r.0, r.1)),
            f => {
                let f = Func::from_name(f).unwrap_or_else(|| panic!("unknown op {f}"));
                x.func_ternary(f, p, rnd).map(|r| (r.0, r.1))
            }
        }
        .map_err(|e| e.to_string())?;
        assert!(
            r.engine().same_as(eng),
            "{}: the result left the engine",
            g.op
        );
        return Ok(hex(&r).into_iter().zip(tern(t.to_vec().unwrap())).collect());
    }
    let rr = CRound::from_name(&g.rnd).unwrap();
    let c = |j: usize| ComplexArray::new(arg(g, j, eng), arg(g, j + 1, eng)).unwrap();
    let x = c(0);
    if let Some(f) = ["abs", "norm", "arg"].iter().position(|&n| n == g.op) {
        let (r, t) = match f {
            0 => x.abs_ternary(p, rr.re),
            1 => x.norm_ternary(p, rr.re),
            _ => x.arg_ternary(p, rr.re),
        }
        .map_err(|e| e.to_string())?;
        return Ok(hex(&r).into_iter().zip(tern(t.to_vec().unwrap())).collect());
    }
    let (r, t) = match (g.op.as_str(), CFunc::from_name(&g.op)) {
        (_, Some(f)) => x.func_ternary(f, p, p, rr),
        ("add", _) => x.add_ternary(&c(2), p, p, rr),
        ("sub", _) => x.sub_ternary(&c(2), p, p, rr),
        ("mul", _) => x.mul_ternary(&c(2), p, p, rr),
        ("div", _) => x.div_ternary(&c(2), p, p, rr),
        ("pow", _) => x.pow_ternary(&c(2), p, p, rr),
        ("sqr", _) => x.sqr_ternary(p, p, rr),
        ("neg", _) => x.neg_ternary(p, p, rr),
        ("conj", _) => x.conj_ternary(p, p, rr),
        (o, _) => panic!("unknown complex op {o}"),
    }
    .map_err(|e| e.to_string())?;
    let (re, im) = r.into_parts();
    let t = t.to_pairs().unwrap();
    Ok(hex(&re)
        .into_iter()
        .zip(hex(&im))
        .zip(t)
        .map(|((a, b), (u, v))| (format!("{a} {b}"), format!("{u} {v}")))
        .collect())
}

/// The lines of `g` whose result in `r` (from [`eval`]) is not the
/// reference's, as `line: got VALUE | TERNARY` (or `line: error E`).
pub fn compare(g: &Group, r: Result<Vec<(String, String)>, String>) -> Vec<String> {
    match r {
        Err(e) => g
            .cases
            .iter()
            .map(|c| format!("{}: error {e}", c.line))
            .collect(),
        Ok(got) => g
            .cases
            .iter()
            .zip(got)
            .filter(|(c, (v, t))| *v != c.want || *t != c.want_t)
            .map(|(c, (v, t))| format!("{}: got {v} | {t}", c.line))
            .collect(),
    }
}
