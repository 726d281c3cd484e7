//! Macro definition and expansion: object-like, function-like, variadic, `#`, `##`,
//! rescanning with hidesets, redefinition, and where expanded tokens say they are.

use clift_compiler::frontend::token::TokenKind;

use super::{clean, norm, run};

#[test]
fn object_like_macros() {
    assert_eq!(clean("#define N 4\nint a[N];"), norm("int a[4];"));
    assert_eq!(clean("#define E\nE int E x E;"), norm("int x;"));
    assert_eq!(clean("#define A B\n#define B C\n#define C 7\nA"), "7");
    // Defined after use: not expanded before its definition.
    assert_eq!(clean("X\n#define X 1\nX"), "X 1");
    assert_eq!(clean("#define X 1\n#undef X\nX"), "X");
    // Keywords are identifiers to the preprocessor.
    assert_eq!(clean("#define float double\nfloat f;"), norm("double f;"));
}

#[test]
fn function_like_macros() {
    assert_eq!(
        clean("#define SQ(x) ((x)*(x))\nSQ(a+1)"),
        norm("((a+1)*(a+1))")
    );
    assert_eq!(
        clean("#define F(a, b) b a\nF((1, 2), [3])"),
        norm("[3] (1, 2)")
    );
    // Only parentheses group: brackets and braces do not protect commas.
    assert_eq!(run("#define F(a, b) b a\nF([1, 2])").text(), "2 ] [ 1");
    // A name not followed by `(` is not an invocation, even after newlines it is.
    assert_eq!(clean("#define F(x) [x]\nF + F\n(1)"), norm("F + [1]"));
    // Empty arguments and an empty parameter list.
    assert_eq!(
        clean("#define F(a, b) <a|b>\nF(,) F( , 2)"),
        norm("<|> <|2>")
    );
    assert_eq!(clean("#define Z() zero\nZ() Z( )"), norm("zero zero"));
    // Arguments over several lines, with comments.
    assert_eq!(
        clean("#define F(a, b) a+b\nF(1 /* c */,\n  2\n)"),
        norm("1+2")
    );
    // The name can come from another macro and the arguments from the file.
    assert_eq!(clean("#define F(x) <x>\n#define G F\nG(1)"), norm("<1>"));
    // Arguments are fully expanded before substitution.
    assert_eq!(clean("#define N 3\n#define F(x) x x\nF(N)"), "3 3");
    // ...except next to # and ##.
    assert_eq!(
        clean("#define N 3\n#define S(x) #x\n#define XS(x) S(x)\nS(N) XS(N)"),
        norm("\"N\" \"3\"")
    );
}

#[test]
fn argument_count_errors() {
    let r = run("#define F(a, b) a b\nF(1) F(1, 2, 3) ok");
    assert_eq!(r.text(), "ok");
    assert_eq!(
        r.messages(),
        [
            "too few arguments provided to function-like macro invocation",
            "too many arguments provided to function-like macro invocation"
        ]
    );
    let r = run("#define F(a) a\nint F(1\n");
    assert_eq!(r.text(), "int");
    assert_eq!(
        r.log(),
        "t.cl:2:5: error: unterminated function-like macro invocation\nint F(1\n    ^\n\
         t.cl:1:9: note: macro 'F' defined here\n#define F(a) a\n        ^\n"
    );
}

#[test]
fn variadic_macros() {
    assert_eq!(
        clean("#define P(...) f(__VA_ARGS__)\nP() P(1) P(1, (2, 3), 4)"),
        norm("f() f(1) f(1, (2, 3), 4)")
    );
    assert_eq!(
        clean("#define P(fmt, ...) printf(fmt, __VA_ARGS__)\nP(\"%d\", 1, 2)"),
        norm("printf(\"%d\", 1, 2)")
    );
    // An empty variable argument may be left out entirely.
    assert_eq!(
        clean("#define P(fmt, ...) f(fmt __VA_ARGS__)\nP(x)"),
        norm("f(x)")
    );
    // GNU's `, ## __VA_ARGS__` drops the comma when there are no variable arguments.
    assert_eq!(
        clean("#define P(fmt, ...) f(fmt, ## __VA_ARGS__)\nP(x) P(x, y)"),
        norm("f(x) f(x, y)")
    );
    // GNU's named variadic parameter.
    assert_eq!(
        clean("#define P(args...) g(args)\nP(1, 2)"),
        norm("g(1, 2)")
    );
    let r = run("#define P(x) __VA_ARGS__\n");
    assert_eq!(
        r.messages(),
        ["__VA_ARGS__ can only appear in the expansion of a C99 variadic macro"]
    );
}

#[test]
fn stringizing() {
    assert_eq!(
        clean("#define S(x) #x\nS(  a   +\n  b  )"),
        norm("\"a + b\"")
    );
    assert_eq!(clean("#define S(x) #x\nS()"), "\"\"");
    assert_eq!(
        clean(
            r#"#define S(x) #x
S("a\n" '\'' "\"")"#
        ),
        r#""\"a\\n\" '\\'' \"\\\"\"""#
    );
    // Backslashes outside literals are not escaped.
    assert_eq!(clean("#define S(x) #x\nS(\\n)"), r#""\n""#);
    assert_eq!(
        clean("#define S(...) #__VA_ARGS__\nS(a,b , c)"),
        norm("\"a,b , c\"")
    );
    // `#` in an object-like macro is an ordinary token.
    assert_eq!(clean("#define H # x\nH"), "# x");
    let r = run("#define S(x) #y\n");
    assert_eq!(
        r.log(),
        "t.cl:1:14: error: '#' is not followed by a macro parameter\n#define S(x) #y\n             ^\n"
    );
}

#[test]
fn pasting() {
    assert_eq!(
        clean("#define C(a, b) a ## b\nC(x, 1) C(1, 2) C(<<, =) C(-, >) C(%, =)"),
        norm("x1 12 <<= -> %=")
    );
    assert_eq!(clean("#define C(a, b) a ## b\nC(, y) C(x, ) C(,)"), "y x");
    assert_eq!(clean("#define C(a, b) a ## b ## 2\nC(, ) C(x, y)"), "2 xy2");
    // Object-like pasting, and a pasted name that is a macro is expanded on rescan.
    assert_eq!(clean("#define AB done\n#define P A ## B\nP"), "done");
    // Only the adjacent tokens of multi-token arguments are pasted.
    assert_eq!(clean("#define C(a, b) a ## b\nC(1 2, 3 4)"), "1 23 4");
    // A paste that does not make one token is an error; the tokens stay apart.
    let r = run("#define cat(a, b) a ## b\ncat(+, -) cat(x, \"s\") cat(/, /)");
    assert_eq!(r.text(), "+ - x \"s\" / /");
    assert_eq!(
        r.messages(),
        [
            "pasting formed '+-', an invalid preprocessing token",
            "pasting formed 'x\"s\"', an invalid preprocessing token",
            "pasting formed '//', an invalid preprocessing token",
        ]
    );
    let r = run("#define cat(a, b) a ## b\ncat(+, -)");
    assert_eq!(
        r.log(),
        "t.cl:2:1: error: pasting formed '+-', an invalid preprocessing token\ncat(+, -)\n^~~~~~~~~\n\
         t.cl:1:21: note: expanded from macro 'cat'\n#define cat(a, b) a ## b\n                    ^~\n"
    );
    let r = run("#define A ## x\n#define B x ##\n#define C(x) ## x\n");
    assert_eq!(
        r.messages(),
        [
            "'##' cannot appear at start of macro expansion",
            "'##' cannot appear at end of macro expansion",
            "'##' cannot appear at start of macro expansion",
        ]
    );
}

#[test]
fn hidesets_stop_recursion() {
    assert_eq!(clean("#define foo foo + 1\nfoo"), "foo + 1");
    assert_eq!(clean("#define a b\n#define b a\na b"), "a b");
    assert_eq!(
        clean("#define f(x) f(x) + x\nf(f(1))"),
        norm("f(f(1) + 1) + f(1) + 1")
    );
    // C99 6.10.3.4 EXAMPLE and its neighbours (DR 017 Q19): the hideset comes from both
    // the name and the `)`.
    assert_eq!(
        clean("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)"),
        "2 * 9 * g"
    );
    assert_eq!(
        clean("#define f(a) a*g\n#define g f\nf(2)(9)"),
        norm("2*f(9)")
    );
    // A name painted blue stays unexpanded even where it would otherwise be invoked.
    assert_eq!(clean("#define f(x) x\n#define g f(g)\ng(1)"), norm("g(1)"));
}

#[test]
fn redefinition_warns_like_clang() {
    let r = run("#define X 1\n#define X 1\n#define X 2\nX");
    assert_eq!(r.text(), "2");
    assert_eq!(
        r.log(),
        "t.cl:3:9: warning: 'X' macro redefined\n#define X 2\n        ^\n\
         t.cl:2:9: note: previous definition is here\n#define X 1\n        ^\n"
    );
    let r = run("#define F(a) a\n#define F(b) b\n#define G(a) a\n#define G a\n");
    assert_eq!(r.messages(), ["'F' macro redefined", "'G' macro redefined"]);
    let r = run(
        "#define defined 1\n#undef defined\n#define 3 x\n#define\n#define F(a,a) a\n#define F(a b) a\n#define F(a\n",
    );
    assert_eq!(
        r.messages(),
        [
            "'defined' cannot be used as a macro name",
            "'defined' cannot be used as a macro name",
            "macro name must be an identifier",
            "macro name missing",
            "duplicate macro parameter name 'a'",
            "expected comma in macro parameter list",
            "missing ')' in macro parameter list",
        ]
    );
}

#[test]
fn expanded_tokens_keep_their_span_and_get_the_invocation_as_site() {
    let text = "#define TWICE(x) ((x)+(x))\nint y = TWICE(a);\n";
    let r = run(text);
    let invocation = text.find("TWICE(a)").unwrap();
    let a = text.rfind("a)").unwrap();
    let expanded: Vec<_> = r
        .tokens
        .iter()
        .filter(|t| t.site.start as usize == invocation)
        .collect();
    assert_eq!(
        super::join(&expanded.iter().map(|t| (*t).clone()).collect::<Vec<_>>()),
        norm("((a)+(a))")
    );
    for t in &expanded {
        assert_eq!(t.site.end as usize, invocation + "TWICE(a)".len());
        if &*t.text == "a" {
            assert_eq!(t.span.start as usize, a, "an argument keeps its own place");
        } else {
            assert!(
                (t.span.start as usize) < text.find('\n').unwrap(),
                "body tokens point into the #define"
            );
        }
    }
    // Tokens that no macro produced are their own site.
    let int = &r.tokens[0];
    assert_eq!((int.kind, int.span), (TokenKind::Ident, int.site));
    // Nested expansions report the outermost invocation.
    let text = "#define IN 1\n#define OUT IN+IN\nOUT;\n";
    let r = run(text);
    let at = text.rfind("OUT").unwrap() as u32;
    assert!(
        r.tokens
            .iter()
            .filter(|t| &*t.text != ";" && t.kind != TokenKind::Eof)
            .all(|t| t.site.start == at)
    );
}

#[test]
fn builtin_file_line_date_time() {
    assert_eq!(clean("__LINE__\n\n__LINE__ __FILE__"), "1 3 \"t.cl\"");
    // A macro invocation over several lines has the line of its `)`, as in clang.
    assert_eq!(clean("#define F(x) __LINE__ x\nF(\n1\n)"), "4 1");
    let r = run("__DATE__ __TIME__");
    let [date, time] = [&r.tokens[0], &r.tokens[1]];
    assert_eq!(
        (date.kind, date.text.len(), time.kind, time.text.len()),
        (TokenKind::Str, 13, TokenKind::Str, 10)
    );
    assert_eq!(&time.text[3..4], ":");
    assert!(clean("#ifdef __LINE__\nyes\n#endif") == "yes");
}

#[test]
fn expansion_limits_are_errors_not_crashes() {
    // Arguments nested far deeper than the expander recurses.
    let deep = format!("#define f(x) x\n{}1{}", "f(".repeat(2000), ")".repeat(2000));
    let r = run(&deep);
    assert!(
        r.messages()
            .iter()
            .any(|m| m.starts_with("macro arguments nested too deeply")),
        "{:?}",
        r.messages()
    );
}

#[test]
fn expansion_limit_bomb() {
    // An exponential macro bomb stops at the work cap.
    let mut bomb = String::from("#define a0 x x\n");
    for i in 1..40 {
        bomb += &format!("#define a{i} a{} a{}\n", i - 1, i - 1);
    }
    bomb += "a39\n";
    let start = std::time::Instant::now();
    let r = run(&bomb);
    assert_eq!(r.messages().len(), 1, "{:?}", r.messages());
    assert!(r.messages()[0].starts_with("macro expansion is too large"));
    assert!(start.elapsed().as_secs() < 60);
}

#[test]
fn expansion_limit_strings() {
    // Strings that double at every level of stringizing.
    let mut strings = String::from("#define S(x) #x\n#define X(x) S(x) S(x)\n");
    strings += &format!("{}1{}", "X(".repeat(60), ")".repeat(60));
    let r = run(&strings);
    assert!(
        r.messages()
            .iter()
            .any(|m| m.starts_with("macro expansion is too large"))
    );
}
