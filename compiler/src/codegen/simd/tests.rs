//! The vectorizer's unit tests (the kernels that run both ways are in
//! compiler/tests/run_vectorized.rs).
