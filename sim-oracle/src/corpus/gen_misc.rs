//! Miscellaneous samples: special registers, warp shuffles, votes and activemask,
//! barriers
//! (sync, arrive, reductions), memory barriers, performance-monitor events, the
//! video instructions (scalar vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset with
//! byte and half selectors, and the SIMD vadd2/vadd4 family), and immediates moved
//! into registers.

use super::ptx::{Batch, Kernel};

/// Special registers read with `mov`, with the type PTX gives them.
const SREGS: &[(&str, &str)] = &[
    ("%tid.x", "u32"),
    ("%tid.y", "u32"),
    ("%tid.z", "u32"),
    ("%ntid.x", "u32"),
    ("%ntid.y", "u32"),
    ("%ntid.z", "u32"),
    ("%ctaid.x", "u32"),
    ("%ctaid.y", "u32"),
    ("%ctaid.z", "u32"),
    ("%nctaid.x", "u32"),
    ("%nctaid.y", "u32"),
    ("%nctaid.z", "u32"),
    ("%laneid", "u32"),
    ("%warpid", "u32"),
    ("%nwarpid", "u32"),
    ("%smid", "u32"),
    ("%nsmid", "u32"),
    ("%gridid", "u64"),
    ("%clock", "u32"),
    ("%clock_hi", "u32"),
    ("%clock64", "u64"),
    ("%lanemask_eq", "u32"),
    ("%lanemask_lt", "u32"),
    ("%lanemask_le", "u32"),
    ("%lanemask_gt", "u32"),
    ("%lanemask_ge", "u32"),
    ("%pm0", "u32"),
    ("%pm1", "u32"),
    ("%pm2", "u32"),
    ("%pm3", "u32"),
    ("%pm4", "u32"),
    ("%pm5", "u32"),
    ("%pm6", "u32"),
    ("%pm7", "u32"),
    ("%globaltimer", "u64"),
    ("%globaltimer_lo", "u32"),
    ("%globaltimer_hi", "u32"),
    ("%envreg0", "b32"),
    ("%envreg1", "b32"),
    ("%envreg31", "b32"),
    ("%total_smem_size", "u32"),
    ("%dynamic_smem_size", "u32"),
];

/// The miscellaneous kernels.
pub fn kernels() -> Vec<Kernel> {
    let mut b = Batch::new("misc", 80);
    for (sreg, ty) in SREGS {
        b.case(|k| {
            let d = k.reg(ty);
            k.op(format!("mov.{ty} {d}, {sreg}"));
            k.st(ty, &d);
        });
    }
    b.split();
    shuffles(&mut b);
    b.split();
    votes(&mut b);
    b.split();
    barriers(&mut b);
    b.split();
    video(&mut b);
    b.split();
    // Immediates of every size into registers.
    for (ty, v) in [
        ("u32", "0"),
        ("u32", "1"),
        ("u32", "0xfffff"),
        ("u32", "0x100000"),
        ("u32", "0xffffffff"),
        ("f32", "0f3F800000"),
        ("f32", "0f3F8CCCCD"),
        ("u64", "0x123456789"),
        ("f64", "0d3FF0000000000000"),
        ("f64", "0d400921FB54442D18"),
        ("u16", "0x1234"),
        ("b64", "0"),
    ] {
        b.case(|k| {
            let d = k.reg(ty);
            k.op(format!("mov.{ty} {d}, {v}"));
            k.st(ty, &d);
        });
    }
    b.finish()
}

fn shuffles(b: &mut Batch) {
    for mode in ["up", "down", "bfly", "idx"] {
        for sync in [false, true] {
            for (bk, ck) in [
                ('r', 'r'),
                ('r', 'i'),
                ('i', 'r'),
                ('i', 'i'),
                ('c', 'c'),
                ('c', 'i'),
            ] {
                for with_p in [false, true] {
                    b.case(|k| {
                        let a = k.tld("b32");
                        let lane = match bk {
                            'r' => k.tld("b32"),
                            'c' => k.par("b32"),
                            _ => "3".into(),
                        };
                        let c = match ck {
                            'r' => k.tld("b32"),
                            'c' => k.par("b32"),
                            _ => (if mode == "up" { "0" } else { "0x1f" }).into(),
                        };
                        let d = k.reg("b32");
                        let dst = if with_p {
                            let p = k.reg("pred");
                            let t = format!("{d}|{p}");
                            k.op(format!(
                                "shfl{}.{mode}.b32 {t}, {a}, {lane}, {c}{}",
                                if sync { ".sync" } else { "" },
                                if sync { ", -1" } else { "" }
                            ));
                            k.st("pred", &p);
                            d.clone()
                        } else {
                            k.op(format!(
                                "shfl{}.{mode}.b32 {d}, {a}, {lane}, {c}{}",
                                if sync { ".sync" } else { "" },
                                if sync { ", -1" } else { "" }
                            ));
                            d.clone()
                        };
                        k.st("b32", &dst);
                    });
                }
            }
        }
    }
}

fn votes(b: &mut Batch) {
    for mode in ["all", "any", "uni"] {
        for neg in ["", "!"] {
            for sync in [false, true] {
                b.case(|k| {
                    let x = k.tld("u32");
                    let (p, d) = (k.reg("pred"), k.reg("pred"));
                    k.op(format!("setp.ne.u32 {p}, {x}, 0"));
                    if sync {
                        k.op(format!("vote.sync.{mode}.pred {d}, {neg}{p}, -1"));
                    } else {
                        k.op(format!("vote.{mode}.pred {d}, {neg}{p}"));
                    }
                    k.st("pred", &d);
                });
            }
        }
    }
    b.case(|k| {
        let x = k.tld("u32");
        let p = k.reg("pred");
        k.op(format!("setp.ne.u32 {p}, {x}, 0"));
        let d = k.reg("b32");
        k.op(format!("@{p} activemask.b32 {d}"));
        k.st("b32", &d);
    });
    for neg in ["", "!"] {
        for sync in [false, true] {
            b.case(|k| {
                let x = k.tld("u32");
                let p = k.reg("pred");
                let d = k.reg("b32");
                k.op(format!("setp.ne.u32 {p}, {x}, 0"));
                if sync {
                    k.op(format!("vote.sync.ballot.b32 {d}, {neg}{p}, -1"));
                } else {
                    k.op(format!("vote.ballot.b32 {d}, {neg}{p}"));
                }
                k.st("b32", &d);
            });
        }
    }
}

fn barriers(b: &mut Batch) {
    b.case(|k| {
        let x = k.tld("u32");
        k.st("u32", &x);
        k.op("bar.sync 0");
        k.op("bar.sync 1, 64");
        k.op("barrier.sync 2");
        k.op("bar.arrive 3, 64");
        k.op("barrier.arrive 4, 128");
        k.op("bar.sync 5, 96");
        let (i, n) = (k.par("u32"), k.par("u32"));
        k.op(format!("bar.sync {i}"));
        k.op(format!("bar.sync {i}, {n}"));
        k.op(format!("bar.arrive {i}, {n}"));
        k.op(format!("bar.sync 6, {n}"));
        k.op(format!("bar.arrive 7, {n}"));
        let j = k.tld("u32");
        k.op(format!("bar.sync {j}, 64"));
        k.op("bar.warp.sync -1");
        let y = k.tld("u32");
        k.st("u32", &y);
    });
    for red in ["popc.u32", "and.pred", "or.pred"] {
        for neg in ["", "!"] {
            for (bar, cnt) in [("0", ""), ("1", ", 64"), ("c", ""), ("c", ", c")] {
                b.case(|k| {
                    let x = k.tld("u32");
                    let p = k.reg("pred");
                    k.op(format!("setp.ne.u32 {p}, {x}, 0"));
                    let bar = if bar == "c" {
                        k.par("u32")
                    } else {
                        bar.to_string()
                    };
                    let cnt = if cnt == ", c" {
                        format!(", {}", k.par("u32"))
                    } else {
                        cnt.to_string()
                    };
                    if red.starts_with("popc") {
                        let d = k.reg("u32");
                        k.op(format!("bar.red.{red} {d}, {bar}{cnt}, {neg}{p}"));
                        k.st("u32", &d);
                    } else {
                        let d = k.reg("pred");
                        k.op(format!("bar.red.{red} {d}, {bar}{cnt}, {neg}{p}"));
                        k.st("pred", &d);
                    }
                });
            }
        }
    }
    b.case(|k| {
        for m in ["membar.cta", "membar.gl", "membar.sys"] {
            let x = k.tld("u32");
            k.st("u32", &x);
            k.op(m);
        }
        k.op("pmevent 1");
        k.op("pmevent 7");
        k.op("pmevent.mask 0x3");
        let x = k.tld("u32");
        k.st("u32", &x);
    });
}

/// Scalar and SIMD video instructions.
fn video(b: &mut Batch) {
    let sels = ["", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] {
        for (dt, at, bt) in [
            ("u32", "u32", "u32"),
            ("s32", "s32", "s32"),
            ("u32", "s32", "u32"),
            ("s32", "u32", "s32"),
        ] {
            for sat in ["", ".sat"] {
                for (asel, bsel) in [
                    ("", ""),
                    (sels[1], sels[2]),
                    (sels[3], sels[4]),
                    (sels[5], sels[6]),
                    (sels[6], ""),
                ] {
                    b.case(|k| {
                        let a = k.tld("b32");
                        let x = k.tld("b32");
                        let d = k.reg("b32");
                        k.op(format!(
                            "{op}.{dt}.{at}.{bt}{sat} {d}, {a}{asel}, {x}{bsel}"
                        ));
                        k.st("b32", &d);
                    });
                }
                for sec in ["add", "min", "max"] {
                    b.case(|k| {
                        let a = k.tld("b32");
                        let x = k.tld("b32");
                        let c = k.tld("b32");
                        let d = k.reg("b32");
                        k.op(format!(
                            "{op}.{dt}.{at}.{bt}{sat}.{sec} {d}, {a}.b0, {x}.b2, {c}"
                        ));
                        k.st("b32", &d);
                    });
                }
            }
        }
    }
    for op in ["vshl", "vshr"] {
        for (dt, at) in [("u32", "u32"), ("s32", "s32"), ("u32", "s32")] {
            for mode in [".clamp", ".wrap"] {
                for sel in ["", ".b1", ".h1"] {
                    b.case(|k| {
                        let a = k.tld("b32");
                        let x = k.tld("b32");
                        let d = k.reg("b32");
                        k.op(format!("{op}.{dt}.{at}.u32{mode} {d}, {a}{sel}, {x}"));
                        k.st("b32", &d);
                    });
                }
            }
        }
    }
    for (dt, at, bt) in [
        ("u32", "u32", "u32"),
        ("s32", "s32", "s32"),
        ("s32", "u32", "s32"),
    ] {
        for (sat, scale) in [("", ""), (".sat", ""), ("", ".shr7"), ("", ".shr15")] {
            for (sa, sb) in [("", ""), ("-", ""), ("", "-")] {
                b.case(|k| {
                    let a = k.tld("b32");
                    let x = k.tld("b32");
                    let c = k.tld("b32");
                    let d = k.reg("b32");
                    k.op(format!(
                        "vmad.{dt}.{at}.{bt}{sat}{scale} {d}, {sa}{a}.b1, {sb}{x}.h0, {c}"
                    ));
                    k.st("b32", &d);
                });
            }
        }
    }
    for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
        for (at, bt) in [("u32", "u32"), ("s32", "s32")] {
            b.case(|k| {
                let a = k.tld("b32");
                let x = k.tld("b32");
                let c = k.tld("b32");
                let (d, e) = (k.reg("b32"), k.reg("b32"));
                k.op(format!("vset.{at}.{bt}.{cmp} {d}, {a}.b2, {x}.b1"));
                k.op(format!("vset.{at}.{bt}.{cmp}.add {e}, {a}, {x}.h1, {c}"));
                k.st("b32", &d);
                k.st("b32", &e);
            });
        }
    }
    // SIMD video (packed halves and bytes).
    for op in [
        "vadd2",
        "vsub2",
        "vavrg2",
        "vabsdiff2",
        "vmin2",
        "vmax2",
        "vadd4",
        "vsub4",
        "vavrg4",
        "vabsdiff4",
        "vmin4",
        "vmax4",
    ] {
        for (dt, at, bt) in [("u32", "u32", "u32"), ("s32", "s32", "s32")] {
            for tail in ["", ".sat", ".add"] {
                if tail == ".sat"
                    && (op.starts_with("vabsdiff")
                        || op.starts_with("vmin")
                        || op.starts_with("vmax"))
                {
                    continue;
                }
                b.case(|k| {
                    let a = k.tld("b32");
                    let x = k.tld("b32");
                    let c = k.tld("b32");
                    let d = k.reg("b32");
                    k.op(format!("{op}.{dt}.{at}.{bt}{tail} {d}, {a}, {x}, {c}"));
                    k.st("b32", &d);
                });
            }
        }
    }
    for op in ["vset2", "vset4"] {
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
            b.case(|k| {
                let a = k.tld("b32");
                let x = k.tld("b32");
                let c = k.tld("b32");
                let (d, e) = (k.reg("b32"), k.reg("b32"));
                k.op(format!("{op}.u32.u32.{cmp} {d}, {a}, {x}, {c}"));
                k.op(format!("{op}.s32.s32.{cmp}.add {e}, {a}, {x}, {c}"));
                k.st("b32", &d);
                k.st("b32", &e);
            });
        }
    }
}
