//! Compares khronos-headers with the Khronos OpenCL C headers installed on this machine
//! (`/usr/include/CL`, from Debian's `opencl-c-headers`; `$KHRONOS_HEADERS_DIR` overrides).
//!
//! The crate's values come from opencl-sys; these tests are the independent check that they are
//! what a C program compiled against the real headers would use: every constant's value, every
//! OpenCL 1.x `#define` and `typedef` being present, struct layouts, and the dispatch table's slot
//! order and prototypes. Without the headers, every test that reads them fails: none passes
//! vacuously.

mod support;

use std::any::type_name;
use std::collections::{HashMap, HashSet};
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::sync::OnceLock;

use khronos_headers as kh;
use support::ctypes::{self, Abi, CTypes};
use support::eval::{self, CType, Env};
use support::header::{self, Scan};

/// Extension constants the crate exports on purpose, all defined in cl_ext.h.
const EXTENSION_CONSTANTS: &[&str] = &[
    "CL_PLATFORM_ICD_SUFFIX_KHR", // cl_khr_icd
    "CL_PLATFORM_NOT_FOUND_KHR",  // cl_khr_icd
    "CL_DEVICE_HALF_FP_CONFIG",   // cl_khr_fp16
    "CL_DEVICE_DOUBLE_FP_CONFIG", // cl_khr_fp64 (also in cl.h since 1.2)
];

/// `#define CL_*` integer constants of cl.h's OpenCL 1.x sections that the crate deliberately
/// leaves out. Only float limits or cl_platform.h-style macros may go here (none appears in the
/// installed cl.h, which is why it is empty); everything else must be exported.
const NOT_EXPORTED: &[&str] = &[];

/// An OpenCL version as `#ifdef CL_VERSION_x_y` guards encode it (2.0 → 200).
const OPENCL_2_0: u32 = 200;

struct Headers {
    cl: Scan,
    cl_ext: Scan,
    icd_src: String,
    cl_src: String,
    ext_src: String,
    types: CTypes,
    /// `cl_api_*` function-pointer typedefs of cl_icd.h: name → declaration.
    api_typedefs: HashMap<String, String>,
}

fn headers() -> &'static Headers {
    static HEADERS: OnceLock<Headers> = OnceLock::new();
    HEADERS.get_or_init(|| {
        let parse = |file: &str| {
            let src = header::read_header(file);
            let scan = header::scan(&src).unwrap_or_else(|e| panic!("{file}: {e}"));
            (src, scan)
        };
        let (cl_src, cl) = parse("cl.h");
        let (ext_src, cl_ext) = parse("cl_ext.h");
        let (icd_src, icd) = parse("cl_icd.h");
        let api_typedefs: HashMap<String, String> = header::function_pointer_typedefs(&icd_src)
            .into_iter()
            .collect();
        let types = CTypes::new(&[&cl, &cl_ext, &icd], api_typedefs.keys().cloned());
        Headers {
            cl,
            cl_ext,
            icd_src,
            cl_src,
            ext_src,
            types,
            api_typedefs,
        }
    })
}

/// Macros of cl.h and cl_ext.h, for evaluating one constant that refers to another.
struct HeaderEnv<'a>(&'a Headers);

impl Env for HeaderEnv<'_> {
    fn macro_body(&self, name: &str) -> Option<&str> {
        [&self.0.cl, &self.0.cl_ext]
            .into_iter()
            .flat_map(|s| &s.defines)
            .find(|d| d.name == name && !d.function_like)
            .map(|d| d.body.as_str())
    }

    fn int_type(&self, name: &str) -> Option<CType> {
        self.0.types.int_type(name)
    }
}

fn evaluate(h: &Headers, body: &str) -> Result<i128, String> {
    eval::eval(body, &HeaderEnv(h)).map(|v| v.value)
}

/// A constant for messages: hex as well where that is how the headers write it.
fn show(v: i128) -> String {
    if v < 0 {
        v.to_string()
    } else {
        format!("{v} ({v:#x})")
    }
}

fn fail_if_any(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// Test A: every row of `CONSTANTS` is `#define`d, with the same value, in cl.h (OpenCL 1.x
/// sections only) or, for the listed extension constants, cl_ext.h.
#[test]
fn every_exported_constant_matches_the_headers() {
    let h = headers();
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    for &(name, value) in kh::CONSTANTS {
        if !seen.insert(name) {
            problems.push(format!("{name} is listed twice"));
        }
        let in_cl: Vec<_> = h.cl.defines.iter().filter(|d| d.name == name).collect();
        let in_ext: Vec<_> = h.cl_ext.defines.iter().filter(|d| d.name == name).collect();
        if in_cl.is_empty() && in_ext.is_empty() {
            problems.push(format!("{name} is not defined in cl.h or cl_ext.h"));
            continue;
        }
        if in_cl.is_empty() && !EXTENSION_CONSTANTS.contains(&name) {
            problems.push(format!(
                "{name} comes from cl_ext.h but is not a listed extension"
            ));
        }
        if let Some(d) = in_cl.iter().find(|d| d.min_version >= OPENCL_2_0) {
            problems.push(format!(
                "{name} is OpenCL 2.0+ (cl.h line {}, inside {:?})",
                d.line, d.guards
            ));
        }
        // Where a header defines it in several branches, every definition must agree.
        for (file, d) in in_cl
            .iter()
            .map(|d| ("cl.h", d))
            .chain(in_ext.iter().map(|d| ("cl_ext.h", d)))
        {
            match evaluate(h, &d.body) {
                Ok(v) if v == value => {}
                Ok(v) => problems.push(format!(
                    "{name}: crate has {}, {file} line {} has {} from `{}`",
                    show(value),
                    d.line,
                    show(v),
                    d.body
                )),
                Err(e) => problems.push(format!("{name}: {file} line {}: {e}", d.line)),
            }
        }
    }
    fail_if_any("constants that differ from the headers", &problems);
}

/// Test B: every integer `#define CL_*` of cl.h outside the OpenCL 2.0+ sections is exported.
#[test]
fn every_opencl_1x_constant_of_cl_h_is_exported() {
    let h = headers();
    let exported: HashSet<&str> = kh::CONSTANTS.iter().map(|&(n, _)| n).collect();
    let mut problems = Vec::new();
    let mut checked = 0;
    for d in &h.cl.defines {
        if !d.name.starts_with("CL_") || d.function_like || d.min_version >= OPENCL_2_0 {
            continue;
        }
        if NOT_EXPORTED.contains(&d.name.as_str()) {
            continue;
        }
        checked += 1;
        if let Err(e) = evaluate(h, &d.body) {
            problems.push(format!("{} (cl.h line {}): {e}", d.name, d.line));
        } else if !exported.contains(d.name.as_str()) {
            problems.push(format!(
                "{} (cl.h line {}) is missing from khronos_headers::constants",
                d.name, d.line
            ));
        }
    }
    fail_if_any("OpenCL 1.x constants of cl.h not exported", &problems);
    // Guards against a parser that finds nothing (and so checks nothing).
    assert!(
        checked > 300,
        "only {checked} OpenCL 1.x constants found in cl.h"
    );
}

#[test]
fn the_driver_s_extension_constants_are_exported() {
    let h = headers();
    for name in EXTENSION_CONSTANTS {
        assert!(
            kh::CONSTANTS.iter().any(|&(n, _)| n == *name),
            "{name} is not exported"
        );
        assert!(
            h.cl_ext.define(name).is_some(),
            "{name} is not in cl_ext.h: is the list stale?"
        );
    }
}

/// For each `#define` of `src`, the typedef named by the one-line comment heading its group
/// (`/* cl_device_info */`, `/* cl_mem_flags and cl_svm_mem_flags - bitfield */`; error codes
/// and execution statuses are `cl_int`). A comment that names no type ends the group, except
/// notes about reserved values, which sit inside a group.
fn documented_types(src: &str, types: &CTypes) -> HashMap<String, String> {
    let mut group: Option<String> = None;
    let mut out = HashMap::new();
    for line in src.lines().map(str::trim) {
        if let Some(text) = line.strip_prefix("/*").and_then(|l| l.strip_suffix("*/")) {
            let first = text.split_whitespace().next().unwrap_or("");
            if first.starts_with("cl_") && types.abi(first).is_ok() {
                group = Some(first.to_string());
            } else if text.contains("Error Codes") || text.trim() == "command execution status" {
                group = Some("cl_int".to_string());
            } else if !text.to_lowercase().contains("reserved") {
                group = None;
            }
        } else if let Some(("define", rest)) = header::directive(line)
            && let Some(g) = &group
        {
            let name = rest.split(|c: char| c.is_whitespace() || c == '(').next();
            out.entry(name.unwrap_or("").to_string())
                .or_insert_with(|| g.clone());
        }
    }
    out
}

/// Every constant has the width and signedness of the typedef cl.h (or cl_ext.h) documents it
/// under, e.g. `CL_MEM_READ_WRITE` is a 64-bit `cl_mem_flags`, not a 32-bit value: the driver
/// stores these in `param_value` buffers whose size the application checks.
#[test]
fn every_constant_has_the_type_the_headers_document() {
    let h = headers();
    let documented: HashMap<String, String> = [
        // cl_ext.h introduces it with a prose comment instead of a type heading.
        (
            "CL_DEVICE_HALF_FP_CONFIG".to_string(),
            "cl_device_info".to_string(),
        ),
    ]
    .into_iter()
    .chain(documented_types(&h.ext_src, &h.types))
    .chain(documented_types(&h.cl_src, &h.types))
    .collect();
    let mut problems = Vec::new();
    for (name, rust_type) in kh::constant_type_names() {
        let Some(c_type) = documented.get(name) else {
            problems.push(format!("{name}: no type heading found in the headers"));
            continue;
        };
        match (h.types.abi(c_type), ctypes::rust_abi(rust_type)) {
            (Ok(c), Ok(r)) if c == r => {}
            (c, r) => problems.push(format!("{name}: {c_type} is {c:?}, the crate's {r:?}")),
        }
    }
    fail_if_any(
        "constants whose type differs from the documented one",
        &problems,
    );
}

/// Test C: `IcdDispatch` has the fields of `struct _cl_icd_dispatch`, in order, one pointer each.
#[test]
fn dispatch_table_matches_cl_icd_h() {
    let h = headers();
    let fields = header::struct_fields(&h.icd_src, "_cl_icd_dispatch")
        .unwrap_or_else(|e| panic!("cl_icd.h: {e}"));
    let c_names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    if let Some(i) = (0..c_names.len().max(kh::DISPATCH_SLOT_NAMES.len()))
        .find(|&i| c_names.get(i) != kh::DISPATCH_SLOT_NAMES.get(i))
    {
        panic!(
            "slot {i} differs: cl_icd.h has {:?}, IcdDispatch has {:?} ({} slots in C, {} in Rust)",
            c_names.get(i),
            kh::DISPATCH_SLOT_NAMES.get(i),
            c_names.len(),
            kh::DISPATCH_SLOT_NAMES.len()
        );
    }
    // Each C slot is one pointer (a function-pointer typedef, or `void *` where cl_icd.h stubs
    // out an entry point), so slot i is at i pointers in C too.
    let mut problems = Vec::new();
    for f in &fields {
        match h.types.abi(&f.c_type) {
            Ok(Abi::Pointer) => {}
            other => problems.push(format!("{}: C type {} is {other:?}", f.name, f.c_type)),
        }
    }
    fail_if_any("dispatch slots that are not pointers in C", &problems);

    let pointer = size_of::<*const ()>();
    let offsets = kh::slot_offsets();
    assert_eq!(offsets.len(), fields.len());
    for (i, (name, offset)) in offsets.iter().enumerate() {
        assert_eq!(*name, kh::DISPATCH_SLOT_NAMES[i], "slot_offsets() order");
        assert_eq!(*offset, i * pointer, "offset of {name}");
    }
    assert_eq!(size_of::<kh::IcdDispatch>(), fields.len() * pointer);
}

/// The slots the driver fills have opencl-sys types whose parameters and result match, one for
/// one, the `cl_api_*` prototype of the same slot in cl_icd.h (same count, and each the same
/// size and kind: integer of the same signedness, float, or pointer).
#[test]
fn implemented_slots_have_the_c_prototypes() {
    let h = headers();
    let unused = type_name::<kh::UnusedSlot>();
    let mut problems = Vec::new();
    let mut implemented = 0;
    for (name, rust_type) in kh::dispatch::slot_type_names() {
        if rust_type == unused {
            continue;
        }
        implemented += 1;
        let Some(decl) = h.api_typedefs.get(&format!("cl_api_{name}")) else {
            problems.push(format!("{name}: no cl_api_{name} function-pointer typedef"));
            continue;
        };
        let c = ctypes::c_signature(decl, &h.types);
        let rust = ctypes::rust_signature(rust_type);
        match (c, rust) {
            (Ok(c), Ok(rust)) if c == rust => {}
            (Ok(c), Ok(rust)) => problems.push(format!("{name}: C {c:?}\n    Rust {rust:?}")),
            (c, rust) => problems.push(format!("{name}: {:?} / {:?}", c.err(), rust.err())),
        }
    }
    fail_if_any("slot prototypes that differ", &problems);
    // OpenCL 1.0–1.2 has 89 entry points in the table, deprecated ones included, and the
    // driver also fills OpenCL 2.0's clCreateCommandQueueWithProperties.
    assert_eq!(implemented, 90, "slots with a real prototype");
}

/// The crate's typedefs, as `(name, Rust type name)`.
macro_rules! rust_types {
    ($($t:ident),* $(,)?) => {
        [$((stringify!($t), type_name::<kh::$t>())),*]
    };
}

/// Every OpenCL 1.x `typedef cl_*` of cl.h is exported, with the C type's size and kind.
#[test]
fn every_opencl_1x_typedef_is_exported_with_its_c_width() {
    let h = headers();
    let rust = rust_types![
        cl_char,
        cl_uchar,
        cl_short,
        cl_ushort,
        cl_int,
        cl_uint,
        cl_long,
        cl_ulong,
        cl_half,
        cl_float,
        cl_double,
        cl_bool,
        cl_bitfield,
        cl_properties,
        cl_platform_id,
        cl_device_id,
        cl_context,
        cl_command_queue,
        cl_mem,
        cl_program,
        cl_kernel,
        cl_event,
        cl_sampler,
        cl_device_type,
        cl_platform_info,
        cl_device_info,
        cl_device_fp_config,
        cl_device_mem_cache_type,
        cl_device_local_mem_type,
        cl_device_exec_capabilities,
        cl_command_queue_properties,
        cl_device_partition_property,
        cl_device_affinity_domain,
        cl_context_properties,
        cl_context_info,
        cl_command_queue_info,
        cl_channel_order,
        cl_channel_type,
        cl_mem_flags,
        cl_mem_object_type,
        cl_mem_info,
        cl_mem_migration_flags,
        cl_image_info,
        cl_buffer_create_type,
        cl_addressing_mode,
        cl_filter_mode,
        cl_sampler_info,
        cl_map_flags,
        cl_program_info,
        cl_program_build_info,
        cl_program_binary_type,
        cl_build_status,
        cl_kernel_info,
        cl_kernel_arg_info,
        cl_kernel_arg_address_qualifier,
        cl_kernel_arg_access_qualifier,
        cl_kernel_arg_type_qualifier,
        cl_kernel_work_group_info,
        cl_event_info,
        cl_command_type,
        cl_profiling_info,
    ];
    let rust: HashMap<&str, &str> = rust.into_iter().collect();
    let mut problems = Vec::new();
    for t in &h.cl.typedefs {
        if t.name.starts_with("cl_") && t.min_version < OPENCL_2_0 && !rust.contains_key(&*t.name) {
            problems.push(format!("typedef {} {} is not exported", t.target, t.name));
        }
    }
    for (name, rust_type) in &rust {
        match (h.types.abi(name), ctypes::rust_abi(rust_type)) {
            (Ok(c), Ok(r)) if c == r => {}
            (c, r) => problems.push(format!("{name}: C {c:?}, Rust {rust_type} {r:?}")),
        }
    }
    fail_if_any("typedefs", &problems);
}

/// A Rust struct's size and `(field, offset)` list.
macro_rules! rust_layout {
    ($t:ty { $($f:ident),* $(,)? }) => {
        (size_of::<$t>(), vec![$((stringify!($f).to_string(), offset_of!($t, $f))),*])
    };
}

/// The structs passed through the API have the C layout (OpenCL 1.2 form of `cl_image_desc`:
/// `buffer`, without the 2.0 anonymous union with `mem_object`, which has the same layout).
#[test]
fn api_structs_have_the_c_layout() {
    let h = headers();
    let cases = [
        (
            "_cl_image_format",
            rust_layout!(kh::cl_image_format {
                image_channel_order,
                image_channel_data_type
            }),
        ),
        (
            "_cl_image_desc",
            rust_layout!(kh::cl_image_desc {
                image_type,
                image_width,
                image_height,
                image_depth,
                image_array_size,
                image_row_pitch,
                image_slice_pitch,
                num_mip_levels,
                num_samples,
                buffer,
            }),
        ),
        (
            "_cl_buffer_region",
            rust_layout!(kh::cl_buffer_region { origin, size }),
        ),
    ];
    for (tag, (rust_size, rust_offsets)) in cases {
        let fields = header::struct_fields(&h.cl_src, tag).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let (c_offsets, c_size) = ctypes::c_layout(&fields, &h.types).unwrap();
        assert_eq!(rust_offsets, c_offsets, "{tag}: fields and offsets");
        assert_eq!(rust_size, c_size, "{tag}: size");
    }
}

#[test]
#[should_panic(expected = "Debian's opencl-c-headers")]
fn missing_headers_fail_loudly() {
    header::read_header_in(Path::new("/nonexistent/khronos-headers-test"), "cl.h");
}

/// The few local definitions are the ones the crate documents (a new opencl-sys that fixes
/// them should make these re-exports again), and they have the C types.
#[test]
fn local_definitions_have_the_c_types() {
    let qualifier: kh::cl_kernel_arg_type_qualifier = kh::CL_KERNEL_ARG_TYPE_VOLATILE;
    assert_eq!(size_of_val(&qualifier), 8);
    let order: kh::cl_channel_order = kh::CL_DEPTH_STENCIL;
    let ty: kh::cl_channel_type = kh::CL_UNORM_INT24;
    assert_eq!((order, ty), (0x10BE, 0x10DF));
}

#[test]
fn empty_dispatch_table_is_all_null() {
    let empty = kh::IcdDispatch::EMPTY;
    assert!(empty.clGetPlatformIDs.is_none());
    assert!(empty.clSetContextDestructorCallback.is_none());
    // The derived Debug prints every field, so no `Some` means every slot is NULL.
    let printed = format!("{empty:?}");
    assert!(printed.contains("clEnqueueNDRangeKernel: None"));
    assert!(!printed.contains("Some"), "{printed}");
    assert!(format!("{:?}", kh::IcdDispatch::default()) == printed);
}
