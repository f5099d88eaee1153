//! The SASS listing of a cubin, line for line as `cuobjdump -sass` prints it:
//! per kernel a header, then every 64-byte group as its control word on a line
//! of its own and seven instructions with address, text and encoding.

use std::fmt::Write;

use crate::control::{Control, FieldText};
use crate::cubin::Cubin;
use crate::decode::{decode, DecodeError};

/// Column at which the instruction text starts (a guard sits just left of it).
const TEXT_COLUMN: usize = 35;

/// A word that cannot be listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("kernel {kernel}, address {addr:#06x}: {source}")]
pub struct ListingError {
    pub kernel: String,
    pub addr: u64,
    #[source]
    pub source: DecodeError,
}

/// Options of the listing.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListingOptions {
    /// After each control word, its seven fields in the `T:G:D:S:NN` notation.
    pub control_fields: bool,
    /// After each kernel's header, the assembler directives that give back its
    /// `.nv.info` (`.registers`, `.param`, `.shared`, ...), so that `keplersim asm`
    /// rebuilds the same kernel, not only the same code.
    pub directives: bool,
}

/// The `cuobjdump -sass` text of every kernel of `cubin`.
pub fn listing(cubin: &Cubin, opts: ListingOptions) -> Result<String, ListingError> {
    let mut out = String::from("\n\tcode for sm_35\n");
    // cuobjdump lists every code section (kernels, and device functions of a
    // relocatable cubin) in section order.
    let mut code: Vec<(usize, &str, &[u64])> = cubin
        .kernels
        .iter()
        .map(|k| (k.text_section, k.name.as_str(), &k.code[..]))
        .collect();
    code.extend(
        cubin
            .functions
            .iter()
            .map(|f| (f.text_section, f.name.as_str(), &f.code[..])),
    );
    code.sort_by_key(|c| c.0);
    for (_, name, words) in code {
        function_listing(&mut out, cubin, name, words, opts)?;
    }
    Ok(out)
}

fn function_listing(
    out: &mut String,
    cubin: &Cubin,
    name: &str,
    code: &[u64],
    opts: ListingOptions,
) -> Result<(), ListingError> {
    let _ = writeln!(out, "\t\tFunction : {name}");
    let _ = writeln!(
        out,
        "\t.headerflags    @\"EF_CUDA_SM{} EF_CUDA_PTX_SM(EF_CUDA_SM{})\"",
        cubin.flags.sm(),
        cubin.flags.virtual_sm()
    );
    if opts.directives {
        if let Some(k) = cubin.kernels.iter().find(|k| k.name == name) {
            let spec = k.to_spec();
            let _ = writeln!(out, "\t.registers {}", spec.registers);
            for p in &spec.params {
                let _ = writeln!(out, "\t.param {} @{:#x}", p.size, p.offset);
            }
            if spec.shared_size > 0 {
                let _ = writeln!(out, "\t.shared {}", spec.shared_size);
            }
            for (d, v) in [(".maxntid", spec.max_threads), (".reqntid", spec.req_ntid)] {
                if let Some([x, y, z]) = v {
                    let _ = writeln!(out, "\t{d} {x} {y} {z}");
                }
            }
            if spec.frame_size > 0 {
                let _ = writeln!(out, "\t.frame {}", spec.frame_size);
            }
            let _ = writeln!(out, "\t.barriers {}", spec.barriers);
        }
    }
    // Decode first: the encoding column depends on the longest text.
    let mut lines: Vec<Line> = Vec::with_capacity(code.len());
    for (i, &w) in code.iter().enumerate() {
        let addr = 8 * i as u64;
        // A word without the control word's fixed bits in a control slot is an
        // instruction: ptxas can end a kernel with its `BRA` self-loop there,
        // and cuobjdump prints it as one.
        if i % 8 == 0 && (Control::decode(w).is_ok() || decode(w).is_err()) {
            lines.push(Line::Control(w));
            continue;
        }
        let ins = decode(w).map_err(|e| ListingError {
            kernel: name.to_string(),
            addr,
            source: e,
        })?;
        let text = ins.text(addr);
        let (guard, body) = split_guard(&text);
        lines.push(Line::Ins {
            addr,
            word: w,
            guard: guard.to_string(),
            body: body.to_string(),
        });
    }
    let widest = lines
        .iter()
        .map(|l| {
            if let Line::Ins { body, .. } = l {
                body.len()
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0);
    let enc_col = TEXT_COLUMN + widest + 2;
    for l in &lines {
        match l {
            Line::Control(w) => {
                let _ = write!(out, "{:enc_col$}/* {w:#018x} */", "");
                if opts.control_fields {
                    if let Ok(c) = Control::decode(*w) {
                        let f: Vec<String> =
                            c.0.iter().map(|b| FieldText(*b).to_string()).collect();
                        let _ = write!(out, " [{}]", f.join(" "));
                    }
                }
                out.push('\n');
            }
            Line::Ins {
                addr,
                word,
                guard,
                body,
            } => {
                let head = format!("        /*{addr:04x}*/");
                let pad = TEXT_COLUMN - head.len() - guard.len();
                let _ = writeln!(
                    out,
                    "{head}{:pad$}{guard}{body:<w$}  /* {word:#018x} */",
                    "",
                    w = widest
                );
            }
        }
    }
    out.push_str("\t\t..........\n\n\n");
    Ok(())
}

enum Line {
    Control(u64),
    Ins {
        addr: u64,
        word: u64,
        guard: String,
        body: String,
    },
}

/// Splits `@P0 EXIT;` into `@P0 ` and `EXIT;`.
fn split_guard(text: &str) -> (&str, &str) {
    if text.starts_with('@') {
        if let Some(p) = text.find(' ') {
            return text.split_at(p + 1);
        }
    }
    ("", text)
}
