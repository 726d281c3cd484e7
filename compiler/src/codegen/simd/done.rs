//! Vectorized regions of kernels with barriers and a `return`: which of the step's
//! work-items are done.
//!
//! As in the scalar region rows (`func/rows.rs`), a work-item that returned has its frame's
//! done byte set and runs no later region. A vectorized step reads its four items' done bytes
//! into the mask of live lanes (none is done in the group's first region), so that a done
//! item neither reads nor writes memory; a `return` removes lanes from that mask (one that
//! every lane takes as well, then ending the step), and the step's end writes each lane's
//! done byte back from the mask.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Value, types};

use super::lower::{Frame, VecLower};

impl VecLower<'_, '_> {
    /// Starts the step's mask of live lanes: those whose done byte (at `done_flag` in each
    /// of `lane_frames`) is clear, or every lane in the group's `first` region. A `return`
    /// every lane takes goes to `latch`.
    pub(super) fn enter_live(
        &mut self,
        lane_frames: &[Value],
        done_flag: u32,
        first: bool,
        latch: Block,
    ) {
        let live = self.l.b.declare_var(types::I32X4);
        let mask = if first {
            self.splat_i32(-1)
        } else {
            let mut done = self.zero(types::I32X4);
            for (k, &frame) in lane_frames.iter().enumerate() {
                let byte = self.l.b.ins().load(
                    types::I8,
                    MemFlagsData::trusted(),
                    frame,
                    done_flag as i32,
                );
                let word = self.l.b.ins().uextend(types::I32, byte);
                done = self.l.b.ins().insertlane(done, word, k as u8);
            }
            let zero = self.zero(types::I32X4);
            self.l.b.ins().icmp(IntCC::Equal, done, zero)
        };
        self.l.b.def_var(live, mask);
        self.live = Some(live);
        self.uniform_return_clears_live = true;
        self.frames.push(Frame::Var(live));
        self.latch = Some(latch);
    }

    /// Writes each lane's done byte from the mask of live lanes (1 where the lane is not
    /// live: it returned in this region or an earlier one).
    pub(super) fn leave_live(&mut self, lane_frames: &[Value], done_flag: u32) {
        let Some(live) = self.live else {
            return;
        };
        let mask = self.l.b.use_var(live);
        for (k, &frame) in lane_frames.iter().enumerate() {
            let lane = self.l.b.ins().extractlane(mask, k as u8);
            let done = self.l.b.ins().icmp_imm_s(IntCC::Equal, lane, 0);
            self.l
                .b
                .ins()
                .store(MemFlagsData::trusted(), done, frame, done_flag as i32);
        }
    }
}
