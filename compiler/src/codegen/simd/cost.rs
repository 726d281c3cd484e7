//! Across the items or within each item: which row runs a kernel that already uses wide
//! vector types.
//!
//! The scalar row keeps a `float4`..`float16` (any vector of 128 bits or more) of one
//! work-item in 128-bit registers (`func/packed.rs`), so its vector arithmetic is already
//! SIMD. The vectorized row holds the same vector for 4 work-items as one register per
//! component ("structure of arrays"): the same number of arithmetic instructions per 4
//! items, but 4 times the independent registers (dependent chains of multiply-adds stop
//! waiting on each other), scalar work done once per 4 items instead of 4 times, and a
//! transpose for every vector it moves to or from memory at a varying address (4 items'
//! `float16`s are 64 consecutive floats: 16 loads, then 32 shuffles to put component c of
//! each item in register c; the scalar row loads 4 registers per item and is done). A
//! `float16` across 4 items also fills all 16 of x64's vector registers, so a loop that
//! loads one into another spills.
//!
//! The estimate counts, per step of 4 items, each operation weighted by 16 per enclosing
//! loop:
//! - `transposes`: 2 shuffles per component of each wide vector loaded or stored at a
//!   varying address (what the vectorized row pays and the scalar row does not);
//! - `vector_ops`: registers of the vectorized row's wide vector arithmetic (credited to
//!   it: the scalar row runs the same count, but as a quarter of the independent chains);
//! - `scalar_ops`: varying scalar operations (the vectorized row saves 3 of them per step;
//!   not counted on 64-bit integers, which take two registers of 4 items and save none).
//!
//! The scalar row is chosen when `transposes > vector_ops + 3 × scalar_ops`: where moving
//! the vectors costs more than the vectorized row saves (clpeak's float16 bandwidth
//! kernel: 32 shuffles per fetch against 16 adds and one index step), not where the
//! arithmetic dominates (its float16 multiply-add chains: no transposes at all).
//!
//! `vec_type_hint(T)` (OpenCL 1.2 §6.7.2: the kernel's computational width) decides
//! instead of the estimate, as on Intel's CPU runtime: a `T` the scalar row holds in
//! registers (128 bits or more) says the kernel is vectorized by hand, and it runs in the
//! scalar row; a scalar or narrower `T` asks for vectorization across items.

use super::lower::VecLower;
use crate::codegen::func::packed;
use crate::frontend::tir::visit::{Visit, walk_expr, walk_stmt};
use crate::frontend::tir::{self, BuiltinFunction, Expr, ExprKind, PlaceKind, Stmt, StmtKind};
use crate::frontend::types::{AddressSpace, Type};

/// The weight of an operation per enclosing loop (a loop runs more than once: 16 is the
/// trip count the estimate assumes; it only decides between the two rows).
const LOOP_WEIGHT: u64 = 16;

/// What a vectorized row would cost and save against the scalar row, per step of 4 items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Estimate {
    pub transposes: u64,
    pub vector_ops: u64,
    pub scalar_ops: u64,
    /// The part of `vector_ops` on vectors the scalar row holds in [`FULL_REGISTERS`] or
    /// more registers.
    pub full_ops: u64,
}

/// Registers of one item's vector from which the scalar row has as many independent
/// registers as the vectorized row would give: two vector FMA ports × 4 cycles of
/// latency. A `double16` (8 pairs) has them; a `float16` (4 registers) does not.
const FULL_REGISTERS: usize = 8;

/// What the scalar row of a region does for each item around its statements, and the
/// vectorized row once per step: store the item's id and frame address in its context,
/// test its done flag, step the local and global ids, compare and branch (the scalar
/// region of clift-bench's float4 stencil that copies `tile[l] = in[g]` runs 22
/// instructions per item besides the copy's 5). Counted as scalar operations, so that a
/// region that moves one or two wide vectors without much arithmetic stays vectorized: the
/// stencil's regions of 16 shuffles per step (against no arithmetic) and 24 (against 4
/// vector adds) each measured 4-5% faster vectorized on 2 cores.
const REGION_ITEM_OPS: u64 = 8;

impl Estimate {
    /// Whether the vectorized row is the faster; where the scalar row (wide vectors in
    /// registers, item by item) is, the reason for the build log.
    pub(super) fn vectorized_row_pays(&self) -> Result<(), String> {
        if 2 * self.full_ops > self.vector_ops + 3 * self.scalar_ops {
            return Err(format!(
                "its arithmetic is mostly on vectors of {FULL_REGISTERS} or more registers \
                 ({} of {} vector operations, {} scalar): item by item they already keep \
                 the vector units busy, and across 4 items they would need 4 times the \
                 registers; the scalar row keeps them in registers",
                self.full_ops, self.vector_ops, self.scalar_ops
            ));
        }
        if self.transposes > self.vector_ops + 3 * self.scalar_ops {
            return Err(format!(
                "its wide vectors are mostly moved, not computed: transposing them across \
                 items ({} shuffles) costs more than vectorizing saves ({} vector and {} \
                 scalar operations); the scalar row keeps them in registers",
                self.transposes, self.vector_ops, self.scalar_ops
            ));
        }
        Ok(())
    }
}

/// What `vec_type_hint(T)` of `f` says, if it has one: `Some(Err)` (why) where `T` fills
/// a register in the scalar row, `Some(Ok)` where it asks for vectorization across items.
pub(super) fn hint(f: &tir::Function) -> Option<Result<(), String>> {
    let t = f.kernel.as_ref()?.vec_type_hint.as_ref()?;
    Some(match packed::shape(t) {
        Some(_) => Err(format!(
            "its vec_type_hint({t}) says it is vectorized by hand: its vectors stay in \
             registers, item by item"
        )),
        None => Ok(()),
    })
}

/// Registers of a vector of `ty` in the vectorized row (one per component of 32 bits, two
/// per component of 64), where the scalar row holds `ty` in registers; `None` otherwise.
fn wide_registers(ty: &Type) -> Option<u64> {
    let shape = packed::shape(ty)?;
    Some(shape.n as u64 * u64::from(shape.lane.bits().max(32) / 32))
}

impl VecLower<'_, '_> {
    /// The estimate for the kernel's body.
    pub(super) fn estimate(&self, body: &[Stmt]) -> Estimate {
        let mut c = Counter {
            v: self,
            weight: 1,
            estimate: Estimate::default(),
        };
        for s in body {
            c.visit_stmt(s);
        }
        c.estimate
    }

    /// The estimate for a region of a kernel with barriers (`barrier_rows.rs`): its
    /// statements, the [`REGION_ITEM_OPS`] of each item's bookkeeping, and once per step
    /// each varying variable of `frame_types` that the step reads from the 4 lanes' frames
    /// or writes back to them. The scalar row keeps one item's vector in its frame as it
    /// keeps it in registers; the vectorized row transposes it both ways, as it does a
    /// vector in global memory (a `float16` carried across a barrier in a loop: 32 shuffles
    /// in and 32 out per step, against its 16 adds).
    pub(super) fn region_estimate<'t>(
        &self,
        stmts: &[Stmt],
        frame_types: impl IntoIterator<Item = &'t Type>,
    ) -> Estimate {
        let mut estimate = self.estimate(stmts);
        estimate.scalar_ops += REGION_ITEM_OPS;
        let mut c = Counter {
            v: self,
            weight: 1,
            estimate,
        };
        for ty in frame_types {
            c.moved(ty);
        }
        c.estimate
    }
}

struct Counter<'v, 'a, 'b> {
    v: &'v VecLower<'a, 'b>,
    weight: u64,
    estimate: Estimate,
}

impl Counter<'_, '_, '_> {
    /// A wide vector moved to or from memory at a varying address.
    fn moved(&mut self, ty: &Type) {
        if let Some(regs) = wide_registers(ty) {
            self.estimate.transposes += 2 * regs * self.weight;
        }
    }

    /// An operation computing a varying value of `ty`.
    fn computed(&mut self, ty: &Type) {
        match wide_registers(ty) {
            Some(regs) => {
                self.estimate.vector_ops += regs * self.weight;
                if packed::shape(ty).is_some_and(|s| s.registers() >= FULL_REGISTERS) {
                    self.estimate.full_ops += regs * self.weight;
                }
            }
            // A 64-bit integer of 4 items is two `i64x2` registers (and its conversions to
            // and from `int` widen and narrow them): no fewer instructions than the scalar
            // row's four, so nothing saved (clpeak's `int` index `id += get_local_size(0)`,
            // computed in `ulong`, and its `convert<long>` per fetch).
            None if matches!(ty, Type::Scalar(s) if s.is_integer() && s.bits() == 64) => {}
            None if matches!(ty, Type::Scalar(_) | Type::Enum(..)) => {
                self.estimate.scalar_ops += self.weight
            }
            None => {}
        }
    }

    /// Whether `place` is memory at a varying address (not a variable).
    fn varying_memory(&self, place: &tir::Place) -> bool {
        matches!(place.kind, PlaceKind::Deref(_) | PlaceKind::Element { .. })
            && place.space() != AddressSpace::Private
            && !self.v.place_uniform(place)
    }
}

impl Visit for Counter<'_, '_, '_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        if let StmtKind::Loop { .. } = s.kind {
            let outer = self.weight;
            self.weight = outer.saturating_mul(LOOP_WEIGHT);
            walk_stmt(self, s);
            self.weight = outer;
        } else {
            walk_stmt(self, s);
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        // Uniform values are computed once per step by either row.
        if self.v.is_uniform(e) {
            return;
        }
        match &e.kind {
            ExprKind::Load(place) if self.varying_memory(place) => self.moved(&e.ty),
            ExprKind::Assign { place, op, .. } => {
                if self.varying_memory(place) {
                    self.moved(&place.ty.ty);
                }
                if op.is_some() {
                    self.computed(&e.ty);
                }
            }
            ExprKind::IncDec { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Binary { .. }
            | ExprKind::Select { .. }
            | ExprKind::Conditional { .. } => self.computed(&e.ty),
            ExprKind::Convert {
                kind: tir::ConvertKind::Numeric { .. },
                ..
            } => self.computed(&e.ty),
            ExprKind::Builtin { id, args } => match id.function() {
                BuiltinFunction::Vload => self.moved(&e.ty),
                BuiltinFunction::Vstore => {
                    if let Some(value) = args.first() {
                        self.moved(&value.ty);
                    }
                }
                _ => self.computed(&e.ty),
            },
            _ => {}
        }
        walk_expr(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::Estimate;
    use crate::build::{BuildOptions, build};
    use crate::codegen::CodegenOptions;

    /// How the kernel `k` of `source` runs: `Ok(4)` vectorized, else why not.
    fn vectorized(source: &str, lanes_only: bool) -> Result<u32, String> {
        let options = BuildOptions {
            codegen: CodegenOptions {
                lanes_only,
                ..CodegenOptions::default()
            },
            // Doubles as on the device.
            sema: crate::frontend::sema::Options {
                fp64_supported: true,
                fp64_by_default: true,
                ..Default::default()
            },
            ..BuildOptions::default()
        };
        let built = build("v.cl", source, &options).expect("it builds");
        built.kernels[0].vectorized.clone()
    }

    #[test]
    fn the_scalar_row_wins_where_transposes_outweigh_what_vectorizing_saves() {
        let e = |transposes, vector_ops, scalar_ops| Estimate {
            transposes,
            vector_ops,
            scalar_ops,
            full_ops: 0,
        };
        assert_eq!(e(0, 2048, 0).vectorized_row_pays(), Ok(()));
        // Equal: the vectorized row is kept.
        assert_eq!(e(19, 16, 1).vectorized_row_pays(), Ok(()));
        assert_eq!(
            e(20, 16, 1).vectorized_row_pays(),
            Err(
                "its wide vectors are mostly moved, not computed: transposing them across \
                 items (20 shuffles) costs more than vectorizing saves (16 vector and 1 \
                 scalar operations); the scalar row keeps them in registers"
                    .into()
            )
        );
    }

    /// clpeak's float16 bandwidth kernel (`global_bandwidth_v16_local_offset`).
    const BANDWIDTH: &str = "
        #define FETCH_2(sum, id, A, jump) sum += A[id]; id += jump; sum += A[id]; id += jump;
        #define FETCH_4(sum, id, A, jump) FETCH_2(sum, id, A, jump); FETCH_2(sum, id, A, jump);
        HINT kernel void k(global float16 *A, global float *B) {
            int id = (get_group_id(0) * get_local_size(0) * 16) + get_local_id(0);
            float16 sum = 0;
            for (int i = 0; i < 4; i++) {
                FETCH_4(sum, id, A, get_local_size(0));
            }
            float t = sum.s0 + sum.s1 + sum.s2 + sum.s3 + sum.s4 + sum.s5 + sum.s6 + sum.s7;
            t += sum.s8 + sum.s9 + sum.sa + sum.sb + sum.sc + sum.sd + sum.se + sum.sf;
            B[get_global_id(0)] = t;
        }";

    #[test]
    fn clpeaks_float16_fetches_run_in_the_scalar_row_and_its_mads_across_items() {
        // Per fetch 2 × 16 shuffles against 16 adds and the index's step (its conversion to
        // `long` saves nothing), 4 fetches in a loop (×16): 2048 > 1024 + 3 × 80.
        assert_eq!(
            vectorized(&BANDWIDTH.replace("HINT", ""), false),
            Err(
                "its wide vectors are mostly moved, not computed: transposing them across \
                 items (2048 shuffles) costs more than vectorizing saves (1024 vector and 80 \
                 scalar operations); the scalar row keeps them in registers"
                    .into()
            )
        );
        // Without vector registers the scalar row would run them lane by lane.
        assert_eq!(vectorized(&BANDWIDTH.replace("HINT", ""), true), Ok(4));
        // The float4 kernel: 8 shuffles per fetch against 4 adds and the index's step
        // (measured 1.6-1.8x faster item by item on 2 cores).
        let float4 = BANDWIDTH
            .replace("HINT", "")
            .replace("float16", "float4")
            .replace(
                "t = sum.s0 + sum.s1 + sum.s2 + sum.s3 + sum.s4 + sum.s5 + sum.s6 + sum.s7;",
                "t = sum.s0 + sum.s1 + sum.s2 + sum.s3;",
            )
            .replace(
                "t += sum.s8 + sum.s9 + sum.sa + sum.sb + sum.sc + sum.sd + sum.se + sum.sf;",
                "",
            );
        assert_eq!(
            vectorized(&float4, false),
            Err(
                "its wide vectors are mostly moved, not computed: transposing them across \
                 items (512 shuffles) costs more than vectorizing saves (256 vector and 68 \
                 scalar operations); the scalar row keeps them in registers"
                    .into()
            )
        );
        // clpeak's compute_sp_v16: multiply-add chains and no memory but the result.
        assert_eq!(
            vectorized(
                "kernel void k(global float *ptr, float a) {
                    float16 x = (float16)(a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, a + 7,
                        a + 8, a + 9, a + 10, a + 11, a + 12, a + 13, a + 14, a + 15);
                    float16 y = (float16)get_local_id(0);
                    for (int i = 0; i < 8; i++) { x = mad(y, x, y); y = mad(x, y, x); }
                    ptr[get_global_id(0)] = y.s0 + y.s1 + y.s2 + y.sf;
                }",
                false
            ),
            Ok(4)
        );
    }

    #[test]
    fn a_float16_carried_across_a_barrier_in_a_loop_keeps_its_regions_scalar() {
        // clpeak's float16 fetch loop with a barrier per fetch: the sum goes through the
        // lanes' frames at every step (32 shuffles in, 32 out) besides the fetch's 32,
        // against 16 adds and the region's bookkeeping (measured on 2 cores: 7.5 GB/s
        // vectorized, 12.7 item by item, PoCL 11-12). The last region, which sums the
        // components, computes with them: it stays vectorized.
        let source = "kernel void k(global float16 *A, global float *B) {
            int id = get_group_id(0) * get_local_size(0) * 16 + get_local_id(0);
            float16 s = 0;
            for (int i = 0; i < 16; i++) {
                s += A[id];
                id += get_local_size(0);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            B[get_global_id(0)] = s.s0 + s.s1 + s.s2 + s.s3 + s.s4 + s.s5 + s.s6 + s.s7
                + s.s8 + s.s9 + s.sa + s.sb + s.sc + s.sd + s.se + s.sf;
        }";
        let moved = |n, shuffles, vector, scalar| {
            format!(
                "region {n} of 3 runs scalar: its wide vectors are mostly moved, not computed: \
                 transposing them across items ({shuffles} shuffles) costs more than \
                 vectorizing saves ({vector} vector and {scalar} scalar operations); the \
                 scalar row keeps them in registers"
            )
        };
        assert_eq!(
            vectorized(source, false),
            Err(format!("{}; {}", moved(1, 32, 0, 9), moved(2, 96, 16, 9)))
        );
        // clift-bench's float4 stencil copies one float4 per item into local memory (16
        // shuffles per step) and later stores the sum of two (24 shuffles, 4 adds): the
        // regions' bookkeeping outweighs them; every region is vectorized.
        let stencil = "kernel void k(global const float4 *in, global float4 *out,
                                     local float4 *tile) {
            size_t l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);
            tile[l] = in[g];
            barrier(CLK_LOCAL_MEM_FENCE);
            float4 x = tile[l], y = tile[(l + 1) % n];
            for (int i = 0; i < 16; i++) { x = mad(y, x, y); y = mad(x, y, x); }
            barrier(CLK_LOCAL_MEM_FENCE);
            tile[l] = x + y;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[g] = tile[(l + n - 1) % n];
        }";
        assert_eq!(vectorized(stencil, false), Ok(4));
    }

    #[test]
    fn double16_multiply_adds_run_in_the_scalar_row_and_float16_ones_across_items() {
        let chain = |t: &str| {
            format!(
                "kernel void k(global {t} *ptr, {t} a) {{
                    {t}16 x = ({t}16)(a);
                    {t}16 y = ({t}16)get_local_id(0);
                    for (int i = 0; i < 8; i++) {{ x = mad(y, x, y); y = mad(x, y, x); }}
                    ptr[get_global_id(0)] = y.s0 + y.sf;
                }}"
            )
        };
        // Two mads of 32 registers (16 pairs) in a loop (x16): 1024, against the 2 scalar
        // operations of the result's sum (its 64-bit index saves nothing).
        assert_eq!(
            vectorized(&chain("double"), false),
            Err(
                "its arithmetic is mostly on vectors of 8 or more registers (1024 of 1024 \
                 vector operations, 2 scalar): item by item they already keep the vector \
                 units busy, and across 4 items they would need 4 times the registers; the \
                 scalar row keeps them in registers"
                    .into()
            )
        );
        assert_eq!(vectorized(&chain("float"), false), Ok(4));
        // Half of the operations on 8 registers or more is not "mostly".
        let e = Estimate {
            full_ops: 16,
            vector_ops: 32,
            ..Estimate::default()
        };
        assert_eq!(e.vectorized_row_pays(), Ok(()));
        assert!(
            Estimate { full_ops: 17, ..e }
                .vectorized_row_pays()
                .is_err()
        );
    }

    #[test]
    fn vec_type_hint_decides_instead_of_the_estimate() {
        // A scalar hint asks for vectorization across items.
        assert_eq!(
            vectorized(
                &BANDWIDTH.replace("HINT", "__attribute__((vec_type_hint(float)))"),
                false
            ),
            Ok(4)
        );
        // A vector that fills a register: vectorized by hand, even a scalar kernel.
        let add = "HINT kernel void k(global float *a, global const float *b) {
            int i = get_global_id(0);
            a[i] += b[i];
        }";
        assert_eq!(
            vectorized(
                &add.replace("HINT", "__attribute__((vec_type_hint(float4)))"),
                false
            ),
            Err(
                "its vec_type_hint(float4) says it is vectorized by hand: its vectors stay in \
                 registers, item by item"
                    .into()
            )
        );
        // float2 is narrower than a register: the scalar row would hold it lane by lane.
        assert_eq!(
            vectorized(
                &add.replace("HINT", "__attribute__((vec_type_hint(float2)))"),
                false
            ),
            Ok(4)
        );
        // Without vector registers the hint has nothing to choose.
        assert_eq!(
            vectorized(
                &add.replace("HINT", "__attribute__((vec_type_hint(int8)))"),
                true
            ),
            Ok(4)
        );
    }
}
