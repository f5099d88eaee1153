//! Control-flow samples: uniform and divergent branches, loops with break and
//! continue (SSY/SYNC, PBK/BRK, PCNT/CONT), calls to device functions (ptxas keeps
//! `.func`s out of line; it refuses the `.noinline` attribute)
//! giving CAL/RET, recursion, indirect calls through a function pointer, `brx.idx`
//! jump tables, predicated exit and return, trap and brkpt.

use super::ptx::{Batch, Kernel};

/// Device functions the kernels call (module-level text).
const FUNCS: &[(&str, &str)] = &[
    (
        "fn_mix",
        ".func (.reg .b32 rv) fn_mix(.reg .b32 a, .reg .b32 b)\n{\n\t.reg .b32 t;\n\tmul.lo.u32 t, a, b;\n\txor.b32 rv, t, a;\n\tret;\n}",
    ),
    (
        "fn_pmix",
        ".func (.param .b32 rv) fn_pmix(.param .b32 a, .param .b64 b)\n{\n\t.reg .b32 x, y;\n\t.reg .b64 p;\n\tld.param.b32 x, [a];\n\tld.param.b64 p, [b];\n\tld.global.u32 y, [p];\n\tadd.u32 x, x, y;\n\tst.param.b32 [rv], x;\n\tret;\n}",
    ),
    (
        "fn_fact",
        ".func (.param .b32 rv) fn_fact(.param .b32 n)\n{\n\t.reg .b32 x, y;\n\t.reg .pred p;\n\tld.param.b32 x, [n];\n\tsetp.le.u32 p, x, 1;\n\t@p bra $Lfact_base;\n\tsub.u32 y, x, 1;\n\t{\n\t.param .b32 a;\n\t.param .b32 r;\n\tst.param.b32 [a], y;\n\tcall (r), fn_fact, (a);\n\tld.param.b32 y, [r];\n\t}\n\tmul.lo.u32 x, x, y;\n$Lfact_base:\n\tst.param.b32 [rv], x;\n\tret;\n}",
    ),
    (
        "fn_arr",
        ".func (.param .b32 rv) fn_arr(.param .align 16 .b8 s[32], .param .b32 i)\n{\n\t.local .align 16 .b8 buf[32];\n\t.reg .b32 x, y, z, w, k;\n\t.reg .b64 a, o, b;\n\tld.param.v4.b32 {x, y, z, w}, [s];\n\tmov.u64 b, buf;\n\tst.local.v4.b32 [b], {x, y, z, w};\n\tld.param.v4.b32 {x, y, z, w}, [s+16];\n\tst.local.v4.b32 [b+16], {w, z, y, x};\n\tld.param.b32 k, [i];\n\tand.b32 k, k, 7;\n\tmul.wide.u32 o, k, 4;\n\tadd.s64 a, b, o;\n\tld.local.b32 x, [a];\n\tst.param.b32 [rv], x;\n\tret;\n}",
    ),
    (
        "fn_f",
        ".func (.reg .f32 rv) fn_f(.reg .f32 a)\n{\n\tmul.rn.f32 rv, a, a;\n\tret;\n}",
    ),
    (
        "fn_g",
        ".func (.reg .f32 rv) fn_g(.reg .f32 a)\n{\n\tadd.rn.f32 rv, a, 0f3F800000;\n\tret;\n}",
    ),
    (
        "fn_d",
        ".func (.reg .f64 rv) fn_d(.reg .f64 a, .reg .b64 b)\n{\n\t.reg .f64 t;\n\tld.global.f64 t, [b];\n\tfma.rn.f64 rv, a, t, a;\n\tret;\n}",
    ),
    (
        "fn_void",
        ".func fn_void(.reg .b64 p, .reg .b32 v)\n{\n\t.reg .pred q;\n\tsetp.eq.u32 q, v, 0;\n\t@q ret;\n\tst.global.u32 [p], v;\n\tret;\n}",
    ),
];

fn func(k: &mut Kernel, name: &str) {
    let (_, text) = FUNCS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("known function");
    k.global(*text);
}

/// The control-flow kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("ctrl", 60);
    // Uniform branch on a parameter, and divergent if/else on the thread index.
    for (src, cmp) in [('c', "eq"), ('t', "lt"), ('r', "ne"), ('t', "ge")] {
        b.case(|k| {
            let x = k.src(src, "u32");
            let y = k.tld("u32");
            let p = k.reg("pred");
            k.op(format!("setp.{cmp}.u32 {p}, {x}, 5"));
            let (l_else, l_end) = (k.label(), k.label());
            let d = k.reg("u32");
            k.op(format!("@{p} bra {l_else}"));
            k.op(format!("mul.lo.u32 {d}, {y}, 3"));
            k.op(format!("bra.uni {l_end}"));
            k.place(&l_else);
            k.op(format!("add.u32 {d}, {y}, 11"));
            k.place(&l_end);
            k.st("u32", &d);
        });
    }
    // Loops with a divergent break (PBK/BRK), continue (PCNT/CONT), nested.
    for variant in 0..7 {
        b.case(|k| loops(k, variant));
    }
    // Calls.
    b.case(|k| {
        func(k, "fn_mix");
        let (x, y) = (k.tld("u32"), k.par("u32"));
        let r = k.reg("u32");
        k.op(format!("call.uni ({r}), fn_mix, ({x}, {y})"));
        k.st("u32", &r);
        let p = k.reg("pred");
        k.op(format!("setp.gt.u32 {p}, {x}, 9"));
        let r2 = k.reg("u32");
        k.op(format!("@{p} call ({r2}), fn_mix, ({r}, {x})"));
        k.st("u32", &r2);
    });
    b.case(|k| {
        func(k, "fn_pmix");
        let x = k.tld("u32");
        k.line("\t{\n\t.param .b32 pa;\n\t.param .b64 pb;\n\t.param .b32 pr;");
        k.op(format!("st.param.b32 [pa], {x}"));
        k.op("st.param.b64 [pb], %in");
        k.op("call (pr), fn_pmix, (pa, pb)");
        let r = k.reg("u32");
        k.op(format!("ld.param.b32 {r}, [pr]"));
        k.line("\t}");
        k.st("u32", &r);
    });
    b.case(|k| {
        func(k, "fn_fact");
        let x = k.tld("u32");
        k.line("\t{\n\t.param .b32 fa;\n\t.param .b32 fr;");
        k.op(format!("st.param.b32 [fa], {x}"));
        k.op("call (fr), fn_fact, (fa)");
        let r = k.reg("u32");
        k.op(format!("ld.param.b32 {r}, [fr]"));
        k.line("\t}");
        k.st("u32", &r);
    });
    b.case(|k| {
        func(k, "fn_arr");
        let vals: Vec<String> = (0..8).map(|_| k.tld("b32")).collect();
        let i = k.par("u32");
        k.line("\t{\n\t.param .align 16 .b8 sa[32];\n\t.param .b32 si;\n\t.param .b32 sr;");
        k.op(format!(
            "st.param.v4.b32 [sa], {{{}}}",
            vals[..4].join(", ")
        ));
        k.op(format!(
            "st.param.v4.b32 [sa+16], {{{}}}",
            vals[4..].join(", ")
        ));
        k.op(format!("st.param.b32 [si], {i}"));
        k.op("call (sr), fn_arr, (sa, si)");
        let r = k.reg("u32");
        k.op(format!("ld.param.b32 {r}, [sr]"));
        k.line("\t}");
        k.st("u32", &r);
    });
    b.case(|k| {
        func(k, "fn_d");
        func(k, "fn_void");
        let x = k.tld("f64");
        let r = k.reg("f64");
        k.op(format!("call ({r}), fn_d, ({x}, %in)"));
        k.st("f64", &r);
        let v = k.tld("u32");
        k.op(format!("call fn_void, (%out, {v})"));
    });
    // Indirect calls through a function pointer.
    for sel in ['t', 'c'] {
        b.case(|k| {
            func(k, "fn_f");
            func(k, "fn_g");
            let x = k.tld("f32");
            let s = k.src(sel, "u32");
            let (pf, pg, pp) = (k.reg("u64"), k.reg("u64"), k.reg("u64"));
            let p = k.reg("pred");
            k.op(format!("mov.u64 {pf}, fn_f"));
            k.op(format!("mov.u64 {pg}, fn_g"));
            k.op(format!("setp.ne.u32 {p}, {s}, 0"));
            k.op(format!("selp.b64 {pp}, {pf}, {pg}, {p}"));
            let proto = k.label().replace("$L", "proto");
            k.line(format!(
                "\t{proto}: .callprototype (.reg .f32 _) _ (.reg .f32 _);"
            ));
            let r = k.reg("f32");
            k.op(format!("call ({r}), {pp}, ({x}), {proto}"));
            k.st("f32", &r);
        });
    }
    // Jump tables.
    for sel in ['t', 'c'] {
        b.case(|k| {
            let x = k.src(sel, "u32");
            let i = k.reg("u32");
            k.op(format!("and.b32 {i}, {x}, 3"));
            let ls: Vec<String> = (0..4).map(|_| k.label()).collect();
            let end = k.label();
            let ts = k.label().replace("$L", "ts");
            k.line(format!("\t{ts}: .branchtargets {};", ls.join(", ")));
            k.op(format!("brx.idx {i}, {ts}"));
            let d = k.reg("u32");
            for (n, l) in ls.iter().enumerate() {
                k.place(l);
                k.op(format!("add.u32 {d}, {x}, {}", 100 + n));
                k.op(format!("bra.uni {end}"));
            }
            k.place(&end);
            k.st("u32", &d);
        });
    }
    // Predicated exit, early return, trap, brkpt.
    for (i, what) in ["exit", "ret", "trap", "brkpt"].iter().enumerate() {
        for src in ['t', 'c'] {
            b.case(|k| {
                let x = k.src(src, "u32");
                let p = k.reg("pred");
                k.op(format!("setp.eq.u32 {p}, {x}, {}", 40 + i));
                if *what == "brkpt" {
                    k.op(format!("@{p} brkpt"));
                    k.op("brkpt");
                } else {
                    k.op(format!("@{p} {what}"));
                }
                let y = k.tld("u32");
                k.st("u32", &y);
            });
            b.split();
        }
    }
    b.finish()
}

/// Loop shapes: 0 counted loop with divergent trip count, 1 with divergent break,
/// 2 with continue, 3 nested with break from the inner loop, 4 while with both,
/// 5 a loop whose body calls a function, 6 nested loops whose inner loop calls a
/// function and breaks out of or continues the outer loop.
fn loops(k: &mut Kernel, variant: u32) {
    let n = k.tld("u32");
    let lim = k.par("u32");
    let (i, acc, v) = (k.reg("u32"), k.reg("u32"), k.reg("u32"));
    let (p, q) = (k.reg("pred"), k.reg("pred"));
    let (top, cont, brk) = (k.label(), k.label(), k.label());
    k.op(format!("mov.u32 {i}, 0"));
    k.op(format!("mov.u32 {acc}, 0"));
    k.place(&top);
    let addr = k.reg("u64");
    let off = k.reg("u64");
    k.op(format!("mul.wide.u32 {off}, {i}, 4"));
    k.op(format!("add.s64 {addr}, %tin, {off}"));
    k.op(format!("ld.global.u32 {v}, [{addr}]"));
    match variant {
        1 | 4 => {
            k.op(format!("setp.eq.u32 {q}, {v}, 0"));
            k.op(format!("@{q} bra {brk}"));
        }
        _ => {}
    }
    if variant == 2 || variant == 4 {
        k.op(format!("setp.gt.u32 {q}, {v}, 100"));
        k.op(format!("@{q} bra {cont}"));
    }
    if variant == 3 {
        let (j, w) = (k.reg("u32"), k.reg("u32"));
        let (itop, iend) = (k.label(), k.label());
        let r = k.reg("pred");
        k.op(format!("mov.u32 {j}, {v}"));
        k.place(&itop);
        k.op(format!("shr.u32 {j}, {j}, 1"));
        k.op(format!("add.u32 {acc}, {acc}, {j}"));
        k.op(format!("and.b32 {w}, {j}, 7"));
        k.op(format!("setp.eq.u32 {r}, {w}, 3"));
        k.op(format!("@{r} bra {iend}"));
        k.op(format!("setp.ne.u32 {r}, {j}, 0"));
        k.op(format!("@{r} bra {itop}"));
        k.place(&iend);
    }
    if variant == 6 {
        func(k, "fn_mix");
        let (j, w, r) = (k.reg("u32"), k.reg("u32"), k.reg("u32"));
        let itop = k.label();
        let pr = k.reg("pred");
        k.op(format!("mov.u32 {j}, 0"));
        k.place(&itop);
        k.op(format!("add.u32 {j}, {j}, 1"));
        k.op(format!("ld.global.u32 {w}, [{addr}+4]"));
        k.op(format!("setp.eq.u32 {pr}, {w}, 3"));
        k.op(format!("@{pr} bra {cont}"));
        k.op(format!("setp.eq.u32 {pr}, {w}, 5"));
        k.op(format!("@{pr} bra {brk}"));
        k.op(format!("call ({r}), fn_mix, ({w}, {j})"));
        k.op(format!("add.u32 {acc}, {acc}, {r}"));
        k.op(format!("setp.lt.u32 {pr}, {j}, {v}"));
        k.op(format!("@{pr} bra {itop}"));
    }
    if variant == 5 {
        func(k, "fn_mix");
        let r = k.reg("u32");
        k.op(format!("call ({r}), fn_mix, ({v}, {acc})"));
        k.op(format!("add.u32 {acc}, {acc}, {r}"));
    } else {
        k.op(format!("mad.lo.u32 {acc}, {v}, {i}, {acc}"));
    }
    k.place(&cont);
    k.op(format!("add.u32 {i}, {i}, 1"));
    let bound = if variant == 0 { n.clone() } else { lim.clone() };
    k.op(format!("setp.lt.u32 {p}, {i}, {bound}"));
    k.op(format!("@{p} bra {top}"));
    k.place(&brk);
    k.st("u32", &acc);
    k.st("u32", &i);
}

/// Functions for the relocatable samples: one defined and visible, one external.
const RDC_FUNCS: &str = ".extern .func (.reg .b32 rv) ext_fn(.reg .b32 a);\n\n\
.visible .func (.reg .b32 rv) vis_fn(.reg .b32 a)\n{\n\tmul.lo.u32 rv, a, a;\n\tret;\n}\n\n\
.visible .func (.reg .f32 rv) vis_fa(.reg .f32 a)\n{\n\tmul.rn.f32 rv, a, a;\n\tret;\n}\n\n\
.visible .func (.reg .f32 rv) vis_fb(.reg .f32 a)\n{\n\tadd.rn.f32 rv, a, a;\n\tret;\n}";

/// Kernels compiled as relocatable code (`ptxas -c`): calls to visible and
/// external functions (JCAL), indirect calls (JMX), jump tables and global
/// addresses left to the linker.
pub fn relocatable_kernels() -> Vec<Kernel> {
    let mut b = Batch::new("rdc", 60);
    b.case(|k| {
        k.global(RDC_FUNCS);
        let x = k.tld("u32");
        let (r, q) = (k.reg("u32"), k.reg("u32"));
        k.op(format!("call ({r}), ext_fn, ({x})"));
        k.op(format!("call ({q}), vis_fn, ({r})"));
        k.st("u32", &q);
        let p = k.reg("pred");
        k.op(format!("setp.ne.u32 {p}, {x}, 0"));
        k.op(format!("@{p} call ({r}), vis_fn, ({q})"));
        k.st("u32", &r);
    });
    for sel in ['t', 'c'] {
        b.case(|k| {
            k.global(RDC_FUNCS);
            let x = k.tld("f32");
            let s = k.src(sel, "u32");
            let (pf, pg, pp) = (k.reg("u64"), k.reg("u64"), k.reg("u64"));
            let p = k.reg("pred");
            k.op(format!("mov.u64 {pf}, vis_fa"));
            k.op(format!("mov.u64 {pg}, vis_fb"));
            k.op(format!("setp.ne.u32 {p}, {s}, 0"));
            k.op(format!("selp.b64 {pp}, {pf}, {pg}, {p}"));
            let proto = k.label().replace("$L", "proto");
            k.line(format!(
                "\t{proto}: .callprototype (.reg .f32 _) _ (.reg .f32 _);"
            ));
            let r = k.reg("f32");
            k.op(format!("call ({r}), {pp}, ({x}), {proto}"));
            k.st("f32", &r);
        });
        b.case(|k| {
            let x = k.src(sel, "u32");
            let i = k.reg("u32");
            k.op(format!("and.b32 {i}, {x}, 3"));
            let ls: Vec<String> = (0..3).map(|_| k.label()).collect();
            let end = k.label();
            let ts = k.label().replace("$L", "ts");
            k.line(format!("\t{ts}: .branchtargets {};", ls.join(", ")));
            k.op(format!("brx.idx {i}, {ts}"));
            let d = k.reg("u32");
            for (n, l) in ls.iter().enumerate() {
                k.place(l);
                k.op(format!("add.u32 {d}, {x}, {}", 7 + n));
                k.op(format!("bra.uni {end}"));
            }
            k.place(&end);
            k.st("u32", &d);
        });
    }
    b.case(|k| {
        k.global(".global .align 8 .b8 rdc_buf[64];");
        let x = k.tld("u32");
        k.op(format!("st.global.u32 [rdc_buf+8], {x}"));
        let (a, d) = (k.reg("u64"), k.reg("u32"));
        k.op(format!("mov.u64 {a}, rdc_buf"));
        k.op(format!("ld.u32 {d}, [{a}+4]"));
        k.st("u32", &d);
    });
    b.finish()
}
