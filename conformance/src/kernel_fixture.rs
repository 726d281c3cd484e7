//! The fixture of the kernel suites (`basic`, `kernels`): a context and queue on clift's
//! device, buffers and kernels released on drop, a deterministic random generator and an
//! array comparison that names the first difference.

use std::ffi::{CStr, c_char, c_void};
use std::sync::Mutex;

use crate::*;

fn api() -> &'static Api {
    clift()
}

fn device() -> cl_device_id {
    api().device()
}

/// A context over the device and an in-order queue on it, released on drop.
pub struct Fixture {
    pub context: cl_context,
    pub queue: cl_command_queue,
}

/// A buffer, released on drop.
pub struct Mem(pub cl_mem);

impl Drop for Mem {
    fn drop(&mut self) {
        let status = api().release_mem_object(self.0);
        if !std::thread::panicking() {
            assert_eq!(status, CL_SUCCESS, "clReleaseMemObject");
        }
    }
}

/// A kernel and its program, released on drop.
pub struct Kernel {
    pub program: cl_program,
    pub kernel: cl_kernel,
}

impl Kernel {
    /// Sets argument `index` to the bytes of `value`.
    pub fn arg<T: Plain>(&self, index: cl_uint, value: T) -> &Kernel {
        assert_eq!(
            api().set_kernel_arg(self.kernel, index, value),
            CL_SUCCESS,
            "clSetKernelArg({index})"
        );
        self
    }

    /// Sets argument `index` to `bytes` (a struct passed by value).
    pub fn arg_bytes(&self, index: cl_uint, bytes: &[u8]) -> &Kernel {
        assert_eq!(
            api().set_kernel_arg_raw(self.kernel, index, bytes.len(), Some(bytes)),
            CL_SUCCESS,
            "clSetKernelArg({index})"
        );
        self
    }

    /// Sets argument `index` to a buffer.
    pub fn mem(&self, index: cl_uint, mem: &Mem) -> &Kernel {
        assert_eq!(
            api().set_kernel_arg_mem(self.kernel, index, mem.0),
            CL_SUCCESS,
            "clSetKernelArg({index})"
        );
        self
    }

    /// Kernel `name` of this kernel's program, holding its own reference to the program
    /// (so that a program with many kernels is built once).
    pub fn sibling(&self, name: &str) -> Kernel {
        let c_name = std::ffi::CString::new(name).expect("a kernel name without NUL");
        let kernel = api()
            .create_kernel(self.program, &c_name)
            .unwrap_or_else(|e| panic!("clCreateKernel({name:?}) failed: {e}"));
        assert_eq!(api().retain_program(self.program), CL_SUCCESS);
        Kernel {
            program: self.program,
            kernel,
        }
    }

    /// Sets `__local` argument `index` to `size` bytes.
    pub fn local(&self, index: cl_uint, size: usize) -> &Kernel {
        assert_eq!(
            api().set_kernel_arg_local(self.kernel, index, size),
            CL_SUCCESS,
            "clSetKernelArg({index})"
        );
        self
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        let statuses = [
            api().release_kernel(self.kernel),
            api().release_program(self.program),
        ];
        if !std::thread::panicking() {
            assert_eq!(statuses, [CL_SUCCESS; 2], "release kernel / program");
        }
    }
}

impl Fixture {
    pub fn new() -> Fixture {
        let context = api()
            .create_context(None, &[device()])
            .expect("clCreateContext");
        let queue = api()
            .create_command_queue(context, device(), 0)
            .expect("clCreateCommandQueue");
        Fixture { context, queue }
    }

    /// Builds `source` with `options` and creates its kernel `name`; panics with the build
    /// log if the build fails.
    pub fn kernel(&self, source: &str, name: &CStr, options: &CStr) -> Kernel {
        let program = api()
            .create_program_with_source(self.context, &[source])
            .expect("clCreateProgramWithSource");
        let status = api().build_program(program, options);
        assert_eq!(
            status,
            CL_SUCCESS,
            "clBuildProgram failed; log:\n{}",
            api().build_log(program, device())
        );
        let kernel = api()
            .create_kernel(program, name)
            .unwrap_or_else(|e| panic!("clCreateKernel({name:?}) failed: {e}"));
        Kernel { program, kernel }
    }

    /// A buffer holding `data`.
    pub fn buffer<T: Plain>(&self, data: &[T]) -> Mem {
        let bytes = bytes_of(data);
        let bytes = if bytes.is_empty() { &[0u8][..] } else { bytes };
        Mem(api()
            .create_buffer_from(self.context, 0, bytes)
            .expect("clCreateBuffer"))
    }

    /// A buffer of `count` copies of `value`.
    pub fn filled<T: Plain>(&self, value: T, count: usize) -> Mem {
        self.buffer(&vec![value; count])
    }

    /// The first `count` values of `mem`.
    pub fn read<T: Plain>(&self, mem: &Mem, count: usize) -> Vec<T> {
        let mut out = vec![0u8; count * size_of::<T>()];
        let status = api().read_buffer(self.queue, mem.0, 0, &mut out, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "clEnqueueReadBuffer");
        array(&out)
    }

    /// Enqueues `kernel` over a range of `global.len()` dimensions without waiting.
    pub fn enqueue(
        &self,
        kernel: &Kernel,
        offset: Option<&[usize]>,
        global: &[usize],
        local: Option<&[usize]>,
    ) {
        let status = api().enqueue_nd_range_kernel(
            self.queue,
            kernel.kernel,
            global.len() as cl_uint,
            offset,
            Some(global),
            local,
            Waits::NONE,
            None,
        );
        assert_eq!(
            status, CL_SUCCESS,
            "clEnqueueNDRangeKernel(global {global:?}, local {local:?}, offset {offset:?})"
        );
    }

    /// Runs `kernel` over a range of `global.len()` dimensions and waits for it.
    pub fn run(
        &self,
        kernel: &Kernel,
        offset: Option<&[usize]>,
        global: &[usize],
        local: Option<&[usize]>,
    ) {
        self.enqueue(kernel, offset, global, local);
        assert_eq!(api().finish(self.queue), CL_SUCCESS);
    }
}

impl Default for Fixture {
    fn default() -> Fixture {
        Fixture::new()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let statuses = [
            api().finish(self.queue),
            api().release_command_queue(self.queue),
            api().release_context(self.context),
        ];
        if !std::thread::panicking() {
            assert_eq!(
                statuses, [CL_SUCCESS; 3],
                "finish / release queue / context"
            );
        }
    }
}

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A float in [lo, hi).
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// An int in [lo, hi).
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        // In i64: the whole i32 range's width does not fit an i32.
        (i64::from(lo) + (self.next_u64() % (i64::from(hi) - i64::from(lo)) as u64) as i64) as i32
    }

    pub fn floats(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.float(lo, hi)).collect()
    }

    pub fn ints(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n).map(|_| self.int(lo, hi)).collect()
    }
}

/// Panics at the first index where `actual` and `expected` differ, naming `what`.
pub fn assert_same<T: PartialEq + std::fmt::Debug>(actual: &[T], expected: &[T], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths");
    if let Some(i) = (0..actual.len()).find(|&i| actual[i] != expected[i]) {
        panic!(
            "{what}: first difference at index {i}: got {:?}, expected {:?} ({} of {} differ)",
            actual[i],
            expected[i],
            (0..actual.len())
                .filter(|&i| actual[i] != expected[i])
                .count(),
            actual.len()
        );
    }
}

/// The messages of the contexts' notify callbacks, by the context's user data (an index).
static MESSAGES: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn record_message(
    text: *const c_char,
    _private: *const c_void,
    _size: usize,
    user: *mut c_void,
) {
    // SAFETY: the driver passes a NUL-terminated message.
    let text = unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned();
    MESSAGES.lock().unwrap().push((user as usize, text));
}

/// A fixture whose context (with [`record_message`] as its notify callback) records its callback's messages under `tag`.
pub fn recording_fixture(tag: usize) -> Fixture {
    let device = api().device();
    let (context, status) = api().create_context_raw(
        None,
        1,
        Some(&[device]),
        Some(record_message),
        tag as *mut _,
    );
    assert_eq!(status, CL_SUCCESS, "clCreateContext");
    let queue = api()
        .create_command_queue(context, device, 0)
        .expect("clCreateCommandQueue");
    Fixture { context, queue }
}

/// The messages the notify callback of the contexts made with `tag` received.
pub fn notify_messages(tag: usize) -> Vec<String> {
    let all = MESSAGES.lock().unwrap();
    all.iter()
        .filter(|(t, _)| *t == tag)
        .map(|(_, m)| m.clone())
        .collect()
}

/// Runs the ignored test `name` of the calling test binary in a child process with `env`
/// set (for what must happen once in a fresh process: environment read once, faults);
/// returns its output, after checking that it ran and passed.
pub fn child(name: &str, env: &[(&str, &str)]) -> String {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "child {name} failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child {name} did not run:\n{text}"
    );
    text
}
