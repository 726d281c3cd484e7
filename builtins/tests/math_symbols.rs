//! `math::symbols()` lists exactly one function per scalar `float`/`double` overload name of
//! the math builtins (section 6.12.2 of the builtin table): `clift_<name>_f32` for those with
//! a `float` overload, `clift_<name>_f64` for those with a `double` one, plus
//! `clift_divide_f32`.

use std::collections::BTreeSet;

use clift_builtins::math::symbols;
use clift_builtins::signatures::overloads;
use clift_builtins::types::{BType, Scalar};

/// The table's source: the math section is read from it, so a builtin added there without
/// an implementation fails this test.
const TABLE_SOURCE: &str = include_str!("../src/signatures/table.rs");

/// The names of the "# 6.12.2 Math functions" section of the table.
fn math_names() -> Vec<&'static str> {
    let start = TABLE_SOURCE
        .find("# 6.12.2 Math functions")
        .expect("the table has a math section");
    let section = &TABLE_SOURCE[start..];
    let section = &section[..section[1..].find("\n#").map_or(section.len(), |i| i + 1)];
    let mut names: Vec<&str> = section
        .lines()
        .skip(1)
        .filter(|line| !line.starts_with('@'))
        .filter_map(|line| {
            let head = line.split('(').next()?.trim();
            head.rsplit(' ').next().filter(|n| !n.is_empty())
        })
        .collect();
    names.dedup();
    names
}

fn is_scalar(t: &BType, s: Scalar) -> bool {
    matches!(t, BType::Scalar(e) if *e == s)
}

#[test]
fn one_symbol_per_scalar_float_and_double_overload() {
    let names = math_names();
    assert!(names.len() > 80, "parsed {} math names", names.len());
    let mut expected = BTreeSet::new();
    for name in &names {
        let all = overloads(name);
        assert!(!all.is_empty(), "{name} has no overloads");
        for (scalar, suffix) in [(Scalar::Float, "f32"), (Scalar::Double, "f64")] {
            let scalar_overload = all.iter().any(|sig| {
                let values: Vec<&BType> = std::iter::once(&sig.ret)
                    .chain(sig.params.iter())
                    .filter(|t| !matches!(t, BType::Pointer { .. }))
                    .collect();
                values.iter().all(|t| t.lanes() == 1) && values.iter().any(|t| is_scalar(t, scalar))
            });
            if scalar_overload {
                expected.insert(format!("clift_{name}_{suffix}"));
            }
        }
    }
    expected.insert("clift_divide_f32".to_string());

    let registry = symbols();
    let all_listed: BTreeSet<String> = registry.iter().map(|(n, _)| n.to_string()).collect();
    // The register forms the vectorizer calls sit beside the scalar ones: four float
    // lanes (`math/lanes.rs`) and two double lanes (`math/lanes2.rs`). Each must name a
    // math builtin that has its scalar symbol too.
    let (lanes, listed): (BTreeSet<String>, BTreeSet<String>) = all_listed
        .into_iter()
        .partition(|n| n.starts_with("clift_v4_") || n.starts_with("clift_v2_"));
    let four_lane = [
        "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "pow",
    ]
    .iter()
    .map(|n| format!("clift_v4_{n}_f32"));
    let two_lane = ["exp", "exp10", "log", "log2", "log10", "sin", "cos"]
        .iter()
        .map(|n| format!("clift_v2_{n}_f64"));
    let lanes_expected: BTreeSet<String> = four_lane.chain(two_lane).collect();
    assert_eq!(lanes, lanes_expected, "register-form math symbols");
    for form in &lanes {
        let scalar = form
            .replace("clift_v4_", "clift_")
            .replace("clift_v2_", "clift_");
        assert!(expected.contains(&scalar), "{form} without {scalar}");
    }
    assert_eq!(
        listed.len() + lanes.len(),
        registry.len(),
        "duplicate entries in math::symbols()"
    );
    let missing: Vec<_> = expected.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&expected).collect();
    assert!(
        missing.is_empty(),
        "missing from math::symbols(): {missing:?}"
    );
    assert!(extra.is_empty(), "not math builtins: {extra:?}");
    assert!(registry.iter().all(|(_, p)| !p.is_null()));
    // Every math builtin has both precisions, the half_/native_ ones float only.
    for name in &names {
        let has_f64 = listed.contains(&format!("clift_{name}_f64"));
        let prefixed = name.starts_with("half_") || name.starts_with("native_");
        assert!(
            listed.contains(&format!("clift_{name}_f32")),
            "{name}: no f32"
        );
        assert_eq!(has_f64, !prefixed, "{name}: f64 symbol presence");
    }
}
