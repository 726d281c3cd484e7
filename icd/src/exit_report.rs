//! `CLIFT_PROFILE`: the runtime's summary printed when the application exits.
//!
//! The ICD registers the printing with the C library's `atexit` the first time an
//! application asks for platforms (every OpenCL program does, through the loader). glibc
//! ties a shared object's `atexit` handlers to that object, so they also run if the loader
//! unloads clift first.

use std::sync::Once;

unsafe extern "C" {
    /// C's `atexit` (ISO C 7.22.4.2).
    fn atexit(function: extern "C" fn()) -> std::ffi::c_int;
}

/// Registers the summary once, if `CLIFT_PROFILE` asks for it.
pub(crate) fn register() {
    static REGISTERED: Once = Once::new();
    if !clift_runtime::profile::enabled() {
        return;
    }
    REGISTERED.call_once(|| {
        // SAFETY: `print_report` is a plain function of this library that never unwinds.
        if unsafe { atexit(print_report) } != 0 {
            eprintln!("clift: CLIFT_PROFILE: cannot register the report at exit");
        }
    });
}

extern "C" fn print_report() {
    // A panic must not unwind into the C library's exit path.
    let _ = std::panic::catch_unwind(|| {
        let report = clift_runtime::profile::report();
        if !report.is_empty() {
            eprint!("{report}");
        }
    });
}
