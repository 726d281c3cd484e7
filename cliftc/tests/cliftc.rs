//! `cliftc` as a user runs it: on every kernel of the compiler's corpus, on a broken program
//! (its diagnostics are the build log's, to the byte), with each `--emit` stage, and with
//! `-o`, whose binary an application loads through the ICD loader and runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clift_conformance::kernel_fixture::{Fixture, Kernel, Mem};
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

fn cliftc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cliftc"))
        .args(args)
        .output()
        .expect("cliftc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cliftc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    files.sort();
    assert!(files.len() >= 60, "the corpus is in {}", dir.display());
    files
}

/// The kernels the driver builds from `source`, through the loader
/// (`CL_PROGRAM_KERNEL_NAMES`), sorted.
fn driver_kernels(fixture: &Fixture, source: &str) -> Vec<String> {
    let program = api()
        .create_program_with_source(fixture.context, &[source])
        .unwrap();
    assert_eq!(api().build_program(program, c""), CL_SUCCESS);
    let names = string(
        &api()
            .program_info(program, CL_PROGRAM_KERNEL_NAMES)
            .unwrap(),
    );
    assert_eq!(api().release_program(program), CL_SUCCESS);
    let mut names: Vec<String> = names.split(';').map(str::to_string).collect();
    names.sort();
    names
}

#[test]
fn every_corpus_kernel_builds_and_is_listed() {
    let fixture = Fixture::new();
    for file in corpus() {
        let path = file.to_str().unwrap();
        let source = std::fs::read_to_string(&file).unwrap();
        let out = cliftc(&["--kernels", path]);
        assert!(
            out.status.success(),
            "{path}: {}\n{}",
            out.status,
            text(&out.stderr)
        );
        let mut listed: Vec<String> = text(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("kernel "))
            .map(|l| l.split([' ', '(']).next().unwrap().to_string())
            .collect();
        listed.sort();
        assert_eq!(listed, driver_kernels(&fixture, &source), "{path}");
    }
}

#[test]
fn a_broken_program_gets_the_build_log_and_exit_1() {
    let path = scratch(
        "broken.cl",
        "kernel void k(global int *o) {\n  o[0] = y;\n  float2 v = (float2)(1.0f);\n  v.z = 2;\n}\n",
    );
    let name = path.to_str().unwrap();
    let out = cliftc(&["--color", "never", name]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"");
    let expected = format!(
        "{name}:2:10: error: use of undeclared identifier 'y'\n  o[0] = y;\n         ^\n\
         {name}:4:5: error: vector component access exceeds type: lane 2 of a vector of 2\n  v.z = 2;\n    ^\n"
    );
    assert_eq!(text(&out.stderr), expected);
    // Coloured on request: the same text with the labels painted.
    let colored = text(&cliftc(&["--color", "always", name]).stderr);
    assert!(colored.contains("\x1b[31merror:\x1b[0m"), "{colored:?}");
}

#[test]
fn options_are_the_drivers() {
    let path = scratch("n.cl", "kernel void k(global int *o) { o[0] = N; }\n");
    let name = path.to_str().unwrap();
    assert!(cliftc(&["-D", "N=3", name]).status.success());
    let out = cliftc(&[name]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("error: use of undeclared identifier 'N'"));
    // Function-like macros and values with quotes and spaces reach the preprocessor as
    // written.
    let path = scratch(
        "macros.cl",
        "kernel void k(global int *o) { o[0] = SQ(3) + C + S + CAT(1, 2); }\n",
    );
    let out = cliftc(&[
        "-D",
        "SQ(x)=((x)*(x))",
        "-DC='x'",
        "-DS=(1 + 2)",
        "-D",
        "CAT(a,b)=a##b",
        "--emit",
        "tir",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // 9 + 'x' + 3 + 12.
    assert!(
        text(&out.stdout).contains("= 144:int;"),
        "{}",
        text(&out.stdout)
    );
    let out = cliftc(&["-cl-no-such-option", name]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "cliftc: error: invalid build option '-cl-no-such-option'\n"
    );
    let out = cliftc(&["--emit", "bitcode", name]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn kernel_listing_names_arguments_and_qualifiers() {
    let path = scratch(
        "args.cl",
        "kernel __attribute__((reqd_work_group_size(8, 1, 1))) void k(global const float *restrict a,\n\
         local int *tmp, constant float4 *c, read_only image2d_t img, uint n) {}\n",
    );
    let out = cliftc(&["--kernels", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "kernel k [reqd_work_group_size(8, 1, 1)] (private 36 bytes, local 0 bytes)\n\
         \x20 arg 0: __global const restrict float* a\n\
         \x20 arg 1: __local int* tmp\n\
         \x20 arg 2: __constant const float4* c\n\
         \x20 arg 3: __global __read_only image2d_t img\n\
         \x20 arg 4: __private uint n\n"
    );
}

#[test]
fn each_stage_can_be_printed() {
    let path = scratch(
        "stages.cl",
        "#define TWO 2\nkernel void k(global int *o) { o[0] = TWO; }\n",
    );
    let name = path.to_str().unwrap();
    let stdout = |stage: &str| {
        let out = cliftc(&["--emit", stage, name]);
        assert!(out.status.success(), "{stage}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let tokens = stdout("tokens");
    assert!(
        tokens.starts_with(&format!(
            "{name}:2:1\tident\tkernel\n{name}:2:8\tident\tvoid\n"
        )),
        "{tokens}"
    );
    // The macro's expansion is located at its use.
    assert!(
        tokens.contains(&format!("{name}:2:39\tnumber\t2\n")),
        "{tokens}"
    );
    // The syntax tree, with the macro already expanded.
    let ast = stdout("ast");
    assert!(
        ast.starts_with(
            "(translation-unit\n  (function-definition\n    (specifiers kernel void)\n"
        ),
        "{ast}"
    );
    assert!(
        ast.contains("(ident k)") && ast.contains("(int 2))))))"),
        "{ast}"
    );
    assert_eq!(
        stdout("tir"),
        "kernel void k(__global int * o.0) {\n  *<__global>((load o.0 + 0:long elements)) = 2:int;\n}\n"
    );
    let clif = stdout("clif");
    assert!(
        clif.contains("function") && clif.contains("store"),
        "{clif}"
    );
    let asm = stdout("asm");
    assert!(
        asm.contains("bytes of machine code") && asm.contains("ret"),
        "{asm}"
    );
}

#[test]
fn a_binary_from_o_loads_and_runs_through_the_loader() {
    let path = scratch(
        "saxpy.cl",
        "kernel void saxpy(global float *y, global const float *x, float a) {\n\
         size_t i = get_global_id(0);\n  y[i] = SCALE * a * x[i] + y[i];\n}\n",
    );
    let binary_path = path.with_extension("bin");
    let out = cliftc(&[
        "-D",
        "SCALE=2.0f",
        "-o",
        binary_path.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let binary = std::fs::read(&binary_path).unwrap();

    let fixture = Fixture::new();
    let (program, statuses) =
        api().create_program_with_binary(fixture.context, &[api().device()], &[&binary]);
    let program = program.expect("clCreateProgramWithBinary");
    assert_eq!(statuses, [CL_SUCCESS]);
    // No -D now: the binary's text is already preprocessed.
    assert_eq!(api().build_program(program, c""), CL_SUCCESS);
    let kernel = Kernel {
        program,
        kernel: api().create_kernel(program, c"saxpy").unwrap(),
    };
    let y: Mem = fixture.buffer(&[1.0f32, 2.0, 3.0, 4.0]);
    let x: Mem = fixture.buffer(&[10.0f32, 20.0, 30.0, 40.0]);
    kernel.mem(0, &y).mem(1, &x).arg(2, 0.5f32);
    fixture.run(&kernel, None, &[4], None);
    assert_eq!(fixture.read::<f32>(&y, 4), [11.0, 22.0, 33.0, 44.0]);
}
