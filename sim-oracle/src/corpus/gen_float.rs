//! Floating-point samples: FP32 and FP64 add/sub/mul/fma in every rounding mode
//! with `.ftz` and `.sat`, operands negated, absolute, from the constant bank or
//! immediate; min/max, abs/neg, the special functions (rcp, sqrt, rsqrt, sin, cos,
//! lg2, ex2), division in its approximate, full and IEEE forms, testp and
//! copysign.

use super::ptx::{Batch, Kernel};

/// Operand-kind pairs for binary FP operations (see [`Kernel::src`]).
const PAIRS: [&str; 12] = [
    "rr", "rc", "ri", "rI", "rn", "nr", "ar", "ra", "mr", "nc", "an", "tz",
];
const TRIPLES: [&str; 11] = [
    "rrr", "rcr", "rrc", "rir", "rIr", "nrr", "rrn", "nrc", "rri", "arr", "trz",
];

fn binary(b: &mut Batch, op: &str, ty: &str, pairs: &[&str]) {
    for p in pairs {
        let ks: Vec<char> = p.chars().collect();
        b.case(|k| {
            let a = k.src(ks[0], ty);
            let c = k.src(ks[1], ty);
            let d = k.reg(ty);
            k.op(format!("{op} {d}, {a}, {c}"));
            k.st(ty, &d);
        });
    }
}

fn ternary(b: &mut Batch, op: &str, ty: &str, triples: &[&str]) {
    for t in triples {
        let ks: Vec<char> = t.chars().collect();
        b.case(|k| {
            let a = k.src(ks[0], ty);
            let x = k.src(ks[1], ty);
            let c = k.src(ks[2], ty);
            let d = k.reg(ty);
            k.op(format!("{op} {d}, {a}, {x}, {c}"));
            k.st(ty, &d);
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

const ROUNDS: [&str; 5] = ["", ".rn", ".rz", ".rm", ".rp"];

/// The floating-point kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("fp", 120);
    // FP32 arithmetic.
    for rnd in ROUNDS {
        for ftz in ["", ".ftz"] {
            for sat in ["", ".sat"] {
                for op in ["add", "sub", "mul"] {
                    let pairs: &[&str] = if rnd.is_empty() && ftz.is_empty() && sat.is_empty() {
                        &PAIRS
                    } else {
                        &PAIRS[..6]
                    };
                    binary(&mut b, &format!("{op}{rnd}{ftz}{sat}.f32"), "f32", pairs);
                }
                if !rnd.is_empty() {
                    let triples: &[&str] = if rnd == ".rn" && ftz.is_empty() && sat.is_empty() {
                        &TRIPLES
                    } else {
                        &TRIPLES[..6]
                    };
                    ternary(&mut b, &format!("fma{rnd}{ftz}{sat}.f32"), "f32", triples);
                }
            }
        }
    }
    for ftz in ["", ".ftz"] {
        binary(&mut b, &format!("min{ftz}.f32"), "f32", &PAIRS);
        binary(&mut b, &format!("max{ftz}.f32"), "f32", &PAIRS);
        unary(&mut b, &format!("abs{ftz}.f32"), "f32", "f32", "rcn");
        unary(&mut b, &format!("neg{ftz}.f32"), "f32", "f32", "rca");
        for f in ["sin", "cos", "lg2", "ex2", "rsqrt", "rcp", "sqrt"] {
            unary(
                &mut b,
                &format!("{f}.approx{ftz}.f32"),
                "f32",
                "f32",
                "rcna",
            );
        }
        for rnd in &ROUNDS[1..] {
            unary(&mut b, &format!("rcp{rnd}{ftz}.f32"), "f32", "f32", "rc");
            unary(&mut b, &format!("sqrt{rnd}{ftz}.f32"), "f32", "f32", "rc");
            binary(
                &mut b,
                &format!("div{rnd}{ftz}.f32"),
                "f32",
                &["rr", "rc", "ri"],
            );
        }
        binary(
            &mut b,
            &format!("div.approx{ftz}.f32"),
            "f32",
            &["rr", "rc", "ri", "ir", "nr"],
        );
        binary(
            &mut b,
            &format!("div.full{ftz}.f32"),
            "f32",
            &["rr", "rc", "ri", "ir"],
        );
    }
    // FP32 with shapes that select special encodings: multiply by powers of two,
    // add of an immediate that only fits a 32-bit field, saturation of a product.
    for imm in [
        "0f40000000",
        "0f3E800000",
        "0f41000000",
        "0fC0800000",
        "0f7F800000",
        "0fFF800000",
        "0f7FFFFFFF",
        "0f00000001",
    ] {
        for op in [
            "mul.f32",
            "add.f32",
            "mul.ftz.f32",
            "add.ftz.f32",
            "mul.rz.f32",
            "mul.sat.f32",
        ] {
            b.case(|k| {
                let a = k.ld("f32");
                let d = k.reg("f32");
                k.op(format!("{op} {d}, {a}, {imm}"));
                k.st("f32", &d);
            });
        }
        b.case(|k| {
            let a = k.ld("f32");
            let c = k.ld("f32");
            let d = k.reg("f32");
            k.op(format!("fma.rn.f32 {d}, {a}, {imm}, {c}"));
            k.st("f32", &d);
        });
    }
    for t in [
        "finite",
        "infinite",
        "number",
        "notanumber",
        "normal",
        "subnormal",
    ] {
        for ty in ["f32", "f64"] {
            for kind in ['r', 'c'] {
                b.case(|k| {
                    let a = k.src(kind, ty);
                    let p = k.reg("pred");
                    k.op(format!("testp.{t}.{ty} {p}, {a}"));
                    k.st("pred", &p);
                });
            }
        }
    }
    for ty in ["f32", "f64"] {
        binary(
            &mut b,
            &format!("copysign.{ty}"),
            ty,
            &["rr", "rc", "cr", "ri"],
        );
    }
    // FP64 arithmetic.
    for rnd in ROUNDS {
        for op in ["add", "sub", "mul"] {
            let pairs: &[&str] = if rnd.is_empty() { &PAIRS } else { &PAIRS[..6] };
            binary(&mut b, &format!("{op}{rnd}.f64"), "f64", pairs);
        }
        if !rnd.is_empty() {
            let triples: &[&str] = if rnd == ".rn" {
                &TRIPLES
            } else {
                &TRIPLES[..6]
            };
            ternary(&mut b, &format!("fma{rnd}.f64"), "f64", triples);
            unary(&mut b, &format!("rcp{rnd}.f64"), "f64", "f64", "rc");
            unary(&mut b, &format!("sqrt{rnd}.f64"), "f64", "f64", "rc");
            binary(&mut b, &format!("div{rnd}.f64"), "f64", &["rr", "rc", "ri"]);
        }
    }
    binary(&mut b, "min.f64", "f64", &PAIRS);
    binary(&mut b, "max.f64", "f64", &PAIRS);
    unary(&mut b, "abs.f64", "f64", "f64", "rcn");
    unary(&mut b, "neg.f64", "f64", "f64", "rca");
    unary(&mut b, "rcp.approx.ftz.f64", "f64", "f64", "rcn");
    unary(&mut b, "rsqrt.approx.f64", "f64", "f64", "rcn");
    unary(&mut b, "rsqrt.approx.ftz.f64", "f64", "f64", "rc");
    b.finish()
}
