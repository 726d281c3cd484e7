//! Image kernels compiled and run directly on image descriptors (no runtime): the image
//! builtins' overloads, samplers as arguments, program-scope constants and literals, the
//! query functions, and the access-qualifier rules.

mod common;

use clift_builtins::image::ImageDescriptor;
use clift_builtins::image::sample::*;
use clift_builtins::types::ImageKind;
use clift_compiler::build::{BuildOptions, build};
use common::{compile, run_1d_bytes};

// cl_channel_order / cl_channel_type values (OpenCL 1.2 cl.h).
const CL_RGBA: u32 = 0x10B5;
const CL_R: u32 = 0x10B0;
const CL_UNORM_INT8: u32 = 0x10D2;
const CL_FLOAT: u32 = 0x10DE;
const CL_SIGNED_INT32: u32 = 0x10D9;

fn descriptor(data: *mut u8, extent: [u32; 3], order: u32, ty: u32, elem: u32) -> ImageDescriptor {
    ImageDescriptor {
        data,
        row_pitch: u64::from(extent[0] * elem),
        slice_pitch: u64::from(extent[0] * extent[1] * elem),
        extent,
        channel_data_type: ty,
        channel_order: order,
        element_size: elem,
        kind: ImageDescriptor::kind_index(ImageKind::Image2d),
        _pad: 0,
    }
}

fn ptr_bytes<T>(p: *const T) -> Vec<u8> {
    (p as u64).to_ne_bytes().to_vec()
}

#[test]
fn copy_through_samplers_and_queries() {
    let k = compile(
        "const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                                CLK_FILTER_NEAREST;
        kernel void copy(read_only image2d_t src, write_only image2d_t dst, sampler_t s,
                         global int *info) {
            int x = get_global_id(0) % 4, y = get_global_id(0) / 4;
            float4 a = read_imagef(src, edge, (int2)(x, y));
            float4 b = read_imagef(src, s, (float2)(x + 0.5f, y + 0.5f));
            float4 c = read_imagef(src, CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST, (int2)(x - 4, y));
            write_imagef(dst, (int2)(x, y), a + b + c);
            if (get_global_id(0) == 0) {
                info[0] = get_image_width(src);
                info[1] = get_image_height(src);
                int2 d = get_image_dim(dst);
                info[2] = d.x * 100 + d.y;
                info[3] = get_image_channel_order(src) == CLK_RGBA;
                info[4] = get_image_channel_data_type(dst) == CLK_FLOAT;
            }
        }",
    );
    // A 4x2 RGBA8 source: element i holds (i, 2i, 3i, 255).
    let mut src: Vec<u8> = (0..8u8).flat_map(|i| [i, 2 * i, 3 * i, 255]).collect();
    let mut dst = vec![[0f32; 4]; 8];
    let mut info = [0i32; 5];
    let s = descriptor(src.as_mut_ptr(), [4, 2, 1], CL_RGBA, CL_UNORM_INT8, 4);
    let d = descriptor(dst.as_mut_ptr().cast(), [4, 2, 1], CL_RGBA, CL_FLOAT, 16);
    let sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    let args = vec![
        ptr_bytes(&s),
        ptr_bytes(&d),
        sampler.to_ne_bytes().to_vec(),
        ptr_bytes(info.as_mut_ptr()),
    ];
    run_1d_bytes(&k[0], 8, 4, &args, 0);
    for (i, px) in dst.iter().enumerate() {
        let v = |c: u8| f32::from(c) / 255.0;
        let i = i as u8;
        // a and b read the element; c reads the border (0, 0, 0, 0: RGBA has alpha).
        let one = [v(i), v(2 * i), v(3 * i), 1.0];
        assert_eq!(*px, one.map(|c| c + c), "element {i}");
    }
    assert_eq!(info, [4, 2, 402, 1, 1]);
}

#[test]
fn integer_images_and_sampler_less_reads() {
    let k = compile(
        "kernel void f(read_only image2d_t src, write_only image2d_t dst) {
            int2 p = (int2)(get_global_id(0), 0);
            int4 v = read_imagei(src, p);
            write_imagei(dst, p, v * 2 - 1);
        }",
    );
    let mut src = [5i32, -7, 100, i32::MIN];
    let mut dst = [0i32; 4];
    let s = descriptor(src.as_mut_ptr().cast(), [4, 1, 1], CL_R, CL_SIGNED_INT32, 4);
    let d = descriptor(dst.as_mut_ptr().cast(), [4, 1, 1], CL_R, CL_SIGNED_INT32, 4);
    run_1d_bytes(&k[0], 4, 4, &[ptr_bytes(&s), ptr_bytes(&d)], 0);
    assert_eq!(dst, [9, -15, 199, i32::MIN.wrapping_mul(2).wrapping_sub(1)]);
}

fn build_log(source: &str) -> String {
    match build("t.cl", source, &BuildOptions::default()) {
        Ok(_) => String::new(),
        Err(log) => log,
    }
}

#[test]
fn access_qualifiers_decide_reads_and_writes() {
    let log = build_log(
        "kernel void f(write_only image2d_t img) {
            float4 v = read_imagef(img, (int2)(0, 0));
        }",
    );
    assert!(
        log.contains(
            "t.cl:2:24: error: 'read_imagef' cannot read the write_only image 'image2d_t'"
        ),
        "{log}"
    );
    let log = build_log(
        "kernel void f(image2d_t img) { write_imagef(img, (int2)(0, 0), (float4)(0.0f)); }",
    );
    assert!(
        log.contains("error: 'write_imagef' cannot write the read_only image 'image2d_t'"),
        "{log}"
    );
    let log = build_log("kernel void f(read_write image2d_t img) { }");
    assert!(
        log.contains("access qualifier read_write can not be used for 'image2d_t'"),
        "{log}"
    );
    // Mixed-up overloads: an int4 coordinate for a 2D image has no overload.
    let log = build_log(
        "kernel void f(image2d_t img, global float4 *o) { *o = read_imagef(img, (int4)(0)); }",
    );
    assert!(
        log.contains("no matching function for call to 'read_imagef(image2d_t, int4)'"),
        "{log}"
    );
}
