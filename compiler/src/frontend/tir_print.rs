//! A readable text form of the typed tree, for `cliftc --emit tir` and golden tests.
//!
//! The form is C-like, one statement a line, with everything sema made explicit shown:
//! every conversion (`convert<float,rte>(x)`, `splat(x)`), every load of a place
//! (`load x`), which overload a builtin call chose (its argument types follow from the
//! printed conversions), and each expression's type where it is not obvious from its
//! operands (`: float4`). Variables print as `name.N` (the same name can be declared in two
//! scopes); program-scope variables as `@name`.

use std::fmt::Write;

use super::tir::*;

/// The whole program: its program-scope variables, then each function.
pub fn print(program: &Program) -> String {
    let mut out = String::new();
    // The type without its qualified form: an array's elements already name the space.
    for g in &program.globals {
        let _ = writeln!(
            out,
            "global @{}: {} = {} bytes",
            g.name,
            g.ty.ty,
            g.init.len()
        );
    }
    for f in &program.functions {
        if !out.is_empty() {
            out.push('\n');
        }
        print_function(&mut out, program, f);
    }
    out
}

fn print_function(out: &mut String, program: &Program, f: &Function) {
    let printer = Printer { program, f };
    let params: Vec<String> = f
        .param_ids()
        .map(|id| format!("{} {}", f.local(id).ty, printer.local(id)))
        .collect();
    let kind = if f.kernel.is_some() { "kernel " } else { "" };
    let _ = write!(out, "{kind}{} {}({})", f.ret, f.name, params.join(", "));
    if let Some(k) = &f.kernel
        && !k.attributes.is_empty()
    {
        let _ = write!(out, " [{}]", k.attributes);
    }
    match &f.body {
        None => out.push_str(";\n"),
        Some(body) => {
            out.push_str(" {\n");
            printer.block(out, body, 1);
            out.push_str("}\n");
        }
    }
}

struct Printer<'a> {
    program: &'a Program,
    f: &'a Function,
}

impl Printer<'_> {
    fn local(&self, id: LocalId) -> String {
        format!("{}.{}", self.f.local(id).name, id.0)
    }

    fn block(&self, out: &mut String, block: &Block, depth: usize) {
        for stmt in block {
            self.stmt(out, stmt, depth);
        }
    }

    fn line(&self, out: &mut String, depth: usize, text: &str) {
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(text);
        out.push('\n');
    }

    /// `head {` body `}` with an optional `else` part.
    fn braced(&self, out: &mut String, depth: usize, head: &str, body: &Block) {
        let open = if head.is_empty() {
            "{".to_string()
        } else {
            format!("{head} {{")
        };
        self.line(out, depth, &open);
        self.block(out, body, depth + 1);
        self.line(out, depth, "}");
    }

    fn stmt(&self, out: &mut String, stmt: &Stmt, depth: usize) {
        match &stmt.kind {
            StmtKind::Expr(e) => self.line(out, depth, &format!("{};", self.expr(e))),
            StmtKind::Decl { local, init } => {
                let l = self.f.local(*local);
                let text = match init {
                    None => format!("decl {} {};", l.ty, self.local(*local)),
                    Some(init) => {
                        format!(
                            "decl {} {} = {};",
                            l.ty,
                            self.local(*local),
                            self.init(init)
                        )
                    }
                };
                self.line(out, depth, &text);
            }
            StmtKind::Block(b) => self.braced(out, depth, "", b),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.braced(
                    out,
                    depth,
                    &format!("if ({})", self.expr(cond)),
                    then_branch,
                );
                if !else_branch.is_empty() {
                    self.braced(out, depth, "else", else_branch);
                }
            }
            StmtKind::Loop {
                cond,
                step,
                body,
                test_after,
                unroll,
            } => {
                let cond = cond.as_ref().map_or("true".into(), |c| self.expr(c));
                let mut head = if *test_after {
                    format!("loop do-while ({cond})")
                } else {
                    format!("loop while ({cond})")
                };
                if let Some(step) = step {
                    let _ = write!(head, " step ({})", self.expr(step));
                }
                if let Some(n) = unroll {
                    let _ = write!(head, " unroll {n}");
                }
                self.braced(out, depth, &head, body);
            }
            StmtKind::Switch {
                value,
                cases,
                default,
                body,
            } => {
                let mut head = format!("switch ({})", self.expr(value));
                for (v, label) in cases {
                    let _ = write!(head, " case {}->L{}", *v, label.0);
                }
                if let Some(label) = default {
                    let _ = write!(head, " default->L{}", label.0);
                }
                self.braced(out, depth, &head, body);
            }
            StmtKind::Label(l) => self.line(out, depth, &format!("L{}:", l.0)),
            StmtKind::Goto(l) => self.line(out, depth, &format!("goto L{};", l.0)),
            StmtKind::Break => self.line(out, depth, "break;"),
            StmtKind::Continue => self.line(out, depth, "continue;"),
            StmtKind::Return(None) => self.line(out, depth, "return;"),
            StmtKind::Return(Some(e)) => {
                self.line(out, depth, &format!("return {};", self.expr(e)))
            }
        }
    }

    fn init(&self, init: &Init) -> String {
        match init {
            Init::Expr(e) => self.expr(e),
            Init::Aggregate(parts) => {
                let parts: Vec<String> = parts
                    .iter()
                    .map(|(offset, e)| format!("+{offset}: {}", self.expr(e)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    fn exprs(&self, list: &[Expr]) -> String {
        list.iter()
            .map(|e| self.expr(e))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Const(c) => constant(c, &e.ty),
            ExprKind::Load(p) => format!("load {}", self.place(p)),
            ExprKind::AddressOf(p) => format!("&{}", self.place(p)),
            ExprKind::Assign {
                place,
                op,
                value,
                op_ty,
            } => match op {
                None => format!("{} = {}", self.place(place), self.expr(value)),
                Some(op) => format!(
                    "{} {}=<{op_ty}> {}",
                    self.place(place),
                    binary_op(*op),
                    self.expr(value)
                ),
            },
            ExprKind::IncDec {
                place,
                increment,
                prefix,
            } => {
                let op = if *increment { "++" } else { "--" };
                if *prefix {
                    format!("{op}{}", self.place(place))
                } else {
                    format!("{}{op}", self.place(place))
                }
            }
            ExprKind::Unary { op, operand } => {
                let op = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::BitNot => "~",
                    UnaryOp::VectorNot => "vnot ",
                    UnaryOp::LogicalNot => "!",
                };
                format!("{op}({})", self.expr(operand))
            }
            ExprKind::Binary { op, lhs, rhs } => format!(
                "({} {} {}): {}",
                self.expr(lhs),
                binary_op(*op),
                self.expr(rhs),
                e.ty
            ),
            ExprKind::PointerOffset {
                pointer,
                offset,
                subtract,
            } => format!(
                "({} {} {} elements)",
                self.expr(pointer),
                if *subtract { "-" } else { "+" },
                self.expr(offset)
            ),
            ExprKind::PointerDiff { lhs, rhs } => {
                format!("({} - {} elements)", self.expr(lhs), self.expr(rhs))
            }
            ExprKind::Logical { and, lhs, rhs } => format!(
                "({} {} {})",
                self.expr(lhs),
                if *and { "&&" } else { "||" },
                self.expr(rhs)
            ),
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => format!(
                "({} ? {} : {})",
                self.expr(cond),
                self.expr(then_expr),
                self.expr(else_expr)
            ),
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => format!(
                "select({} ? {} : {}): {}",
                self.expr(cond),
                self.expr(then_expr),
                self.expr(else_expr),
                e.ty
            ),
            ExprKind::Convert { kind, operand } => {
                format!("{}({})", convert_kind(*kind, &e.ty), self.expr(operand))
            }
            ExprKind::VectorLiteral(parts) => format!("({})({})", e.ty, self.exprs(parts)),
            ExprKind::Swizzle { base, lanes } => {
                let lanes: Vec<String> = lanes.iter().map(|l| format!("{l:x}")).collect();
                format!("{}.s{}", self.expr(base), lanes.join(""))
            }
            ExprKind::Call { func, args } => format!(
                "call {}({}): {}",
                self.program.function(*func).name,
                self.exprs(args),
                e.ty
            ),
            ExprKind::Builtin { id, args } => {
                format!("builtin {id}({}): {}", self.exprs(args), e.ty)
            }
            ExprKind::StringLiteral(bytes) => {
                let text = String::from_utf8_lossy(bytes.strip_suffix(&[0]).unwrap_or(bytes));
                format!("{text:?}")
            }
            ExprKind::Comma { lhs, rhs } => {
                format!("({}, {})", self.expr(lhs), self.expr(rhs))
            }
            // Semantic analysis moves these out before it hands a function on; printed on
            // one line should one ever be met.
            ExprKind::StmtExpr { body, value } => {
                let mut inner = String::new();
                self.block(&mut inner, body, 0);
                let value = value.as_ref().map(|v| self.expr(v)).unwrap_or_default();
                format!("({{ {}{value} }})", inner.replace('\n', " "))
            }
        }
    }

    fn place(&self, p: &Place) -> String {
        match &p.kind {
            PlaceKind::Local(id) => self.local(*id),
            PlaceKind::Global(id) => format!("@{}", self.program.globals[id.0 as usize].name),
            PlaceKind::Deref(e) => format!("*<{}>({})", p.space().name(), self.expr(e)),
            PlaceKind::Value(e) => format!("value({})", self.expr(e)),
            PlaceKind::Element { array, index } => {
                format!("{}[{}]", self.place(array), self.expr(index))
            }
            PlaceKind::Field { record, field } => {
                let name = super::tir::record(&record.ty.ty)
                    .and_then(|r| r.fields.get(*field as usize).map(|f| f.name.to_string()))
                    .unwrap_or_else(|| format!("#{field}"));
                format!("{}.{name}", self.place(record))
            }
            PlaceKind::Lanes { vector, lanes } => {
                let lanes: Vec<String> = lanes.iter().map(|l| format!("{l:x}")).collect();
                format!("{}.s{}", self.place(vector), lanes.join(""))
            }
            PlaceKind::CompoundLiteral { local, init } => {
                format!("({}){}", self.local(*local), self.init(init))
            }
        }
    }
}

fn binary_op(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::Shl => "<<",
        BinaryOp::Shr => ">>",
        BinaryOp::BitAnd => "&",
        BinaryOp::BitOr => "|",
        BinaryOp::BitXor => "^",
        BinaryOp::Lt => "<",
        BinaryOp::Gt => ">",
        BinaryOp::Le => "<=",
        BinaryOp::Ge => ">=",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::VectorAnd => "v&&",
        BinaryOp::VectorOr => "v||",
    }
}

fn convert_kind(kind: ConvertKind, to: &super::types::Type) -> String {
    match kind {
        ConvertKind::Numeric { saturate, rounding } => {
            let mut name = format!("convert<{to}");
            if saturate {
                name.push_str(",sat");
            }
            match rounding {
                Rounding::Default => {}
                Rounding::Rte => name.push_str(",rte"),
                Rounding::Rtz => name.push_str(",rtz"),
                Rounding::Rtp => name.push_str(",rtp"),
                Rounding::Rtn => name.push_str(",rtn"),
            }
            name.push('>');
            name
        }
        ConvertKind::Splat => format!("splat<{to}>"),
        ConvertKind::BoolSplat => format!("boolsplat<{to}>"),
        ConvertKind::ToBool => "tobool".into(),
        ConvertKind::Bitcast => format!("as<{to}>"),
        ConvertKind::PointerCast => format!("ptrcast<{to}>"),
        ConvertKind::PointerToInt => format!("ptrtoint<{to}>"),
        ConvertKind::IntToPointer => format!("inttoptr<{to}>"),
        ConvertKind::Decay => "decay".into(),
    }
}

fn constant(c: &Constant, ty: &super::types::Type) -> String {
    let lanes: Vec<String> = match c {
        Constant::Int(v) => v.iter().map(|x| format!("{}", *x as i64)).collect(),
        Constant::Float(v) => v.iter().map(|x| format!("{x:?}")).collect(),
    };
    if lanes.len() == 1 {
        format!("{}:{ty}", lanes[0])
    } else {
        format!("({ty})({})", lanes.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use crate::build::{BuildOptions, typed_tree};

    fn tir_of(source: &str) -> String {
        let program = typed_tree("t.cl", source, &BuildOptions::default()).unwrap();
        super::print(&program)
    }

    #[test]
    fn prints_conversions_loads_and_builtins() {
        let text = tir_of(
            "kernel void k(global float *out, int n) {\n\
             float x = n;\n\
             out[get_global_id(0)] = sqrt(x) + 1;\n}\n",
        );
        assert_eq!(
            text,
            "kernel void k(__global float * out.0, int n.1) {\n\
             \x20 decl float x.2 = convert<float>(load n.1);\n\
             \x20 *<__global>((load out.0 + convert<long>(builtin get_global_id(0:uint): ulong) \
             elements)) = (builtin sqrt(load x.2): float + 1.0:float): float;\n\
             }\n"
        );
    }

    #[test]
    fn prints_control_flow_and_globals() {
        let text = tir_of(
            "constant int t[2] = {1, 2};\n\
             int f(int a) { for (int i = 0; i < a; i++) { if (i == 3) break; } return t[a]; }\n",
        );
        assert!(
            text.starts_with("global @t: __constant int[2] = 8 bytes\n\nint f(int a.0) {\n  {\n"),
            "{text}"
        );
        assert!(
            text.contains("  loop while ((load i.1 < load a.0): int) step (i.1++) {\n"),
            "{text}"
        );
        assert!(
            text.contains("        if ((load i.1 == 3:int): int) {\n          break;\n"),
            "{text}"
        );
        assert!(text.contains("  return load @t[load a.0];\n"), "{text}");
    }
}
