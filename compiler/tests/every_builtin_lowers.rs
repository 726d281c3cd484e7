//! Every overload of every builtin in the signature table (the `half` ones of cl_khr_fp16
//! included) compiles to machine code: a
//! kernel per overload calls it with arguments of exactly its parameter types. (Overload
//! resolution reads the same table, so a name missing from code generation or from the
//! builtins library would otherwise surface only when a program happens to call it.)

use clift_builtins::signatures::{Signature, names, overloads};
use clift_builtins::types::{BType, Space};
use clift_compiler::build::{BuildOptions, build};

/// A kernel calling `name` with the parameter types of `sig`.
fn kernel_for(name: &str, sig: &Signature, index: usize) -> String {
    let mut params = Vec::new();
    let mut body = Vec::new();
    let mut args = Vec::new();
    let writes = name.starts_with("write_image");
    for (i, p) in sig.params.iter().enumerate() {
        let a = format!("a{i}");
        match p {
            BType::Pointer { pointee, space, .. } if *space == Space::Private => {
                // A private buffer the size of the largest vector, viewed as the pointee.
                body.push(format!("ulong16 buf{i}[2];"));
                body.push(format!("{p} {a} = ({p})buf{i};"));
            }
            BType::Pointer { .. } => params.push(format!("{p} {a}")),
            BType::Image(_) => {
                let access = if writes { "write_only" } else { "read_only" };
                params.push(format!("{access} {p} {a}"));
            }
            BType::Sampler => params.push(format!("sampler_t {a}")),
            BType::Event => {
                args.push("0".to_string());
                continue;
            }
            _ => {
                params.push(format!("global {p} *p{i}"));
                body.push(format!("{p} {a} = *p{i};"));
            }
        }
        args.push(a);
    }
    let call = format!("{name}({})", args.join(", "));
    if sig.ret != BType::Void {
        params.push(format!("global {} *out", sig.ret));
        body.push(format!("*out = {call};"));
    } else {
        body.push(format!("{call};"));
    }
    format!(
        "kernel void k{index}({}) {{ {} }}\n",
        params.join(", "),
        body.join(" ")
    )
}

#[test]
fn every_builtin_overload_compiles() {
    let mut names: Vec<&str> = names().collect();
    names.sort();
    let mut failures = Vec::new();
    let mut count = 0;
    for name in names {
        let mut source = String::from(
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
             #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n\
             #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n\
             #pragma OPENCL EXTENSION cl_khr_fp16 : enable\n",
        );
        for (i, sig) in overloads(name).iter().enumerate() {
            source += &kernel_for(name, sig, i);
            count += 1;
        }
        let options = BuildOptions {
            sema: clift_compiler::frontend::sema::Options {
                fp64_supported: true,
                fp16_supported: true,
                int64_atomics_supported: true,
                ..Default::default()
            },
            ..BuildOptions::default()
        };
        if let Err(log) = build("builtins.cl", &source, &options) {
            let first: String = log.lines().take(6).collect::<Vec<_>>().join("\n");
            failures.push(format!("{name}:\n{first}"));
        }
    }
    assert!(count > 4500, "{count} overloads");
    assert!(
        failures.is_empty(),
        "{} names fail:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
