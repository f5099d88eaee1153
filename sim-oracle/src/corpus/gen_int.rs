//! Integer arithmetic and logic samples: add/sub (with carry chains), mul/mad in
//! every half and width, mul24/mad24, sad, min/max, abs/neg, div/rem, bit counting
//! and field operations, prmt in all modes, funnel shifts, shifts of every type,
//! and bitwise logic, each with register, constant-bank and immediate operands.

use super::ptx::{Batch, Kernel};

const INTS: [&str; 6] = ["u16", "s16", "u32", "s32", "u64", "s64"];

/// Operand-kind pairs for binary operations (see [`Kernel::src`]).
const PAIRS: [&str; 7] = ["rr", "rc", "ri", "rI", "cr", "tr", "rz"];

fn bits(ty: &str) -> &'static str {
    match super::ptx::size_of(ty) {
        2 => "b16",
        8 => "b64",
        _ => "b32",
    }
}

/// `OP d, a, b` for each operand-kind pair; `dty` is the destination type.
fn binary(b: &mut Batch, op: &str, ty: &str, dty: &str, pairs: &[&str]) {
    for p in pairs {
        let ks: Vec<char> = p.chars().collect();
        b.case(|k| {
            let a = k.src(ks[0], ty);
            let c = k.src(ks[1], ty);
            let d = k.reg(dty);
            k.op(format!("{op} {d}, {a}, {c}"));
            k.st(dty, &d);
        });
    }
}

/// `OP d, a, b, c` for each operand-kind triple.
fn ternary(b: &mut Batch, op: &str, ty: &str, cty: &str, dty: &str, triples: &[&str]) {
    for t in triples {
        let ks: Vec<char> = t.chars().collect();
        b.case(|k| {
            let a = k.src(ks[0], ty);
            let x = k.src(ks[1], ty);
            let c = k.src(ks[2], cty);
            let d = k.reg(dty);
            k.op(format!("{op} {d}, {a}, {x}, {c}"));
            k.st(dty, &d);
        });
    }
}

fn unary(b: &mut Batch, op: &str, ty: &str, dty: &str, kinds: &str) {
    for kind in kinds.chars() {
        b.case(|k| {
            let a = k.src(kind, ty);
            let d = k.reg(dty);
            k.op(format!("{op} {d}, {a}"));
            k.st(dty, &d);
        });
    }
}

fn wide(ty: &str) -> &'static str {
    match ty {
        "u16" => "u32",
        "s16" => "s32",
        "u32" => "u64",
        _ => "s64",
    }
}

const TRIPLES: [&str; 7] = ["rrr", "rcr", "rrc", "rir", "rri", "rIr", "trr"];

/// The integer kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("int", 120);
    for ty in INTS {
        binary(&mut b, &format!("add.{ty}"), ty, ty, &PAIRS);
        binary(&mut b, &format!("sub.{ty}"), ty, ty, &PAIRS);
        binary(&mut b, &format!("min.{ty}"), ty, ty, &PAIRS);
        binary(&mut b, &format!("max.{ty}"), ty, ty, &PAIRS);
        binary(&mut b, &format!("mul.lo.{ty}"), ty, ty, &PAIRS);
        binary(&mut b, &format!("mul.hi.{ty}"), ty, ty, &PAIRS);
        binary(
            &mut b,
            &format!("div.{ty}"),
            ty,
            ty,
            &["rr", "rc", "ri", "rI"],
        );
        binary(
            &mut b,
            &format!("rem.{ty}"),
            ty,
            ty,
            &["rr", "rc", "ri", "rI"],
        );
        ternary(&mut b, &format!("mad.lo.{ty}"), ty, ty, ty, &TRIPLES);
        ternary(&mut b, &format!("mad.hi.{ty}"), ty, ty, ty, &TRIPLES);
        ternary(
            &mut b,
            &format!("sad.{ty}"),
            ty,
            ty,
            ty,
            &["rrr", "rcr", "rrc", "rir"],
        );
        if !ty.ends_with("64") {
            let w = wide(ty);
            binary(&mut b, &format!("mul.wide.{ty}"), ty, w, &PAIRS);
            ternary(&mut b, &format!("mad.wide.{ty}"), ty, w, w, &TRIPLES);
        }
        if ty.starts_with('s') {
            unary(&mut b, &format!("abs.{ty}"), ty, ty, "rct");
            unary(&mut b, &format!("neg.{ty}"), ty, ty, "rct");
        }
        let bt = bits(ty);
        let shr = if ty.starts_with('s') { ty } else { bt };
        for pair in ["rr", "rc", "ri", "tr"] {
            let ks: Vec<char> = pair.chars().collect();
            for op in [
                format!("shl.{bt}"),
                format!("shr.{shr}"),
                format!("shr.{ty}"),
            ] {
                b.case(|k| {
                    let a = k.src(ks[0], ty);
                    let s = k.src(ks[1], "u32");
                    let d = k.reg(ty);
                    k.op(format!("{op} {d}, {a}, {s}"));
                    k.st(ty, &d);
                });
            }
        }
    }
    for (op, pairs) in [("add.sat.s32", &PAIRS[..]), ("sub.sat.s32", &PAIRS[..])] {
        binary(&mut b, op, "s32", "s32", pairs);
    }
    ternary(&mut b, "mad.hi.sat.s32", "s32", "s32", "s32", &TRIPLES);
    for ty in ["u32", "s32"] {
        binary(&mut b, &format!("mul24.lo.{ty}"), ty, ty, &PAIRS);
        binary(&mut b, &format!("mul24.hi.{ty}"), ty, ty, &PAIRS);
        ternary(&mut b, &format!("mad24.lo.{ty}"), ty, ty, ty, &TRIPLES);
        ternary(&mut b, &format!("mad24.hi.{ty}"), ty, ty, ty, &TRIPLES);
    }
    ternary(&mut b, "mad24.hi.sat.s32", "s32", "s32", "s32", &TRIPLES);
    carry_chains(&mut b);
    logic(&mut b);
    bit_ops(&mut b);
    b.finish()
}

/// Extended-precision chains: `add.cc`/`addc`, `sub.cc`/`subc`, `mad.cc`/`madc`.
fn carry_chains(b: &mut Batch) {
    for ty in ["u32", "s32", "u64", "s64"] {
        for (cc, c, cc2) in [("add.cc", "addc", "addc.cc"), ("sub.cc", "subc", "subc.cc")] {
            for pair in ["rr", "rc", "ri", "rI"] {
                let ks: Vec<char> = pair.chars().collect();
                b.case(|k| {
                    let a = k.src(ks[0], ty);
                    let x = k.src(ks[1], ty);
                    let y = k.src(ks[1], ty);
                    let z = k.src(ks[1], ty);
                    let (d0, d1, d2) = (k.reg(ty), k.reg(ty), k.reg(ty));
                    k.op(format!("{cc}.{ty} {d0}, {a}, {x}"));
                    k.op(format!("{cc2}.{ty} {d1}, {a}, {y}"));
                    k.op(format!("{c}.{ty} {d2}, {z}, {a}"));
                    k.st(ty, &d0);
                    k.st(ty, &d1);
                    k.st(ty, &d2);
                });
            }
        }
        for half in ["lo", "hi"] {
            for t in ["rrr", "rcr", "rrc", "rir"] {
                let ks: Vec<char> = t.chars().collect();
                b.case(|k| {
                    let a = k.src(ks[0], ty);
                    let x = k.src(ks[1], ty);
                    let c = k.src(ks[2], ty);
                    let e = k.src(ks[2], ty);
                    let (d0, d1, d2) = (k.reg(ty), k.reg(ty), k.reg(ty));
                    k.op(format!("mad.{half}.cc.{ty} {d0}, {a}, {x}, {c}"));
                    k.op(format!("madc.{half}.cc.{ty} {d1}, {a}, {x}, {e}"));
                    k.op(format!("madc.{half}.{ty} {d2}, {x}, {a}, {c}"));
                    k.st(ty, &d0);
                    k.st(ty, &d1);
                    k.st(ty, &d2);
                });
            }
        }
    }
}

/// Bitwise logic on b16/b32/b64 and predicates.
fn logic(b: &mut Batch) {
    for ty in ["b16", "b32", "b64"] {
        for op in ["and", "or", "xor"] {
            binary(b, &format!("{op}.{ty}"), ty, ty, &PAIRS);
            // With one operand inverted: ptxas folds `not` into the operation.
            for pair in ["rr", "rc", "ri"] {
                let ks: Vec<char> = pair.chars().collect();
                b.case(|k| {
                    let a = k.src(ks[0], ty);
                    let x = k.src(ks[1], ty);
                    let na = k.reg(ty);
                    k.op(format!("not.{ty} {na}, {a}"));
                    let d = k.reg(ty);
                    k.op(format!("{op}.{ty} {d}, {na}, {x}"));
                    k.st(ty, &d);
                });
            }
            // Both inverted, and the result inverted.
            b.case(|k| {
                let a = k.ld(ty);
                let x = k.ld(ty);
                let (na, nx, d, e) = (k.reg(ty), k.reg(ty), k.reg(ty), k.reg(ty));
                k.op(format!("not.{ty} {na}, {a}"));
                k.op(format!("not.{ty} {nx}, {x}"));
                k.op(format!("{op}.{ty} {d}, {na}, {nx}"));
                k.op(format!("{op}.{ty} {e}, {a}, {x}"));
                let f = k.reg(ty);
                k.op(format!("not.{ty} {f}, {e}"));
                k.st(ty, &d);
                k.st(ty, &f);
            });
        }
        unary(b, &format!("not.{ty}"), ty, ty, "rct");
        unary(b, &format!("cnot.{ty}"), ty, ty, "rct");
    }
}

/// popc, clz, bfind, brev, bfe, bfi, prmt, shf.
fn bit_ops(b: &mut Batch) {
    for ty in ["b32", "b64"] {
        unary(b, &format!("popc.{ty}"), ty, "u32", "rct");
        unary(b, &format!("clz.{ty}"), ty, "u32", "rct");
        unary(b, &format!("brev.{ty}"), ty, ty, "rct");
    }
    for ty in ["u32", "s32", "u64", "s64"] {
        unary(b, &format!("bfind.{ty}"), ty, "u32", "rct");
        unary(b, &format!("bfind.shiftamt.{ty}"), ty, "u32", "rc");
        for t in ["rrr", "rcr", "rii", "rri", "rir", "cii", "tcc"] {
            let ks: Vec<char> = t.chars().collect();
            b.case(|k| {
                let a = k.src(ks[0], ty);
                let p = k.src(ks[1], "u32");
                let l = k.src(ks[2], "u32");
                let d = k.reg(ty);
                k.op(format!("bfe.{ty} {d}, {a}, {p}, {l}"));
                k.st(ty, &d);
            });
        }
    }
    for ty in ["b32", "b64"] {
        for t in ["rrrr", "rrii", "rcrr", "ricc", "irrr", "rrri"] {
            let ks: Vec<char> = t.chars().collect();
            b.case(|k| {
                let a = k.src(ks[0], ty);
                let x = k.src(ks[1], ty);
                let p = k.src(ks[2], "u32");
                let l = k.src(ks[3], "u32");
                let d = k.reg(ty);
                k.op(format!("bfi.{ty} {d}, {a}, {x}, {p}, {l}"));
                k.st(ty, &d);
            });
        }
    }
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"] {
        for t in ["rrr", "rcr", "rri", "rrc", "rir", "trt"] {
            let ks: Vec<char> = t.chars().collect();
            b.case(|k| {
                let a = k.src(ks[0], "b32");
                let x = k.src(ks[1], "b32");
                let s = if ks[2] == 'i' {
                    "0x3210".to_string()
                } else {
                    k.src(ks[2], "b32")
                };
                let d = k.reg("b32");
                k.op(format!("prmt.b32{mode} {d}, {a}, {x}, {s}"));
                k.st("b32", &d);
            });
        }
        // Selector constants that make ptxas pick special forms.
        for sel in [
            "0x5410", "0x7632", "0x4321", "0x1", "0x0", "0x8880", "0x3333",
        ] {
            if mode.is_empty() {
                b.case(|k| {
                    let a = k.ld("b32");
                    let x = k.ld("b32");
                    let d = k.reg("b32");
                    k.op(format!("prmt.b32 {d}, {a}, {x}, {sel}"));
                    k.st("b32", &d);
                });
            }
        }
    }
    for dir in ["l", "r"] {
        for mode in ["wrap", "clamp"] {
            for t in ["rrr", "rri", "rrc", "crr", "rcr", "trI"] {
                let ks: Vec<char> = t.chars().collect();
                b.case(|k| {
                    let a = k.src(ks[0], "b32");
                    let x = k.src(ks[1], "b32");
                    let s = k.src(ks[2], "u32");
                    let d = k.reg("b32");
                    k.op(format!("shf.{dir}.{mode}.b32 {d}, {a}, {x}, {s}"));
                    k.st("b32", &d);
                });
            }
        }
    }
    // 64-bit shifts by a variable amount and by constants (SHF.*.64 forms).
    for op in ["shl.b64", "shr.b64", "shr.s64", "shr.u64"] {
        for amt in ["1", "31", "32", "33", "63"] {
            b.case(|k| {
                let a = k.ld("b64");
                let d = k.reg("b64");
                k.op(format!("{op} {d}, {a}, {amt}"));
                k.st("b64", &d);
            });
        }
    }
    // Scaled adds: `(a << n) + b` becomes ISCADD.
    for n in [1, 2, 3, 4, 8, 31] {
        for pair in ["rr", "rc", "ri", "rI"] {
            let ks: Vec<char> = pair.chars().collect();
            b.case(|k| {
                let a = k.src('r', "u32");
                let c = k.src(ks[1], "u32");
                let (t, d) = (k.reg("u32"), k.reg("u32"));
                k.op(format!("shl.b32 {t}, {a}, {n}"));
                k.op(format!("add.u32 {d}, {t}, {c}"));
                k.st("u32", &d);
                let (t2, d2) = (k.reg("u32"), k.reg("u32"));
                k.op(format!("shl.b32 {t2}, {a}, {n}"));
                k.op(format!("sub.u32 {d2}, {c}, {t2}"));
                k.st("u32", &d2);
            });
        }
    }
}
