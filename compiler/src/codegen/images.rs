//! Image builtins (6.12.14): queries read the image's descriptor directly; reads and writes
//! call the builtins library (`clift_builtins::image`), passing x, y, z coordinates and a
//! stack slot for the four colour lanes.

use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, Value, types};

use clift_builtins::image::ImageDescriptor;
use clift_builtins::image::sample::Sampler;

use super::func::{Lanes, Lower, Result};
use crate::frontend::tir::{BuiltinFunction as F, Expr};
use crate::frontend::types::{ImageKind, Type};

impl Lower<'_, '_> {
    /// `get_image_width/height/depth/channel_data_type/channel_order/dim/array_size`.
    pub(super) fn image_query(&mut self, function: F, values: &[Lanes], args: &[Expr]) -> Lanes {
        let desc = values[0][0];
        let kind = match args[0].ty {
            Type::Image(k) => k,
            _ => ImageKind::Image2d,
        };
        let flags = MemFlagsData::trusted();
        let field = |b: &mut cranelift_frontend::FunctionBuilder, offset: i32| {
            b.ins().load(types::I32, flags, desc, offset)
        };
        match function {
            F::GetImageWidth => vec![field(&mut self.b, ImageDescriptor::OFFSET_WIDTH)],
            F::GetImageHeight => vec![field(&mut self.b, ImageDescriptor::OFFSET_HEIGHT)],
            F::GetImageDepth => vec![field(&mut self.b, ImageDescriptor::OFFSET_DEPTH)],
            F::GetImageChannelDataType => {
                vec![field(
                    &mut self.b,
                    ImageDescriptor::OFFSET_CHANNEL_DATA_TYPE,
                )]
            }
            F::GetImageChannelOrder => {
                vec![field(&mut self.b, ImageDescriptor::OFFSET_CHANNEL_ORDER)]
            }
            F::GetImageArraySize => {
                // An array's layers are its z extent.
                let layers = field(&mut self.b, ImageDescriptor::OFFSET_DEPTH);
                vec![self.b.ins().uextend(types::I64, layers)]
            }
            // get_image_dim: (width, height) or, for 3D images, (width, height, depth, 0).
            _ => {
                let mut dim = vec![
                    field(&mut self.b, ImageDescriptor::OFFSET_WIDTH),
                    field(&mut self.b, ImageDescriptor::OFFSET_HEIGHT),
                ];
                if kind == ImageKind::Image3d {
                    dim.push(field(&mut self.b, ImageDescriptor::OFFSET_DEPTH));
                    dim.push(self.b.ins().iconst(types::I32, 0));
                }
                dim
            }
        }
    }

    /// `read_image{f,i,ui}` (with or without a sampler) and `write_image{f,i,ui}`.
    pub(super) fn image_access(
        &mut self,
        function: F,
        values: &[Lanes],
        args: &[Expr],
    ) -> Result<Lanes> {
        let desc = values[0][0];
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            16,
            4,
        ));
        let color = self.b.ins().stack_addr(types::I64, slot, 0);
        let flags = MemFlagsData::trusted();
        let write = match function {
            F::WriteImagef => Some("f"),
            F::WriteImagei => Some("i"),
            F::WriteImageui => Some("ui"),
            _ => None,
        };
        if let Some(kind) = write {
            let coords = self.xyz(&values[1], false);
            for (l, &lane) in values[2].iter().enumerate() {
                self.b.ins().store(flags, lane, color, 4 * l as i32);
            }
            let symbol = format!("clift_write_image{kind}");
            let mut call_args = vec![desc];
            call_args.extend(coords);
            call_args.push(color);
            self.call_symbol_multi(&symbol, &call_args, &[])?;
            return Ok(Vec::new());
        }
        let (sampler, coords_at) = if values.len() == 3 {
            (values[1][0], 2)
        } else {
            let bits = i64::from(Sampler::NONE.bits());
            (self.b.ins().iconst(types::I32, bits), 1)
        };
        let float_coords = args[coords_at].ty.element().is_some_and(|s| s.is_float());
        let coords = self.xyz(&values[coords_at], float_coords);
        let result_is_float = function == F::ReadImagef;
        let symbol = match (result_is_float, float_coords) {
            (true, true) => "clift_read_imagef",
            (true, false) => "clift_read_imagef_int",
            (false, true) => "clift_read_imagei",
            (false, false) => "clift_read_imagei_int",
        };
        let mut call_args = vec![desc, sampler];
        call_args.extend(coords);
        call_args.push(color);
        self.call_symbol_multi(symbol, &call_args, &[])?;
        let lane_type = if result_is_float {
            types::F32
        } else {
            types::I32
        };
        Ok((0..4)
            .map(|l| self.b.ins().load(lane_type, flags, color, 4 * l))
            .collect())
    }

    /// A coordinate's lanes as x, y, z (missing ones are 0).
    fn xyz(&mut self, lanes: &[Value], float: bool) -> [Value; 3] {
        std::array::from_fn(|i| match lanes.get(i) {
            Some(&v) => v,
            None if float => self.b.ins().f32const(0.0),
            None => self.b.ins().iconst(types::I32, 0),
        })
    }
}
