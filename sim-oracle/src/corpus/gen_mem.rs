//! Memory samples: ld/st in every state space (global, shared, local, const,
//! param, generic) and width (8/16/32/64-bit scalars, v2/v4 vectors), every cache
//! operator, `ld.global.nc` and `ldu`, address shapes (register, register plus
//! offset, absolute), prefetch, isspacep and cvta; and atomics/reductions on global,
//! shared and generic memory.

use super::ptx::{size_of, Batch, Kernel};

/// Scalar and vector shapes: (vector suffix, element type).
const SHAPES: [(&str, &str); 22] = [
    ("", "u8"),
    ("", "s8"),
    ("", "u16"),
    ("", "s16"),
    ("", "u32"),
    ("", "s32"),
    ("", "b32"),
    ("", "f32"),
    ("", "u64"),
    ("", "s64"),
    ("", "f64"),
    (".v2", "u8"),
    (".v4", "u8"),
    (".v2", "u16"),
    (".v4", "u16"),
    (".v2", "u32"),
    (".v4", "u32"),
    (".v2", "f32"),
    (".v4", "f32"),
    (".v2", "u64"),
    (".v2", "f64"),
    (".v4", "s8"),
];

fn vlen(v: &str) -> usize {
    match v {
        ".v2" => 2,
        ".v4" => 4,
        _ => 1,
    }
}

/// Register type for holding an element.
fn hold(ty: &str) -> &str {
    match ty {
        "u8" => "u32",
        "s8" => "s32",
        t => t,
    }
}

/// Destination operand text for `n` fresh registers.
fn dests(k: &mut Kernel, ty: &str, n: usize) -> (String, Vec<String>) {
    let regs: Vec<String> = (0..n).map(|_| k.reg(hold(ty))).collect();
    let text = if n == 1 {
        regs[0].clone()
    } else {
        format!("{{{}}}", regs.join(", "))
    };
    (text, regs)
}

/// Source values for a store.
fn values(k: &mut Kernel, ty: &str, n: usize, imm: bool) -> String {
    let zero = match ty {
        "f32" => "0f00000000",
        "f64" => "0d0000000000000000",
        _ => "0",
    };
    let regs: Vec<String> = (0..n)
        .map(|_| {
            if imm {
                zero.to_string()
            } else {
                k.tld(hold(ty))
            }
        })
        .collect();
    if n == 1 {
        regs[0].clone()
    } else {
        format!("{{{}}}", regs.join(", "))
    }
}

/// A per-thread 64-bit global address (`%in + tid*4`) plus a uniform base.
fn gaddr(k: &mut Kernel, align: u32) -> String {
    let t = k.tid();
    let (w, a) = (k.reg("u64"), k.reg("u64"));
    k.op(format!("mul.wide.u32 {w}, {t}, {}", align.max(4)));
    k.op(format!("add.s64 {a}, %out, {w}"));
    a
}

/// A per-thread 32-bit shared address.
fn saddr(k: &mut Kernel, align: u32) -> String {
    k.decl(".shared .align 16 .b8 shm[8192];");
    let t = k.tid();
    let (base, off, a) = (k.reg("u32"), k.reg("u32"), k.reg("u32"));
    k.op(format!("mov.u32 {base}, shm"));
    k.op(format!("mul.lo.u32 {off}, {t}, {}", align.max(4)));
    k.op(format!("add.u32 {a}, {base}, {off}"));
    a
}

/// A per-thread local address (32-bit) into a local array.
fn laddr(k: &mut Kernel, align: u32) -> String {
    k.decl(".local .align 16 .b8 lcl[1024];");
    let t = k.tid();
    let (m, off, base, a) = (k.reg("u32"), k.reg("u32"), k.reg("u32"), k.reg("u32"));
    k.op(format!("and.b32 {m}, {t}, 31"));
    k.op(format!("mul.lo.u32 {off}, {m}, {}", align.max(4)));
    k.op(format!("mov.u32 {base}, lcl"));
    k.op(format!("add.u32 {a}, {base}, {off}"));
    a
}

/// The ld/st kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("mem", 100);
    for (v, ty) in SHAPES {
        let n = vlen(v);
        let sz = size_of(ty) * n as u32;
        // Global and generic loads and stores with each cache operator.
        for space in [".global", ""] {
            for cop in ["", ".ca", ".cg", ".cs", ".lu", ".cv", ".volatile"] {
                for off in ["", "+16", "+-16", "+65536"] {
                    if !cop.is_empty() && !off.is_empty() && off != "+16" {
                        continue;
                    }
                    b.case(|k| {
                        let a = gaddr(k, sz);
                        let (d, regs) = dests(k, ty, n);
                        k.op(format!("ld{space}{cop}{v}.{ty} {d}, [{a}{off}]"));
                        for r in &regs {
                            k.st(hold(ty), r);
                        }
                    });
                }
            }
            for cop in ["", ".wb", ".cg", ".cs", ".wt", ".volatile"] {
                for (off, imm) in [
                    ("", false),
                    ("+16", false),
                    ("+-16", false),
                    ("+65536", false),
                    ("", true),
                ] {
                    if !cop.is_empty() && !off.is_empty() {
                        continue;
                    }
                    b.case(|k| {
                        let a = gaddr(k, sz);
                        let x = values(k, ty, n, imm);
                        k.op(format!("st{space}{cop}{v}.{ty} [{a}{off}], {x}"));
                    });
                }
            }
        }
        // Non-coherent (texture path) loads and ldu.
        for cop in ["", ".ca", ".cg", ".cs"] {
            for off in ["", "+16", "+-16"] {
                b.case(|k| {
                    let a = gaddr(k, sz);
                    let (d, regs) = dests(k, ty, n);
                    k.op(format!("ld.global.nc{cop}{v}.{ty} {d}, [{a}{off}]"));
                    for r in &regs {
                        k.st(hold(ty), r);
                    }
                });
            }
        }
        for off in ["", "+16"] {
            b.case(|k| {
                let (d, regs) = dests(k, ty, n);
                k.op(format!("ldu.global{v}.{ty} {d}, [%in{off}]"));
                for r in &regs {
                    k.st(hold(ty), r);
                }
            });
        }
        // Shared: register and absolute addresses.
        for vol in ["", ".volatile"] {
            for off in ["", "+16", "+-16", "+4096"] {
                b.case(|k| {
                    let a = saddr(k, sz);
                    let x = values(k, ty, n, false);
                    k.op(format!("st{vol}.shared{v}.{ty} [{a}{off}], {x}"));
                    let (d, regs) = dests(k, ty, n);
                    k.op("bar.sync 0");
                    k.op(format!("ld{vol}.shared{v}.{ty} {d}, [{a}{off}]"));
                    for r in &regs {
                        k.st(hold(ty), r);
                    }
                });
            }
        }
        b.case(|k| {
            k.decl(".shared .align 16 .b8 shm[8192];");
            let x = values(k, ty, n, false);
            k.op(format!("st.shared{v}.{ty} [shm+32], {x}"));
            k.op("bar.sync 0");
            let (d, regs) = dests(k, ty, n);
            k.op(format!("ld.shared{v}.{ty} {d}, [shm+64]"));
            for r in &regs {
                k.st(hold(ty), r);
            }
        });
        // Local memory with per-thread indexes (kept in memory).
        for cop in ["", ".ca", ".cg", ".cs", ".lu", ".cv"] {
            let scop = match cop {
                ".ca" => ".wb",
                ".lu" | ".cv" => ".wt",
                c => c,
            };
            b.case(|k| {
                let a = laddr(k, sz);
                let x = values(k, ty, n, false);
                k.op(format!("st.local{scop}{v}.{ty} [{a}+16], {x}"));
                let (d, regs) = dests(k, ty, n);
                let a2 = laddr(k, sz);
                k.op(format!("ld.local{cop}{v}.{ty} {d}, [{a2}]"));
                for r in &regs {
                    k.st(hold(ty), r);
                }
            });
        }
        // Constant bank: absolute and indexed.
        b.case(|k| {
            k.global(".const .align 16 .b8 cbuf[4096];");
            let (d, regs) = dests(k, ty, n);
            k.op(format!("ld.const{v}.{ty} {d}, [cbuf+48]"));
            for r in &regs {
                k.st(hold(ty), r);
            }
            let t = k.tid();
            let (o, base, a) = (k.reg("u64"), k.reg("u64"), k.reg("u64"));
            k.op(format!("mul.wide.u32 {o}, {t}, 16"));
            k.op(format!("mov.u64 {base}, cbuf"));
            k.op(format!("add.s64 {a}, {base}, {o}"));
            let (d2, regs2) = dests(k, ty, n);
            k.op(format!("ld.const{v}.{ty} {d2}, [{a}+16]"));
            for r in &regs2 {
                k.st(hold(ty), r);
            }
        });
        // Kernel parameters: direct and through a parameter address.
        b.case(|k| {
            let name = k.param_array(64);
            let (d, regs) = dests(k, ty, n);
            k.op(format!("ld.param{v}.{ty} {d}, [{name}+16]"));
            for r in &regs {
                k.st(hold(ty), r);
            }
        });
    }
    // Absolute global variables.
    for ty in ["u8", "u16", "u32", "u64", "f32"] {
        b.case(|k| {
            k.global(".global .align 16 .b8 gbuf[4096];");
            let d = k.reg(hold(ty));
            k.op(format!("ld.global.{ty} {d}, [gbuf+32]"));
            k.st(hold(ty), &d);
            let x = k.tld(hold(ty));
            k.op(format!("st.global.{ty} [gbuf+64], {x}"));
        });
    }
    // Generic addresses into each window, prefetch, isspacep and cvta.
    for space in ["global", "shared", "local", "const"] {
        b.case(|k| {
            let a = match space {
                "global" => gaddr(k, 4),
                "shared" => {
                    let s = saddr(k, 4);
                    let w = k.reg("u64");
                    k.op(format!("cvt.u64.u32 {w}, {s}"));
                    w
                }
                "local" => {
                    let s = laddr(k, 4);
                    let w = k.reg("u64");
                    k.op(format!("cvt.u64.u32 {w}, {s}"));
                    w
                }
                _ => {
                    k.global(".const .align 16 .b8 cbuf[4096];");
                    let w = k.reg("u64");
                    k.op(format!("mov.u64 {w}, cbuf"));
                    w
                }
            };
            let g = k.reg("u64");
            k.op(format!("cvta.{space}.u64 {g}, {a}"));
            let p = k.reg("pred");
            let q = k.reg("pred");
            let r = k.reg("pred");
            let s = k.reg("pred");
            k.op(format!("isspacep.global {p}, {g}"));
            k.op(format!("isspacep.shared {q}, {g}"));
            k.op(format!("isspacep.local {r}, {g}"));
            k.op(format!("isspacep.const {s}, {g}"));
            for x in [&p, &q, &r, &s] {
                k.st("pred", x);
            }
            let back = k.reg("u64");
            k.op(format!("cvta.to.{space}.u64 {back}, {g}"));
            k.st("u64", &back);
            if space != "const" {
                let v = k.tld("u32");
                k.op(format!("st.u32 [{g}], {v}"));
            }
            let d = k.reg("u32");
            k.op(format!("ld.u32 {d}, [{g}+4]"));
            k.st("u32", &d);
        });
    }
    for pf in [
        "prefetch.global.L1",
        "prefetch.global.L2",
        "prefetch.L1",
        "prefetch.L2",
        "prefetchu.L1",
        "prefetch.local.L1",
        "prefetch.local.L2",
    ] {
        for off in ["", "+64"] {
            b.case(|k| {
                let a = if pf.contains("local") {
                    laddr(k, 4)
                } else {
                    gaddr(k, 4)
                };
                k.op(format!("{pf} [{a}{off}]"));
                let v = k.tld("u32");
                if pf.contains("local") {
                    k.op(format!("st.local.u32 [{a}], {v}"));
                    let d = k.reg("u32");
                    k.op(format!("ld.local.u32 {d}, [{a}+4]"));
                    k.st("u32", &d);
                }
            });
        }
    }
    b.finish()
}

/// Atomic operations and the types PTX allows for each.
const ATOMS: [(&str, &[&str]); 10] = [
    ("add", &["u32", "s32", "u64", "f32"]),
    ("inc", &["u32"]),
    ("dec", &["u32"]),
    ("min", &["u32", "s32", "u64", "s64"]),
    ("max", &["u32", "s32", "u64", "s64"]),
    ("and", &["b32", "b64"]),
    ("or", &["b32", "b64"]),
    ("xor", &["b32", "b64"]),
    ("exch", &["b32", "b64"]),
    ("cas", &["b32", "b64"]),
];

/// The atomic and reduction kernels.
pub fn atomic_kernels() -> Vec<Kernel> {
    let mut b = Batch::new("atom", 80);
    for (op, types) in ATOMS {
        for ty in types.iter().copied() {
            for space in [".global", ".shared", ""] {
                for (off, kind) in [("", 't'), ("+8", 't'), ("", 'c'), ("", 'i'), ("", 'I')] {
                    if space != ".global" && kind == 'I' {
                        continue;
                    }
                    let addr = |k: &mut Kernel| -> String {
                        match space {
                            ".shared" => saddr(k, size_of(ty)),
                            _ => gaddr(k, size_of(ty)),
                        }
                    };
                    let vty = if ty == "f32" { "f32" } else { ty };
                    b.case(|k| {
                        let a = addr(k);
                        let x = k.src(kind, vty);
                        let d = k.reg(vty);
                        if op == "cas" {
                            let y = k.src('t', vty);
                            k.op(format!("atom{space}.cas.{ty} {d}, [{a}{off}], {x}, {y}"));
                        } else {
                            k.op(format!("atom{space}.{op}.{ty} {d}, [{a}{off}], {x}"));
                        }
                        k.st(vty, &d);
                    });
                    if op != "cas" && op != "exch" {
                        b.case(|k| {
                            let a = addr(k);
                            let x = k.src(kind, vty);
                            k.op(format!("red{space}.{op}.{ty} [{a}{off}], {x}"));
                        });
                    }
                }
            }
        }
    }
    // Absolute addresses of variables.
    for space in [".global", ".shared"] {
        for (op, ty) in [
            ("add", "u32"),
            ("add", "f32"),
            ("cas", "b32"),
            ("exch", "b64"),
            ("max", "s32"),
            ("min", "u64"),
        ] {
            b.case(|k| {
                let var = if space == ".shared" {
                    k.decl(".shared .align 16 .b8 shm[8192];");
                    "shm"
                } else {
                    k.global(".global .align 16 .b8 gbuf[4096];");
                    "gbuf"
                };
                let x = k.src('t', ty);
                let d = k.reg(ty);
                if op == "cas" {
                    let y = k.src('t', ty);
                    k.op(format!("atom{space}.cas.{ty} {d}, [{var}+16], {x}, {y}"));
                } else {
                    k.op(format!("atom{space}.{op}.{ty} {d}, [{var}+16], {x}"));
                    if op != "exch" {
                        k.op(format!("red{space}.{op}.{ty} [{var}+32], {x}"));
                    }
                }
                k.st(ty, &d);
            });
        }
    }
    b.finish()
}
