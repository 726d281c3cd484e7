//! Link flags of libclift.so.
//!
//! The library exports every entry point under its API name (so programs can load it without
//! the ICD loader), and the loader that loads it exports the same names. Without
//! `-Bsymbolic`, the dynamic linker binds our own references to those names (the dispatch
//! table's entries) to the loader's definitions, which loop straight back into the loader.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    println!("cargo:rerun-if-changed=build.rs");
}
