//! The C boundary: every entry point runs its body here.
//!
//! A Rust panic must never unwind into the application (that aborts the host, or worse), so
//! each body runs inside `catch_unwind`. A panic becomes an error code, a line on stderr, and a
//! message to the notify callback of the context the call concerned, if any.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use clift_runtime::context::Context;
use clift_runtime::log::{self, Category, Level};
use clift_runtime::{ClResult, clift_log};
use khronos_headers::{CL_OUT_OF_HOST_MEMORY, CL_SUCCESS, cl_int};

thread_local! {
    /// The context of the call in progress on this thread (set by handle validation), so that
    /// a panic can be reported through that context's callback.
    static CALL_CONTEXT: Cell<*const Context> = const { Cell::new(std::ptr::null()) };
}

/// Records that the current call concerns `context`.
pub(crate) fn note_context(context: &Context) {
    CALL_CONTEXT.with(|c| c.set(context));
}

/// Runs the body of an entry point that returns a `cl_int` status.
pub(crate) fn call(name: &'static str, body: impl FnOnce() -> ClResult<()>) -> cl_int {
    match guarded(name, body) {
        Ok(()) => CL_SUCCESS,
        Err(code) => code,
    }
}

/// Runs the body of an entry point that returns a value and reports its status through an
/// optional `errcode_ret` (`clCreate*`, `clEnqueueMap*`): on error, `failed` is returned.
pub(crate) fn call_ret<R>(
    name: &'static str,
    errcode_ret: *mut cl_int,
    failed: R,
    body: impl FnOnce() -> ClResult<R>,
) -> R {
    let (value, code) = match guarded(name, body) {
        Ok(v) => (v, CL_SUCCESS),
        Err(code) => (failed, code),
    };
    if !errcode_ret.is_null() {
        // SAFETY: the spec lets applications pass NULL or a pointer to a writable `cl_int`.
        unsafe { errcode_ret.write(code) };
    }
    value
}

/// Runs `body`, turning an error into its code and a panic into `CL_OUT_OF_HOST_MEMORY` (the
/// spec's code for "the implementation failed to allocate resources", the nearest meaning).
fn guarded<R>(name: &'static str, body: impl FnOnce() -> ClResult<R>) -> Result<R, cl_int> {
    CALL_CONTEXT.with(|c| c.set(std::ptr::null()));
    let logged = log::enabled(Category::Api, Level::Error);
    if logged {
        // A check that failed in an earlier call must not be blamed for this one.
        let _ = clift_runtime::error::take_failed_check();
    }
    let result = guarded_body(name, body);
    if logged {
        log_call(name, result.as_ref().err().copied());
    }
    result
}

/// `CLIFT_LOG=api`: the entry point and its status; a failure names the check that failed.
fn log_call(name: &str, error: Option<cl_int>) {
    let call = crate::trace::take_arguments(name);
    let name = call.as_deref().unwrap_or(name);
    match error {
        None => clift_log!(Api, Info, "{name} -> CL_SUCCESS"),
        Some(code) => {
            let check = clift_runtime::error::take_failed_check()
                .map(|at| format!(" (failed check at {at})"))
                .unwrap_or_default();
            clift_log!(Api, Error, "{name} -> {}{check}", log::status_name(code));
        }
    }
}

fn guarded_body<R>(name: &'static str, body: impl FnOnce() -> ClResult<R>) -> Result<R, cl_int> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result.map_err(|e| e.code()),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            let message = format!("clift: internal error in {name}: {what}");
            eprintln!("{message}");
            let context = CALL_CONTEXT.with(|c| c.replace(std::ptr::null()));
            if !context.is_null() {
                // SAFETY: set during this call from a context handle the application passed
                // and still holds for the duration of the call.
                unsafe { (*context).notify(&message) };
            }
            Err(CL_OUT_OF_HOST_MEMORY)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clift_runtime::ClError;
    use khronos_headers::CL_INVALID_VALUE;

    #[test]
    fn errors_become_codes_and_panics_do_not_escape() {
        assert_eq!(call("t", || Ok(())), CL_SUCCESS);
        assert_eq!(
            call("t", || Err(ClError(CL_INVALID_VALUE))),
            CL_INVALID_VALUE
        );
        assert_eq!(call("t", || panic!("boom")), CL_OUT_OF_HOST_MEMORY);
    }

    static NOTIFIED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

    unsafe extern "C" fn record(
        message: *const std::ffi::c_char,
        _: *const std::ffi::c_void,
        _: usize,
        _: *mut std::ffi::c_void,
    ) {
        // SAFETY: the boundary passes a NUL-terminated message.
        let text = unsafe { std::ffi::CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned();
        NOTIFIED.lock().unwrap().push(text);
    }

    #[test]
    fn a_panic_reaches_the_context_callback() {
        use clift_runtime::context::Context;
        let devices = clift_runtime::platform::Platform::get().devices().to_vec();
        let notify = crate::callback::context_notify(record, std::ptr::null_mut());
        let context = Context::new(devices, Default::default(), Some(notify));
        let code = call("clTestEntry", || {
            note_context(&context);
            panic!("deliberate")
        });
        assert_eq!(code, CL_OUT_OF_HOST_MEMORY);
        let messages = NOTIFIED.lock().unwrap();
        assert_eq!(
            messages.as_slice(),
            ["clift: internal error in clTestEntry: deliberate"]
        );
    }

    #[test]
    fn errcode_ret_is_written_when_given() {
        let mut code = 1;
        assert_eq!(call_ret("t", &mut code, 0, || Ok(7)), 7);
        assert_eq!(code, CL_SUCCESS);
        assert_eq!(
            call_ret("t", &mut code, 0, || Err(ClError(CL_INVALID_VALUE))),
            0
        );
        assert_eq!(code, CL_INVALID_VALUE);
        assert_eq!(call_ret("t", std::ptr::null_mut(), 5, || panic!("x")), 5);
    }
}
