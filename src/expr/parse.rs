//! The expression text parser. Grammar (C precedence, lowest first):
//!
//! ```text
//! expr   := or ('?' expr ':' expr)?
//! or     := xor ('|' xor)*        xor := and ('^' and)*
//! and    := eq ('&' eq)*          eq  := rel (('=='|'!=') rel)*
//! rel    := shift (('<'|'<='|'>'|'>=') shift)*
//! shift  := sum (('<<'|'>>') NUMBER)*
//! sum    := prod (('+'|'-') prod)*  prod := unary (('*'|'/') unary)*
//! unary  := ('-'|'~') unary | atom
//! atom   := NAME | NUMBER | '(' expr ')' | FUNC '(' expr (',' expr)* ')'
//! ```
//!
//! FUNC is `sqrt`, `fma` (3 arguments), `select` (3: `select(c, x, y)` is
//! `c ? x : y`), a one-argument function of `Func` (`exp`, `log`, `sin`,
//! ...) or a two-argument one of `Func2` (`atan2`, `hypot`, `pow`, `agm`).
//! NUMBER: decimal (floats: with `.` and `e`), or `0x` hex. Errors carry the
//! 1-based column.

use super::{Expr, Op};
use crate::float::func::{Func, Func2};

/// A syntax error at a column (1-based, in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "expression, column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Num(String),
    Sym(&'static str),
    End,
}

struct Lexer {
    toks: Vec<(Tok, usize)>,
}

const SYMS: [&str; 21] = [
    "<<", ">>", "<=", ">=", "==", "!=", "+", "-", "*", "/", "(", ")", ",", "?", ":", "&", "|", "^",
    "~", "<", ">",
];

fn lex(text: &str) -> Result<Lexer, ParseError> {
    let cs: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            toks.push((Tok::Name(cs[s..i].iter().collect()), col));
        } else if c.is_ascii_digit()
            || (c == '.' && cs.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let s = i;
            if c == '0' && matches!(cs.get(i + 1), Some('x' | 'X')) {
                i += 2;
                while i < cs.len() && cs[i].is_ascii_hexdigit() {
                    i += 1;
                }
                if i == s + 2 {
                    return Err(ParseError {
                        column: col,
                        message: "hex number without digits".into(),
                    });
                }
            } else {
                while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.') {
                    i += 1;
                }
                if i < cs.len() && matches!(cs[i], 'e' | 'E') {
                    let mut j = i + 1;
                    if j < cs.len() && matches!(cs[j], '+' | '-') {
                        j += 1;
                    }
                    if j < cs.len() && cs[j].is_ascii_digit() {
                        i = j;
                        while i < cs.len() && cs[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
            }
            if i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                return Err(ParseError {
                    column: i + 1,
                    message: format!("unexpected {:?} in a number", cs[i]),
                });
            }
            toks.push((Tok::Num(cs[s..i].iter().collect()), col));
        } else {
            let two: String = cs[i..(i + 2).min(cs.len())].iter().collect();
            let sym = SYMS
                .iter()
                .find(|s| s.len() == 2 && two == **s)
                .or_else(|| SYMS.iter().find(|s| s.len() == 1 && s.starts_with(c)));
            match sym {
                Some(s) => {
                    toks.push((Tok::Sym(s), col));
                    i += s.len();
                }
                None => {
                    return Err(ParseError {
                        column: col,
                        message: format!("unexpected character {c:?}"),
                    });
                }
            }
        }
    }
    toks.push((Tok::End, cs.len() + 1));
    Ok(Lexer { toks })
}

struct Parser<'a> {
    lx: Lexer,
    at: usize,
    e: &'a mut Expr,
    depth: usize,
    /// Names allowed as inputs (None: any).
    allowed: Option<&'a [String]>,
}

type R<T> = Result<T, ParseError>;

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.lx.toks[self.at].0
    }

    fn col(&self) -> usize {
        self.lx.toks[self.at].1
    }

    fn err<T>(&self, message: impl Into<String>) -> R<T> {
        Err(ParseError {
            column: self.col(),
            message: message.into(),
        })
    }

    fn eat(&mut self, s: &str) -> bool {
        if matches!(self.peek(), Tok::Sym(x) if *x == s) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> R<()> {
        if self.eat(s) {
            Ok(())
        } else {
            let got = self.describe();
            self.err(format!("expected '{s}', found {got}"))
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            Tok::Name(n) => format!("name '{n}'"),
            Tok::Num(n) => format!("number {n}"),
            Tok::Sym(s) => format!("'{s}'"),
            Tok::End => "the end".into(),
        }
    }

    fn expr(&mut self) -> R<usize> {
        self.depth += 1;
        if self.depth > 200 {
            return self.err("expression nested too deeply");
        }
        let c = self.binary(0)?;
        let r = if self.eat("?") {
            let x = self.expr()?;
            self.expect(":")?;
            let y = self.expr()?;
            self.e.op(Op::Select, &[c, x, y])
        } else {
            c
        };
        self.depth -= 1;
        Ok(r)
    }

    /// Binary levels 0 (|) .. 7 (* /).
    fn binary(&mut self, level: usize) -> R<usize> {
        const LEVELS: [&[(&str, Op)]; 8] = [
            &[("|", Op::Or)],
            &[("^", Op::Xor)],
            &[("&", Op::And)],
            &[("==", Op::Eq), ("!=", Op::Ne)],
            &[("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)],
            &[],
            &[("+", Op::Add), ("-", Op::Sub)],
            &[("*", Op::Mul), ("/", Op::Div)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut x = self.binary(level + 1)?;
        loop {
            if level == 5 {
                // Shifts by constants.
                let left = if self.eat("<<") {
                    true
                } else if self.eat(">>") {
                    false
                } else {
                    break;
                };
                let k = match self.peek().clone() {
                    Tok::Num(n) => match n.parse::<u32>() {
                        Ok(k) if k <= (1 << 20) => k,
                        _ => {
                            return self
                                .err(format!("shift count {n} is not an integer up to 2^20"));
                        }
                    },
                    _ => {
                        let got = self.describe();
                        return self.err(format!("a shift count must be a constant, found {got}"));
                    }
                };
                self.at += 1;
                x = self.e.op(if left { Op::Shl(k) } else { Op::Shr(k) }, &[x]);
                continue;
            }
            let Some(&(_, op)) = LEVELS[level].iter().find(|(s, _)| self.eat(s)) else {
                break;
            };
            let y = self.binary(level + 1)?;
            x = self.e.op(op, &[x, y]);
        }
        Ok(x)
    }

    fn unary(&mut self) -> R<usize> {
        if self.eat("-") {
            let x = self.unary()?;
            return Ok(self.e.op(Op::Neg, &[x]));
        }
        if self.eat("~") {
            let x = self.unary()?;
            return Ok(self.e.op(Op::Not, &[x]));
        }
        self.atom()
    }

    fn atom(&mut self) -> R<usize> {
        let col = self.col();
        match self.peek().clone() {
            Tok::Num(n) => {
                self.at += 1;
                Ok(self.e.constant(&n))
            }
            Tok::Sym("(") => {
                self.at += 1;
                let x = self.expr()?;
                self.expect(")")?;
                Ok(x)
            }
            Tok::Name(name) => {
                self.at += 1;
                if self.eat("(") {
                    let Some(op) = function(&name) else {
                        return Err(ParseError {
                            column: col,
                            message: format!(
                                "unknown function '{name}' (known: {})",
                                function_names().join(", ")
                            ),
                        });
                    };
                    let n = op.arity();
                    let mut args = vec![self.expr()?];
                    while self.eat(",") {
                        args.push(self.expr()?);
                    }
                    if args.len() != n {
                        return Err(ParseError {
                            column: col,
                            message: format!("{name} takes {n} arguments, given {}", args.len()),
                        });
                    }
                    self.expect(")")?;
                    return Ok(self.e.op(op, &args));
                }
                if let Some(allowed) = self.allowed
                    && !allowed.contains(&name)
                {
                    return Err(ParseError {
                        column: col,
                        message: format!(
                            "unknown name '{name}' (inputs: {})",
                            if allowed.is_empty() {
                                "none".to_string()
                            } else {
                                allowed.join(", ")
                            }
                        ),
                    });
                }
                Ok(self.e.input(&name))
            }
            _ => {
                let got = self.describe();
                self.err(format!("expected a name, a number or '(', found {got}"))
            }
        }
    }
}

/// The operation of a function name: `sqrt`, `fma`, `select`, the
/// one-argument functions of [`Func`] and the two-argument ones of
/// [`Func2`].
pub fn function(name: &str) -> Option<Op> {
    match name {
        "sqrt" => Some(Op::Sqrt),
        "fma" => Some(Op::Fma),
        "select" => Some(Op::Select),
        _ => Func::from_name(name)
            .map(Op::Func)
            .or_else(|| Func2::from_name(name).map(Op::Func2)),
    }
}

/// Every function name [`function`] knows.
pub fn function_names() -> Vec<&'static str> {
    let mut v = vec!["sqrt", "fma", "select"];
    v.extend(Func::ALL.iter().map(|f| f.name()));
    v.extend(Func2::ALL.iter().map(|f| f.name()));
    v
}

/// Parses `text`; any name is an input, declared in order of first use.
pub fn parse(text: &str) -> Result<Expr, ParseError> {
    parse_with(text, None)
}

/// Parses `text` with the inputs `names` (input k is `names[k]`, used or
/// not); any other name is an error at its column.
pub fn parse_with(text: &str, names: Option<&[String]>) -> Result<Expr, ParseError> {
    let lx = lex(text)?;
    let mut e = Expr::new();
    if let Some(n) = names {
        let refs: Vec<&str> = n.iter().map(String::as_str).collect();
        e.declare(&refs);
    }
    let mut p = Parser {
        lx,
        at: 0,
        e: &mut e,
        depth: 0,
        allowed: names,
    };
    if matches!(p.peek(), Tok::End) {
        return p.err("empty expression");
    }
    let r = p.expr()?;
    if !matches!(p.peek(), Tok::End) {
        let got = p.describe();
        return p.err(format!("unexpected {got} after the expression"));
    }
    e.set_root(r);
    Ok(e)
}
