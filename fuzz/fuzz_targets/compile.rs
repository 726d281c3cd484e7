//! `cargo fuzz` target: [`clift_fuzz_targets::compile`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| clift_fuzz_targets::compile(data));
