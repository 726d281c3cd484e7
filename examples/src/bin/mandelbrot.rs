//! Renders the Mandelbrot set with OpenCL — on whatever platform the ICD loader offers
//! first (clift, when `OCL_ICD_VENDORS` names it) — and saves it as a PNG.
//!
//! `cargo run --release -p clift-examples --bin mandelbrot -- [output.png]`

use std::ptr;
use std::time::Instant;

use clift_examples::png;
use opencl3::command_queue::{CL_QUEUE_PROFILING_ENABLE, CommandQueue};
use opencl3::context::Context;
use opencl3::device::{CL_DEVICE_TYPE_ALL, Device, get_all_devices};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_WRITE_ONLY};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::{CL_BLOCKING, cl_uchar};

const SOURCE: &str = r#"
// Smooth colouring of the escape time, as a palette of three phase-shifted waves.
kernel void mandelbrot(global uchar *rgb, int width, int height, float cx, float cy, float scale, int max_iter) {
    int x = get_global_id(0), y = get_global_id(1);
    float cr = cx + (x - width / 2) * scale;
    float ci = cy + (y - height / 2) * scale;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < max_iter && zr * zr + zi * zi < 256.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
    }
    float3 colour = (float3)(0.0f);
    if (i < max_iter) {
        float smooth = i + 1.0f - log2(log2(sqrt(zr * zr + zi * zi)));
        float t = 0.05f * smooth;
        colour = 0.5f + 0.5f * cos(6.2831853f * (t + (float3)(0.0f, 0.15f, 0.35f)));
    }
    uchar3 c = convert_uchar3_sat(colour * 255.0f);
    vstore3(c, y * width + x, rgb);
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let output = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "mandelbrot.png".into());
    let (width, height) = (1200usize, 800usize);
    let platform = get_platforms()?
        .into_iter()
        .next()
        .ok_or("no OpenCL platform")?;
    let device_id = *get_all_devices(CL_DEVICE_TYPE_ALL)?
        .first()
        .ok_or("no OpenCL device")?;
    let device = Device::new(device_id);
    println!("platform: {} ({})", platform.name()?, platform.version()?);
    println!("device:   {}", device.name()?);
    let context = Context::from_device(&device)?;
    let queue = CommandQueue::create_default(&context, CL_QUEUE_PROFILING_ENABLE)?;
    let start = Instant::now();
    let program = Program::create_and_build_from_source(&context, SOURCE, "")?;
    println!("built in {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    let kernel = Kernel::create(&program, "mandelbrot")?;
    // SAFETY: a fresh buffer of width*height*3 bytes; no host pointer.
    let image = unsafe {
        Buffer::<cl_uchar>::create(
            &context,
            CL_MEM_WRITE_ONLY,
            width * height * 3,
            ptr::null_mut(),
        )?
    };
    let start = Instant::now();
    // SAFETY: the arguments match the kernel's parameters in order and type.
    let event = unsafe {
        ExecuteKernel::new(&kernel)
            .set_arg(&image)
            .set_arg(&(width as i32))
            .set_arg(&(height as i32))
            .set_arg(&-0.745f32)
            .set_arg(&0.186f32)
            .set_arg(&(0.012f32 / width as f32))
            .set_arg(&512i32)
            .set_global_work_sizes(&[width, height])
            .enqueue_nd_range(&queue)?
    };
    event.wait()?;
    println!(
        "rendered {width}x{height} in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let mut rgb = vec![0u8; width * height * 3];
    // SAFETY: a blocking read into a host buffer of the buffer's size.
    unsafe { queue.enqueue_read_buffer(&image, CL_BLOCKING, 0, &mut rgb, &[])? };
    png::save(
        std::path::Path::new(&output),
        width as u32,
        height as u32,
        &rgb,
    )?;
    println!("picture: {}", std::fs::canonicalize(&output)?.display());
    Ok(())
}
