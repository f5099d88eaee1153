//! Texture and surface samples: tex (plain, level, grad) over every geometry with
//! float and integer coordinates and results, texel offsets and depth compare, tld4
//! gathers, txq queries, through
//! module-level `.texref`s and through bindless handles; suld/sust (with cache
//! operators) and sured through `.surfref`s and handles (suq is not generated:
//! ptxas crashes on it).

use super::ptx::{Batch, Kernel};

/// Geometries with their coordinate count (array geometries have an extra s32
/// layer index first).
const GEOMS: [(&str, usize); 7] = [
    ("1d", 1),
    ("2d", 2),
    ("3d", 4),
    ("a1d", 2),
    ("a2d", 4),
    ("cube", 4),
    ("acube", 4),
];

/// Coordinate vector text for a geometry: `{x}` or `{a, x, y, z}`.
fn coords(k: &mut Kernel, geom: &str, n: usize, cty: &str) -> String {
    let mut v: Vec<String> = Vec::new();
    for i in 0..n {
        let layer = geom.starts_with('a') && i == 0;
        let pad = i == 3 && matches!(geom, "3d" | "cube" | "a2d");
        if pad {
            v.push(v[i - 1].clone());
        } else if layer {
            v.push(k.tld("s32"));
        } else {
            v.push(k.tld(cty));
        }
    }
    if n == 1 {
        format!("{{{}}}", v[0])
    } else {
        format!("{{{}}}", v.join(", "))
    }
}

fn results(k: &mut Kernel, rty: &str) -> (String, Vec<String>) {
    let regs: Vec<String> = (0..4).map(|_| k.reg(rty)).collect();
    (format!("{{{}}}", regs.join(", ")), regs)
}

/// The texture source operand: a `.texref` name or a bindless handle register.
fn texture(k: &mut Kernel, bindless: bool) -> String {
    if bindless {
        k.par("u64")
    } else {
        k.global(".global .texref tex0;");
        "tex0".into()
    }
}

/// The texture and surface kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("tex", 60);
    for bindless in [false, true] {
        for (geom, n) in GEOMS {
            for (rty, cty) in [
                ("f32", "f32"),
                ("s32", "f32"),
                ("u32", "f32"),
                ("f32", "s32"),
                ("s32", "s32"),
            ] {
                if cty == "s32" && geom.contains("cube") {
                    continue;
                }
                b.case(|k| {
                    let t = texture(k, bindless);
                    let c = coords(k, geom, n, cty);
                    let (d, regs) = results(k, rty);
                    k.op(format!("tex.{geom}.v4.{rty}.{cty} {d}, [{t}, {c}]"));
                    for r in &regs {
                        k.st(rty, r);
                    }
                });
            }
            if !geom.contains("cube") || geom == "cube" {
                b.case(|k| {
                    let t = texture(k, bindless);
                    let c = coords(k, geom, n, "f32");
                    let lod = k.tld("f32");
                    let (d, regs) = results(k, "f32");
                    k.op(format!(
                        "tex.level.{geom}.v4.f32.f32 {d}, [{t}, {c}], {lod}"
                    ));
                    for r in &regs {
                        k.st("f32", r);
                    }
                });
            }
            if geom != "3d" && !geom.contains("cube") {
                b.case(|k| {
                    let t = texture(k, bindless);
                    let c = coords(k, geom, n, "f32");
                    let dims = if geom.ends_with("1d") { 1 } else { 2 };
                    let dx: Vec<String> = (0..dims).map(|_| k.tld("f32")).collect();
                    let dy: Vec<String> = (0..dims).map(|_| k.tld("f32")).collect();
                    let (d, regs) = results(k, "f32");
                    k.op(format!(
                        "tex.grad.{geom}.v4.f32.f32 {d}, [{t}, {c}], {{{}}}, {{{}}}",
                        dx.join(", "),
                        dy.join(", ")
                    ));
                    for r in &regs {
                        k.st("f32", r);
                    }
                });
            }
        }
        // Texel offsets (AOFFI) and depth comparison (DC).
        for (geom, n, noff) in [
            ("1d", 1, 1),
            ("2d", 2, 2),
            ("a1d", 2, 1),
            ("a2d", 4, 2),
            ("3d", 4, 3),
        ] {
            for (off, dc) in [(true, false), (false, true), (true, true)] {
                if dc && geom == "3d" {
                    continue;
                }
                b.case(|k| {
                    let t = texture(k, bindless);
                    let c = coords(k, geom, n, "f32");
                    let mut extra = String::new();
                    if off {
                        let o: Vec<String> = (0..noff).map(|_| k.tld("s32")).collect();
                        let o = if geom == "3d" {
                            format!("{}, {}", o.join(", "), o[0])
                        } else {
                            o.join(", ")
                        };
                        extra.push_str(&format!(", {{{o}}}"));
                    }
                    if dc {
                        let z = k.tld("f32");
                        extra.push_str(&format!(", {z}"));
                    }
                    let (d, regs) = results(k, "f32");
                    k.op(format!("tex.{geom}.v4.f32.f32 {d}, [{t}, {c}]{extra}"));
                    for r in &regs {
                        k.st("f32", r);
                    }
                });
            }
        }
        for comp in ["r", "g", "b", "a"] {
            for (geom, n) in [("2d", 2), ("a2d", 4)] {
                for rty in ["f32", "s32", "u32"] {
                    b.case(|k| {
                        let t = texture(k, bindless);
                        let c = coords(k, geom, n, "f32");
                        let (d, regs) = results(k, rty);
                        k.op(format!("tld4.{comp}.{geom}.v4.{rty}.f32 {d}, [{t}, {c}]"));
                        for r in &regs {
                            k.st(rty, r);
                        }
                        let c = coords(k, geom, n, "f32");
                        let (o1, o2) = (k.tld("s32"), k.tld("s32"));
                        let (d, regs) = results(k, rty);
                        k.op(format!(
                            "tld4.{comp}.{geom}.v4.{rty}.f32 {d}, [{t}, {c}], {{{o1}, {o2}}}"
                        ));
                        for r in &regs {
                            k.st(rty, r);
                        }
                    });
                }
            }
        }
        for q in [
            "width",
            "height",
            "depth",
            "channel_data_type",
            "channel_order",
            "normalized_coords",
            "array_size",
            "num_mipmap_levels",
            "num_samples",
        ] {
            b.case(|k| {
                let t = texture(k, bindless);
                let d = k.reg("b32");
                k.op(format!("txq.{q}.b32 {d}, [{t}]"));
                k.st("b32", &d);
            });
        }
        b.split();
        surfaces(&mut b, bindless);
        b.split();
    }
    b.finish()
}

fn surfaces(b: &mut Batch, bindless: bool) {
    let surf = |k: &mut Kernel| -> String {
        if bindless {
            k.par("u64")
        } else {
            k.global(".global .surfref surf0;");
            "surf0".into()
        }
    };
    let geoms: [(&str, usize); 5] = [("1d", 1), ("2d", 2), ("3d", 4), ("a1d", 2), ("a2d", 4)];
    for (geom, n) in geoms {
        for (ld_cop, st_cop) in [
            (".ca", ".wb"),
            (".cg", ".cg"),
            (".cs", ".cs"),
            (".cv", ".wt"),
        ] {
            b.case(|k| {
                let s = surf(k);
                let c = coords(k, geom, n, "s32");
                let d = k.reg("b32");
                k.op(format!(
                    "suld.b.{geom}{ld_cop}.b32.trap {{{d}}}, [{s}, {c}]"
                ));
                k.st("b32", &d);
                let x = k.tld("b32");
                let c2 = coords(k, geom, n, "s32");
                k.op(format!(
                    "sust.b.{geom}{st_cop}.b32.trap [{s}, {c2}], {{{x}}}"
                ));
            });
        }
        for (v, ty) in [
            ("", "b8"),
            ("", "b16"),
            ("", "b32"),
            ("", "b64"),
            (".v2", "b32"),
            (".v4", "b32"),
            (".v2", "b64"),
            (".v4", "b16"),
        ] {
            for clamp in [".trap", ".clamp", ".zero"] {
                if clamp != ".trap" && !(v.is_empty() && ty == "b32") {
                    continue;
                }
                let m = match v {
                    ".v2" => 2,
                    ".v4" => 4,
                    _ => 1,
                };
                let hty = match ty {
                    "b8" => "b32",
                    t => t,
                };
                b.case(|k| {
                    let s = surf(k);
                    let c = coords(k, geom, n, "s32");
                    let regs: Vec<String> = (0..m).map(|_| k.reg(hty)).collect();
                    let d = if m == 1 {
                        regs[0].clone()
                    } else {
                        format!("{{{}}}", regs.join(", "))
                    };
                    k.op(format!("suld.b.{geom}{v}.{ty}{clamp} {d}, [{s}, {c}]"));
                    for r in &regs {
                        k.st(hty, r);
                    }
                    let vals: Vec<String> = (0..m).map(|_| k.tld(hty)).collect();
                    let x = if m == 1 {
                        vals[0].clone()
                    } else {
                        format!("{{{}}}", vals.join(", "))
                    };
                    let c2 = coords(k, geom, n, "s32");
                    k.op(format!("sust.b.{geom}{v}.{ty}{clamp} [{s}, {c2}], {x}"));
                });
            }
        }
        // Formatted stores: ptxas takes only .b32 data for sust.p.
        b.case(|k| {
            let s = surf(k);
            let c = coords(k, geom, n, "s32");
            let vals: Vec<String> = (0..4).map(|_| k.tld("b32")).collect();
            k.op(format!(
                "sust.p.{geom}.v4.b32.trap [{s}, {c}], {{{}}}",
                vals.join(", ")
            ));
        });
        for (op, ty) in [
            ("add", "u32"),
            ("min", "s32"),
            ("max", "u32"),
            ("and", "b32"),
            ("or", "b32"),
            ("add", "u64"),
        ] {
            // ptxas refuses sured on array geometries.
            if geom.starts_with('a') {
                continue;
            }
            b.case(|k| {
                let s = surf(k);
                let c = coords(k, geom, n, "s32");
                let x = k.tld(ty);
                k.op(format!("sured.b.{op}.{geom}.{ty}.trap [{s}, {c}], {x}"));
            });
        }
    }
    // suq is left out: ptxas 11.8 crashes (SIGSEGV) on it for sm_35.
}
