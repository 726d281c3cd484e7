//! Programs: source text, the devices it is for, and what each build did (section 5.6).
//!
//! A build runs clift's OpenCL C compiler (`clift_compiler::build`) on the source and keeps
//! the resulting [`Executable`] (its JIT-compiled kernels) per device; `clCompileProgram`
//! keeps the preprocessed text as an object, and `clLinkProgram` builds from the objects'
//! texts. A failed build records `CL_BUILD_ERROR` and the compiler's log. A program from
//! binaries (`program_binary.rs`) holds one per device and builds each device's text.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::Arc;

use khronos_headers::*;
use parking_lot::Mutex;

use crate::clift_log;
use crate::context::Context;
use crate::device::Device;
use crate::error::{ClResult, fail};
use crate::object::{ClObject, Header, ObjectKind};
use crate::program_binary::{BinaryKind, ProgramBinary};

/// A successfully built program executable: its kernels, compiled.
#[derive(Debug)]
pub struct Executable {
    pub kernels: Vec<Arc<clift_compiler::kernel::KernelCode>>,
    /// The program after preprocessing and the options that act on it: what its binary
    /// holds (`CL_PROGRAM_BINARIES`).
    pub preprocessed: Arc<str>,
    pub options: Vec<u8>,
}

impl Executable {
    pub fn kernel(&self, name: &str) -> Option<&Arc<clift_compiler::kernel::KernelCode>> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// `CL_PROGRAM_KERNEL_NAMES`: "a semi-colon separated list of kernel names".
    pub fn kernel_names(&self) -> String {
        self.kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// What the last `clBuildProgram`, `clCompileProgram` or `clLinkProgram` did for one device
/// (`clGetProgramBuildInfo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildRecord {
    /// `CL_PROGRAM_BUILD_STATUS`.
    pub status: cl_build_status,
    /// `CL_PROGRAM_BUILD_OPTIONS`: the options string as the application passed it (bytes,
    /// since the spec does not say it is UTF-8).
    pub options: Vec<u8>,
    /// `CL_PROGRAM_BUILD_LOG`.
    pub log: String,
}

impl Default for BuildRecord {
    /// "CL_BUILD_NONE if no build, compile or link has been performed"; options and log are
    /// then empty strings.
    fn default() -> Self {
        BuildRecord {
            status: CL_BUILD_NONE,
            options: Vec::new(),
            log: String::new(),
        }
    }
}

/// The compiler's options for a build with these `clBuildProgram` options on clift's CPU
/// device (the extensions it supports, its OpenCL C version, the -D/-I/-cl-* options).
pub fn build_options(options: &CompileOptions) -> clift_compiler::build::BuildOptions {
    use clift_compiler::frontend::preprocess::PreprocessOptions;
    let extensions = crate::device::OPENCL_C_EXTENSIONS
        .iter()
        .map(|s| s.to_string())
        .collect();
    clift_compiler::build::BuildOptions {
        preprocess: PreprocessOptions {
            defines: options
                .defines
                .iter()
                .map(|(n, v)| {
                    (
                        n.clone(),
                        v.as_ref().map(|v| String::from_utf8_lossy(v).into_owned()),
                    )
                })
                .collect(),
            undefines: options.undefines.clone(),
            include_dirs: options.include_dirs.clone(),
            extensions,
            fast_relaxed_math: options.math.fast_relaxed_math,
            fp64: true,
            image_support: true,
            opencl_c_version: options.cl_std.map_or(120, ClStd::version),
            ..PreprocessOptions::default()
        },
        sema: clift_compiler::frontend::sema::Options {
            fp64_supported: true,
            // OpenCL C 1.2 made cl_khr_fp64 an optional core feature; before it, `double`
            // needs the extension's pragma.
            fp64_by_default: matches!(options.cl_std, None | Some(ClStd::Cl12)),
            fp16_supported: true,
            int64_atomics_supported: true,
            single_precision_constant: options.single_precision_constant,
            kernel_arg_info: options.kernel_arg_info,
        },
        codegen: clift_compiler::codegen::CodegenOptions {
            kernel_arg_info: options.kernel_arg_info,
            mad_enable: options.mad_enable,
            // CLIFT_VECTORIZE=0 (read by the compiler) turns vectorization off.
            scalar_only: false,
            // CLIFT_VECTOR_REGISTERS=0 keeps vector types lane by lane.
            lanes_only: false,
            // CLIFT_SCHEDULE=0 keeps Cranelift's instruction order.
            unscheduled: false,
            safe: options.safe || clift_compiler::codegen::safe_from_env(),
            // Large vectorized rows compile after the build returns, unless
            // CLIFT_DEFER_ROWS=0.
            defer_rows: clift_compiler::codegen::defer_rows_from_env(),
            // No memory object is larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE (clCreateBuffer
            // refuses it): the bound under which loops may step pointers.
            max_object_size: crate::platform::Platform::get()
                .devices()
                .iter()
                .map(|d| d.max_mem_alloc_size())
                .max()
                .unwrap_or(0),
        },
        suppress_warnings: options.no_warnings,
        warnings_are_errors: options.warnings_are_errors,
    }
}

/// A program object.
#[repr(C)]
pub struct Program {
    header: Header,
    context: Arc<Context>,
    devices: Vec<Arc<Device>>,
    /// The strings of `clCreateProgramWithSource`, concatenated. Kept as bytes: the spec does
    /// not restrict the source to UTF-8 and `CL_PROGRAM_SOURCE` returns it as given.
    source: Vec<u8>,
    /// One record per entry of `devices`, in the same order.
    builds: Mutex<Vec<BuildRecord>>,
    /// The executable of the last successful build, per device.
    executables: Mutex<Vec<Option<Arc<Executable>>>>,
    /// The compiled object (or library) of the last `clCompileProgram`, per device.
    objects: Mutex<Vec<Option<Object>>>,
    /// The binaries of `clCreateProgramWithBinary`, one per device (empty for programs from
    /// source).
    loaded: Vec<ProgramBinary>,
    /// Kernel objects made from this program and still alive: "CL_INVALID_OPERATION if there
    /// are kernel objects attached to program" forbids rebuilding under them.
    pub(crate) attached_kernels: std::sync::atomic::AtomicUsize,
}

// SAFETY: `Program` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Program {
    const KIND: ObjectKind = ObjectKind::Program;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Program {
    /// `clCreateProgramWithSource`: "The devices associated with the program object are the
    /// devices associated with context."
    pub fn with_source(context: Arc<Context>, source: Vec<u8>) -> Arc<Program> {
        let devices = context.devices().to_vec();
        let builds = Mutex::new(vec![BuildRecord::default(); devices.len()]);
        let executables = Mutex::new(vec![None; devices.len()]);
        let objects = Mutex::new(vec![None; devices.len()]);
        Arc::new(Program {
            header: Header::new(ObjectKind::Program),
            context,
            devices,
            source,
            builds,
            executables,
            objects,
            loaded: Vec::new(),
            attached_kernels: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    /// `clCreateProgramWithBinary` with one decoded binary per device. Compiled objects and
    /// libraries can be linked at once; an executable's binary is built by `clBuildProgram`
    /// (as the spec requires before kernels can be created).
    pub fn with_binaries(
        context: Arc<Context>,
        devices: Vec<Arc<Device>>,
        binaries: Vec<ProgramBinary>,
    ) -> Arc<Program> {
        assert_eq!(devices.len(), binaries.len(), "one binary per device");
        let objects = binaries
            .iter()
            .map(|b| match b.kind {
                BinaryKind::Executable => None,
                kind => Some(Object {
                    text: b.text.as_str().into(),
                    library: kind == BinaryKind::Library,
                }),
            })
            .collect();
        Arc::new(Program {
            header: Header::new(ObjectKind::Program),
            context,
            builds: Mutex::new(vec![BuildRecord::default(); devices.len()]),
            executables: Mutex::new(vec![None; devices.len()]),
            objects: Mutex::new(objects),
            devices,
            source: Vec::new(),
            loaded: binaries,
            attached_kernels: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.context
    }

    /// The devices associated with the program (`CL_PROGRAM_DEVICES`).
    pub fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }

    /// The source text, without a terminating NUL: empty for a program from binaries ("a
    /// null string or the appropriate program source code is returned").
    pub fn source(&self) -> &[u8] {
        &self.source
    }

    /// The position of `device` in [`Program::devices`], if it is associated with the program.
    pub fn device_index(&self, device: &Device) -> Option<usize> {
        self.devices
            .iter()
            .position(|d| std::ptr::eq(Arc::as_ptr(d), device))
    }

    /// What the last build, compile or link did for the device at `index`.
    pub fn build_record(&self, index: usize) -> BuildRecord {
        self.builds.lock()[index].clone()
    }

    /// The executable of a successful build, which kernels and the kernel queries need:
    /// "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for
    /// program".
    pub fn executable(&self) -> ClResult<Arc<Executable>> {
        let executables = self.executables.lock();
        match executables.iter().flatten().next() {
            Some(e) => Ok(Arc::clone(e)),
            None => fail(CL_INVALID_PROGRAM_EXECUTABLE),
        }
    }

    /// Whether kernels made from this program are still alive.
    pub fn has_kernels(&self) -> bool {
        self.attached_kernels
            .load(std::sync::atomic::Ordering::Acquire)
            > 0
    }

    /// `clBuildProgram` for the devices at `devices` (indices into [`Program::devices`]),
    /// once the entry point has checked its arguments and `options` (see [`CompileOptions`]).
    /// A failed build records `CL_BUILD_ERROR` and its log and answers
    /// `CL_BUILD_PROGRAM_FAILURE`.
    pub fn build(&self, devices: &[usize], options: &[u8]) -> ClResult<()> {
        CompileOptions::parse(options).or(fail(CL_INVALID_BUILD_OPTIONS))?;
        let devices = self.with_sub_devices(devices);
        // A program from source builds one text for all its devices; a program from
        // binaries builds each device's binary (devices with equal binaries share a build).
        let mut outcomes: Vec<(String, Vec<u8>, BuildOutcome)> = Vec::new();
        let mut all_built = true;
        let mut out_of_memory = false;
        for &index in &devices {
            let (text, effective) = self.build_input(index, options);
            let at = match outcomes
                .iter()
                .position(|(t, o, _)| *t == text && *o == effective)
            {
                Some(at) => at,
                None => {
                    let outcome = build_text(&text, &effective);
                    outcomes.push((text, effective, outcome));
                    outcomes.len() - 1
                }
            };
            let (status, log, executable, starved) = outcomes[at].2.clone();
            all_built &= status == CL_BUILD_SUCCESS;
            out_of_memory |= starved;
            self.builds.lock()[index] = BuildRecord {
                status,
                options: options.to_vec(),
                log,
            };
            self.executables.lock()[index] = executable;
        }
        if all_built {
            Ok(())
        } else if out_of_memory {
            // "CL_OUT_OF_HOST_MEMORY if there is a failure to allocate resources required by
            // the OpenCL implementation on the host": the compiler refused a build that
            // would not fit in the memory left (its log says so).
            fail(CL_OUT_OF_HOST_MEMORY)
        } else {
            fail(CL_BUILD_PROGRAM_FAILURE)
        }
    }

    /// Records, for the devices at `devices`, that a build or compile was refused for an
    /// invalid option: the log names it (the status and any executable stay as they were).
    pub fn record_invalid_option(&self, devices: &[usize], options: &[u8], bad: &InvalidOption) {
        let mut builds = self.builds.lock();
        for &index in devices {
            let record = &mut builds[index];
            record.options = options.to_vec();
            record.log = format!("<command line>: error: invalid build option '{}'\n", bad.0);
        }
    }

    /// `devices` and, after them, the program's other devices split (at any depth) from
    /// one of them. A sub-device runs on some of its parent's CPUs, so the parent's code is
    /// its code: building for a device builds for its sub-devices too, as applications
    /// expect (the Khronos CTS's device_partition builds for the parent device alone, then
    /// checks the build status of every device of the program and runs the kernels on the
    /// sub-devices' queues).
    fn with_sub_devices(&self, devices: &[usize]) -> Vec<usize> {
        let mut all = devices.to_vec();
        for (index, device) in self.devices.iter().enumerate() {
            let below_a_listed_one = devices
                .iter()
                .any(|&listed| device.descends_from(&self.devices[listed]));
            if below_a_listed_one && !all.contains(&index) {
                all.push(index);
            }
        }
        all
    }

    /// The text and options a build for the device at `index` compiles: the source, or
    /// the device's binary (an executable's own options first, then the build's).
    fn build_input(&self, index: usize, options: &[u8]) -> (String, Vec<u8>) {
        match self.loaded.get(index) {
            None => (
                String::from_utf8_lossy(&self.source).into_owned(),
                options.to_vec(),
            ),
            Some(binary) => {
                let mut effective = binary.options.clone();
                effective.push(b' ');
                effective.extend_from_slice(options);
                (binary.text.clone(), effective)
            }
        }
    }

    /// `CL_PROGRAM_BINARIES`: per device, the binary of its executable, else of its compiled
    /// object or library, else of what was loaded; empty where there is none ("If a specific
    /// device does not have a binary, a size of zero is returned").
    pub fn binaries(&self) -> Vec<Vec<u8>> {
        let executables = self.executables.lock();
        let objects = self.objects.lock();
        (0..self.devices.len())
            .map(|i| {
                let binary = if let Some(e) = &executables[i] {
                    ProgramBinary {
                        kind: BinaryKind::Executable,
                        options: e.options.clone(),
                        text: e.preprocessed.to_string(),
                    }
                } else if let Some(o) = &objects[i] {
                    ProgramBinary {
                        kind: if o.library {
                            BinaryKind::Library
                        } else {
                            BinaryKind::CompiledObject
                        },
                        options: Vec::new(),
                        text: o.text.to_string(),
                    }
                } else if let Some(b) = self.loaded.get(i) {
                    b.clone()
                } else {
                    return Vec::new();
                };
                binary.encode()
            })
            .collect()
    }

    /// `clCompileProgram`: checks the source with `options` and the embedded `headers`
    /// (include name, source) and keeps the compiled object for `clLinkProgram`.
    pub fn compile(
        &self,
        devices: &[usize],
        options: &[u8],
        headers: Vec<(String, String)>,
    ) -> ClResult<()> {
        let parsed = CompileOptions::parse(options).or(fail(CL_INVALID_COMPILER_OPTIONS))?;
        let mut build = build_options(&parsed);
        build.preprocess.headers = headers;
        let source = String::from_utf8_lossy(&self.source).into_owned();
        let result = clift_compiler::build::compile_object("<source>", &source, &build)
            .map(|(text, log)| (text, parsed.log() + &log))
            .map_err(|log| parsed.log() + &log)
            .and_then(|(text, log)| {
                if parsed.fail_build() {
                    Err(log)
                } else {
                    Ok((text, log))
                }
            });
        match &result {
            Ok((_, log)) => clift_log!(
                Build,
                Info,
                "compiled: options '{}', {} bytes of source{}{}",
                String::from_utf8_lossy(options),
                source.len(),
                if log.is_empty() { "" } else { "; log:\n" },
                log.trim_end()
            ),
            Err(log) => clift_log!(
                Build,
                Error,
                "compile failed: options '{}'; log:\n{}",
                String::from_utf8_lossy(options),
                log.trim_end()
            ),
        }
        let mut builds = self.builds.lock();
        let mut objects = self.objects.lock();
        let (status, log, object) = match result {
            Ok((text, log)) => (
                CL_BUILD_SUCCESS,
                log,
                Some(Object {
                    text: text.into(),
                    library: false,
                }),
            ),
            Err(log) => (CL_BUILD_ERROR, log, None),
        };
        for &index in devices {
            builds[index] = BuildRecord {
                status,
                options: options.to_vec(),
                log: log.clone(),
            };
            objects[index] = object.clone();
        }
        if status == CL_BUILD_SUCCESS {
            Ok(())
        } else {
            fail(CL_COMPILE_PROGRAM_FAILURE)
        }
    }

    /// Whether the program holds a compiled object or a library for `device`, the inputs
    /// `clLinkProgram` links.
    pub fn has_object_for(&self, device: &Device) -> bool {
        self.device_index(device)
            .is_some_and(|i| self.objects.lock()[i].is_some())
    }

    fn object_for(&self, device: &Device) -> Option<Object> {
        self.device_index(device)
            .and_then(|i| self.objects.lock()[i].clone())
    }

    /// `CL_PROGRAM_BINARY_TYPE` for the device at `index`.
    pub fn binary_type(&self, index: usize) -> cl_program_binary_type {
        if self.executables.lock()[index].is_some() {
            CL_PROGRAM_BINARY_TYPE_EXECUTABLE
        } else {
            match &self.objects.lock()[index] {
                Some(o) if o.library => CL_PROGRAM_BINARY_TYPE_LIBRARY,
                Some(_) => CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
                // A loaded executable binary, not built yet.
                None if self.loaded.get(index).is_some() => CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
                None => CL_PROGRAM_BINARY_TYPE_NONE,
            }
        }
    }
}

/// What one build produced: status, log, (when it succeeded) the executable, and whether
/// it failed for lack of host memory.
type BuildOutcome = (cl_build_status, String, Option<Arc<Executable>>, bool);

/// Builds `text` with `options`.
fn build_text(text: &str, options: &[u8]) -> BuildOutcome {
    let parsed = match CompileOptions::parse(options) {
        Ok(parsed) => parsed,
        // Only a binary's stored options can get here (the build's own were checked).
        Err(InvalidOption(option)) => {
            return (
                CL_BUILD_ERROR,
                format!("<binary>: error: invalid build option '{option}'\n"),
                None,
                false,
            );
        }
    };
    let started = std::time::Instant::now();
    let cache = crate::build_cache::global();
    // CLIFT_SAFE changes the code as -cl-clift-safe does: part of the key (it is read once
    // per process, so this only matters if that ever changes).
    let key: std::borrow::Cow<'_, [u8]> =
        if !parsed.safe && clift_compiler::codegen::safe_from_env() {
            [options, b" -cl-clift-safe"].concat().into()
        } else {
            options.into()
        };
    if let Some((log, executable)) = cache.and_then(|c| c.get(text, &key)) {
        clift_log!(
            Build,
            Info,
            "built from the build cache: options '{}', {} bytes of source, kernels [{}], {:.3} ms",
            String::from_utf8_lossy(options),
            text.len(),
            executable.kernel_names(),
            started.elapsed().as_secs_f64() * 1e3
        );
        return (CL_BUILD_SUCCESS, log, Some(executable), false);
    }
    let options_log = parsed.log();
    let outcome = if parsed.fail_build() {
        (CL_BUILD_ERROR, options_log, None, false)
    } else {
        use clift_compiler::build::BuildFailure;
        match clift_compiler::build::try_build("<source>", text, &build_options(&parsed)) {
            Ok(built) => {
                observe_build(text, options, &built, started.elapsed());
                (
                    CL_BUILD_SUCCESS,
                    options_log + &built.log,
                    Some(Arc::new(Executable {
                        kernels: built.kernels,
                        preprocessed: built.preprocessed.into(),
                        options: parsed.after_preprocessing(),
                    })),
                    false,
                )
            }
            Err(BuildFailure::Log(log)) => (CL_BUILD_ERROR, options_log + &log, None, false),
            Err(BuildFailure::OutOfMemory(log)) => (CL_BUILD_ERROR, options_log + &log, None, true),
        }
    };
    if let (Some(cache), Some(executable)) = (cache, &outcome.2) {
        cache.insert(text, &key, &outcome.1, executable.clone());
    }
    if outcome.0 != CL_BUILD_SUCCESS {
        clift_log!(
            Build,
            Error,
            "build failed: options '{}', {} bytes of source, after {:.3} ms; log:\n{}",
            String::from_utf8_lossy(options),
            text.len(),
            started.elapsed().as_secs_f64() * 1e3,
            outcome.1.trim_end()
        );
    }
    outcome
}

/// `CLIFT_LOG=build` and `CLIFT_PROFILE`: a successful build's options, size, stage times
/// and log.
fn observe_build(
    text: &str,
    options: &[u8],
    built: &clift_compiler::build::Built,
    total: std::time::Duration,
) {
    let profiled = crate::profile::enabled();
    if !profiled && !crate::log::enabled(crate::log::Category::Build, crate::log::Level::Info) {
        return;
    }
    let kernels: Vec<&str> = built.kernels.iter().map(|k| k.name.as_str()).collect();
    let kernels = kernels.join(",");
    if profiled {
        crate::profile::record_build(&kernels, text.len(), &built.stage_times, total);
    }
    let execution: String = built
        .kernels
        .iter()
        .map(|k| {
            let simd = match &k.vectorized {
                Ok(n) => format!(", {n} work-items per step (vectorized)"),
                Err(why) => format!(", not vectorized: {why}"),
            };
            format!(
                "\n  kernel {} runs as {}{simd}",
                k.name,
                k.execution.describe()
            )
        })
        .collect();
    let stages: Vec<String> = built
        .stage_times
        .iter()
        .map(|(stage, t)| format!("{stage} {:.3} ms", t.as_secs_f64() * 1e3))
        .collect();
    clift_log!(
        Build,
        Info,
        "built: options '{}', {} bytes of source, kernels [{kernels}], {:.3} ms ({}){execution}{}{}",
        String::from_utf8_lossy(options),
        text.len(),
        total.as_secs_f64() * 1e3,
        stages.join(", "),
        if built.log.is_empty() { "" } else { "; log:\n" },
        built.log.trim_end()
    );
}

/// A compiled object or library: the preprocessed program text.
#[derive(Clone, Debug)]
struct Object {
    text: Arc<str>,
    library: bool,
}

/// What `clLinkProgram` gives back: the new program, and whether the link succeeded.
///
/// "If the linking operation can begin, the function returns a valid non-zero program
/// object" — also when the link then fails (`CL_LINK_PROGRAM_FAILURE`): the application
/// reads why from the program's build log.
pub struct Linked {
    pub program: Arc<Program>,
    pub result: ClResult<()>,
}

/// `clLinkProgram` for `devices` (already checked to be in the context) from `inputs`, once
/// the entry point has checked its arguments and `options` (see [`LinkOptions`]): a new
/// program holding a library (`-create-library`) or an executable.
///
/// The objects are joined in order with [`object_boundary`] between them, so the compiler
/// keeps each object's tags and typedefs to it while resolving functions and program-scope
/// variables across objects.
pub fn link(
    context: Arc<Context>,
    devices: &[Arc<Device>],
    inputs: &[Arc<Program>],
    options: &[u8],
) -> ClResult<Linked> {
    let parsed = LinkOptions::parse(options).or(fail(CL_INVALID_LINKER_OPTIONS))?;
    // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or
    // libraries as described in input_programs argument above are not followed": for each
    // device, either all input programs have an object or library for it, or none has.
    let mut text = String::new();
    for device in devices {
        let with_object = inputs.iter().filter(|p| p.has_object_for(device)).count();
        if with_object != inputs.len() {
            return fail(CL_INVALID_OPERATION);
        }
    }
    if let Some(device) = devices.first() {
        for p in inputs {
            if let Some(o) = p.object_for(device) {
                if !text.is_empty() {
                    text.push_str(&object_boundary());
                }
                text.push_str(&o.text);
            }
        }
    }
    let program = Program::with_source(context, text.clone().into_bytes());
    let indices: Vec<usize> = devices
        .iter()
        .filter_map(|d| program.device_index(d))
        .collect();
    if parsed.create_library {
        let mut objects = program.objects.lock();
        let mut builds = program.builds.lock();
        for &i in &indices {
            objects[i] = Some(Object {
                text: text.clone().into(),
                library: true,
            });
            builds[i] = BuildRecord {
                status: CL_BUILD_SUCCESS,
                options: options.to_vec(),
                log: String::new(),
            };
        }
        drop((objects, builds));
        return Ok(Linked {
            program,
            result: Ok(()),
        });
    }
    // The link options are the math options of a build.
    let build_flags = parsed.math.flags().into_bytes();
    let built = program.build(&indices, &build_flags);
    // The record shows the options the application gave clLinkProgram.
    for &i in &indices {
        program.builds.lock()[i].options = options.to_vec();
    }
    // "CL_LINK_PROGRAM_FAILURE if there is a failure to link the compiled binaries and/or
    // libraries."
    // A link refused for lack of host memory says so (as clBuildProgram does).
    let result = built.map_err(|e| match e.code() {
        CL_OUT_OF_HOST_MEMORY => e,
        _ => crate::ClError(CL_LINK_PROGRAM_FAILURE),
    });
    Ok(Linked { program, result })
}

/// What `clLinkProgram` puts between two objects it joins: the compiler's
/// `#pragma clift object`, which starts a new translation unit.
fn object_boundary() -> String {
    format!(
        "\n#pragma {}\n",
        clift_compiler::frontend::sema::OBJECT_BOUNDARY_PRAGMA
    )
}

/// An option string the spec's lists do not allow: "CL_INVALID_BUILD_OPTIONS if the build
/// options specified by options are invalid" (`_COMPILER_` / `_LINKER_OPTIONS` for compile
/// and link). It names the offending option, for the caller's diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidOption(pub String);

/// `-cl-std=`: "Determine the OpenCL C language version to use. A value for this option must
/// be provided. Valid values are CL1.1 and CL1.2." clang also takes `CL` and `CL1.0`
/// (OpenCL C 1.0), in any letter case, and so does clift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClStd {
    Cl10,
    Cl11,
    Cl12,
}

impl ClStd {
    /// The value of `-cl-std=`, or `None` for one no 1.2 device takes.
    fn parse(value: &[u8]) -> Option<ClStd> {
        match value.to_ascii_uppercase().as_slice() {
            b"CL" | b"CL1.0" => Some(ClStd::Cl10),
            b"CL1.1" => Some(ClStd::Cl11),
            b"CL1.2" => Some(ClStd::Cl12),
            _ => None,
        }
    }

    /// `__OPENCL_C_VERSION__` for this version.
    fn version(self) -> u32 {
        match self {
            ClStd::Cl10 => 100,
            ClStd::Cl11 => 110,
            ClStd::Cl12 => 120,
        }
    }
}

/// The math options both compiling and linking accept (sections 5.6.4.2, 5.6.4.3, 5.6.5.2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MathOptions {
    pub denorms_are_zero: bool,
    pub no_signed_zeros: bool,
    pub unsafe_math_optimizations: bool,
    pub finite_math_only: bool,
    pub fast_relaxed_math: bool,
}

impl MathOptions {
    /// Sets the flag `option` names; false if it is not one of these options.
    fn set(&mut self, option: &[u8]) -> bool {
        let flag = match option {
            b"-cl-denorms-are-zero" => &mut self.denorms_are_zero,
            // The 1.2 spec's list of link options spells it "-cl-no-signed-zeroes"; its
            // compiler options, and every compiler, "-cl-no-signed-zeros". Both are accepted.
            b"-cl-no-signed-zeros" | b"-cl-no-signed-zeroes" => &mut self.no_signed_zeros,
            b"-cl-unsafe-math-optimizations" => &mut self.unsafe_math_optimizations,
            b"-cl-finite-math-only" => &mut self.finite_math_only,
            b"-cl-fast-relaxed-math" => &mut self.fast_relaxed_math,
            _ => return false,
        };
        *flag = true;
        true
    }

    /// The options that set these flags, each followed by a space.
    fn flags(&self) -> String {
        [
            (self.fast_relaxed_math, "-cl-fast-relaxed-math "),
            (self.finite_math_only, "-cl-finite-math-only "),
            (
                self.unsafe_math_optimizations,
                "-cl-unsafe-math-optimizations ",
            ),
            (self.no_signed_zeros, "-cl-no-signed-zeros "),
            (self.denorms_are_zero, "-cl-denorms-are-zero "),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, flag)| *flag)
        .collect()
    }
}

/// The options of `clBuildProgram` and `clCompileProgram` (section 5.6.4), parsed.
///
/// Accepted: the 1.2 spec's options, the deprecated `-cl-strict-aliasing` of 1.0 (with a
/// warning, as clang gives), and what the clang-based drivers (PoCL, rusticl) also take
/// and applications pass: `-U name` and `-g`. Anything else is invalid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// `-D name` (`None`: defined as 1) and `-D name=definition`, in the order given, which
    /// is the order they are processed in. `name` may carry a parameter list
    /// (`-D 'SQ(x)=((x)*(x))'` is `#define SQ(x) ((x)*(x))`).
    pub defines: Vec<(String, Option<Vec<u8>>)>,
    /// `-U name`: the names left undefined once every `-D` is processed. clang processes
    /// `-D` and `-U` in the order given; parsing keeps that meaning (a `-U` drops the
    /// earlier `-D`s of its name, a `-D` cancels an earlier `-U`).
    pub undefines: Vec<String>,
    /// `-I dir`, in order.
    pub include_dirs: Vec<PathBuf>,
    pub single_precision_constant: bool,
    pub fp32_correctly_rounded_divide_sqrt: bool,
    pub opt_disable: bool,
    pub mad_enable: bool,
    pub math: MathOptions,
    /// `-w`.
    pub no_warnings: bool,
    /// `-Werror`.
    pub warnings_are_errors: bool,
    pub cl_std: Option<ClStd>,
    pub kernel_arg_info: bool,
    /// `-cl-strict-aliasing` (OpenCL 1.0, deprecated by 1.1): accepted, no effect.
    pub strict_aliasing: bool,
    /// `-g`: accepted, as by PoCL and clang; clift emits no debug information.
    pub debug_info: bool,
    /// `-cl-clift-safe` (or `CLIFT_SAFE=1` in the environment): bounds-checked kernels.
    pub safe: bool,
}

impl CompileOptions {
    /// Parses an options string (NULL is passed as the empty string).
    pub fn parse(options: &[u8]) -> Result<CompileOptions, InvalidOption> {
        let mut parsed = CompileOptions::default();
        let mut tokens = tokens(options)?.into_iter();
        while let Some(token) = tokens.next() {
            if let Some(rest) = token.strip_prefix(b"-D") {
                let definition = joined_or_next(rest, &mut tokens, &token)?;
                let (name, value) = macro_definition(&definition)?;
                let key = macro_name(&name).to_string();
                parsed.undefines.retain(|u| *u != key);
                parsed.defines.push((name, value));
            } else if let Some(rest) = token.strip_prefix(b"-U") {
                let name = joined_or_next(rest, &mut tokens, &token)?;
                if !is_identifier(&name) {
                    return Err(invalid(&name));
                }
                // An identifier is ASCII, so this cannot lose anything.
                let name = String::from_utf8_lossy(&name).into_owned();
                parsed.defines.retain(|(d, _)| macro_name(d) != name);
                if !parsed.undefines.contains(&name) {
                    parsed.undefines.push(name);
                }
            } else if let Some(rest) = token.strip_prefix(b"-I") {
                let dir = joined_or_next(rest, &mut tokens, &token)?;
                parsed
                    .include_dirs
                    .push(PathBuf::from(OsStr::from_bytes(&dir)));
            } else if let Some(version) = token.strip_prefix(b"-cl-std=") {
                parsed.cl_std = Some(ClStd::parse(version).ok_or_else(|| invalid(&token))?);
            } else if !parsed.math.set(&token) {
                let flag = match token.as_slice() {
                    b"-cl-single-precision-constant" => &mut parsed.single_precision_constant,
                    b"-cl-fp32-correctly-rounded-divide-sqrt" => {
                        &mut parsed.fp32_correctly_rounded_divide_sqrt
                    }
                    b"-cl-opt-disable" => &mut parsed.opt_disable,
                    b"-cl-mad-enable" => &mut parsed.mad_enable,
                    b"-w" => &mut parsed.no_warnings,
                    b"-Werror" => &mut parsed.warnings_are_errors,
                    b"-cl-kernel-arg-info" => &mut parsed.kernel_arg_info,
                    b"-cl-strict-aliasing" => &mut parsed.strict_aliasing,
                    b"-g" => &mut parsed.debug_info,
                    b"-cl-clift-safe" => &mut parsed.safe,
                    _ => return Err(invalid(&token)),
                };
                *flag = true;
            }
        }
        Ok(parsed)
    }

    /// The build log's lines about the options themselves (empty with `-w`).
    /// With `-Werror` they are errors, and [`CompileOptions::fail_build`] says so.
    pub fn log(&self) -> String {
        let version = self.cl_std.unwrap_or(ClStd::Cl12);
        if self.no_warnings || !self.strict_aliasing || version == ClStd::Cl10 {
            return String::new();
        }
        // clang's warning: the option is OpenCL 1.0's only.
        let (major, minor) = (version.version() / 100, version.version() / 10 % 10);
        let severity = if self.warnings_are_errors {
            "error"
        } else {
            "warning"
        };
        format!(
            "<command line>: {severity}: OpenCL version {major}.{minor} does not support the \
             option '-cl-strict-aliasing'\n"
        )
    }

    /// Whether the options alone fail the build: a warning of [`CompileOptions::log`]
    /// under `-Werror`, as clang fails it.
    pub fn fail_build(&self) -> bool {
        self.warnings_are_errors && !self.log().is_empty()
    }

    /// The options that still act on preprocessed text (everything but `-D`, `-I`, `-w`
    /// and `-Werror`), as an options string: what an executable's binary keeps, since its
    /// text is already preprocessed.
    pub fn after_preprocessing(&self) -> Vec<u8> {
        let mut flags = self.math.flags();
        for (on, flag) in [
            (
                self.single_precision_constant,
                "-cl-single-precision-constant ",
            ),
            (
                self.fp32_correctly_rounded_divide_sqrt,
                "-cl-fp32-correctly-rounded-divide-sqrt ",
            ),
            (self.opt_disable, "-cl-opt-disable "),
            (self.mad_enable, "-cl-mad-enable "),
            (self.kernel_arg_info, "-cl-kernel-arg-info "),
            (self.safe, "-cl-clift-safe "),
            (self.cl_std == Some(ClStd::Cl10), "-cl-std=CL1.0 "),
            (self.cl_std == Some(ClStd::Cl11), "-cl-std=CL1.1 "),
            (self.cl_std == Some(ClStd::Cl12), "-cl-std=CL1.2 "),
        ] {
            if on {
                flags.push_str(flag);
            }
        }
        flags.trim_end().as_bytes().to_vec()
    }
}

/// The options of `clLinkProgram` (section 5.6.5), parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    pub create_library: bool,
    pub enable_link_options: bool,
    pub math: MathOptions,
}

impl LinkOptions {
    /// Parses an options string (NULL is passed as the empty string).
    pub fn parse(options: &[u8]) -> Result<LinkOptions, InvalidOption> {
        let mut parsed = LinkOptions::default();
        for token in tokens(options)? {
            match token.as_slice() {
                b"-create-library" => parsed.create_library = true,
                b"-enable-link-options" => parsed.enable_link_options = true,
                _ if parsed.math.set(&token) => {}
                _ => return Err(invalid(&token)),
            }
        }
        // "-enable-link-options ... This option must be specified with the -create-library
        // option."
        if parsed.enable_link_options && !parsed.create_library {
            return Err(InvalidOption("-enable-link-options".to_string()));
        }
        Ok(parsed)
    }
}

fn invalid(token: &[u8]) -> InvalidOption {
    InvalidOption(String::from_utf8_lossy(token).into_owned())
}

/// Splits an options string into arguments as a POSIX shell (and LLVM's GNU command-line
/// tokenizer, which clang-based drivers use) does: white space separates; `'...'` keeps
/// everything literally; `"..."` keeps white space, and a backslash in it escapes `"` and
/// `\\`; a backslash outside quotes escapes the next byte. So `-D 'STR(x)=#x'`,
/// `-I "a dir"` and `-D X=a\ b` are one argument each. An unterminated quote is invalid.
fn tokens(options: &[u8]) -> Result<Vec<Vec<u8>>, InvalidOption> {
    let mut tokens = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    let mut bytes = options.iter().copied();
    let unterminated = || InvalidOption(String::from_utf8_lossy(options).into_owned());
    while let Some(byte) = bytes.next() {
        match byte {
            b'\'' => {
                let token = current.get_or_insert_with(Vec::new);
                loop {
                    match bytes.next().ok_or_else(unterminated)? {
                        b'\'' => break,
                        b => token.push(b),
                    }
                }
            }
            b'"' => {
                let token = current.get_or_insert_with(Vec::new);
                loop {
                    match bytes.next().ok_or_else(unterminated)? {
                        b'"' => break,
                        b'\\' => match bytes.next().ok_or_else(unterminated)? {
                            b @ (b'"' | b'\\') => token.push(b),
                            b => token.extend([b'\\', b]),
                        },
                        b => token.push(b),
                    }
                }
            }
            b'\\' => {
                // A backslash at the very end stays itself, as in LLVM's tokenizer.
                let token = current.get_or_insert_with(Vec::new);
                token.push(bytes.next().unwrap_or(b'\\'));
            }
            b if b.is_ascii_whitespace() => tokens.extend(current.take()),
            b => current.get_or_insert_with(Vec::new).push(b),
        }
    }
    tokens.extend(current);
    Ok(tokens)
}

/// The argument of `-D` / `-I`: the rest of the token (`-Dname`) or the next one (`-D name`).
fn joined_or_next(
    rest: &[u8],
    tokens: &mut impl Iterator<Item = Vec<u8>>,
    option: &[u8],
) -> Result<Vec<u8>, InvalidOption> {
    let argument = if rest.is_empty() {
        tokens.next().ok_or_else(|| invalid(option))?
    } else {
        rest.to_vec()
    };
    if argument.is_empty() {
        return Err(invalid(option));
    }
    Ok(argument)
}

/// `name`, `name=definition`, `name(params)` or `name(params)=definition`, as clang's `-D`
/// takes them: the name must be an identifier, and what follows it up to the `=` a
/// parameter list, which the preprocessor checks as it checks a `#define`'s (a bad one is a
/// build error at `<command line>`, as in clang).
fn macro_definition(text: &[u8]) -> Result<(String, Option<Vec<u8>>), InvalidOption> {
    let name_end = text
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(text.len());
    if !is_identifier(&text[..name_end]) {
        return Err(invalid(text));
    }
    let (head, definition) = match text[name_end..].first() {
        None => (text, None),
        Some(b'=') => (&text[..name_end], Some(text[name_end + 1..].to_vec())),
        Some(b'(') => {
            let close = text[name_end..]
                .iter()
                .position(|&b| b == b')')
                .map(|at| name_end + at + 1)
                .ok_or_else(|| invalid(text))?;
            match text[close..].first() {
                None => (text, None),
                Some(b'=') => (&text[..close], Some(text[close + 1..].to_vec())),
                Some(_) => return Err(invalid(text)),
            }
        }
        Some(_) => return Err(invalid(text)),
    };
    Ok((String::from_utf8_lossy(head).into_owned(), definition))
}

/// The macro a `-D` name defines: `SQ` of `SQ(x)`.
fn macro_name(name: &str) -> &str {
    name.split('(').next().unwrap_or(name)
}

fn is_identifier(name: &[u8]) -> bool {
    matches!(name.first(), Some(b) if b.is_ascii_alphabetic() || *b == b'_')
        && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_options_of_the_spec_parse() {
        let parsed = CompileOptions::parse(
            b"-D A -DB=2 -D \"C=x y\" -I /inc -I\"/a dir\" -cl-std=CL1.2 -cl-mad-enable \
              -cl-fast-relaxed-math -w -Werror -cl-kernel-arg-info -cl-opt-disable",
        )
        .unwrap();
        assert_eq!(
            parsed.defines,
            vec![
                ("A".to_string(), None),
                ("B".to_string(), Some(b"2".to_vec())),
                ("C".to_string(), Some(b"x y".to_vec())),
            ]
        );
        assert_eq!(
            parsed.include_dirs,
            vec![PathBuf::from("/inc"), PathBuf::from("/a dir")]
        );
        assert_eq!(parsed.cl_std, Some(ClStd::Cl12));
        assert!(parsed.mad_enable && parsed.math.fast_relaxed_math && parsed.no_warnings);
        assert!(parsed.warnings_are_errors && parsed.kernel_arg_info && parsed.opt_disable);
        assert!(!parsed.safe);
        assert_eq!(
            CompileOptions::parse(b"").unwrap(),
            CompileOptions::default()
        );
        assert_eq!(
            CompileOptions::parse(b"  \t ").unwrap(),
            CompileOptions::default()
        );
    }

    #[test]
    fn function_like_macros_and_undefines_parse_as_clang_takes_them() {
        let parsed = CompileOptions::parse(
            b"-D 'STR(x)=#x' -D 'CAT(a,b)=a##b' -DF(x) -DE= -D\"G( a , b )=a+b\" \
              -D X=a\\ b -U Y -UZ",
        )
        .unwrap();
        assert_eq!(
            parsed.defines,
            vec![
                ("STR(x)".to_string(), Some(b"#x".to_vec())),
                ("CAT(a,b)".to_string(), Some(b"a##b".to_vec())),
                ("F(x)".to_string(), None),
                ("E".to_string(), Some(Vec::new())),
                ("G( a , b )".to_string(), Some(b"a+b".to_vec())),
                ("X".to_string(), Some(b"a b".to_vec())),
            ]
        );
        assert_eq!(parsed.undefines, vec!["Y".to_string(), "Z".to_string()]);
        // -D and -U act in the order given: a -U drops the earlier -D of its name, a -D
        // cancels an earlier -U.
        let parsed = CompileOptions::parse(b"-DA=1 -D'B(x)=x' -UA -UB -UC -DC=3").unwrap();
        assert_eq!(parsed.defines, vec![("C".to_string(), Some(b"3".to_vec()))]);
        assert_eq!(parsed.undefines, vec!["A".to_string(), "B".to_string()]);
        // Inside double quotes a backslash escapes only `"` and `\`.
        let parsed = CompileOptions::parse(br#"-D "S=\"a\\b\n\"""#).unwrap();
        assert_eq!(parsed.defines[0].1, Some(br#""a\b\n""#.to_vec()));
    }

    #[test]
    fn deprecated_and_driver_options_are_accepted() {
        let parsed = CompileOptions::parse(
            b"-cl-strict-aliasing -g -cl-fp32-correctly-rounded-divide-sqrt -cl-std=cl1.0",
        )
        .unwrap();
        assert!(parsed.strict_aliasing && parsed.debug_info);
        assert!(parsed.fp32_correctly_rounded_divide_sqrt);
        assert_eq!(parsed.cl_std, Some(ClStd::Cl10));
        // clang warns about -cl-strict-aliasing except for OpenCL C 1.0; -w silences it.
        assert_eq!(parsed.log(), "");
        assert_eq!(
            CompileOptions::parse(b"-cl-strict-aliasing").unwrap().log(),
            "<command line>: warning: OpenCL version 1.2 does not support the option \
             '-cl-strict-aliasing'\n"
        );
        assert_eq!(
            CompileOptions::parse(b"-cl-strict-aliasing -cl-std=CL1.1")
                .unwrap()
                .log(),
            "<command line>: warning: OpenCL version 1.1 does not support the option \
             '-cl-strict-aliasing'\n"
        );
        assert_eq!(
            CompileOptions::parse(b"-w -cl-strict-aliasing")
                .unwrap()
                .log(),
            ""
        );
        // -Werror makes it an error that fails the build; -w still silences it.
        let werror = CompileOptions::parse(b"-Werror -cl-strict-aliasing").unwrap();
        assert_eq!(
            werror.log(),
            "<command line>: error: OpenCL version 1.2 does not support the option \
             '-cl-strict-aliasing'\n"
        );
        assert!(werror.fail_build());
        assert!(
            !CompileOptions::parse(b"-Werror -w -cl-strict-aliasing")
                .unwrap()
                .fail_build()
        );
        assert!(!CompileOptions::parse(b"-Werror").unwrap().fail_build());
        assert_eq!(
            CompileOptions::parse(b"-cl-std=CL").unwrap().cl_std,
            Some(ClStd::Cl10)
        );
        let version = |o: &[u8]| {
            build_options(&CompileOptions::parse(o).unwrap())
                .preprocess
                .opencl_c_version
        };
        assert_eq!(
            (
                version(b""),
                version(b"-cl-std=CL1.0"),
                version(b"-cl-std=CL1.1")
            ),
            (120, 100, 110)
        );
    }

    #[test]
    fn invalid_compile_options_are_rejected() {
        for bad in [
            &b"-D"[..],
            b"-D 1X",
            b"-D =1",
            b"-I",
            b"-cl-std=CL2.0",
            b"-cl-std",
            b"-O3",
            b"foo",
            b"-create-library",
            b"-D \"X=1",
            b"-D 'X=1",
            b"-D X\\",
            b"-D X+1",
            b"-D 'F(x=1'",
            b"-D 'F(x)y=1'",
            b"-U",
            b"-U F(x)",
            b"-U X=1",
            b"-O3",
            b"-O0",
            b"-cl-std=CL2.0",
            b"-Wall",
        ] {
            assert!(CompileOptions::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            CompileOptions::parse(b"-cl-mad-enable -foo"),
            Err(InvalidOption("-foo".to_string()))
        );
    }

    #[test]
    fn link_options() {
        let parsed =
            LinkOptions::parse(b"-create-library -enable-link-options -cl-no-signed-zeroes")
                .unwrap();
        assert!(parsed.create_library && parsed.enable_link_options);
        assert!(parsed.math.no_signed_zeros);
        assert!(LinkOptions::parse(b"-enable-link-options").is_err());
        assert!(LinkOptions::parse(b"-cl-mad-enable").is_err());
        assert!(LinkOptions::parse(b"-D X").is_err());
    }

    fn program(source: &str) -> Arc<Program> {
        let devices = crate::platform::Platform::get().devices().to_vec();
        let context = Context::new(devices, Default::default(), None);
        Program::with_source(context, source.as_bytes().to_vec())
    }

    #[test]
    fn builds_record_status_options_log_and_the_executable() {
        let p = program("kernel void k(global int *x) { x[0] = 1; }\nkernel void j() {}");
        assert_eq!(p.devices().len(), 1);
        assert_eq!(p.device_index(&p.devices()[0]), Some(0));
        assert_eq!(p.build_record(0), BuildRecord::default());
        assert_eq!(
            p.executable().unwrap_err().code(),
            CL_INVALID_PROGRAM_EXECUTABLE
        );
        assert_eq!(p.binary_type(0), CL_PROGRAM_BINARY_TYPE_NONE);
        p.build(&[0], b"-w").unwrap();
        let record = p.build_record(0);
        assert_eq!(
            (record.status, record.options.as_slice()),
            (CL_BUILD_SUCCESS, &b"-w"[..])
        );
        assert_eq!(p.executable().unwrap().kernel_names(), "k;j");
        assert_eq!(p.binary_type(0), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    }

    #[test]
    fn a_failed_build_keeps_its_log() {
        let p = program("kernel void k() { undeclared = 1; }");
        assert_eq!(
            p.build(&[0], b"").unwrap_err().code(),
            CL_BUILD_PROGRAM_FAILURE
        );
        let record = p.build_record(0);
        assert_eq!(record.status, CL_BUILD_ERROR);
        assert!(
            record
                .log
                .contains("1:19: error: use of undeclared identifier 'undeclared'"),
            "{}",
            record.log
        );
        assert_eq!(
            p.executable().unwrap_err().code(),
            CL_INVALID_PROGRAM_EXECUTABLE
        );
    }

    #[test]
    fn compile_then_link_two_objects() {
        let a = program("int twice(int x);\nkernel void k(global int *p) { p[0] = twice(p[0]); }");
        let b = program("int twice(int x) { return 2 * x; }");
        a.compile(&[0], b"", Vec::new()).unwrap();
        b.compile(&[0], b"", Vec::new()).unwrap();
        assert_eq!(a.binary_type(0), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
        let devices = a.devices().to_vec();
        let context = Arc::clone(a.context());
        let linked = link(
            Arc::clone(&context),
            &devices,
            &[Arc::clone(&a), Arc::clone(&b)],
            b"",
        )
        .unwrap();
        assert!(linked.result.is_ok());
        assert_eq!(linked.program.executable().unwrap().kernel_names(), "k");
        let library = link(
            Arc::clone(&context),
            &devices,
            &[Arc::clone(&b)],
            b"-create-library",
        )
        .unwrap();
        assert_eq!(
            library.program.binary_type(0),
            CL_PROGRAM_BINARY_TYPE_LIBRARY
        );
        // Without `twice`'s definition the link fails, and still gives a program whose log
        // names the function and the call.
        let failed = link(Arc::clone(&context), &devices, &[Arc::clone(&a)], b"").unwrap();
        assert_eq!(
            failed.result.map_err(|e| e.code()),
            Err(CL_LINK_PROGRAM_FAILURE)
        );
        let record = failed.program.build_record(0);
        assert_eq!(record.status, CL_BUILD_ERROR);
        assert!(
            record
                .log
                .contains("2:43: error: undefined reference to function 'twice'"),
            "{}",
            record.log
        );
        // An input without an object: "CL_INVALID_OPERATION".
        let raw = program("kernel void z() {}");
        assert_eq!(
            link(context, &devices, &[raw], b"").err().map(|e| e.code()),
            Some(CL_INVALID_OPERATION)
        );
    }

    #[test]
    fn compile_uses_embedded_headers() {
        let p = program("#include \"sq.h\"\nkernel void k(global int *x) { x[0] = SQ(3); }");
        let headers = vec![("sq.h".to_string(), "#define SQ(v) ((v) * (v))".to_string())];
        p.compile(&[0], b"", headers).unwrap();
        let bad = program("#include \"missing.h\"\nkernel void k() {}");
        assert_eq!(
            bad.compile(&[0], b"", Vec::new()).unwrap_err().code(),
            CL_COMPILE_PROGRAM_FAILURE
        );
    }

    /// clift's own option: safe mode, kept in a binary's options (it shapes the code).
    #[test]
    fn cl_clift_safe_turns_safe_mode_on_and_stays_in_binaries() {
        let parsed = CompileOptions::parse(b"-cl-mad-enable -cl-clift-safe").unwrap();
        assert!(parsed.safe && parsed.mad_enable);
        assert_eq!(
            parsed.after_preprocessing(),
            b"-cl-mad-enable -cl-clift-safe"
        );
        assert!(build_options(&parsed).codegen.safe);
    }
}
