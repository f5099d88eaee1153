//! Conversion samples: cvt between every pair of s8/u8/s16/u16/s32/u32/s64/u64/
//! f16/f32/f64 with each rounding mode PTX allows for the pair, with and without
//! `.ftz` and `.sat`, from registers and from the constant bank; plus `mov` of
//! 64-bit register pairs and of 16-bit halves.

use super::ptx::{is_float, Batch, Kernel};

const TYPES: [&str; 11] = [
    "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f32", "f64",
];

/// Rounding modifiers PTX allows (or requires) for a conversion.
fn roundings(dst: &str, src: &str) -> Vec<&'static str> {
    let ints = ["", ".rni", ".rzi", ".rmi", ".rpi"];
    match (is_float(dst), is_float(src)) {
        (false, false) => vec![""],
        // float to int: an integer rounding is required.
        (false, true) => ints[1..].to_vec(),
        // int to float: an FP rounding is required.
        (true, false) => vec![".rn", ".rz", ".rm", ".rp"],
        (true, true) => {
            let narrowing = super::ptx::size_of(dst) < super::ptx::size_of(src);
            if dst == src {
                ints.to_vec()
            } else if narrowing {
                vec![".rn", ".rz", ".rm", ".rp"]
            } else {
                vec![""]
            }
        }
    }
}

/// Whether every value of integer type `src` fits `dst` (ptxas then rejects
/// `.sat`).
fn int_fits(dst: &str, src: &str) -> bool {
    if is_float(dst) || is_float(src) {
        return false;
    }
    let (ds, ss) = (super::ptx::size_of(dst), super::ptx::size_of(src));
    match (dst.starts_with('s'), src.starts_with('s')) {
        (false, false) | (true, true) => ds >= ss,
        (true, false) => ds > ss,
        (false, true) => false,
    }
}

/// Register type used to hold a value of `ty` in the generated PTX.
fn hold(ty: &str) -> &str {
    match ty {
        "u8" => "u32",
        "s8" => "s32",
        t => t,
    }
}

/// The conversion kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("cvt", 120);
    for dst in TYPES {
        for src in TYPES {
            for rnd in roundings(dst, src) {
                let ftz_ok = dst == "f32" || src == "f32";
                let ftzs: &[&str] = if ftz_ok { &["", ".ftz"] } else { &[""] };
                for ftz in ftzs {
                    for sat in ["", ".sat"] {
                        if !sat.is_empty() && int_fits(dst, src) {
                            continue;
                        }
                        if dst == src
                            && rnd.is_empty()
                            && ftz.is_empty()
                            && sat.is_empty()
                            && !is_float(dst)
                        {
                            continue;
                        }
                        let kinds: &str = if ftz.is_empty() && sat.is_empty() {
                            "rc"
                        } else {
                            "r"
                        };
                        for kind in kinds.chars() {
                            b.case(|k| {
                                let s = k.src(kind, hold(src));
                                let d = k.reg(hold(dst));
                                k.op(format!("cvt{rnd}{ftz}{sat}.{dst}.{src} {d}, {s}"));
                                let sty = if dst == "f16" { "f16" } else { dst };
                                k.st(sty, &d);
                            });
                        }
                    }
                }
            }
        }
    }
    // Negated and absolute sources fold into conversions.
    for (dst, src, rnd) in [
        ("f32", "f64", ".rn"),
        ("f64", "f32", ""),
        ("s32", "f32", ".rzi"),
        ("f32", "f32", ".rni"),
        ("f64", "f64", ".rmi"),
        ("s32", "f64", ".rni"),
    ] {
        for kind in ['n', 'a', 'm'] {
            b.case(|k| {
                let s = k.src(kind, src);
                let d = k.reg(dst);
                k.op(format!("cvt{rnd}.{dst}.{src} {d}, {s}"));
                k.st(dst, &d);
            });
        }
    }
    for (dst, src) in [
        ("f32", "s32"),
        ("f64", "s32"),
        ("f32", "s64"),
        ("s32", "s16"),
        ("s64", "s32"),
        ("s16", "s32"),
    ] {
        let rnd = if is_float(dst) { ".rn" } else { "" };
        for kind in ['n', 'a'] {
            b.case(|k| {
                let s = k.src(kind, src);
                let d = k.reg(dst);
                k.op(format!("cvt{rnd}.{dst}.{src} {d}, {s}"));
                k.st(dst, &d);
            });
        }
    }
    // mov of 64-bit register pairs and 16-bit halves.
    for kind in ['r', 'c'] {
        b.case(|k| {
            let lo = k.src(kind, "b32");
            let hi = k.src('r', "b32");
            let d = k.reg("b64");
            k.op(format!("mov.b64 {d}, {{{lo}, {hi}}}"));
            k.st("b64", &d);
            let x = k.src(kind, "b64");
            let (l, h) = (k.reg("b32"), k.reg("b32"));
            k.op(format!("mov.b64 {{{l}, {h}}}, {x}"));
            k.st("b32", &l);
            k.st("b32", &h);
            let y = k.src(kind, "b32");
            let (l, h) = (k.reg("b16"), k.reg("b16"));
            k.op(format!("mov.b32 {{{l}, {h}}}, {y}"));
            k.st("b16", &l);
            k.st("b16", &h);
            let w = k.reg("b32");
            k.op(format!("mov.b32 {w}, {{{h}, {l}}}"));
            k.st("b32", &w);
            let f = k.src(kind, "f64");
            let (fl, fh) = (k.reg("b32"), k.reg("b32"));
            k.op(format!("mov.b64 {{{fl}, {fh}}}, {f}"));
            k.st("b32", &fl);
            k.st("b32", &fh);
        });
    }
    b.finish()
}
