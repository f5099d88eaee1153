//! Comparison and selection samples: setp and set with every comparison operator
//! for every integer and FP type, their boolean-combine forms with a (negated)
//! predicate, selp and slct, and predicate logic (and/or/xor/not on `.pred`).

use super::ptx::{Batch, Kernel};

const INT_CMP: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
const UNS_CMP: [&str; 4] = ["lo", "ls", "hi", "hs"];
const FLT_CMP: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// The comparison operators PTX allows for a type.
fn cmps(ty: &str) -> Vec<&'static str> {
    match ty.as_bytes()[0] {
        b'f' => FLT_CMP.to_vec(),
        b'b' => vec!["eq", "ne"],
        b'u' => INT_CMP.iter().chain(UNS_CMP.iter()).copied().collect(),
        _ => INT_CMP.to_vec(),
    }
}

const TYPES: [&str; 11] = [
    "b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64",
];

/// A predicate computed from a loaded value (so ptxas keeps it).
fn pred(k: &mut Kernel) -> String {
    let x = k.tld("u32");
    let p = k.reg("pred");
    k.op(format!("setp.ne.u32 {p}, {x}, 0"));
    p
}

/// The comparison kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("cmp", 120);
    for ty in TYPES {
        let ftz_opts: &[&str] = if ty == "f32" { &["", ".ftz"] } else { &[""] };
        for ftz in ftz_opts {
            for c in cmps(ty) {
                for pair in ["rr", "rc", "ri", "rz", "nr", "ar"] {
                    if pair.contains(['n', 'a']) && !ty.starts_with('f') {
                        continue;
                    }
                    let ks: Vec<char> = pair.chars().collect();
                    // setp, plain and combined with a predicate, with both results.
                    b.case(|k| {
                        let a = k.src(ks[0], ty);
                        let x = k.src(ks[1], ty);
                        let p = k.reg("pred");
                        k.op(format!("setp.{c}{ftz}.{ty} {p}, {a}, {x}"));
                        k.st("pred", &p);
                    });
                    if matches!(pair, "rr" | "rc" | "ri") {
                        for bop in ["and", "or", "xor"] {
                            for neg in ["", "!"] {
                                b.case(|k| {
                                    let a = k.src(ks[0], ty);
                                    let x = k.src(ks[1], ty);
                                    let q = pred(k);
                                    let (p, r) = (k.reg("pred"), k.reg("pred"));
                                    k.op(format!(
                                        "setp.{c}.{bop}{ftz}.{ty} {p}|{r}, {a}, {x}, {neg}{q}"
                                    ));
                                    k.st("pred", &p);
                                    k.st("pred", &r);
                                });
                            }
                        }
                    }
                    // set with each destination type.
                    if matches!(pair, "rr" | "rc" | "ri" | "nr") {
                        for dty in ["u32", "s32", "f32"] {
                            b.case(|k| {
                                let a = k.src(ks[0], ty);
                                let x = k.src(ks[1], ty);
                                let d = k.reg(dty);
                                k.op(format!("set.{c}{ftz}.{dty}.{ty} {d}, {a}, {x}"));
                                k.st(dty, &d);
                            });
                        }
                        if pair == "rr" {
                            for bop in ["and", "or", "xor"] {
                                for dty in ["u32", "f32"] {
                                    b.case(|k| {
                                        let a = k.src(ks[0], ty);
                                        let x = k.src(ks[1], ty);
                                        let q = pred(k);
                                        let d = k.reg(dty);
                                        k.op(format!(
                                            "set.{c}.{bop}{ftz}.{dty}.{ty} {d}, {a}, {x}, !{q}"
                                        ));
                                        k.st(dty, &d);
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        // selp with each operand kind.
        for pair in ["rr", "rc", "ri", "ir", "cr", "ii", "iI"] {
            let ks: Vec<char> = pair.chars().collect();
            b.case(|k| {
                let a = k.src(ks[0], ty);
                let x = k.src(ks[1], ty);
                let q = pred(k);
                let d = k.reg(ty);
                k.op(format!("selp.{ty} {d}, {a}, {x}, {q}"));
                k.st(ty, &d);
            });
        }
    }
    // slct: select on the sign of a third operand.
    for dty in [
        "b16", "u16", "s16", "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64",
    ] {
        for (cty, ftz) in [("s32", ""), ("f32", ""), ("f32", ".ftz")] {
            for t in ["rrr", "rcr", "rrc", "rir"] {
                let ks: Vec<char> = t.chars().collect();
                b.case(|k| {
                    let a = k.src(ks[0], dty);
                    let x = k.src(ks[1], dty);
                    let c = k.src(ks[2], cty);
                    let d = k.reg(dty);
                    k.op(format!("slct{ftz}.{dty}.{cty} {d}, {a}, {x}, {c}"));
                    k.st(dty, &d);
                });
            }
        }
    }
    // Predicate logic.
    for op in ["and", "or", "xor"] {
        for (na, nb, nd) in [
            (false, false, false),
            (true, false, false),
            (false, true, false),
            (true, true, false),
            (false, false, true),
            (true, true, true),
        ] {
            b.case(|k| {
                let p = pred(k);
                let q = pred(k);
                let (np, nq, d) = (k.reg("pred"), k.reg("pred"), k.reg("pred"));
                let a = if na {
                    k.op(format!("not.pred {np}, {p}"));
                    np
                } else {
                    p
                };
                let x = if nb {
                    k.op(format!("not.pred {nq}, {q}"));
                    nq
                } else {
                    q
                };
                k.op(format!("{op}.pred {d}, {a}, {x}"));
                let out = if nd {
                    let e = k.reg("pred");
                    k.op(format!("not.pred {e}, {d}"));
                    e
                } else {
                    d
                };
                // Use the predicate as a guard as well as a value.
                let r = k.tld("u32");
                let s = k.reg("u32");
                k.op(format!("mov.u32 {s}, 0"));
                k.op(format!("@{out} add.u32 {s}, {r}, 1"));
                k.st("u32", &s);
                k.st("pred", &out);
            });
        }
    }
    // Three-input predicate combinations and many live predicates (P2R/R2P).
    b.case(|k| {
        let ps: Vec<String> = (0..10).map(|_| pred(k)).collect();
        let mut acc = ps[0].clone();
        for (i, p) in ps.iter().enumerate().skip(1) {
            let d = k.reg("pred");
            let op = ["and", "or", "xor"][i % 3];
            k.op(format!("{op}.pred {d}, {acc}, {p}"));
            acc = d;
        }
        k.st("pred", &acc);
        for p in &ps {
            k.st("pred", p);
        }
    });
    b.finish()
}
