//! CUDA C++ for an expression shape. Three generators:
//! - [`sum_kernel`]: a sum of inputs (`a+b+a+...`, additions only) as the
//!   staged carry-scan kernel of int_add.cu (its six-add generalised to any
//!   sequence of terms: the 6-Add expression gives the same code as the
//!   hand-fused kernel);
//! - [`int_kernel`]: any integer expression, a thread per element, the
//!   intermediates in local arrays (or global scratch for wide elements);
//! - [`float_kernel`]: any float expression, a thread per element, each
//!   operation the per-element code of float_common.cuh that FloatArray's
//!   kernels run (the register fast paths where the limb counts allow;
//!   [`float_kernel_regs`] up to 16 limbs);
//! - [`complex_kernel`]: complex `+ - *` and unary minus, a thread per
//!   element, both parts of each node by fl_arith as ComplexArray's device
//!   operations compute them; elements with an unusual product listed for
//!   the CPU engine.
//!
//! Each source pastes only the headers it uses; entry points of the
//! included kernel files are cut off, so NVRTC compiles one kernel.

use std::fmt::Write as _;

use super::cpu::FConst;
use super::{Expr, Node, Op};
use crate::kernels::{COMMON, FLOAT_COMMON, INT_ADD};

/// The int_add.cu device code without its entry points.
fn int_add_body() -> String {
    let code = INT_ADD.code;
    let cut = code.find("// Entry points.").unwrap_or(code.len());
    code[..cut].replace("#include \"common.cuh\"", COMMON)
}

pub const EXPR_INT: &str = include_str!("../kernels/expr_int.cuh");

/// The flattened terms of a sum of inputs (additions only, at least two
/// terms), left to right; None for any other shape.
pub fn sum_terms(expr: &Expr) -> Option<Vec<usize>> {
    fn walk(e: &Expr, i: usize, out: &mut Vec<usize>) -> bool {
        match &e.nodes()[i] {
            Node::Input(k) => {
                out.push(*k);
                true
            }
            // The deeper operand first (hash-consing orders operands by
            // node index): a left-nested chain walks left to right.
            Node::Op(Op::Add, a) => {
                let (p, q) = match (&e.nodes()[a[0]], &e.nodes()[a[1]]) {
                    (Node::Input(_), Node::Op(..)) => (a[1], a[0]),
                    _ => (a[0], a[1]),
                };
                walk(e, p, out) && walk(e, q, out)
            }
            _ => false,
        }
    }
    let mut t = Vec::new();
    (matches!(expr.nodes().get(expr.root()), Some(Node::Op(Op::Add, _)))
        && walk(expr, expr.root(), &mut t))
    .then_some(t)
}

/// Distinct inputs of `terms`, in order of first use.
pub fn sum_inputs(terms: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = Vec::new();
    for &t in terms {
        if !v.contains(&t) {
            v.push(t);
        }
    }
    v
}

/// The staged sum kernels `expr_sum_staged` (L % ADD_K == 0) and
/// `expr_sum_general` (any L), arguments `(r, in_0 .. in_{m-1}, n, L, E)`
/// with the distinct inputs of `terms` ([`sum_inputs`]).
pub fn sum_kernel(terms: &[usize], k: usize, block: u32) -> String {
    let ins = sum_inputs(terms);
    let slot = |t: usize| ins.iter().position(|&x| x == t).expect("input");
    let steps = terms.len() - 1;
    let mut s = String::new();
    let _ = writeln!(s, "// Generated: sum of {} terms {:?}", terms.len(), terms);
    let _ = writeln!(s, "#define ADD_K {k}\n#define ADD_B {block}");
    s.push_str(&int_add_body());
    let params: Vec<String> = (0..ins.len())
        .map(|j| format!("const u64 *in{j}"))
        .collect();
    for general in [false, true] {
        let name = if general {
            "expr_sum_general"
        } else {
            "expr_sum_staged"
        };
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void __launch_bounds__(ADD_B) {name}(u64 *r, {}, u64 n, u32 L, u32 E) {{",
            params.join(", ")
        );
        s.push_str("    __shared__ u32 slots[2][ADD_NW];\n");
        s.push_str("    __shared__ ulonglong2 stage[ADD_NW][ADD_U];\n");
        s.push_str("    ulonglong2 *buf = stage[threadIdx.x >> 5];\n");
        if !general {
            s.push_str("    Slot sl[2] = {slot_ref(slots[0]), slot_ref(slots[1])};\n");
        }
        s.push_str("    u64 units = (n + E - 1) / E;\n");
        s.push_str("    for (u64 u = blockIdx.x; u < units; u += gridDim.x) {\n        ADD_UNIT\n");
        let _ = writeln!(s, "        u32 cb[{steps}] = {{0}};");
        let _ = writeln!(
            s,
            "        for (u64 w = {}; w < hi; w += ADD_T) {{",
            if general { "lo & ~1ull" } else { "lo" }
        );
        s.push_str("            u64 xs = stage_origin(w);\n");
        let ev = if general { "false" } else { "true" };
        for j in 0..ins.len() {
            let _ = writeln!(
                s,
                "            u64 p{j}[ADD_R][2]; load_pairs<{ev}>(p{j}, in{j}, xs, lo, hi);"
            );
        }
        for j in 0..ins.len() {
            let _ = writeln!(s, "            u64 v{j}[ADD_K]; stage_in(v{j}, p{j}, buf);");
        }
        s.push_str("            u64 sum[ADD_K];\n            u64 x0 = w + threadIdx.x * ADD_K;\n");
        let (t0, t1) = (slot(terms[0]), slot(terms[1]));
        if general {
            s.push_str("            Masks m = chunk_masks(x0, lo, hi, L);\n");
            s.push_str("            u32 kill = m.ends | (~m.valid & ADD_KMASK);\n");
            let _ = writeln!(
                s,
                "            step_general<0>(sum, v{t0}, v{t1}, kill, cb[0], slots[0]);"
            );
            for (st, &t) in terms.iter().enumerate().skip(2) {
                let _ = writeln!(
                    s,
                    "            step_general<0>(sum, sum, v{}, kill, cb[{}], slots[{}]);",
                    slot(t),
                    st - 1,
                    (st - 1) & 1
                );
            }
        } else {
            s.push_str("            u32 live = x0 < hi && ((u32)(x0 - lo) + ADD_K) % L != 0;\n");
            let _ = writeln!(
                s,
                "            u32 g = add_chain(sum, v{t0}, v{t1}), p = all_ones(sum);"
            );
            s.push_str("            u32 lc = lane_carry(g & live, p & live, cb[0], sl[0]);\n");
            for (st, &t) in terms.iter().enumerate().skip(2) {
                let _ = writeln!(
                    s,
                    "            {{ u32 inc = p & (lc != 0); g = acc_chain(sum, v{}, lc) ^ inc; p = all_ones(sum); lc = lane_carry(g & live, p & live, cb[{}], sl[{}]); }}",
                    slot(t),
                    st - 1,
                    (st - 1) & 1
                );
            }
            s.push_str("            inc_chain(sum, lc != 0);\n");
        }
        s.push_str("            stage_out(p0, sum, buf);\n");
        let _ = writeln!(s, "            store_pairs<{ev}>(r, p0, xs, lo, hi);");
        s.push_str("        }\n    }\n}\n");
    }
    s
}

/// Limbs up to which the thread-per-element kernel keeps its values in
/// local arrays; above, in global scratch (`slots * len * L` limbs).
pub const LOCAL_MAX_LIMBS: usize = 32;

/// The number of operation nodes that need storage (live, not inputs or
/// constants).
pub fn op_slots(expr: &Expr) -> usize {
    let live = expr.live();
    expr.nodes()
        .iter()
        .enumerate()
        .filter(|(i, n)| live[*i] && matches!(n, Node::Op(..)))
        .count()
}

fn limb_list(v: &[u64]) -> String {
    v.iter()
        .map(|x| format!("0x{x:x}ull"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The thread-per-element integer kernel `expr_int(r, scratch, in_0 ..
/// in_{m-1}, n)` for `limbs`-limb elements; constants inline.
pub fn int_kernel(expr: &Expr, limbs: usize, consts: &[Option<Vec<u64>>]) -> String {
    let live = expr.live();
    let local = limbs <= LOCAL_MAX_LIMBS;
    let mut s = String::new();
    let _ = writeln!(s, "// Generated: {}", expr.canonical());
    let _ = writeln!(s, "#define EX_L {limbs}");
    s.push_str(COMMON);
    s.push_str(EXPR_INT);
    for (i, c) in consts.iter().enumerate() {
        if let (true, Some(c)) = (live[i], c) {
            let _ = writeln!(s, "__device__ const u64 C{i}[EX_L] = {{{}}};", limb_list(c));
        }
    }
    let params: Vec<String> = (0..expr.inputs().len())
        .map(|k| format!("const u64 *__restrict__ in{k}"))
        .collect();
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__(128) expr_int(u64 *__restrict__ r, u64 *__restrict__ scr{}{}, u64 n) {{",
        if params.is_empty() { "" } else { ", " },
        params.join(", ")
    );
    s.push_str(
        "    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {\n",
    );
    let mut name = vec![String::new(); expr.nodes().len()];
    let mut slot = 0;
    for (i, node) in expr.nodes().iter().enumerate() {
        match node {
            Node::Input(k) => name[i] = format!("(in{k} + i * EX_L)"),
            Node::Const(_) => name[i] = format!("C{i}"),
            Node::Op(op, a) => {
                if !live[i] {
                    continue;
                }
                let v = format!("v{i}");
                if local {
                    let _ = writeln!(s, "        u64 {v}[EX_L];");
                } else {
                    let _ = writeln!(s, "        u64 *{v} = scr + ((u64){slot} * n + i) * EX_L;");
                }
                slot += 1;
                let x = |j: usize| name[a[j]].clone();
                let call = match op {
                    Op::Add => format!("ex_add({v}, {}, {})", x(0), x(1)),
                    Op::Sub => format!("ex_sub({v}, {}, {})", x(0), x(1)),
                    Op::Mul => format!("ex_mul({v}, {}, {})", x(0), x(1)),
                    Op::Neg => format!("ex_neg({v}, {})", x(0)),
                    Op::Shl(k) => format!("ex_shl({v}, {}, {k}u)", x(0)),
                    Op::Shr(k) => format!("ex_shr({v}, {}, {k}u)", x(0)),
                    Op::And => format!("ex_and({v}, {}, {})", x(0), x(1)),
                    Op::Or => format!("ex_or({v}, {}, {})", x(0), x(1)),
                    Op::Xor => format!("ex_xor({v}, {}, {})", x(0), x(1)),
                    Op::Not => format!("ex_not({v}, {})", x(0)),
                    Op::Eq => format!("ex_bool({v}, ex_cmp({}, {}) == 0)", x(0), x(1)),
                    Op::Ne => format!("ex_bool({v}, ex_cmp({}, {}) != 0)", x(0), x(1)),
                    Op::Lt => format!("ex_bool({v}, ex_cmp({}, {}) < 0)", x(0), x(1)),
                    Op::Le => format!("ex_bool({v}, ex_cmp({}, {}) <= 0)", x(0), x(1)),
                    Op::Gt => format!("ex_bool({v}, ex_cmp({}, {}) > 0)", x(0), x(1)),
                    Op::Ge => format!("ex_bool({v}, ex_cmp({}, {}) >= 0)", x(0), x(1)),
                    Op::Select => {
                        format!("ex_copy({v}, ex_nonzero({}) ? {} : {})", x(0), x(1), x(2))
                    }
                    _ => unreachable!("check_kind"),
                };
                let _ = writeln!(s, "        {call};");
                name[i] = v;
            }
        }
    }
    let _ = writeln!(s, "        ex_copy(r + i * EX_L, {});", name[expr.root()]);
    s.push_str("    }\n}\n");
    s
}

/// Threads (elements) per block of the staged float kernel.
pub const FLOAT_TILE: u32 = 64;

/// Whether the staged float kernel fits its static shared memory (48 KiB).
pub fn float_tile_fits(n_out: usize, in_limbs: &[usize]) -> bool {
    let words: usize = in_limbs.iter().map(|l| l | 1).sum::<usize>() + (n_out | 1);
    words * FLOAT_TILE as usize * 8 <= 46 * 1024
}

/// The float kernel `expr_float(rh, rl, h_0, l_0, .., h_{m-1}, l_{m-1},
/// n, rnd)`: output `n_out` limbs at precision `prec` (a constant of the
/// source), input k of `in_limbs[k]` limbs, scratch tier `tier`.
pub fn float_kernel(
    expr: &Expr,
    prec: u64,
    n_out: usize,
    in_limbs: &[usize],
    tier: usize,
    consts: &[Option<FConst>],
    tile: bool,
) -> String {
    let live = expr.live();
    let mut s = String::new();
    let _ = writeln!(s, "// Generated: {}", expr.canonical());
    let _ = writeln!(s, "#define FL_NL {tier}");
    s.push_str(COMMON);
    s.push_str(&FLOAT_COMMON.replace("#include \"common.cuh\"", ""));
    let fast = n_out <= 16 && tier == n_out;
    for (i, c) in consts.iter().enumerate() {
        if let (true, Some(c)) = (live[i], c) {
            let _ = writeln!(
                s,
                "__device__ const u64 C{i}[{}] = {{{}}};",
                n_out,
                limb_list(&c.limbs)
            );
        }
    }
    let mut params = Vec::new();
    for k in 0..in_limbs.len() {
        params.push(format!("const u64 *__restrict__ h{k}"));
        params.push(format!("const u64 *__restrict__ l{k}"));
    }
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({}) expr_float(u64 *__restrict__ rh, u64 *__restrict__ rl, {}, u64 len, u32 rnd) {{",
        if tile { FLOAT_TILE } else { 128 },
        params.join(", ")
    );
    let _ = writeln!(s, "    const u64 p = {prec}ull; const u32 n = {n_out};");
    let so = n_out | 1;
    if tile {
        // Mantissas staged through shared memory (coalesced global
        // traffic), one element per thread, odd strides per element.
        let total: usize = in_limbs
            .iter()
            .map(|l| (l | 1) * FLOAT_TILE as usize)
            .sum::<usize>()
            + so * FLOAT_TILE as usize;
        let _ = writeln!(s, "    __shared__ u64 sm[{total}];");
        let mut off = 0;
        for (k, l) in in_limbs.iter().enumerate() {
            let _ = writeln!(s, "    u64 *s{k} = sm + {off};");
            off += (l | 1) * FLOAT_TILE as usize;
        }
        let _ = writeln!(s, "    u64 *so = sm + {off};");
        // T = blockDim.x (at most FLOAT_TILE), so the host emulation (one
        // thread) runs it too.
        s.push_str("    const u32 T = blockDim.x;\n");
        s.push_str("    u64 ntiles = (len + T - 1) / T;\n");
        s.push_str("    for (u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {\n");
        s.push_str(
            "      u64 base = tile * T; u32 cnt = len - base < T ? (u32)(len - base) : T;\n",
        );
        for (k, l) in in_limbs.iter().enumerate() {
            let _ = writeln!(
                s,
                "      for (u32 q = threadIdx.x; q < cnt * {l}; q += T) {{ u32 e = q / {l}, j = q - e * {l}; s{k}[e * {} + j] = l{k}[base * {l} + q]; }}",
                l | 1
            );
        }
        s.push_str("      __syncthreads();\n");
        s.push_str("      u32 t = threadIdx.x;\n      if (t < cnt) {\n        u64 i = base + t;\n");
    } else {
        s.push_str(
            "    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len; i += (u64)gridDim.x * blockDim.x) {\n",
        );
    }
    // (head expression, limbs pointer, limb count) per node.
    let mut val: Vec<(String, String, usize)> =
        vec![(String::new(), String::new(), 0); expr.nodes().len()];
    let root = expr.root();
    for (i, node) in expr.nodes().iter().enumerate() {
        match node {
            Node::Input(k) => {
                let lk = in_limbs[*k];
                if tile {
                    let _ = writeln!(
                        s,
                        "        const u64 x{i}h = h{k}[i]; const u64 *x{i}m = s{k} + t * {};",
                        lk | 1
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "        const u64 x{i}h = h{k}[i]; const u64 *x{i}m = l{k} + i * {lk};"
                    );
                }
                val[i] = (format!("x{i}h"), format!("x{i}m"), lk);
            }
            Node::Const(_) => {
                if live[i] {
                    let c = consts[i].as_ref().expect("constant");
                    let head = ((c.exp as u64) << 8) | c.tag as u64;
                    let _ = writeln!(s, "        const u64 x{i}h = 0x{head:x}ull;");
                    val[i] = (format!("x{i}h"), format!("C{i}"), n_out);
                }
            }
            Node::Op(op, a) => {
                if !live[i] {
                    continue;
                }
                let out = if i == root {
                    if tile {
                        format!("so + t * {so}")
                    } else {
                        "rl + i * n".to_string()
                    }
                } else {
                    let _ = writeln!(s, "        u64 x{i}m[{n_out}];");
                    format!("x{i}m")
                };
                let _ = writeln!(s, "        u64 x{i}h; {{ FlOut o = {{{out}, n, 0}};");
                let x = |j: usize| val[a[j]].clone();
                let code = |op: &str, xs: &[(String, String, usize)]| -> String {
                    let z = ("0".to_string(), "nullptr".to_string(), 0usize);
                    let get = |j: usize| xs.get(j).cloned().unwrap_or(z.clone());
                    let (a0, a1, a2) = (get(0), get(1), get(2));
                    format!(
                        "fl_arith<FL_NL>({op}, rnd, p, o, {}, {}, {}, {}, {}, {}, {}, {}, {})",
                        a0.0, a0.1, a0.2, a1.0, a1.1, a1.2, a2.0, a2.1, a2.2
                    )
                };
                let body = match op {
                    Op::Add | Op::Sub | Op::Mul => {
                        let (p, q) = (x(0), x(1));
                        let opn = match op {
                            Op::Add => "FL_OP_ADD",
                            Op::Sub => "FL_OP_SUB",
                            _ => "FL_OP_MUL",
                        };
                        let slow = code(opn, &[p.clone(), q.clone()]);
                        if fast && p.2 == n_out && q.2 == n_out {
                            let norm = format!(
                                "(fl_tag({}) & 3) == FL_NORMAL && (fl_tag({}) & 3) == FL_NORMAL",
                                p.0, q.0
                            );
                            let f = if *op == Op::Mul {
                                let short = if n_out >= 4 {
                                    format!(
                                        "if (!fl_mul_short<{n_out}, true>(o, {}, {}, {}, {}, p, rnd, t)) ",
                                        p.0, p.1, q.0, q.1
                                    )
                                } else {
                                    String::new()
                                };
                                format!(
                                    "{{ i8 t = 0; {short}t = fl_mul_fast<{n_out}>(o, {}, {}, {}, {}, p, rnd); (void)t; }}",
                                    p.0, p.1, q.0, q.1
                                )
                            } else {
                                format!(
                                    "fl_add_fast<{n_out}>(o, {}, {}, {}, {}, {}, p, rnd);",
                                    p.0,
                                    p.1,
                                    q.0,
                                    q.1,
                                    *op == Op::Sub
                                )
                            };
                            format!("if ({norm}) {f} else {slow};")
                        } else {
                            format!("{slow};")
                        }
                    }
                    Op::Div => format!("{};", code("FL_OP_DIV", &[x(0), x(1)])),
                    Op::Sqrt => format!("{};", code("FL_OP_SQRT", &[x(0)])),
                    Op::Fma => format!("{};", code("FL_OP_FMA", &[x(0), x(1), x(2)])),
                    Op::Neg => {
                        let p = x(0);
                        format!(
                            "fl_set(o, {}, {}, {}, true, false, 0, p, rnd);",
                            p.0, p.1, p.2
                        )
                    }
                    _ => unreachable!("check_kind"),
                };
                let _ = writeln!(s, "            {body} x{i}h = o.head; }}");
                val[i] = (format!("x{i}h"), format!("x{i}m"), n_out);
            }
        }
    }
    match &expr.nodes()[root] {
        Node::Op(..) => {
            let _ = writeln!(s, "        rh[i] = x{root}h;");
        }
        _ => {
            let v = &val[root];
            let _ = writeln!(
                s,
                "        {{ FlOut o = {{{}, n, 0}}; fl_set(o, {}, {}, {}, false, false, 0, p, rnd); rh[i] = o.head; }}",
                if tile {
                    format!("so + t * {so}")
                } else {
                    "rl + i * n".into()
                },
                v.0,
                v.1,
                v.2
            );
        }
    }
    if tile {
        s.push_str("      }\n      __syncthreads();\n");
        let _ = writeln!(
            s,
            "      for (u32 q = threadIdx.x; q < cnt * n; q += T) {{ u32 e = q / n, j = q - e * n; rl[base * n + q] = so[e * {so} + j]; }}"
        );
        s.push_str("      __syncthreads();\n");
    }
    s.push_str("    }\n}\n");
    s
}

// ---------------------------------------------------------------------------
// The register float kernel (output of at most 16 limbs): the strategy of
// FloatArray's fastest single operations at those sizes (float_arith.cu's
// staged register kernels), for the whole expression in one launch.

/// Largest output limb count of [`float_kernel_regs`].
pub const REGS_MAX_LIMBS: usize = 16;

/// Shared memory a block of the register kernel may use (static limit 48 KiB).
const REGS_SMEM: usize = 46 * 1024;

/// The layout of [`float_kernel_regs`] for one shape: threads (elements)
/// per block, per-thread slots of `stride` limbs in shared memory, and the
/// slot of every live input and operation node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegsPlan {
    pub threads: u32,
    pub stride: usize,
    pub slots: usize,
    pub slot: Vec<Option<usize>>,
    /// The register paths inline at every node (faster code, longer
    /// compiles) rather than inside the one out-of-line function per
    /// operation kind.
    pub inline: bool,
    /// The products of at least 4 limbs by 32-bit limb carry chains
    /// (`fl_mul_short32`) rather than 64-bit ones (`fl_mul_short`, the
    /// product of FloatArray's mul kernels).
    pub mul32: bool,
    /// The register paths with the precision as a compile-time constant
    /// (`EX_P`): the rounding's masks and shifts fold.
    pub const_p: bool,
    /// The register path of each operation kind in its own out-of-line
    /// function (`ex_fast_*`), which calls the exact code (`ex_slow_*`,
    /// another out-of-line function) only when it cannot decide: the fast
    /// function's frame is not the exact code's.
    pub split: bool,
    /// The rounding mode as a compile-time constant (`EX_RND`; the kernel
    /// then serves that mode only, and its source says which).
    pub const_rnd: Option<u32>,
    /// Blocks per SM asked of ptxas (`__launch_bounds__`'s second
    /// argument; 0: none).
    pub min_blocks: u32,
    /// Every thread loads its own element's limbs into its slots (16-byte
    /// words) and stores its own result, with no barrier: the warps of a
    /// block do not wait for each other, so that one computes while
    /// another waits for memory (else the block's loads are coalesced
    /// through shared memory between barriers).
    pub direct: bool,
    /// The products by [`EX_MUL32`] (fl_mul_short32's product, its
    /// rounding on 32-bit words) rather than fl_mul_short32.
    pub mul_round32: bool,
}

/// Whether an operation's result may overwrite an operand's slot: the
/// operations whose register paths read their operands before they write,
/// and whose exact code (fl_arith) builds the result in scratch first (the
/// staged kernels of float_arith.cu write in place the same way).
fn in_place(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Sqrt)
}

/// x / y for normal x, y and destination of EX_N <= 8 limbs in registers:
/// fl_div_num's exact quotient (x shifted up by N + 1 limbs, Knuth's
/// algorithm with compile-time sizes), its normalization (the quotient has
/// its top bit at 64N + 63 or 64N + 64) and the rounding of fl_round_regs.
const EX_DIV_FAST: &str = r#"
__device__ __forceinline__ void ex_div_fast(FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p, u32 rnd) {
    constexpr int N = EX_N, UL = 2 * EX_N + 1;
    u64 u[UL + 1], v[N], q[N + 2];
#pragma unroll
    for (int i = 0; i <= N; i++) u[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        u[N + 1 + i] = xm[i];
        v[i] = ym[i];
    }
    u[UL] = 0;
    fl_divrem_kv<UL, N>(q, u, v, fl_invert_fast(v[N - 1]));
    u64 st = 0;
#pragma unroll
    for (int i = 0; i < N; i++) st |= u[i];
    i64 e = fl_exp(xh) - fl_exp(yh);
    u64 hi[N + 1], below;
    if (q[N + 1] != 0) {
#pragma unroll
        for (int i = 0; i <= N; i++) hi[i] = (q[i + 1] << 63) | (q[i] >> 1);
        below = (q[0] << 63) | st;
        e += 1;
    } else {
        u32 lz = fl_clz(q[N]);
#pragma unroll
        for (int i = 0; i <= N; i++) hi[i] = lz ? (q[i] << lz) | (i ? q[i - 1] >> (64 - lz) : 0) : q[i];
        below = st;
        e -= lz;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    fl_round_regs<N>(o, hi, below, e, neg, p, rnd);
}
"#;

/// x * y for normal x, y and destination of N >= 4 limbs at precision P
/// (a compile-time constant, the output's: 64N - 63 <= P <= 64N): the short
/// product of fl_mul_short32 (the same limb products, the same decision
/// test on the low 62 bits of limb N - 1), then its rounding on 32-bit
/// words: the normalising shift by one bit as funnel shifts, the increment
/// as one carry chain from the word of the unit in the last place, the
/// sticky bit always set (the decided short product has a nonzero bit
/// below the round bit). The same value, ternary and range check as
/// fl_round_regs on the same limbs; with a compile-time precision the
/// masks fold.
pub const EX_MUL32: &str = r#"
__device__ __forceinline__ u32 ex_fsh1(u32 lo, u32 hi) { return (hi << 1) | (lo >> 31); }
template <int N, u64 P>
__device__ __forceinline__ bool ex_mul32(FlOut &o, u64 xh, const u64 *xm, u64 yh, const u64 *ym, u64 p, u32 rnd, i8 &ret) {
    constexpr int M = 2 * N, K = M - 3;
    u32 a[M], b[M];
#pragma unroll
    for (int i = 0; i < N; i++) {
        a[2 * i] = (u32)xm[i];
        a[2 * i + 1] = (u32)(xm[i] >> 32);
        b[2 * i] = (u32)ym[i];
        b[2 * i + 1] = (u32)(ym[i] >> 32);
    }
    u32 E[M + 2], O[M + 3];
#pragma unroll
    for (int c = 0; c < M + 2; c++) E[c] = 0;
#pragma unroll
    for (int c = 0; c < M + 3; c++) O[c] = 0;
    u32 cf = 0;
#pragma unroll
    for (int v = 0; v < M; v++) {
        const u32 bv = b[v];
        const int u0 = K - v > 0 ? K - v : 0;
#pragma unroll
        for (int par = 0; par < 2; par++) {
            u32 *R = par ? O : E;
            const int base = par ? M - 3 : M - 2;
            const int us = u0 + (((u0 + v) & 1) != par ? 1 : 0);
            const int ul = M - 1 - (((M - 1 + v) & 1) != par ? 1 : 0);
            if (us > ul) continue;
            const bool more = ul + 2 <= M;
#pragma unroll
            for (int u = us; u <= ul; u += 2) {
                const int c = u + v - base;
                R[c] = u == us ? fl32_mad_lo_cc(a[u], bv, R[c], cf)
                               : fl32_madc_lo_cc(a[u], bv, R[c], cf);
                R[c + 1] = u == ul && !more ? fl32_madc_hi(a[u], bv, R[c + 1], cf)
                                            : fl32_madc_hi_cc(a[u], bv, R[c + 1], cf);
            }
            if (more) {
                const int c = ul + v + 2 - base;
                R[c] = fl32_addc(R[c], 0, cf);
            }
        }
    }
    E[0] = fl32_add_cc(E[0], O[1], cf);
#pragma unroll
    for (int c = 1; c < M + 1; c++) E[c] = fl32_addc_cc(E[c], O[c + 1], cf);
    E[M + 1] = fl32_addc(E[M + 1], O[M + 2], cf);
    // The decision (fl_mul_short32's): limb N - 1 = E[0], E[1].
    const u64 m62 = (1ull << 62) - 1;
    u64 u = ((u64)E[0] | ((u64)E[1] << 32)) & m62;
    if (u == 0 || u >= m62 - (u64)(2 * N)) return false;
    i64 e = fl_exp(xh) + fl_exp(yh);
    if ((E[M + 1] >> 31) == 0) {
#pragma unroll
        for (int c = M + 1; c > 0; c--) E[c] = ex_fsh1(E[c - 1], E[c]);
        E[0] <<= 1;
        e -= 1;
    }
    bool neg = ((fl_tag(xh) ^ fl_tag(yh)) & FL_NEG) != 0;
    // Kept words E[2..M+1]; low bits of the last place below bit `low`.
    // The precision at compile time (P == p): every index below folds,
    // and the carry chain is one run of add.cc / addc.cc.
    constexpr u32 low = (u32)(64ull * N - P);
    bool rb;
    if constexpr (low > 0) rb = ((E[2 + (low - 1) / 32] >> ((low - 1) % 32)) & 1) != 0;
    else rb = (E[1] >> 31) != 0;
    bool inc;
    switch (rnd) {
    case FL_RN: inc = rb; break;
    case FL_RZ: inc = false; break;
    case FL_RU: inc = !neg; break;
    case FL_RD: inc = neg; break;
    default: inc = true; break;
    }
    // Clear the bits below the last place.
#pragma unroll
    for (int w = 0; w < M; w++) {
        if ((u32)(32 * w + 32) <= low) E[2 + w] = 0;
        else if ((u32)(32 * w) < low) E[2 + w] &= ~((1u << (low % 32)) - 1);
    }
    if (inc) {
        constexpr u32 w0 = low / 32, add = 1u << (low % 32);
        u32 carry = 0;
        cf = 0;
#pragma unroll
        for (int w = 0; w < M; w++) {
            if ((u32)w == w0) E[2 + w] = fl32_add_cc(E[2 + w], add, cf);
            else if ((u32)w > w0) E[2 + w] = fl32_addc_cc(E[2 + w], 0, cf);
        }
        carry = fl32_addc(0, 0, cf);
        if (carry) {
            E[M + 1] = 0x80000000u;
            e += 1;
        }
    }
#pragma unroll
    for (int i = 0; i < N; i++) o.m[i] = (u64)E[2 + 2 * i] | ((u64)E[3 + 2 * i] << 32);
    ret = fl_finish(o, neg, e, fl_ternary(inc, neg), inc, p, rnd);
    return true;
}
"#;

/// The register kernel's options that `expr::eval_float` takes unless
/// `MPARRAY_EXPR_OPT` names others (see [`RegsPlan::set_opt`]): all five,
/// the fastest on the H200 (notes/expr.md); "0" is the kernel without them.
pub const REGS_DEFAULT_OPT: &str = "psrdf";

impl RegsPlan {
    /// Sets the code options from letters: `p` compile-time precision,
    /// `r` compile-time rounding mode (`rnd`, the launch's), `s` fast and
    /// exact code in separate functions, `d` direct per-thread loads and
    /// stores without barriers, `f` the products' rounding on 32-bit words
    /// ([`EX_MUL32`]). Letters absent are off (e.g. "0": the kernel as
    /// first built, for measurements).
    pub fn set_opt(&mut self, opt: &str, rnd: u32) {
        self.const_p = opt.contains('p');
        self.split = opt.contains('s');
        self.direct = opt.contains('d');
        self.mul_round32 = opt.contains('f');
        self.const_rnd = opt.contains('r').then_some(rnd);
    }
}

/// The plan of the register kernel, or None when the output has more than
/// [`REGS_MAX_LIMBS`] limbs or the slots of 32 elements do not fit.
/// Every live input is staged into a slot at the start of a tile; an
/// operation writes its result into a slot freed by its last use of an
/// operand (in place, as the single-operation kernels do) or into a free
/// one.
pub fn regs_plan(expr: &Expr, n_out: usize, in_limbs: &[usize]) -> Option<RegsPlan> {
    if n_out > REGS_MAX_LIMBS {
        return None;
    }
    let live = expr.live();
    let nodes = expr.nodes();
    let maxl = nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| live[*i])
        .filter_map(|(_, n)| match n {
            Node::Input(k) => Some(in_limbs[*k]),
            _ => None,
        })
        .fold(n_out, usize::max);
    if maxl > 64 {
        return None;
    }
    let stride = maxl | 1;
    // Last use of every node (the root is used by the output).
    let mut last = vec![0usize; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let (true, Node::Op(_, a)) = (live[i], n) {
            for &j in a {
                last[j] = i;
            }
        }
    }
    last[expr.root()] = usize::MAX;
    let mut slot: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut free: Vec<usize> = Vec::new();
    let mut count = 0usize;
    for (i, n) in nodes.iter().enumerate() {
        if live[i] && matches!(n, Node::Input(_)) {
            slot[i] = Some(count);
            count += 1;
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        let Node::Op(op, a) = n else { continue };
        if !live[i] {
            continue;
        }
        let mut dying: Vec<usize> = Vec::new();
        for &j in a.iter() {
            if let (true, Some(s)) = (last[j] == i, slot[j])
                && !dying.contains(&s)
            {
                dying.push(s);
            }
        }
        let s = if in_place(*op) && !dying.is_empty() {
            dying.remove(0)
        } else if let Some(s) = free.pop() {
            s
        } else {
            count += 1;
            count - 1
        };
        slot[i] = Some(s);
        free.extend(dying);
    }
    if !matches!(nodes[expr.root()], Node::Op(..)) {
        // The output of a bare input or constant: one more slot.
        count += 1;
    }
    let per = count * stride * 8;
    let threads = [128u32, 64, 32]
        .into_iter()
        .find(|&t| per * t as usize <= REGS_SMEM)?;
    Some(RegsPlan {
        threads,
        stride,
        slots: count,
        slot,
        inline: false,
        mul32: true,
        const_p: false,
        split: false,
        const_rnd: None,
        min_blocks: 0,
        direct: false,
        mul_round32: false,
    })
}

/// The register float kernel `expr_float(rh, rl, h_0, l_0, .., n, rnd)`
/// (the arguments of [`float_kernel`]; launched with `plan.threads`
/// threads per block). Per tile of `plan.threads` elements: every live
/// input's limbs loaded coalesced (16-byte words when the limb count is
/// even) into the per-thread slots in shared memory, then per element each
/// operation with the register code of FloatArray's fastest kernels at
/// this size (the short product, fl_add_fast, fl_sqrt_fast up to 8 limbs;
/// operands of `n_out` limbs, normal), its result in a slot; what those
/// paths leave (special values, a short product that cannot decide,
/// division, fma, negation, operands of other limb counts) by the exact
/// code of fl_arith, one out-of-line function per operation kind. Then the
/// root's slot is stored coalesced.
pub fn float_kernel_regs(
    expr: &Expr,
    prec: u64,
    n_out: usize,
    in_limbs: &[usize],
    tier: usize,
    consts: &[Option<FConst>],
    plan: &RegsPlan,
) -> String {
    let live = expr.live();
    let nodes = expr.nodes();
    let root = expr.root();
    let n = n_out;
    let st = plan.stride;
    let mut s = String::new();
    let _ = writeln!(s, "// Generated: {}", expr.canonical());
    let _ = writeln!(
        s,
        "#define FL_NL {tier}\n#define EX_N {n}\n#define EX_T {}\n#define EX_S {st}\n#define EX_P {prec}ull",
        plan.threads
    );
    if let Some(r) = plan.const_rnd {
        let _ = writeln!(s, "#define EX_RND {r}u");
    }
    s.push_str(COMMON);
    s.push_str(&FLOAT_COMMON.replace("#include \"common.cuh\"", ""));
    for (i, c) in consts.iter().enumerate() {
        if let (true, Some(c)) = (live[i], c) {
            let _ = writeln!(
                s,
                "__device__ const u64 C{i}[{n}] = {{{}}};",
                limb_list(&c.limbs)
            );
        }
    }
    s.push_str(
        "__device__ __forceinline__ bool ex_normal(u64 h) { return (fl_tag(h) & 3) == FL_NORMAL; }\n",
    );
    if n <= 8
        && nodes
            .iter()
            .enumerate()
            .any(|(i, x)| live[i] && matches!(x, Node::Op(Op::Div, _)))
    {
        s.push_str(EX_DIV_FAST);
    }
    let mul_round32 = plan.mul_round32 && plan.mul32 && n >= 4 && !plan.inline;
    if mul_round32 {
        s.push_str(EX_MUL32);
    }
    // The out-of-line exact code, one function per operation kind used.
    let mut kinds: Vec<&str> = Vec::new();
    let mut want = |k: &'static str| {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    };
    for (i, node) in nodes.iter().enumerate() {
        if let (true, Node::Op(op, _)) = (live[i], node) {
            want(float_kind(*op));
        }
    }
    if !matches!(nodes[root], Node::Op(..)) {
        want("SET");
    }
    let mut fast_kinds: Vec<&str> = Vec::new();
    for k in &kinds {
        // Out of line, the register path first (plan.inline: at the node).
        let pre = if plan.inline {
            ""
        } else {
            match *k {
                "MUL" if n >= 4 && plan.mul32 => {
                    "if (lx == EX_N && ly == EX_N && ex_normal(xh) && ex_normal(yh)) { i8 r; if (fl_mul_short32<EX_N>(o, xh, xm, yh, ym, p, rnd, r)) return o.head; }"
                }
                "MUL" if n >= 4 => {
                    "if (lx == EX_N && ly == EX_N && ex_normal(xh) && ex_normal(yh)) { i8 r; if (fl_mul_short<EX_N, true>(o, xh, xm, yh, ym, p, rnd, r)) return o.head; }"
                }
                "MUL" => {
                    "if (lx == EX_N && ly == EX_N && ex_normal(xh) && ex_normal(yh)) { fl_mul_fast<EX_N>(o, xh, xm, yh, ym, p, rnd); return o.head; }"
                }
                "ADD" => {
                    "if (lx == EX_N && ly == EX_N && ex_normal(xh) && ex_normal(yh)) { fl_add_fast<EX_N>(o, xh, xm, yh, ym, false, p, rnd); return o.head; }"
                }
                "SUB" => {
                    "if (lx == EX_N && ly == EX_N && ex_normal(xh) && ex_normal(yh)) { fl_add_fast<EX_N>(o, xh, xm, yh, ym, true, p, rnd); return o.head; }"
                }
                "DIV" if n <= 8 => {
                    "if (lx == EX_N && ly == EX_N && ex_normal(xh) && ex_normal(yh)) { ex_div_fast(o, xh, xm, yh, ym, p, rnd); return o.head; }"
                }
                "SQRT" if n <= 8 => {
                    "if (lx == EX_N && ex_normal(xh) && (fl_tag(xh) & FL_NEG) == 0) { i8 r; if (fl_sqrt_fast<EX_N, true>(o, xh, xm, p, rnd, r)) return o.head; }"
                }
                _ => "",
            }
        };
        let fp = if plan.const_p { "EX_P" } else { "p" };
        let fr = if plan.const_rnd.is_some() {
            "EX_RND"
        } else {
            "rnd"
        };
        let pre = if mul_round32 && *k == "MUL" {
            pre.replace("fl_mul_short32<EX_N>", "ex_mul32<EX_N, EX_P>")
        } else {
            pre.to_string()
        };
        let pre = pre.replace(", p, rnd", &format!(", {fp}, {fr}"));
        let body = match *k {
            "NEG" => "fl_set(o, xh, xm, lx, true, false, 0, p, rnd)".to_string(),
            "SET" => "fl_set(o, xh, xm, lx, false, false, 0, p, rnd)".to_string(),
            op => format!(
                "fl_arith<FL_NL>(FL_OP_{op}, rnd, p, o, xh, xm, lx, yh, ym, ly, zh, zm, lz)"
            ),
        };
        let args = "u32 rnd, u64 p, u64 *om, u64 xh, const u64 *xm, u32 lx, u64 yh, const u64 *ym, u32 ly, u64 zh, const u64 *zm, u32 lz";
        if plan.split && !pre.is_empty() {
            let _ = writeln!(
                s,
                "__device__ __noinline__ u64 ex_slow_{k}({args}) {{\n    FlOut o = {{om, EX_N, 0}};\n    {body};\n    (void)yh; (void)ym; (void)ly; (void)zh; (void)zm; (void)lz;\n    return o.head;\n}}\n__device__ __noinline__ u64 ex_fast_{k}({args}) {{\n    FlOut o = {{om, EX_N, 0}};\n    {pre}\n    return ex_slow_{k}(rnd, p, om, xh, xm, lx, yh, ym, ly, zh, zm, lz);\n}}"
            );
            fast_kinds.push(*k);
        } else {
            let _ = writeln!(
                s,
                "__device__ __noinline__ u64 ex_slow_{k}({args}) {{\n    FlOut o = {{om, EX_N, 0}};\n    {pre}\n    {body};\n    (void)yh; (void)ym; (void)ly; (void)zh; (void)zm; (void)lz;\n    return o.head;\n}}"
            );
        }
    }
    // Coalesced staging of one operand of L limbs: slot base `sh` (thread
    // t at sh + t * EX_S), elements base.. of g; full tiles unrolled.
    s.push_str(
        r#"template <int L>
__device__ __forceinline__ void ex_in(u64 *sh, const u64 *g, u64 base, u32 cnt) {
    const u64 *src = g + base * L;
    if (L % 2 == 0) {
        const ulonglong2 *s2 = (const ulonglong2 *)src;
        if (cnt == EX_T && blockDim.x == EX_T) {
#pragma unroll
            for (u32 r = 0; r < L / 2; r++) {
                u32 k2 = threadIdx.x + r * EX_T, k = 2 * k2, t = k / L, i = k - t * L;
                ulonglong2 v = s2[k2];
                sh[t * EX_S + i] = v.x;
                sh[t * EX_S + i + 1] = v.y;
            }
        } else {
            for (u32 k2 = threadIdx.x; k2 < cnt * L / 2; k2 += blockDim.x) {
                u32 k = 2 * k2, t = k / L, i = k - t * L;
                ulonglong2 v = s2[k2];
                sh[t * EX_S + i] = v.x;
                sh[t * EX_S + i + 1] = v.y;
            }
        }
    } else {
        for (u32 k = threadIdx.x; k < cnt * L; k += blockDim.x) {
            u32 t = k / L, i = k - t * L;
            sh[t * EX_S + i] = src[k];
        }
    }
}
template <int L>
__device__ __forceinline__ void ex_in1(u64 *slot, const u64 *g, u64 i) {
    const u64 *src = g + i * L;
    if (L % 2 == 0) {
#pragma unroll
        for (u32 r = 0; r < L / 2; r++) {
            ulonglong2 v = ((const ulonglong2 *)src)[r];
            slot[2 * r] = v.x;
            slot[2 * r + 1] = v.y;
        }
    } else {
#pragma unroll
        for (u32 r = 0; r < L; r++) slot[r] = src[r];
    }
}
template <int L>
__device__ __forceinline__ void ex_out1(u64 *g, const u64 *slot, u64 i) {
    u64 *dst = g + i * L;
    if (L % 2 == 0) {
#pragma unroll
        for (u32 r = 0; r < L / 2; r++) {
            ulonglong2 v;
            v.x = slot[2 * r];
            v.y = slot[2 * r + 1];
            ((ulonglong2 *)dst)[r] = v;
        }
    } else {
#pragma unroll
        for (u32 r = 0; r < L; r++) dst[r] = slot[r];
    }
}
template <int L>
__device__ __forceinline__ void ex_out(u64 *g, const u64 *sh, u64 base, u32 cnt) {
    u64 *dst = g + base * L;
    if (L % 2 == 0) {
        ulonglong2 *d2 = (ulonglong2 *)dst;
        for (u32 k2 = threadIdx.x; k2 < cnt * L / 2; k2 += blockDim.x) {
            u32 k = 2 * k2, t = k / L, i = k - t * L;
            ulonglong2 v;
            v.x = sh[t * EX_S + i];
            v.y = sh[t * EX_S + i + 1];
            d2[k2] = v;
        }
    } else {
        for (u32 k = threadIdx.x; k < cnt * L; k += blockDim.x) {
            u32 t = k / L, i = k - t * L;
            dst[k] = sh[t * EX_S + i];
        }
    }
}
"#,
    );
    let mut params = Vec::new();
    for k in 0..in_limbs.len() {
        params.push(format!("const u64 *__restrict__ h{k}"));
        params.push(format!("const u64 *__restrict__ l{k}"));
    }
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__(EX_T{}) expr_float(u64 *__restrict__ rh, u64 *__restrict__ rl, {}, u64 len, u32 rnd) {{",
        if plan.min_blocks > 0 {
            format!(", {}", plan.min_blocks)
        } else {
            String::new()
        },
        params.join(", ")
    );
    let _ = writeln!(s, "    const u64 p = {prec}ull;");
    let _ = writeln!(s, "    __shared__ u64 sm[{} * EX_T * EX_S];", plan.slots);
    s.push_str("    const u32 T = blockDim.x;\n    u64 ntiles = (len + T - 1) / T;\n");
    s.push_str("    for (u64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {\n");
    s.push_str("      u64 base = tile * T; u32 cnt = len - base < T ? (u32)(len - base) : T;\n");
    s.push_str("      u32 t = threadIdx.x; u64 i = base + (t < cnt ? t : 0);\n");
    let slot_ptr = |j: usize| format!("(sm + ({j} * EX_T + t) * EX_S)");
    if plan.direct {
        s.push_str("      if (t < cnt) {\n");
    }
    for (i, node) in nodes.iter().enumerate() {
        if let (true, Node::Input(k)) = (live[i], node) {
            let j = plan.slot[i].expect("input slot");
            if plan.direct {
                let _ = writeln!(
                    s,
                    "        ex_in1<{}>({}, l{k}, i); u64 x{i}h = h{k}[i];",
                    in_limbs[*k],
                    slot_ptr(j)
                );
            } else {
                let _ = writeln!(
                    s,
                    "      ex_in<{}>(sm + {j} * EX_T * EX_S, l{k}, base, cnt); u64 x{i}h = h{k}[i];",
                    in_limbs[*k]
                );
            }
        }
    }
    if !plan.direct {
        s.push_str("      __syncthreads();\n      if (t < cnt) {\n");
    }
    // (head, limbs pointer, limb count) per node.
    let mut val: Vec<(String, String, usize)> = vec![Default::default(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        if !live[i] {
            continue;
        }
        match node {
            Node::Input(k) => {
                let j = plan.slot[i].expect("input slot");
                val[i] = (format!("x{i}h"), slot_ptr(j), in_limbs[*k]);
            }
            Node::Const(_) => {
                let c = consts[i].as_ref().expect("constant");
                let head = ((c.exp as u64) << 8) | c.tag as u64;
                let _ = writeln!(s, "        const u64 x{i}h = 0x{head:x}ull;");
                val[i] = (format!("x{i}h"), format!("C{i}"), n);
            }
            Node::Op(op, a) => {
                let j = plan.slot[i].expect("op slot");
                let out = slot_ptr(j);
                let x = |q: usize| val[a[q]].clone();
                let z = ("0".to_string(), "nullptr".to_string(), 0usize);
                let (x0, x1, x2) = (
                    x(0),
                    if a.len() > 1 { x(1) } else { z.clone() },
                    if a.len() > 2 { x(2) } else { z.clone() },
                );
                let kind = float_kind(*op);
                let entry = if fast_kinds.contains(&kind) {
                    "fast"
                } else {
                    "slow"
                };
                let slow = format!(
                    "ex_{entry}_{kind}(rnd, p, o.m, {}, {}, {}, {}, {}, {}, {}, {}, {})",
                    x0.0, x0.1, x0.2, x1.0, x1.1, x1.2, x2.0, x2.1, x2.2
                );
                let both = x0.2 == n && x1.2 == n;
                let fast = match op {
                    _ if !plan.inline => None,
                    Op::Mul if both => Some(if n >= 4 {
                        format!(
                            "if (ex_normal({0}) && ex_normal({2})) {{ i8 r; ok = {4}(o, {0}, {1}, {2}, {3}, p, rnd, r); }}",
                            x0.0,
                            x0.1,
                            x1.0,
                            x1.1,
                            if plan.mul32 {
                                "fl_mul_short32<EX_N>"
                            } else {
                                "fl_mul_short<EX_N, true>"
                            }
                        )
                    } else {
                        format!(
                            "if (ex_normal({0}) && ex_normal({2})) {{ fl_mul_fast<EX_N>(o, {0}, {1}, {2}, {3}, p, rnd); ok = true; }}",
                            x0.0, x0.1, x1.0, x1.1
                        )
                    }),
                    Op::Add | Op::Sub if both => Some(format!(
                        "if (ex_normal({0}) && ex_normal({2})) {{ fl_add_fast<EX_N>(o, {0}, {1}, {2}, {3}, {4}, p, rnd); ok = true; }}",
                        x0.0,
                        x0.1,
                        x1.0,
                        x1.1,
                        *op == Op::Sub
                    )),
                    Op::Div if both && n <= 8 => Some(format!(
                        "if (ex_normal({0}) && ex_normal({2})) {{ ex_div_fast(o, {0}, {1}, {2}, {3}, p, rnd); ok = true; }}",
                        x0.0, x0.1, x1.0, x1.1
                    )),
                    Op::Sqrt if x0.2 == n && n <= 8 => Some(format!(
                        "if (ex_normal({0}) && (fl_tag({0}) & FL_NEG) == 0) {{ i8 r; ok = fl_sqrt_fast<EX_N, true>(o, {0}, {1}, p, rnd, r); }}",
                        x0.0, x0.1
                    )),
                    _ => None,
                };
                let _ = writeln!(s, "        u64 x{i}h; {{ FlOut o = {{{out}, EX_N, 0}};");
                match fast {
                    Some(f) => {
                        let _ = writeln!(
                            s,
                            "          bool ok = false; {f}\n          x{i}h = ok ? o.head : {slow}; }}"
                        );
                    }
                    None => {
                        let _ = writeln!(s, "          x{i}h = {slow}; }}");
                    }
                }
                val[i] = (format!("x{i}h"), out, n);
            }
        }
    }
    let out_slot = match &nodes[root] {
        Node::Op(..) => {
            let _ = writeln!(s, "        rh[i] = x{root}h;");
            plan.slot[root].expect("root slot")
        }
        _ => {
            let j = plan.slots - 1;
            let v = &val[root];
            let _ = writeln!(
                s,
                "        rh[i] = ex_slow_SET(rnd, p, {}, {}, {}, {}, 0, nullptr, 0, 0, nullptr, 0);",
                slot_ptr(j),
                v.0,
                v.1,
                v.2
            );
            j
        }
    };
    if plan.direct {
        let _ = writeln!(
            s,
            "        ex_out1<EX_N>(rl, {}, i);\n      }}\n    }}\n}}",
            slot_ptr(out_slot)
        );
    } else {
        s.push_str("      }\n      __syncthreads();\n");
        let _ = writeln!(
            s,
            "      ex_out<EX_N>(rl, sm + {out_slot} * EX_T * EX_S, base, cnt);\n      __syncthreads();\n    }}\n}}"
        );
    }
    s
}

/// The register kernel's name of a float operation's kind (its out-of-line
/// function and the macro that selects it); `check_kind` admits no other.
fn float_kind(op: Op) -> &'static str {
    match op {
        Op::Add => "ADD",
        Op::Sub => "SUB",
        Op::Mul => "MUL",
        Op::Div => "DIV",
        Op::Sqrt => "SQRT",
        Op::Fma => "FMA",
        Op::Neg => "NEG",
        _ => unreachable!("check_kind"),
    }
}

// ---------------------------------------------------------------------------
// The complex arithmetic kernel (`+ - *`, unary minus): a thread per
// element, both parts of every node, each rounded once as ComplexArray's
// device operations round them.

/// The device functions of the complex kernel. Scratch: the exact
/// products `t = b d` are held at `lb + ld` limbs (at most twice the tier;
/// fl_arith's buffers, 2 NL + 4 limbs, hold the fms window of such a `t`).
const CPLX_PRODUCT: &str = r#"
// One operation of the exact code (fl_arith at the tier), out of line so
// that NVRTC compiles it once whatever the expression's size.
FL_NOINL i8 ex_arith(u32 op, u32 rnd, u64 p, FlOut &o, u64 xh, const u64 *xm, u32 lx, u64 yh,
                     const u64 *ym, u32 ly, u64 zh, const u64 *zm, u32 lz) {
    return fl_arith<FL_NL>(op, rnd, p, o, xh, xm, lx, yh, ym, ly, zh, zm, lz);
}

// x (negated when flip) rounded to the destination.
FL_NOINL void ex_set(FlOut &o, u64 xh, const u64 *xm, u32 lx, bool flip, u64 p, u32 rnd) {
    fl_set(o, xh, xm, lx, flip, false, 0, p, rnd);
}

// (a + bi)(c + di) as CudaComplex::mul_ternary computes it: t = b d and
// u = b c exact (held at lb + ld, lb + lc limbs), then re = a c - t and
// im = a d + u, each rounded once. False (nothing written) where the
// device's mul hands the element to the CPU engine (float_unusual's
// test): a part that is not a normal number (MPC's C99 rules, signed
// zeros), or an exact product whose exponent could leave the range.
FL_NOINL bool ex_cmul(FlOut &re, FlOut &im, u64 p, u32 rre, u32 rim, u64 ah, const u64 *am,
                      u32 la, u64 bh, const u64 *bm, u32 lb, u64 ch, const u64 *cm, u32 lc,
                      u64 dh, const u64 *dm, u32 ld) {
    if ((fl_tag(ah) & 3) != FL_NORMAL || (fl_tag(bh) & 3) != FL_NORMAL ||
        (fl_tag(ch) & 3) != FL_NORMAL || (fl_tag(dh) & 3) != FL_NORMAL)
        return false;
    const i64 ea = fl_exp(ah), eb = fl_exp(bh), ec = fl_exp(ch), ed = fl_exp(dh);
    const i64 es[4] = {ea + ec, eb + ed, ea + ed, eb + ec};
    for (int q = 0; q < 4; q++)
        if (es[q] <= FL_EMIN + 1 || es[q] >= FL_EMAX) return false;
    u64 t[2 * FL_NL], u[2 * FL_NL];
    FlOut ot = {t, lb + ld, 0}, ou = {u, lb + lc, 0};
    ex_arith(FL_OP_MUL, FL_RN, 64ull * (lb + ld), ot, bh, bm, lb, dh, dm, ld, 0, nullptr, 0);
    ex_arith(FL_OP_MUL, FL_RN, 64ull * (lb + lc), ou, bh, bm, lb, ch, cm, lc, 0, nullptr, 0);
    ex_arith(FL_OP_FMS, rre, p, re, ah, am, la, ch, cm, lc, ot.head, t, lb + ld);
    ex_arith(FL_OP_FMA, rim, p, im, ah, am, la, dh, dm, ld, ou.head, u, lb + lc);
    return true;
}
"#;

/// The complex arithmetic kernel `expr_complex` of an expression of `+ - *`
/// and unary minus (check with [`complex_fusable`]) at `prec` bits
/// (`n_out` limbs), inputs of `in_limbs` (real, imaginary) limbs, scratch
/// tier `tier` (at least every limb count), constants `consts` (real,
/// rounded to `prec` in the real part's mode).
///
/// Per element, `ex_celem` computes every live node's two parts in order
/// (add, sub: fl_arith per part; neg: fl_set; mul: `ex_cmul`); the slots of
/// the intermediates are reused by liveness. It returns false where a
/// product's operands are unusual (`ex_cmul`); the kernel then lists the
/// element (`idx[atomicAdd(cnt, 1)]`) and the host recomputes the whole
/// expression for it on the CPU engine.
pub fn complex_kernel(
    expr: &Expr,
    prec: u64,
    n_out: usize,
    in_limbs: &[(usize, usize)],
    tier: usize,
    consts: &[Option<FConst>],
) -> String {
    let live = expr.live();
    let nodes = expr.nodes();
    let root = expr.root();
    let mut s = String::new();
    let _ = writeln!(s, "// Generated complex: {}", expr.canonical());
    let _ = writeln!(s, "#define FL_NL {tier}");
    s.push_str(COMMON);
    s.push_str(&FLOAT_COMMON.replace("#include \"common.cuh\"", ""));
    s.push_str(CPLX_PRODUCT);
    for (i, c) in consts.iter().enumerate() {
        if let (true, Some(c)) = (live[i], c) {
            let _ = writeln!(
                s,
                "__device__ const u64 C{i}[{n_out}] = {{{}}};",
                limb_list(&c.limbs)
            );
        }
    }
    // The last live user of each node: its slot is free after it.
    let mut last = vec![0usize; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let (true, Node::Op(_, a)) = (live[i], n) {
            for &j in a {
                last[j] = i;
            }
        }
    }
    let mut params = Vec::new();
    let mut args = Vec::new();
    for k in 0..in_limbs.len() {
        for part in ["r", "i"] {
            params.push(format!(
                "const u64 *__restrict__ h{part}{k}, const u64 *__restrict__ l{part}{k}"
            ));
            args.push(format!("h{part}{k}, l{part}{k}"));
        }
    }
    // (head, limbs, limb count) of each part of each node.
    type Part = (String, String, usize);
    let none: Part = (String::new(), String::new(), 0);
    let mut val: Vec<[Part; 2]> = vec![[none.clone(), none]; nodes.len()];
    let mut slot = vec![usize::MAX; nodes.len()];
    let (mut free, mut nslots) = (Vec::<usize>::new(), 0usize);
    let mut body = String::new();
    for (i, node) in nodes.iter().enumerate() {
        if !live[i] {
            continue;
        }
        match node {
            Node::Input(k) => {
                let (lr, li) = in_limbs[*k];
                let _ = writeln!(
                    body,
                    "    const u64 x{i}rh = hr{k}[i], x{i}ih = hi{k}[i]; const u64 *x{i}rm = lr{k} + i * {lr}, *x{i}im = li{k} + i * {li};"
                );
                val[i] = [
                    (format!("x{i}rh"), format!("x{i}rm"), lr),
                    (format!("x{i}ih"), format!("x{i}im"), li),
                ];
            }
            Node::Const(_) => {
                let c = consts[i].as_ref().expect("constant");
                let head = ((c.exp as u64) << 8) | c.tag as u64;
                // A real constant: imaginary part +0 (head 0, limbs unread).
                val[i] = [
                    (format!("0x{head:x}ull"), format!("C{i}"), n_out),
                    ("0ull".into(), format!("C{i}"), n_out),
                ];
            }
            Node::Op(op, a) => {
                let (dr, di) = if i == root {
                    ("rrl + i * n".to_string(), "ril + i * n".to_string())
                } else {
                    let k = free.pop().unwrap_or_else(|| {
                        nslots += 1;
                        nslots - 1
                    });
                    slot[i] = k;
                    (format!("s{k}r"), format!("s{k}i"))
                };
                let _ = writeln!(
                    body,
                    "    u64 x{i}rh, x{i}ih; {{ FlOut o = {{{dr}, n, 0}}, q = {{{di}, n, 0}};"
                );
                let x = |j: usize, part: usize| {
                    let v = &val[a[j]][part];
                    format!("{}, {}, {}", v.0, v.1, v.2)
                };
                match op {
                    Op::Add | Op::Sub => {
                        let code = if *op == Op::Add {
                            "FL_OP_ADD"
                        } else {
                            "FL_OP_SUB"
                        };
                        let _ = writeln!(
                            body,
                            "      ex_arith({code}, rre, p, o, {}, {}, 0, nullptr, 0);\n      ex_arith({code}, rim, p, q, {}, {}, 0, nullptr, 0);",
                            x(0, 0),
                            x(1, 0),
                            x(0, 1),
                            x(1, 1)
                        );
                    }
                    Op::Neg => {
                        let _ = writeln!(
                            body,
                            "      ex_set(o, {}, true, p, rre);\n      ex_set(q, {}, true, p, rim);",
                            x(0, 0),
                            x(0, 1)
                        );
                    }
                    Op::Mul => {
                        let _ = writeln!(
                            body,
                            "      if (!ex_cmul(o, q, p, rre, rim, {}, {}, {}, {})) return false;",
                            x(0, 0),
                            x(0, 1),
                            x(1, 0),
                            x(1, 1)
                        );
                    }
                    _ => unreachable!("complex_fusable"),
                }
                let _ = writeln!(body, "      x{i}rh = o.head; x{i}ih = q.head; }}");
                val[i] = [
                    (format!("x{i}rh"), dr, n_out),
                    (format!("x{i}ih"), di, n_out),
                ];
                let mut ops = a.clone();
                ops.dedup();
                for &j in &ops {
                    if slot[j] != usize::MAX && last[j] == i {
                        free.push(slot[j]);
                    }
                }
            }
        }
    }
    match &nodes[root] {
        Node::Op(..) => {
            let _ = writeln!(body, "    rrh[i] = x{root}rh; rih[i] = x{root}ih;");
        }
        // An input or a constant at the root: rounded to p (mpc_set).
        _ => {
            let (r, m) = (&val[root][0], &val[root][1]);
            let _ = writeln!(
                body,
                "    {{ FlOut o = {{rrl + i * n, n, 0}}, q = {{ril + i * n, n, 0}};\n      ex_set(o, {}, {}, {}, false, p, rre); ex_set(q, {}, {}, {}, false, p, rim);\n      rrh[i] = o.head; rih[i] = q.head; }}",
                r.0, r.1, r.2, m.0, m.1, m.2
            );
        }
    }
    let _ = writeln!(
        s,
        "// One element; false where the CPU engine must compute it.\nFL_NOINL bool ex_celem(u64 i, u64 *rrh, u64 *rrl, u64 *rih, u64 *ril, {}, u32 rre, u32 rim) {{",
        params.join(", ")
    );
    let _ = writeln!(s, "    const u64 p = {prec}ull; const u32 n = {n_out};");
    for k in 0..nslots {
        let _ = writeln!(s, "    u64 s{k}r[{n_out}], s{k}i[{n_out}];");
    }
    s.push_str(&body);
    s.push_str("    return true;\n}\n\n");
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__(128) expr_complex(u64 *__restrict__ rrh, u64 *__restrict__ rrl, u64 *__restrict__ rih, u64 *__restrict__ ril, {}, u64 len, u32 rre, u32 rim, u32 *cnt, u32 *idx) {{",
        params.join(", ")
    );
    let _ = writeln!(
        s,
        "    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len; i += (u64)gridDim.x * blockDim.x)\n        if (!ex_celem(i, rrh, rrl, rih, ril, {}, rre, rim)) idx[atomicAdd(cnt, 1u)] = (u32)i;\n}}",
        args.join(", ")
    );
    s
}

/// Whether the complex kernel computes every live operation of `expr`
/// (`+ - *` and unary minus).
pub fn complex_fusable(expr: &Expr) -> bool {
    let live = expr.live();
    expr.nodes().iter().enumerate().all(|(i, n)| match n {
        Node::Op(op, _) if live[i] => complex_fused_op(*op),
        _ => true,
    })
}

/// The complex operations the generated kernel computes.
pub fn complex_fused_op(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Neg)
}
