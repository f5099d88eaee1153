//! A small PTX text builder for the corpus generators: kernels with declared
//! registers, inputs that ptxas cannot constant-fold (values loaded from global
//! memory, uniform or per thread, and kernel parameters, which ptxas turns into
//! constant-bank operands), results stored to global memory so they are live, and
//! packing of kernels into PTX files.

use super::Sample;

/// The PTX file header every sample starts with.
pub const HEADER: &str = ".version 7.8\n.target sm_35\n.address_size 64\n";

/// Register classes: b16, b32, b64, f32, f64, pred.
const CLASSES: [(&str, &str); 6] = [
    ("%h", ".b16"),
    ("%r", ".b32"),
    ("%rd", ".b64"),
    ("%f", ".f32"),
    ("%fd", ".f64"),
    ("%p", ".pred"),
];

/// The register class index of a PTX type.
fn class_of(ty: &str) -> usize {
    match ty {
        "b16" | "u16" | "s16" | "f16" => 0,
        "b8" | "u8" | "s8" | "b32" | "u32" | "s32" => 1,
        "b64" | "u64" | "s64" => 2,
        "f32" => 3,
        "f64" => 4,
        "pred" => 5,
        _ => panic!("no register class for type {ty}"),
    }
}

/// Size in bytes of a PTX scalar type.
pub fn size_of(ty: &str) -> u32 {
    match ty {
        "b8" | "u8" | "s8" => 1,
        "b16" | "u16" | "s16" | "f16" => 2,
        "b64" | "u64" | "s64" | "f64" => 8,
        _ => 4,
    }
}

/// Whether a type is a floating-point type.
pub fn is_float(ty: &str) -> bool {
    ty.starts_with('f')
}

/// One kernel being built (the device functions it calls go in its
/// module-level text).
#[derive(Debug, Clone)]
pub struct Kernel {
    name: String,
    /// Module-level text this kernel needs (variables, texrefs, `.func`s).
    globals: Vec<String>,
    params: Vec<String>,
    decls: Vec<String>,
    body: Vec<String>,
    counts: [u32; 6],
    in_off: u32,
    out_off: u32,
    labels: u32,
    uses_tid: bool,
}

impl Kernel {
    /// A new kernel named `name`.
    pub fn new(name: &str) -> Kernel {
        Kernel {
            name: name.to_string(),
            globals: Vec::new(),
            params: Vec::new(),
            decls: Vec::new(),
            body: Vec::new(),
            counts: [0; 6],
            in_off: 0,
            out_off: 0,
            labels: 0,
            uses_tid: false,
        }
    }

    /// Number of body lines so far.
    pub fn len(&self) -> usize {
        self.body.len()
    }

    /// A fresh register for a value of type `ty`.
    pub fn reg(&mut self, ty: &str) -> String {
        let c = class_of(ty);
        self.counts[c] += 1;
        format!("{}{}", CLASSES[c].0, self.counts[c])
    }

    /// Appends an instruction; the `;` is added.
    pub fn op(&mut self, text: impl AsRef<str>) {
        self.body.push(format!("\t{};", text.as_ref()));
    }

    /// Appends a raw line (labels, nested blocks).
    pub fn line(&mut self, text: impl AsRef<str>) {
        self.body.push(text.as_ref().to_string());
    }

    /// A fresh label name.
    pub fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L_{}_{}", self.name, self.labels)
    }

    /// Places a label.
    pub fn place(&mut self, label: &str) {
        self.body.push(format!("{label}:"));
    }

    /// Adds module-level text (deduplicated per file).
    pub fn global(&mut self, text: impl Into<String>) {
        let t = text.into();
        if !self.globals.contains(&t) {
            self.globals.push(t);
        }
    }

    /// Adds a declaration at the top of the kernel body (`.shared`, `.local`).
    pub fn decl(&mut self, text: impl Into<String>) {
        let t = text.into();
        if !self.decls.contains(&t) {
            self.decls.push(t);
        }
    }

    /// Declares a kernel parameter `.param .<ty> <name>_<n>` and returns its name.
    pub fn param_decl(&mut self, ty: &str) -> String {
        let name = format!("prm{}", self.params.len());
        self.params.push(format!(".param .{ty} {name}"));
        name
    }

    /// Declares a kernel parameter `.param .align 16 .b8 <name>[bytes]`; returns
    /// its name.
    pub fn param_array(&mut self, bytes: u32) -> String {
        let name = format!("prm{}", self.params.len());
        self.params
            .push(format!(".param .align 16 .b8 {name}[{bytes}]"));
        name
    }

    /// A value of type `ty` loaded from a kernel parameter (ptxas usually uses it
    /// straight from the constant bank).
    pub fn par(&mut self, ty: &str) -> String {
        let p = self.param_decl(ty);
        let r = self.reg(ty);
        let lty = if ty == "f16" { "b16" } else { ty };
        self.op(format!("ld.param.{lty} {r}, [{p}]"));
        r
    }

    /// A value of type `ty` loaded from global memory at a warp-uniform address.
    pub fn ld(&mut self, ty: &str) -> String {
        let sz = size_of(ty).max(1);
        self.in_off = self.in_off.div_ceil(sz) * sz;
        let off = self.in_off;
        self.in_off = (self.in_off + sz) % 4096;
        let r = self.reg(ty);
        let lty = if ty == "f16" { "b16" } else { ty };
        self.op(format!("ld.global.{lty} {r}, [%in+{off}]"));
        r
    }

    /// A value of type `ty` loaded from global memory at a per-thread address (so
    /// ptxas cannot treat it as warp-uniform).
    pub fn tld(&mut self, ty: &str) -> String {
        self.uses_tid = true;
        let sz = size_of(ty).max(1);
        self.in_off = self.in_off.div_ceil(sz) * sz;
        let off = self.in_off;
        self.in_off = (self.in_off + sz) % 4096;
        let r = self.reg(ty);
        let lty = if ty == "f16" { "b16" } else { ty };
        self.op(format!("ld.global.{lty} {r}, [%tin+{off}]"));
        r
    }

    /// The thread index `%tid.x` as a b32 register (read once per kernel).
    pub fn tid(&mut self) -> String {
        self.uses_tid = true;
        "%tx".into()
    }

    /// An immediate operand of type `ty`: `big` picks one that does not fit the
    /// short (20-bit) immediate fields.
    pub fn imm(ty: &str, big: bool) -> String {
        match (ty, big) {
            ("f32", false) => "0f3F000000".into(),
            ("f32", true) => "0f3F8CCCCD".into(),
            ("f64", false) => "0d3FE0000000000000".into(),
            ("f64", true) => "0d3FF199999999999A".into(),
            ("f16", _) => "0x3C00".into(),
            (t, false) if t.starts_with('s') => "-3".into(),
            (_, false) => "7".into(),
            (t, true) if size_of(t) == 2 => "4660".into(),
            (t, true) if size_of(t) == 1 => "100".into(),
            (_, true) => "305419896".into(),
        }
    }

    /// An operand of type `ty` by kind: `r` uniform load, `t` per-thread load, `c`
    /// parameter, `i` short immediate, `I` long immediate, `n` negated load, `a`
    /// absolute value of a load, `m` negated absolute value, `z` zero.
    pub fn src(&mut self, kind: char, ty: &str) -> String {
        match kind {
            'r' => self.ld(ty),
            't' => self.tld(ty),
            'c' => self.par(ty),
            'i' => Kernel::imm(ty, false),
            'I' => Kernel::imm(ty, true),
            'z' => match ty {
                "f32" => "0f00000000".into(),
                "f64" => "0d0000000000000000".into(),
                _ => "0".into(),
            },
            'n' | 'a' | 'm' => {
                let x = self.ld(ty);
                let d = self.reg(ty);
                match kind {
                    'n' => self.op(format!("neg.{ty} {d}, {x}")),
                    'a' => self.op(format!("abs.{ty} {d}, {x}")),
                    _ => {
                        let e = self.reg(ty);
                        self.op(format!("abs.{ty} {e}, {x}"));
                        self.op(format!("neg.{ty} {d}, {e}"));
                    }
                }
                d
            }
            _ => panic!("unknown operand kind {kind}"),
        }
    }

    /// Stores a value of type `ty` to the output buffer (keeps it live).
    pub fn st(&mut self, ty: &str, reg: &str) {
        if ty == "pred" {
            let r = self.reg("u32");
            self.op(format!("selp.u32 {r}, 1, 0, {reg}"));
            return self.st("u32", &r);
        }
        let sz = size_of(ty).max(1);
        self.out_off = self.out_off.div_ceil(sz) * sz;
        let off = self.out_off;
        self.out_off = (self.out_off + sz) % 8192;
        let sty = match ty {
            "f16" => "b16",
            "b8" => "u8",
            t => t,
        };
        self.op(format!("st.global.{sty} [%out+{off}], {reg}"));
    }

    /// The finished `.entry` text and its module-level requirements.
    pub fn finish(self) -> (Vec<String>, String) {
        let mut s = String::new();
        let mut params = vec![".param .u64 out".to_string(), ".param .u64 in".to_string()];
        params.extend(self.params.iter().cloned());
        s.push_str(&format!(
            ".visible .entry {}(\n\t{}\n)\n{{\n",
            self.name,
            params.join(",\n\t")
        ));
        for (i, (prefix, ty)) in CLASSES.iter().enumerate() {
            if self.counts[i] > 0 {
                s.push_str(&format!("\t.reg {ty} {prefix}<{}>;\n", self.counts[i] + 1));
            }
        }
        s.push_str("\t.reg .b64 %out, %in, %tin, %tw;\n\t.reg .b32 %tx;\n");
        for d in &self.decls {
            s.push_str(&format!("\t{d}\n"));
        }
        s.push_str("\tld.param.u64 %out, [out];\n\tcvta.to.global.u64 %out, %out;\n");
        s.push_str("\tld.param.u64 %in, [in];\n\tcvta.to.global.u64 %in, %in;\n");
        if self.uses_tid {
            s.push_str(
                "\tmov.u32 %tx, %tid.x;\n\tmul.wide.u32 %tw, %tx, 4;\n\tadd.s64 %tin, %in, %tw;\n",
            );
        }
        for l in &self.body {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str("\tret;\n}\n");
        (self.globals, s)
    }
}

/// Collects kernels for one family, starting a new kernel when the current one
/// is long enough.
pub struct Batch {
    prefix: String,
    limit: usize,
    done: Vec<Kernel>,
    cur: Kernel,
}

impl Batch {
    /// A batch whose kernels are named `<prefix>_<n>` and hold about `limit` lines.
    pub fn new(prefix: &str, limit: usize) -> Batch {
        Batch {
            prefix: prefix.into(),
            limit,
            done: Vec::new(),
            cur: Kernel::new(&format!("{prefix}_0")),
        }
    }

    /// Runs one generator case on the current kernel (after starting a new kernel
    /// if the current one is full).
    pub fn case(&mut self, f: impl FnOnce(&mut Kernel)) {
        if self.cur.len() >= self.limit {
            self.split();
        }
        f(&mut self.cur);
    }

    /// Starts a new kernel unless the current one is empty.
    pub fn split(&mut self) {
        if self.cur.len() == 0 {
            return;
        }
        let n = self.done.len() + 1;
        let next = Kernel::new(&format!("{}_{n}", self.prefix));
        self.done.push(std::mem::replace(&mut self.cur, next));
    }

    /// The finished kernels.
    pub fn finish(mut self) -> Vec<Kernel> {
        self.split();
        self.done
    }
}

/// Lines of kernel body per PTX file, roughly.
const FILE_BUDGET: usize = 3000;

/// Packs kernels into PTX files named `<family>_<nn>`.
pub fn pack(family: &str, kernels: Vec<Kernel>) -> Vec<Sample> {
    let mut files: Vec<Vec<Kernel>> = Vec::new();
    let mut size = usize::MAX;
    for k in kernels {
        if size >= FILE_BUDGET {
            files.push(Vec::new());
            size = 0;
        }
        size += k.len().max(20);
        files.last_mut().expect("a file").push(k);
    }
    files
        .into_iter()
        .enumerate()
        .map(|(i, ks)| {
            let mut globals: Vec<String> = Vec::new();
            let mut bodies = Vec::new();
            for k in ks {
                let (g, b) = k.finish();
                for x in g {
                    if !globals.contains(&x) {
                        globals.push(x);
                    }
                }
                bodies.push(b);
            }
            let mut ptx = String::from(HEADER);
            for g in &globals {
                ptx.push('\n');
                ptx.push_str(g);
                ptx.push('\n');
            }
            for b in bodies {
                ptx.push('\n');
                ptx.push_str(&b);
            }
            Sample {
                name: format!("{family}_{i:02}"),
                ptx,
            }
        })
        .collect()
}
