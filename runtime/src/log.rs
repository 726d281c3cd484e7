//! `CLIFT_LOG`: what the driver does, written for the person debugging an application.
//!
//! The variable names categories, each with an optional level, in the form of `RUST_LOG`:
//! `CLIFT_LOG=api,build`, `CLIFT_LOG=all`, `CLIFT_LOG=api=error,launch`. Categories:
//!
//! - `api`: every entry point and the code it returned; a failing call also names the check
//!   that failed (the source line of the runtime's `fail`). With `api=error` only failing
//!   calls are written.
//! - `build`: each program build, compile and link: options, source size, the time of each
//!   compiler stage, the outcome and the build log.
//! - `launch`: each command of a queue: its type, how long it waited for its dependencies
//!   and how long it ran; a kernel launch also its name and sizes.
//!
//! Lines go to stderr, or appended to the file `CLIFT_LOG_FILE` names. Each reads
//! `[clift 12.345678 api] clCreateBuffer -> CL_SUCCESS`: seconds since the first line of
//! the process, the category, the message.
//!
//! With `CLIFT_LOG` unset, asking whether a category is on costs one relaxed atomic load
//! and a compare (the variable is parsed once), and nothing is formatted.

use std::io::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

/// A kind of event the log can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Api = 0,
    Build = 1,
    Launch = 2,
}

const CATEGORIES: [(&str, Category); 3] = [
    ("api", Category::Api),
    ("build", Category::Build),
    ("launch", Category::Launch),
];

/// How much of a category is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Off = 0,
    /// Failures only.
    Error = 1,
    /// Everything.
    Info = 2,
}

/// The environment variables.
pub const LOG_VAR: &str = "CLIFT_LOG";
pub const LOG_FILE_VAR: &str = "CLIFT_LOG_FILE";

/// Each category's level; `UNREAD` until the variable is parsed.
static LEVELS: [AtomicU8; 3] = [const { AtomicU8::new(UNREAD) }; 3];
const UNREAD: u8 = u8::MAX;

/// Whether messages of `category` at `level` are written.
#[inline]
pub fn enabled(category: Category, level: Level) -> bool {
    let mut current = LEVELS[category as usize].load(Ordering::Relaxed);
    if current == UNREAD {
        current = init()[category as usize] as u8;
    }
    current >= level as u8
}

/// Parses `CLIFT_LOG` once and publishes the levels.
#[cold]
fn init() -> [Level; 3] {
    static PARSED: OnceLock<[Level; 3]> = OnceLock::new();
    *PARSED.get_or_init(|| {
        let levels = parse(std::env::var(LOG_VAR).ok().as_deref().unwrap_or(""));
        for (slot, level) in LEVELS.iter().zip(levels) {
            slot.store(level as u8, Ordering::Relaxed);
        }
        levels
    })
}

/// The levels a `CLIFT_LOG` value sets. Unknown words are ignored (a log setting must never
/// stop an application), `all` names every category, a category without `=level` is
/// `info`.
pub fn parse(value: &str) -> [Level; 3] {
    let mut levels = [Level::Off; 3];
    for item in value.split([',', ' ']).filter(|s| !s.is_empty()) {
        let (name, level) = match item.split_once('=') {
            Some((name, level)) => (name, level),
            None => (item, "info"),
        };
        let level = match level.to_ascii_lowercase().as_str() {
            "error" | "err" => Level::Error,
            "info" | "debug" | "all" | "1" => Level::Info,
            "off" | "0" => Level::Off,
            _ => continue,
        };
        let name = name.to_ascii_lowercase();
        for (category_name, category) in CATEGORIES {
            if name == "all" || name == category_name {
                levels[category as usize] = level;
            }
        }
    }
    levels
}

/// Writes one line of `category` (the caller checked [`enabled`]).
pub fn write(category: Category, message: std::fmt::Arguments<'_>) {
    static START: OnceLock<Instant> = OnceLock::new();
    static SINK: Mutex<Option<Sink>> = Mutex::new(None);
    let seconds = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    let name = CATEGORIES[category as usize].0;
    let line = format!("[clift {seconds:.6} {name}] {message}\n");
    let mut sink = SINK.lock();
    let sink = sink.get_or_insert_with(Sink::open);
    // A log that cannot be written is dropped: logging never fails the application.
    let _ = match sink {
        Sink::File(f) => f.write_all(line.as_bytes()),
        Sink::Stderr => std::io::stderr().lock().write_all(line.as_bytes()),
    };
}

enum Sink {
    File(std::fs::File),
    Stderr,
}

impl Sink {
    fn open() -> Sink {
        let Some(path) = std::env::var_os(LOG_FILE_VAR).filter(|p| !p.is_empty()) else {
            return Sink::Stderr;
        };
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(file) => Sink::File(file),
            Err(e) => {
                eprintln!(
                    "clift: cannot open {LOG_FILE_VAR}={}: {e}; logging to stderr",
                    path.to_string_lossy()
                );
                Sink::Stderr
            }
        }
    }
}

/// Writes a line of a category at a level when that is enabled; the message is formatted
/// only then.
#[macro_export]
macro_rules! clift_log {
    ($category:ident, $level:ident, $($message:tt)+) => {
        if $crate::log::enabled($crate::log::Category::$category, $crate::log::Level::$level) {
            $crate::log::write($crate::log::Category::$category, format_args!($($message)+));
        }
    };
}

/// The spec's name of a status code, for log lines (`CL_INVALID_VALUE`), or the number.
pub fn status_name(code: khronos_headers::cl_int) -> String {
    use khronos_headers::*;
    let name = match code {
        CL_SUCCESS => "CL_SUCCESS",
        CL_DEVICE_NOT_FOUND => "CL_DEVICE_NOT_FOUND",
        CL_DEVICE_NOT_AVAILABLE => "CL_DEVICE_NOT_AVAILABLE",
        CL_COMPILER_NOT_AVAILABLE => "CL_COMPILER_NOT_AVAILABLE",
        CL_MEM_OBJECT_ALLOCATION_FAILURE => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        CL_OUT_OF_RESOURCES => "CL_OUT_OF_RESOURCES",
        CL_OUT_OF_HOST_MEMORY => "CL_OUT_OF_HOST_MEMORY",
        CL_PROFILING_INFO_NOT_AVAILABLE => "CL_PROFILING_INFO_NOT_AVAILABLE",
        CL_MEM_COPY_OVERLAP => "CL_MEM_COPY_OVERLAP",
        CL_IMAGE_FORMAT_MISMATCH => "CL_IMAGE_FORMAT_MISMATCH",
        CL_IMAGE_FORMAT_NOT_SUPPORTED => "CL_IMAGE_FORMAT_NOT_SUPPORTED",
        CL_BUILD_PROGRAM_FAILURE => "CL_BUILD_PROGRAM_FAILURE",
        CL_MAP_FAILURE => "CL_MAP_FAILURE",
        CL_MISALIGNED_SUB_BUFFER_OFFSET => "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST => {
            "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"
        }
        CL_COMPILE_PROGRAM_FAILURE => "CL_COMPILE_PROGRAM_FAILURE",
        CL_LINKER_NOT_AVAILABLE => "CL_LINKER_NOT_AVAILABLE",
        CL_LINK_PROGRAM_FAILURE => "CL_LINK_PROGRAM_FAILURE",
        CL_DEVICE_PARTITION_FAILED => "CL_DEVICE_PARTITION_FAILED",
        CL_KERNEL_ARG_INFO_NOT_AVAILABLE => "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
        CL_INVALID_VALUE => "CL_INVALID_VALUE",
        CL_INVALID_DEVICE_TYPE => "CL_INVALID_DEVICE_TYPE",
        CL_INVALID_PLATFORM => "CL_INVALID_PLATFORM",
        CL_INVALID_DEVICE => "CL_INVALID_DEVICE",
        CL_INVALID_CONTEXT => "CL_INVALID_CONTEXT",
        CL_INVALID_QUEUE_PROPERTIES => "CL_INVALID_QUEUE_PROPERTIES",
        CL_INVALID_COMMAND_QUEUE => "CL_INVALID_COMMAND_QUEUE",
        CL_INVALID_HOST_PTR => "CL_INVALID_HOST_PTR",
        CL_INVALID_MEM_OBJECT => "CL_INVALID_MEM_OBJECT",
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR => "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
        CL_INVALID_IMAGE_SIZE => "CL_INVALID_IMAGE_SIZE",
        CL_INVALID_SAMPLER => "CL_INVALID_SAMPLER",
        CL_INVALID_BINARY => "CL_INVALID_BINARY",
        CL_INVALID_BUILD_OPTIONS => "CL_INVALID_BUILD_OPTIONS",
        CL_INVALID_PROGRAM => "CL_INVALID_PROGRAM",
        CL_INVALID_PROGRAM_EXECUTABLE => "CL_INVALID_PROGRAM_EXECUTABLE",
        CL_INVALID_KERNEL_NAME => "CL_INVALID_KERNEL_NAME",
        CL_INVALID_KERNEL_DEFINITION => "CL_INVALID_KERNEL_DEFINITION",
        CL_INVALID_KERNEL => "CL_INVALID_KERNEL",
        CL_INVALID_ARG_INDEX => "CL_INVALID_ARG_INDEX",
        CL_INVALID_ARG_VALUE => "CL_INVALID_ARG_VALUE",
        CL_INVALID_ARG_SIZE => "CL_INVALID_ARG_SIZE",
        CL_INVALID_KERNEL_ARGS => "CL_INVALID_KERNEL_ARGS",
        CL_INVALID_WORK_DIMENSION => "CL_INVALID_WORK_DIMENSION",
        CL_INVALID_WORK_GROUP_SIZE => "CL_INVALID_WORK_GROUP_SIZE",
        CL_INVALID_WORK_ITEM_SIZE => "CL_INVALID_WORK_ITEM_SIZE",
        CL_INVALID_GLOBAL_OFFSET => "CL_INVALID_GLOBAL_OFFSET",
        CL_INVALID_EVENT_WAIT_LIST => "CL_INVALID_EVENT_WAIT_LIST",
        CL_INVALID_EVENT => "CL_INVALID_EVENT",
        CL_INVALID_OPERATION => "CL_INVALID_OPERATION",
        CL_INVALID_BUFFER_SIZE => "CL_INVALID_BUFFER_SIZE",
        CL_INVALID_GLOBAL_WORK_SIZE => "CL_INVALID_GLOBAL_WORK_SIZE",
        CL_INVALID_PROPERTY => "CL_INVALID_PROPERTY",
        CL_INVALID_IMAGE_DESCRIPTOR => "CL_INVALID_IMAGE_DESCRIPTOR",
        CL_INVALID_COMPILER_OPTIONS => "CL_INVALID_COMPILER_OPTIONS",
        CL_INVALID_LINKER_OPTIONS => "CL_INVALID_LINKER_OPTIONS",
        CL_INVALID_DEVICE_PARTITION_COUNT => "CL_INVALID_DEVICE_PARTITION_COUNT",
        _ => return code.to_string(),
    };
    name.to_string()
}

/// The spec's name of a command type (`CL_COMMAND_NDRANGE_KERNEL`), or the number.
pub fn command_name(command: khronos_headers::cl_command_type) -> String {
    use khronos_headers::*;
    let name = match command {
        CL_COMMAND_NDRANGE_KERNEL => "CL_COMMAND_NDRANGE_KERNEL",
        CL_COMMAND_TASK => "CL_COMMAND_TASK",
        CL_COMMAND_NATIVE_KERNEL => "CL_COMMAND_NATIVE_KERNEL",
        CL_COMMAND_READ_BUFFER => "CL_COMMAND_READ_BUFFER",
        CL_COMMAND_WRITE_BUFFER => "CL_COMMAND_WRITE_BUFFER",
        CL_COMMAND_COPY_BUFFER => "CL_COMMAND_COPY_BUFFER",
        CL_COMMAND_READ_IMAGE => "CL_COMMAND_READ_IMAGE",
        CL_COMMAND_WRITE_IMAGE => "CL_COMMAND_WRITE_IMAGE",
        CL_COMMAND_COPY_IMAGE => "CL_COMMAND_COPY_IMAGE",
        CL_COMMAND_COPY_IMAGE_TO_BUFFER => "CL_COMMAND_COPY_IMAGE_TO_BUFFER",
        CL_COMMAND_COPY_BUFFER_TO_IMAGE => "CL_COMMAND_COPY_BUFFER_TO_IMAGE",
        CL_COMMAND_MAP_BUFFER => "CL_COMMAND_MAP_BUFFER",
        CL_COMMAND_MAP_IMAGE => "CL_COMMAND_MAP_IMAGE",
        CL_COMMAND_UNMAP_MEM_OBJECT => "CL_COMMAND_UNMAP_MEM_OBJECT",
        CL_COMMAND_MARKER => "CL_COMMAND_MARKER",
        CL_COMMAND_READ_BUFFER_RECT => "CL_COMMAND_READ_BUFFER_RECT",
        CL_COMMAND_WRITE_BUFFER_RECT => "CL_COMMAND_WRITE_BUFFER_RECT",
        CL_COMMAND_COPY_BUFFER_RECT => "CL_COMMAND_COPY_BUFFER_RECT",
        CL_COMMAND_USER => "CL_COMMAND_USER",
        CL_COMMAND_BARRIER => "CL_COMMAND_BARRIER",
        CL_COMMAND_MIGRATE_MEM_OBJECTS => "CL_COMMAND_MIGRATE_MEM_OBJECTS",
        CL_COMMAND_FILL_BUFFER => "CL_COMMAND_FILL_BUFFER",
        CL_COMMAND_FILL_IMAGE => "CL_COMMAND_FILL_IMAGE",
        _ => return format!("command {command:#x}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_and_levels_parse_like_rust_log() {
        use Level::*;
        assert_eq!(parse(""), [Off, Off, Off]);
        assert_eq!(parse("api"), [Info, Off, Off]);
        assert_eq!(parse("api,build,launch"), [Info, Info, Info]);
        assert_eq!(parse("all"), [Info, Info, Info]);
        assert_eq!(parse("all=error,launch"), [Error, Error, Info]);
        assert_eq!(parse("API=Error build"), [Error, Info, Off]);
        // Unknown categories and levels are ignored, never an error.
        assert_eq!(parse("gpu,api=loud,build=off,launch=1"), [Off, Off, Info]);
    }

    #[test]
    fn status_names_are_the_specs() {
        assert_eq!(status_name(0), "CL_SUCCESS");
        assert_eq!(status_name(-30), "CL_INVALID_VALUE");
        assert_eq!(status_name(-68), "CL_INVALID_DEVICE_PARTITION_COUNT");
        assert_eq!(status_name(-1234), "-1234");
    }
}
