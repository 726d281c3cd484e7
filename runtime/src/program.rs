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
            include_dirs: options.include_dirs.clone(),
            extensions,
            fast_relaxed_math: options.math.fast_relaxed_math,
            fp64: true,
            image_support: true,
            opencl_c_version: if options.cl_std == Some(ClStd::Cl11) {
                110
            } else {
                120
            },
            ..PreprocessOptions::default()
        },
        sema: clift_compiler::frontend::sema::Options {
            fp64_supported: true,
            fp64_by_default: options.cl_std != Some(ClStd::Cl11),
            fp16_supported: true,
            int64_atomics_supported: true,
            single_precision_constant: options.single_precision_constant,
            kernel_arg_info: options.kernel_arg_info,
        },
        codegen: clift_compiler::codegen::CodegenOptions {
            kernel_arg_info: options.kernel_arg_info,
            mad_enable: options.mad_enable,
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
        // A program from source builds one text for all its devices; a program from
        // binaries builds each device's binary (devices with equal binaries share a build).
        let mut outcomes: Vec<(String, Vec<u8>, BuildOutcome)> = Vec::new();
        let mut all_built = true;
        for &index in devices {
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
            let (status, log, executable) = outcomes[at].2.clone();
            all_built &= status == CL_BUILD_SUCCESS;
            self.builds.lock()[index] = BuildRecord {
                status,
                options: options.to_vec(),
                log,
            };
            self.executables.lock()[index] = executable;
        }
        if all_built {
            Ok(())
        } else {
            fail(CL_BUILD_PROGRAM_FAILURE)
        }
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
        let result = clift_compiler::build::compile_object("<source>", &source, &build);
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

/// What one build produced: status, log and (when it succeeded) the executable.
type BuildOutcome = (cl_build_status, String, Option<Arc<Executable>>);

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
            );
        }
    };
    match clift_compiler::build::build("<source>", text, &build_options(&parsed)) {
        Ok(built) => (
            CL_BUILD_SUCCESS,
            built.log,
            Some(Arc::new(Executable {
                kernels: built.kernels,
                preprocessed: built.preprocessed.into(),
                options: parsed.after_preprocessing(),
            })),
        ),
        Err(log) => (CL_BUILD_ERROR, log, None),
    }
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
    let result = built.or(fail(CL_LINK_PROGRAM_FAILURE));
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
/// be provided. Valid values are CL1.1 and CL1.2."
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClStd {
    Cl11,
    Cl12,
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
/// Only the spec's options are accepted; clift has no vendor options yet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// `-D name` (`None`: defined as 1) and `-D name=definition`, in the order given, which
    /// is the order they are processed in.
    pub defines: Vec<(String, Option<Vec<u8>>)>,
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
}

impl CompileOptions {
    /// Parses an options string (NULL is passed as the empty string).
    pub fn parse(options: &[u8]) -> Result<CompileOptions, InvalidOption> {
        let mut parsed = CompileOptions::default();
        let mut tokens = tokens(options)?.into_iter();
        while let Some(token) = tokens.next() {
            if let Some(rest) = token.strip_prefix(b"-D") {
                let definition = joined_or_next(rest, &mut tokens, &token)?;
                parsed.defines.push(macro_definition(&definition)?);
            } else if let Some(rest) = token.strip_prefix(b"-I") {
                let dir = joined_or_next(rest, &mut tokens, &token)?;
                parsed
                    .include_dirs
                    .push(PathBuf::from(OsStr::from_bytes(&dir)));
            } else if let Some(version) = token.strip_prefix(b"-cl-std=") {
                parsed.cl_std = Some(match version {
                    b"CL1.1" => ClStd::Cl11,
                    b"CL1.2" => ClStd::Cl12,
                    _ => return Err(invalid(&token)),
                });
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
                    _ => return Err(invalid(&token)),
                };
                *flag = true;
            }
        }
        Ok(parsed)
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

/// Splits an options string at white space. A double-quoted stretch keeps its white space
/// (the quotes are removed), so that `-I "a dir"` and `-D "X=a b"` can be written; an
/// unterminated quote is invalid.
fn tokens(options: &[u8]) -> Result<Vec<Vec<u8>>, InvalidOption> {
    let mut tokens = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    let mut quoted = false;
    for &byte in options {
        match byte {
            b'"' => {
                quoted = !quoted;
                current.get_or_insert_with(Vec::new);
            }
            b if b.is_ascii_whitespace() && !quoted => tokens.extend(current.take()),
            b => current.get_or_insert_with(Vec::new).push(b),
        }
    }
    if quoted {
        return Err(InvalidOption(String::from_utf8_lossy(options).into_owned()));
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

/// `name` or `name=definition`; the name must be an identifier.
fn macro_definition(text: &[u8]) -> Result<(String, Option<Vec<u8>>), InvalidOption> {
    let (name, definition) = match text.iter().position(|&b| b == b'=') {
        Some(at) => (&text[..at], Some(text[at + 1..].to_vec())),
        None => (text, None),
    };
    let identifier = matches!(name.first(), Some(b) if b.is_ascii_alphabetic() || *b == b'_')
        && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
    if !identifier {
        return Err(invalid(text));
    }
    // An identifier is ASCII, so this cannot lose anything.
    Ok((String::from_utf8_lossy(name).into_owned(), definition))
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
        ] {
            assert!(CompileOptions::parse(bad).is_err(), "{bad:?}");
        }
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
}
