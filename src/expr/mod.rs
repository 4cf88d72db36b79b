//! Element-wise expressions evaluated in one fused pass.
//!
//! An [`Expr`] is a DAG of operations over named array inputs and
//! constants, built by the text parser ([`Expr::parse`]) or by hand
//! ([`Expr::input`], [`Expr::op`]). Building hash-conses nodes, so a common
//! subexpression is one node and is computed once. Its canonical form
//! ([`Expr::canonical`]) names the nodes by index in topological order;
//! with the width/precision and the device architecture it keys the
//! generated CUDA kernels.
//!
//! Three kinds of evaluation, one per number kind:
//! - integers ([`eval_int`]): modulo 2^W, as [`IntArray`]'s operations
//!   (`+ - *` low half, shifts by constants, `& | ^ ~`, comparisons giving
//!   0 or 1, `c ? x : y`);
//! - floats ([`eval_float`]): `+ - * /`, `sqrt`, `fma`, unary `-` and the
//!   functions (`exp(a*b)`: every [`Func`], and [`Func2`]), each rounded
//!   once to the output precision in the given mode, as [`FloatArray`]'s
//!   operations (so the result equals the unfused chain with every
//!   intermediate at the output precision, bit for bit);
//! - complex floats ([`eval_complex`]): `+ - * /`, `sqrt`, `fma`, unary `-`, the
//!   [`CFunc`]s and `pow`, both parts of each rounded once (MPC), equal to
//!   [`chain_complex`] bit for bit.
//!
//! On the CPU an expression runs per element across all cores with no
//! temporary arrays (cpu.rs, complex/expr.rs). On CUDA float arithmetic is
//! one generated kernel (codegen.rs, cuda.rs), a function node the
//! library's function kernels between fused arithmetic segments; complex
//! `+ - *` and unary minus are one generated kernel as well (its elements
//! with an unusual product recomputed by the CPU engine and written back,
//! [`ComplexStats`] counts them), and `/`, `sqrt`, `fma`, `pow` and the
//! functions are `ComplexArray`'s device operations between fused segments
//! (the split of the float functions, shared code).

pub mod codegen;
pub mod cpu;
pub mod cuda;
pub mod parse;

use std::collections::HashMap;

use crate::complex::{CFunc, CRound, ComplexArray};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::float::func::{Func, Func2};
use crate::float::{FloatArray, Round};
use crate::int::IntArray;

/// One operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// Floats only.
    Div,
    /// Floats only.
    Sqrt,
    /// `fma(a, b, c) = a*b + c`, one rounding (mpfr_fma; complex: mpc_fma).
    Fma,
    /// Unary minus (ints: 0 - x modulo 2^W).
    Neg,
    /// Left shift by a constant number of bits (ints only).
    Shl(u32),
    /// Logical right shift by a constant (ints only).
    Shr(u32),
    And,
    Or,
    Xor,
    Not,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `c ? x : y` (c nonzero).
    Select,
    /// A one-argument function, correctly rounded once (floats: every
    /// [`Func`]; complex: those named as a [`CFunc`]).
    Func(Func),
    /// A two-argument function (floats: every [`Func2`]; complex: `pow`).
    Func2(Func2),
}

impl Op {
    pub fn arity(self) -> usize {
        match self {
            Op::Sqrt | Op::Neg | Op::Not | Op::Shl(_) | Op::Shr(_) | Op::Func(_) => 1,
            Op::Fma | Op::Select => 3,
            _ => 2,
        }
    }

    /// Whether the operation exists for floats (`true`) / ints.
    pub fn for_float(self) -> bool {
        matches!(
            self,
            Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Sqrt
                | Op::Fma
                | Op::Neg
                | Op::Func(_)
                | Op::Func2(_)
        )
    }

    pub fn for_int(self) -> bool {
        !matches!(
            self,
            Op::Div | Op::Sqrt | Op::Fma | Op::Func(_) | Op::Func2(_)
        )
    }

    /// Whether the operation exists for complex floats: `+ - * /`, `sqrt`,
    /// `fma` (mpc_fma), unary minus, the functions of [`CFunc`] and `pow`
    /// (mpc_pow).
    pub fn for_complex(self) -> bool {
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Sqrt | Op::Neg | Op::Fma => true,
            Op::Func(f) => CFunc::from_name(f.name()).is_some(),
            Op::Func2(f) => f == Func2::Pow,
            _ => false,
        }
    }

    /// Whether the operation is a function (not fused into the generated
    /// arithmetic kernels on CUDA).
    pub fn is_func(self) -> bool {
        matches!(self, Op::Func(_) | Op::Func2(_))
    }

    /// The canonical name.
    pub fn name(self) -> String {
        match self {
            Op::Add => "add".into(),
            Op::Sub => "sub".into(),
            Op::Mul => "mul".into(),
            Op::Div => "div".into(),
            Op::Sqrt => "sqrt".into(),
            Op::Fma => "fma".into(),
            Op::Neg => "neg".into(),
            Op::Shl(k) => format!("shl{k}"),
            Op::Shr(k) => format!("shr{k}"),
            Op::And => "and".into(),
            Op::Or => "or".into(),
            Op::Xor => "xor".into(),
            Op::Not => "not".into(),
            Op::Eq => "eq".into(),
            Op::Ne => "ne".into(),
            Op::Lt => "lt".into(),
            Op::Le => "le".into(),
            Op::Gt => "gt".into(),
            Op::Ge => "ge".into(),
            Op::Select => "sel".into(),
            Op::Func(f) => f.name().into(),
            Op::Func2(f) => f.name().into(),
        }
    }
}

/// A node of the DAG; operands are indices of earlier nodes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// Input number `k` (the k-th name of [`Expr::inputs`]).
    Input(usize),
    /// A constant, as written (decimal or 0x-hex; floats: any decimal).
    Const(String),
    Op(Op, Vec<usize>),
}

/// An expression DAG (see the module docs). The last node is the root
/// unless [`Expr::set_root`] says otherwise.
#[derive(Clone, Debug, Default)]
pub struct Expr {
    nodes: Vec<Node>,
    root: usize,
    names: Vec<String>,
    index: HashMap<Node, usize>,
}

impl Expr {
    pub fn new() -> Expr {
        Expr::default()
    }

    fn push(&mut self, n: Node) -> usize {
        if let Some(&i) = self.index.get(&n) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(n.clone());
        self.index.insert(n, i);
        self.root = i;
        i
    }

    /// The node of the input `name` (declared on first use).
    pub fn input(&mut self, name: &str) -> usize {
        let k = match self.names.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        };
        self.push(Node::Input(k))
    }

    /// Declares the inputs in this order (before any use), so that input k
    /// is the k-th name whether or not the expression mentions it.
    pub fn declare(&mut self, names: &[&str]) {
        for n in names {
            if !self.names.iter().any(|x| x == n) {
                self.names.push(n.to_string());
            }
        }
    }

    pub fn constant(&mut self, text: &str) -> usize {
        self.push(Node::Const(text.to_string()))
    }

    /// The node `op(args)`; commutative operations order their operands so
    /// that `a*b` and `b*a` are one node.
    pub fn op(&mut self, op: Op, args: &[usize]) -> usize {
        assert_eq!(args.len(), op.arity(), "{op:?} operands");
        let mut a = args.to_vec();
        if matches!(
            op,
            Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor | Op::Eq | Op::Ne
        ) && a[0] > a[1]
        {
            a.swap(0, 1);
        }
        self.push(Node::Op(op, a))
    }

    pub fn set_root(&mut self, r: usize) {
        self.root = r;
    }

    pub fn root(&self) -> usize {
        self.root
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Input names, input k first.
    pub fn inputs(&self) -> &[String] {
        &self.names
    }

    /// Parses text such as `"(a*a+b)*(b*b+b)+a*b"` (see [`parse`]).
    pub fn parse(text: &str) -> Result<Expr> {
        parse::parse(text).map_err(|e| Error::Invalid(e.to_string()))
    }

    /// The nodes the root depends on, in order (unused nodes dropped).
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        if self.nodes.is_empty() {
            return live;
        }
        live[self.root] = true;
        for i in (0..=self.root).rev() {
            if live[i]
                && let Node::Op(_, a) = &self.nodes[i]
            {
                for &j in a {
                    live[j] = true;
                }
            }
        }
        live
    }

    /// The canonical form: live nodes in topological order, each by
    /// operation and operand indices (`i0`: input 0, `c"5"`: a constant),
    /// separated by `;`. Equal forms give equal results.
    pub fn canonical(&self) -> String {
        let live = self.live();
        let mut map = vec![usize::MAX; self.nodes.len()];
        let mut parts = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if !live[i] {
                continue;
            }
            map[i] = parts.len();
            parts.push(match n {
                Node::Input(k) => format!("i{k}"),
                Node::Const(c) => format!("c{c:?}"),
                Node::Op(op, a) => {
                    let a: Vec<String> = a.iter().map(|&j| map[j].to_string()).collect();
                    format!("{}({})", op.name(), a.join(","))
                }
            });
        }
        parts.join(";")
    }

    /// Checks that every operation exists for the number kind.
    pub fn check_kind(&self, float: bool) -> Result<()> {
        self.check(
            if float { "floats" } else { "integers" },
            if float { Op::for_float } else { Op::for_int },
        )
    }

    /// Checks that every operation exists for complex floats.
    pub fn check_complex(&self) -> Result<()> {
        self.check("complex floats", Op::for_complex)
    }

    fn check(&self, kind: &str, ok: fn(Op) -> bool) -> Result<()> {
        let live = self.live();
        for (i, n) in self.nodes.iter().enumerate() {
            if let (true, Node::Op(op, _)) = (live[i], n)
                && !ok(*op)
            {
                return Err(Error::Invalid(format!(
                    "operation {} is not defined for {kind}",
                    op.name(),
                )));
            }
        }
        if self.nodes.is_empty() {
            return Err(Error::Invalid("empty expression".into()));
        }
        Ok(())
    }
}

/// Checks the inputs against the expression: one per name, equal lengths,
/// one engine. Returns the length.
fn check_inputs<T>(
    expr: &Expr,
    inputs: &[&T],
    len: impl Fn(&T) -> usize,
    engine: impl Fn(&T) -> Engine,
) -> Result<usize> {
    if inputs.len() != expr.inputs().len() {
        return Err(Error::Shape(format!(
            "the expression has {} inputs ({}) but {} arrays were given",
            expr.inputs().len(),
            expr.inputs().join(", "),
            inputs.len()
        )));
    }
    let n = inputs.first().map(|a| len(a)).unwrap_or(0);
    for (k, a) in inputs.iter().enumerate() {
        if len(a) != n {
            return Err(Error::Shape(format!(
                "input {} has {} elements, input {} has {n}",
                expr.inputs()[k],
                len(a),
                expr.inputs()[0]
            )));
        }
        let (e0, ek) = (engine(inputs[0]), engine(a));
        if !e0.same_as(&ek) {
            return Err(Error::EngineMismatch(e0.describe(), ek.describe()));
        }
    }
    Ok(n)
}

/// Evaluates an integer expression modulo 2^W (W: the inputs' common
/// width; with no inputs use [`eval_int_on`]) on the inputs' engine.
pub fn eval_int(expr: &Expr, inputs: &[&IntArray]) -> Result<IntArray> {
    let a0 = inputs
        .first()
        .ok_or_else(|| Error::Invalid("an expression without inputs needs eval_int_on".into()))?;
    eval_int_on(expr, inputs, &a0.engine(), a0.bits(), a0.len())
}

/// [`eval_int`] with the engine, width and length given.
pub fn eval_int_on(
    expr: &Expr,
    inputs: &[&IntArray],
    engine: &Engine,
    bits: u64,
    len: usize,
) -> Result<IntArray> {
    expr.check_kind(false)?;
    let n = if inputs.is_empty() {
        len
    } else {
        let e0 = inputs[0].engine();
        if !e0.same_as(engine) {
            return Err(Error::EngineMismatch(e0.describe(), engine.describe()));
        }
        check_inputs(expr, inputs, |a| a.len(), |a| a.engine())?
    };
    crate::int::limbs_for_bits(bits)?;
    for (k, a) in inputs.iter().enumerate() {
        if a.bits() != bits {
            return Err(Error::Shape(format!(
                "input {} has {} bits, the expression {bits}",
                expr.inputs()[k],
                a.bits()
            )));
        }
    }
    let consts = cpu::int_constants(expr, bits)?;
    match engine {
        Engine::Cpu => cpu::eval_int(expr, inputs, &consts, bits, n),
        Engine::Cuda(eng) => cuda::eval_int(eng, expr, inputs, &consts, bits, n),
    }
}

/// Evaluates a float expression, each operation rounded once to `prec`
/// bits in mode `rnd`, on the inputs' engine (inputs at any precisions).
pub fn eval_float(
    expr: &Expr,
    inputs: &[&FloatArray],
    prec: u64,
    rnd: Round,
) -> Result<FloatArray> {
    expr.check_kind(true)?;
    if inputs.is_empty() {
        return Err(Error::Invalid(
            "a float expression needs at least one input".into(),
        ));
    }
    let n = check_inputs(expr, inputs, |a| a.len(), |a| a.engine())?;
    crate::float::check_prec(prec)?;
    let consts = cpu::float_constants(expr, prec, rnd)?;
    match inputs[0].engine() {
        Engine::Cpu => cpu::eval_float(expr, inputs, &consts, prec, rnd, n),
        Engine::Cuda(_) if expr.has_funcs() => eval_float_split(expr, inputs, prec, rnd),
        Engine::Cuda(eng) => cuda::eval_float(&eng, expr, inputs, &consts, prec, rnd, n),
    }
}

impl Expr {
    /// Whether a live node is a function ([`Op::is_func`]).
    pub fn has_funcs(&self) -> bool {
        self.has_split(Op::is_func)
    }

    /// Whether a live node is an operation `split` names.
    fn has_split(&self, split: fn(Op) -> bool) -> bool {
        let live = self.live();
        self.nodes
            .iter()
            .enumerate()
            .any(|(i, n)| live[i] && matches!(n, Node::Op(op, _) if split(*op)))
    }

    /// The arithmetic segment below node `j`: a new expression of the
    /// nodes `j` depends on through operations `split` does not name, whose
    /// inputs are the inputs and `split` nodes it reaches (`leaves`, node
    /// indices of `self`, in the new expression's input order).
    fn segment(&self, j: usize, split: fn(Op) -> bool) -> (Expr, Vec<usize>) {
        fn copy(
            src: &Expr,
            i: usize,
            split: fn(Op) -> bool,
            e: &mut Expr,
            map: &mut HashMap<usize, usize>,
            leaves: &mut Vec<usize>,
        ) -> usize {
            if let Some(&k) = map.get(&i) {
                return k;
            }
            let k = match &src.nodes[i] {
                Node::Op(op, a) if !split(*op) => {
                    let args: Vec<usize> = a
                        .iter()
                        .map(|&x| copy(src, x, split, e, map, leaves))
                        .collect();
                    e.op(*op, &args)
                }
                Node::Const(c) => e.constant(c),
                _ => {
                    leaves.push(i);
                    e.input(&format!("n{i}"))
                }
            };
            map.insert(i, k);
            k
        }
        let mut e = Expr::new();
        let mut leaves = Vec::new();
        let r = copy(self, j, split, &mut e, &mut HashMap::new(), &mut leaves);
        e.set_root(r);
        (e, leaves)
    }
}

/// An operand of a split evaluation: borrowed (an input, a split node's
/// result) or computed (a fused segment).
enum Val<'a, T> {
    Borrowed(&'a T),
    Owned(T),
}

impl<T> std::ops::Deref for Val<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Val::Borrowed(v) => v,
            Val::Owned(v) => v,
        }
    }
}

/// The split evaluation on CUDA, shared by floats and complex numbers:
/// every live node whose operation `split` names runs as the library's
/// array operation (`apply(node, op, operands)`, in topological order);
/// each of its operands that is neither an input nor a split node's result
/// is an arithmetic segment ([`Expr::segment`]) evaluated fused by
/// `fused(segment, its inputs)` (no inputs: a segment of constants); the
/// root likewise, or `root_input` when it is an input. A node shared by two
/// segments is computed in each (the same bits).
fn eval_split<T>(
    expr: &Expr,
    inputs: &[&T],
    split: fn(Op) -> bool,
    mut fused: impl FnMut(Expr, &[&T]) -> Result<T>,
    mut apply: impl FnMut(usize, Op, &[&T]) -> Result<T>,
    root_input: impl FnOnce(&T) -> Result<T>,
) -> Result<T> {
    // Node j's value as an operand: an input (at its own precision, as the
    // chain passes it), a split node's result, or its segment fused.
    fn operand<'a, T>(
        expr: &Expr,
        j: usize,
        inputs: &[&'a T],
        vals: &'a [Option<T>],
        split: fn(Op) -> bool,
        fused: &mut impl FnMut(Expr, &[&T]) -> Result<T>,
    ) -> Result<Val<'a, T>> {
        match &expr.nodes[j] {
            Node::Input(k) => Ok(Val::Borrowed(inputs[*k])),
            Node::Op(op, _) if split(*op) => {
                Ok(Val::Borrowed(vals[j].as_ref().expect("topological")))
            }
            _ => {
                let (seg, leaves) = expr.segment(j, split);
                let ins: Vec<&T> = leaves
                    .iter()
                    .map(|&l| computed(expr, inputs, vals, l))
                    .collect();
                Ok(Val::Owned(fused(seg, &ins)?))
            }
        }
    }
    let live = expr.live();
    let mut vals: Vec<Option<T>> = (0..expr.nodes.len()).map(|_| None).collect();
    for (i, n) in expr.nodes.iter().enumerate() {
        if let (true, Node::Op(op, a)) = (live[i], n)
            && split(*op)
        {
            let v = {
                let xs: Vec<Val<T>> = a
                    .iter()
                    .map(|&j| operand(expr, j, inputs, &vals, split, &mut fused))
                    .collect::<Result<_>>()?;
                let refs: Vec<&T> = xs.iter().map(|x| &**x).collect();
                apply(i, *op, &refs)?
            };
            vals[i] = Some(v);
        }
    }
    match &expr.nodes[expr.root] {
        Node::Op(op, _) if split(*op) => Ok(vals[expr.root].take().expect("computed")),
        _ => match operand(expr, expr.root, inputs, &vals, split, &mut fused)? {
            Val::Owned(v) => Ok(v),
            Val::Borrowed(v) => root_input(v),
        },
    }
}

/// Float evaluation with function nodes on CUDA ([`eval_split`]): each
/// function node is the library's function (`FloatArray::func`, `func2`:
/// its CUDA kernels), the arithmetic between them one fused kernel per
/// segment (an operand of a function, and the root).
fn eval_float_split(
    expr: &Expr,
    inputs: &[&FloatArray],
    prec: u64,
    rnd: Round,
) -> Result<FloatArray> {
    eval_split(
        expr,
        inputs,
        Op::is_func,
        |mut seg, ins| {
            if ins.is_empty() {
                // Constants only: on the CPU engine (an unused input gives
                // the length), moved to the device.
                let host = inputs[0].to_engine(&Engine::Cpu)?;
                seg.declare(&["_"]);
                let c = eval_float(&seg, &[&host], prec, rnd)?;
                return c.to_engine(&inputs[0].engine());
            }
            let v = eval_float(&seg, ins, prec, rnd)?;
            check_split(&v, || format!("segment {}", seg.canonical()))?;
            Ok(v)
        },
        |i, op, x| {
            let v = match op {
                Op::Func(f) => x[0].func(f, prec, rnd)?,
                Op::Func2(f) => x[0].func2(x[1], f, prec, rnd)?,
                _ => unreachable!("is_func"),
            };
            check_split(&v, || format!("function node {i} ({})", op.name()))?;
            Ok(v)
        },
        |x| x.set_prec(prec, rnd),
    )
}

/// With `MPARRAY_EXPR_CHECK=1` (diagnostics), every intermediate array of
/// [`eval_float_split`] is read back and checked to be canonical; the error
/// names the node that made it.
fn check_split(v: &FloatArray, what: impl Fn() -> String) -> Result<()> {
    if std::env::var("MPARRAY_EXPR_CHECK").as_deref() != Ok("1") {
        return Ok(());
    }
    let h = v.host()?;
    crate::float::CpuFloats::from_raw(
        v.prec(),
        h.tags().to_vec(),
        h.exps().to_vec(),
        h.limbs().to_vec(),
    )
    .map(|_| ())
    .map_err(|e| Error::Invalid(format!("{}: {e}", what())))
}

/// Node `j`'s array in a walk: an input, or the value computed before
/// (nodes come in topological order).
fn computed<'a, T>(expr: &Expr, inputs: &[&'a T], vals: &'a [Option<T>], j: usize) -> &'a T {
    match &expr.nodes[j] {
        Node::Input(k) => inputs[*k],
        _ => vals[j].as_ref().expect("topological"),
    }
}

/// The walk of the unfused chains: every live node in order, one array
/// per node, `konst(node, text)` for a constant and `op(op, operands)` for
/// an operation; an input at the root goes through `root_input`.
fn walk_chain<T>(
    expr: &Expr,
    inputs: &[&T],
    mut konst: impl FnMut(usize, &str) -> Result<T>,
    mut op: impl FnMut(Op, &[&T]) -> Result<T>,
    root_input: impl FnOnce(&T) -> Result<T>,
) -> Result<T> {
    let live = expr.live();
    let mut vals: Vec<Option<T>> = (0..expr.nodes.len()).map(|_| None).collect();
    for (i, n) in expr.nodes.iter().enumerate() {
        if !live[i] {
            continue;
        }
        let v = match n {
            Node::Input(_) => continue,
            Node::Const(c) => konst(i, c)?,
            Node::Op(o, a) => {
                let xs: Vec<&T> = a
                    .iter()
                    .map(|&j| computed(expr, inputs, &vals, j))
                    .collect();
                op(*o, &xs)?
            }
        };
        vals[i] = Some(v);
    }
    match &expr.nodes[expr.root] {
        Node::Input(k) => root_input(inputs[*k]),
        _ => vals[expr.root]
            .take()
            .ok_or_else(|| Error::Invalid("empty expression".into())),
    }
}

/// The unfused chain: one library operation (one array) per node, for
/// comparison (benchmarks, tests). Ints: add, sub and mul are the library's;
/// the operations `IntArray` lacks run as one-node expressions.
pub fn chain_int(expr: &Expr, inputs: &[&IntArray]) -> Result<IntArray> {
    let a0 = inputs
        .first()
        .ok_or_else(|| Error::Invalid("chain_int needs an input".into()))?;
    let (bits, len, engine) = (a0.bits(), a0.len(), a0.engine());
    // An operation IntArray lacks, and an input at the root: a one-node
    // expression.
    let one = |op: Option<Op>, xs: &[&IntArray]| {
        let mut e = Expr::new();
        let names = ["x", "y", "z"];
        let args: Vec<usize> = (0..xs.len()).map(|j| e.input(names[j])).collect();
        match op {
            Some(op) => {
                e.op(op, &args);
            }
            None => e.set_root(args[0]),
        }
        eval_int(&e, xs)
    };
    walk_chain(
        expr,
        inputs,
        |_, c| {
            let mut e = Expr::new();
            e.constant(c);
            eval_int_on(&e, &[], &engine, bits, len)
        },
        |op, x| match op {
            Op::Add => x[0].add(x[1]),
            Op::Sub => x[0].sub(x[1]),
            Op::Mul => x[0].mul(x[1]),
            _ => one(Some(op), x),
        },
        |x| one(None, &[x]),
    )
}

/// The unfused float chain: one `FloatArray` operation per node, every
/// intermediate at `prec`.
pub fn chain_float(
    expr: &Expr,
    inputs: &[&FloatArray],
    prec: u64,
    rnd: Round,
) -> Result<FloatArray> {
    let engine = inputs
        .first()
        .ok_or_else(|| Error::Invalid("chain_float needs an input".into()))?
        .engine();
    let len = inputs[0].len();
    let consts = cpu::float_constants(expr, prec, rnd)?;
    walk_chain(
        expr,
        inputs,
        |i, _| {
            let c = consts[i].as_ref().expect("constant");
            let strs = vec![c.text.clone(); len];
            FloatArray::from_strs_ternary(prec, &strs, rnd)?
                .0
                .to_engine(&engine)
        },
        |op, x| match op {
            Op::Add => x[0].add(x[1], prec, rnd),
            Op::Sub => x[0].sub(x[1], prec, rnd),
            Op::Mul => x[0].mul(x[1], prec, rnd),
            Op::Div => x[0].div(x[1], prec, rnd),
            Op::Sqrt => x[0].sqrt(prec, rnd),
            Op::Fma => x[0].fma(x[1], x[2], prec, rnd),
            Op::Neg => x[0].neg(prec, rnd),
            Op::Func(f) => x[0].func(f, prec, rnd),
            Op::Func2(f) => x[0].func2(x[1], f, prec, rnd),
            _ => unreachable!("check_kind"),
        },
        |x| x.set_prec(prec, rnd),
    )
}

/// Evaluates a complex expression (`+ - * /`, `sqrt`, `fma`, unary minus, the
/// functions of [`CFunc`], `pow`), both parts of every operation rounded
/// once to `prec` bits in the modes of `rnd` (MPC's semantics, as
/// [`ComplexArray`]'s operations); a constant is a real number (rounded
/// in `rnd.re`) with imaginary part +0. The CPU engine fuses the whole
/// expression per element. On CUDA `+ - *` and unary minus are one
/// generated kernel (its unusual products recomputed by the CPU engine),
/// and `/`, `sqrt`, `fma`, `pow` and the functions run as `ComplexArray`'s
/// operations between fused segments (the float functions' split). Either way the
/// result equals [`chain_complex`] bit for bit.
pub fn eval_complex(
    expr: &Expr,
    inputs: &[&ComplexArray],
    prec: u64,
    rnd: CRound,
) -> Result<ComplexArray> {
    eval_complex_stats(expr, inputs, prec, rnd).map(|(r, _)| r)
}

/// What [`eval_complex_stats`] did on CUDA (all zero on the CPU engine).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ComplexStats {
    /// Launches of generated complex kernels (one per fused segment).
    pub fused: usize,
    /// Elements those kernels listed (a product of unusual operands: a
    /// zero, infinite or NaN part, or an exact product near the exponent
    /// range's ends) and the CPU engine recomputed.
    pub patched: usize,
    /// Nodes run as `ComplexArray` operations (`/`, `sqrt`, `fma`, `pow`,
    /// the functions).
    pub split: usize,
    /// Segments computed on the CPU engine (parts above the device tiers,
    /// or constants only).
    pub host: usize,
}

impl ComplexStats {
    fn add(&mut self, o: &ComplexStats) {
        self.fused += o.fused;
        self.patched += o.patched;
        self.split += o.split;
        self.host += o.host;
    }
}

/// The split evaluation of CUDA ([`eval_split`]: `/`, `sqrt`, `fma`,
/// `pow` and the functions as `ComplexArray` operations, the segments
/// between them fused) on the inputs' engine, whatever it is: on the CPU
/// engine it checks the split's walk without a device (tests).
#[doc(hidden)]
pub fn eval_complex_split_on(
    expr: &Expr,
    inputs: &[&ComplexArray],
    prec: u64,
    rnd: CRound,
) -> Result<(ComplexArray, ComplexStats)> {
    let n = check_complex_call(expr, inputs, prec)?;
    let mut stats = ComplexStats::default();
    let r = eval_complex_split(expr, inputs, prec, rnd, n, &mut stats)?;
    Ok((r, stats))
}

/// The checks of a complex evaluation: the expression's operations, at
/// least one input, equal lengths on one engine, the precision; the length.
fn check_complex_call(expr: &Expr, inputs: &[&ComplexArray], prec: u64) -> Result<usize> {
    expr.check_complex()?;
    if inputs.is_empty() {
        return Err(Error::Invalid(
            "a complex expression needs at least one input".into(),
        ));
    }
    let n = check_inputs(expr, inputs, |a| a.len(), |a| a.engine())?;
    crate::float::check_prec(prec)?;
    Ok(n)
}

/// [`eval_complex`] and what it did ([`ComplexStats`]).
pub fn eval_complex_stats(
    expr: &Expr,
    inputs: &[&ComplexArray],
    prec: u64,
    rnd: CRound,
) -> Result<(ComplexArray, ComplexStats)> {
    let n = check_complex_call(expr, inputs, prec)?;
    let mut stats = ComplexStats::default();
    let r = match inputs[0].engine() {
        Engine::Cpu => crate::complex::expr::eval(expr, inputs, prec, rnd, n)?,
        Engine::Cuda(eng) if !expr.has_split(complex_split) => {
            cuda::eval_complex(&eng, expr, inputs, prec, rnd, n, &mut stats)?
        }
        Engine::Cuda(_) => eval_complex_split(expr, inputs, prec, rnd, n, &mut stats)?,
    };
    Ok((r, stats))
}

/// The complex operations that are not fused on CUDA.
fn complex_split(op: Op) -> bool {
    !codegen::complex_fused_op(op)
}

/// Complex evaluation on CUDA with operations the generated kernel does
/// not compute ([`eval_split`]): those run as `ComplexArray`'s operations
/// (their CUDA paths), the `+ - *` and negations between them one
/// generated kernel per segment.
fn eval_complex_split(
    expr: &Expr,
    inputs: &[&ComplexArray],
    prec: u64,
    rnd: CRound,
    len: usize,
    stats: &mut ComplexStats,
) -> Result<ComplexArray> {
    let live = expr.live();
    stats.split += expr
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| live[*i] && matches!(n, Node::Op(op, _) if complex_split(*op)))
        .count();
    let p = prec;
    eval_split(
        expr,
        inputs,
        complex_split,
        |mut seg, ins| {
            if ins.is_empty() {
                // Constants only: on the CPU engine, moved to the device.
                stats.host += 1;
                let host = inputs[0].to_engine(&Engine::Cpu)?;
                seg.declare(&["_"]);
                let c = crate::complex::expr::eval(&seg, &[&host], p, rnd, len)?;
                return c.into_engine(&inputs[0].engine());
            }
            // No split node in a segment: the generated kernel on CUDA.
            let (v, s) = eval_complex_stats(&seg, ins, p, rnd)?;
            stats.add(&s);
            Ok(v)
        },
        |_, op, x| complex_op(op, x, p, rnd),
        |x| x.set_prec(p, p, rnd),
    )
}

/// One node of a complex chain: `ComplexArray`'s operation, both parts at
/// `p` bits.
fn complex_op(op: Op, x: &[&ComplexArray], p: u64, rnd: CRound) -> Result<ComplexArray> {
    match op {
        Op::Add => x[0].add(x[1], p, p, rnd),
        Op::Sub => x[0].sub(x[1], p, p, rnd),
        Op::Mul => x[0].mul(x[1], p, p, rnd),
        Op::Div => x[0].div(x[1], p, p, rnd),
        Op::Neg => x[0].neg(p, p, rnd),
        Op::Fma => x[0].fma(x[1], x[2], p, p, rnd),
        Op::Func2(Func2::Pow) => x[0].pow(x[1], p, p, rnd),
        _ => {
            let f = crate::complex::expr::cfunc(op).expect("check_complex");
            x[0].func(f, p, p, rnd)
        }
    }
}

/// The unfused complex chain: one `ComplexArray` operation per node, every
/// intermediate at `prec` bits (both parts).
pub fn chain_complex(
    expr: &Expr,
    inputs: &[&ComplexArray],
    prec: u64,
    rnd: CRound,
) -> Result<ComplexArray> {
    expr.check_complex()?;
    let a0 = inputs
        .first()
        .ok_or_else(|| Error::Invalid("chain_complex needs an input".into()))?;
    check_inputs(expr, inputs, |a| a.len(), |a| a.engine())?;
    let (engine, len) = (a0.engine(), a0.len());
    let p = prec;
    walk_chain(
        expr,
        inputs,
        |_, c| {
            let re = FloatArray::from_strs_ternary(p, &vec![c; len], rnd.re)
                .map_err(|e| Error::Invalid(format!("constant {c} in the expression: {e}")))?
                .0;
            let im = FloatArray::from_strs_ternary(p, &vec!["0"; len], rnd.im)?.0;
            ComplexArray::new(re, im)?.into_engine(&engine)
        },
        |op, x| complex_op(op, x, p, rnd),
        |x| x.set_prec(p, p, rnd),
    )
}
