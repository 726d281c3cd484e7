//! The error type of every runtime operation.
//!
//! OpenCL reports failures as negative `cl_int` codes. Inside clift they travel as
//! `Result<T, ClError>` so that `?` carries them and nothing threads codes by hand; the ICD
//! layer turns them back into the integer at the C boundary.

use khronos_headers::cl_int;

/// An OpenCL error code (always one of the spec's negative `CL_*` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClError(pub cl_int);

impl ClError {
    /// The `cl_int` the C API returns for this error.
    pub fn code(self) -> cl_int {
        self.0
    }
}

impl std::fmt::Display for ClError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpenCL error {}", self.0)
    }
}

impl std::error::Error for ClError {}

/// The result of a runtime operation.
pub type ClResult<T> = Result<T, ClError>;

/// Shorthand for an `Err` of the given code, for checks written as the spec states them.
///
/// With `CLIFT_LOG=api` the check's source line is remembered for this thread, so that the
/// entry point's log line can say which check failed ([`take_failed_check`]).
#[track_caller]
pub fn fail<T>(code: cl_int) -> ClResult<T> {
    if crate::log::enabled(crate::log::Category::Api, crate::log::Level::Error) {
        let at = std::panic::Location::caller();
        FAILED_CHECK.with(|c| c.set(Some(at)));
    }
    Err(ClError(code))
}

thread_local! {
    /// The source line of the last [`fail`] on this thread (only while `api` logging is on).
    static FAILED_CHECK: std::cell::Cell<Option<&'static std::panic::Location<'static>>> =
        const { std::cell::Cell::new(None) };
}

/// The source line of the last check that failed on this thread since the previous call,
/// as `file:line` (`None` if none did, or `api` logging is off).
pub fn take_failed_check() -> Option<String> {
    FAILED_CHECK
        .with(|c| c.take())
        .map(|at| format!("{}:{}", at.file(), at.line()))
}
