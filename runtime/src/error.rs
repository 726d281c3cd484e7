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
pub fn fail<T>(code: cl_int) -> ClResult<T> {
    Err(ClError(code))
}
