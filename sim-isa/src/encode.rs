//! Parsing instruction text and encoding it, with the same generated table the
//! decoder reads.
//!
//! A text is matched against the templates of the forms with its base mnemonic:
//! each literal piece must appear as it is, each hole is one of its group's
//! decorations (`pre`, `post`) around a value that [`render::parse`] reads back.
//! The word is the form's fixed bits with every group's decoration and value
//! scattered in; bits nvdisasm ignores stay as the form's canonical word has them
//! (zero). A match counts only if the word decodes and prints to the very text
//! that was parsed, so an encoding is never one the decoder would read otherwise.
//!
//! Where several words print the same text (bits nvdisasm ignores, two
//! decorations or two forms that print alike), the encoder gives the one ptxas
//! writes, as far as the crack saw: forms by how many of its seed words (most of
//! them ptxas's) they hold, ignored bits and decorations as the form's `fill`
//! has them. That is the *canonical* word; [`canonical`] maps any word to it.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::decode::{decode, index_order};
use crate::render;
use crate::sm35_table::FORMS;
use crate::table::{gather, scatter, Fmt, Form, Piece};

/// Why a text does not encode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// No sm_35 instruction has this base mnemonic.
    #[error("unknown instruction `{mnemonic}` in `{text}`{hint}")]
    UnknownMnemonic {
        mnemonic: String,
        text: String,
        /// The known mnemonic it is likely a slip for: ` (FFMA?)`, or empty.
        hint: String,
    },
    /// The mnemonic is known, but no form of it prints this text.
    #[error("`{text}`: no encoding of {mnemonic} prints this text (check modifiers and operands)")]
    NoForm { mnemonic: String, text: String },
}

/// Forms by base mnemonic: those ptxas uses most first, then in the decoder's
/// order (most specific first).
fn by_mnemonic() -> &'static HashMap<&'static str, Vec<usize>> {
    static MAP: OnceLock<HashMap<&'static str, Vec<usize>>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for i in index_order() {
            m.entry(FORMS[i].mnemonic).or_default().push(i);
        }
        for v in m.values_mut() {
            // Stable: equal counts keep the decoder's order.
            v.sort_by_key(|&i| std::cmp::Reverse(FORMS[i].seen));
        }
        m
    })
}

/// Writes text the way nvdisasm prints it: one space between tokens where it
/// has blanks, none before `,` and `;` (but after `INF` and `NAN`, where
/// nvdisasm puts one: `+INF , PT`), and the closing `;`.
pub fn normalize(text: &str) -> String {
    let spaced = text.replace(',', " , ").replace(';', " ; ");
    let mut out = String::with_capacity(text.len() + 1);
    let mut prev = "";
    for tok in spaced.split_whitespace() {
        if tok == ";" {
            continue;
        }
        if !out.is_empty() && (!tok.starts_with(',') || spaced_float(prev)) {
            out.push(' ');
        }
        out.push_str(tok);
        prev = tok;
    }
    if spaced_float(prev) {
        out.push(' ');
    }
    out.push(';');
    out
}

/// The float immediates nvdisasm prints with a blank after them: `+INF `,
/// `-QNAN `, `SNAN `, `-0.0 `.
fn spaced_float(tok: &str) -> bool {
    tok == "-0.0" || matches!(tok.trim_start_matches(['+', '-']), "INF" | "QNAN" | "SNAN")
}

/// Whether the blank at byte `i` of `v` can be inside a value: the one in a
/// spaced constant bank (`c[0x0] [0x154]`), the one after `+INF` (or `-QNAN`,
/// `-0.0`), and the one before an indirect branch's offset (`BRX R2 -0x1e8`).
fn blank_in_value(v: &str, i: usize) -> bool {
    let (before, after) = (&v[..i], &v[i + 1..]);
    (before.ends_with(']') && after.starts_with('['))
        || spaced_float(before.rsplit([' ', ',']).next().unwrap_or(""))
        || after.starts_with("0x")
        || after.starts_with("-0x")
}

/// The base mnemonic of an instruction text: `FFMA` of `@!P0 FFMA.FTZ R0, ...`.
pub fn base_mnemonic(text: &str) -> &str {
    let t = text.trim_start();
    let t = match t.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map_or("", |(_, r)| r.trim_start()),
        None => t,
    };
    let end = t.find(['.', ' ', ';']).unwrap_or(t.len());
    &t[..end]
}

/// Letters added, dropped or changed to make `a` into `b` (the Levenshtein
/// distance): how far a slip is from the name it was meant to be.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

/// The sm_35 mnemonic `m` is likely a slip for: the same in upper case, or
/// the one nearest by edits (at most two, and fewer than `m` has letters).
fn nearest_mnemonic(m: &str) -> Option<&'static str> {
    let upper = m.to_ascii_uppercase();
    let known = by_mnemonic();
    if let Some((k, _)) = known.get_key_value(upper.as_str()) {
        return Some(k);
    }
    if upper.len() > 16 {
        // Longer than any mnemonic by far: no slip.
        return None;
    }
    let mut names: Vec<&'static str> = known.keys().copied().collect();
    names.sort_unstable();
    names
        .into_iter()
        .map(|k| (edit_distance(&upper, k), k))
        .filter(|&(d, _)| d <= 2 && d < upper.len())
        .min()
        .map(|(_, k)| k)
}

/// Text as an error quotes it: its first `n` characters, and `...` for the
/// rest of a longer one.
pub fn clip(t: &str, n: usize) -> String {
    match t.char_indices().nth(n) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t.to_string(),
    }
}

/// Encodes one instruction text (as nvdisasm prints it; blanks are normalized)
/// at byte address `addr`, which matters only to branch targets.
pub fn assemble(text: &str, addr: u64) -> Result<u64, EncodeError> {
    let text = normalize(text);
    let mnemonic = base_mnemonic(&text).to_string();
    let Some(forms) = by_mnemonic().get(mnemonic.as_str()) else {
        let hint = nearest_mnemonic(&mnemonic).map_or(String::new(), |m| format!(" ({m}?)"));
        return Err(EncodeError::UnknownMnemonic {
            mnemonic: clip(&mnemonic, 100),
            text: clip(&text, 100),
            hint,
        });
    };
    for &i in forms {
        let form = &FORMS[i];
        let mut found = None;
        let mut m = Matcher {
            form,
            text: &text,
            addr,
            found: &mut found,
        };
        m.piece(0, 0, form.bits | (form.fill & form.ignored));
        if let Some(w) = found {
            return Ok(w);
        }
    }
    Err(EncodeError::NoForm {
        mnemonic,
        text: clip(&text, 100),
    })
}

/// The word the encoder gives for the text `word` prints as (at address 0):
/// `word` itself unless it sets bits nvdisasm ignores or picks one of several
/// decorations that print alike.
pub fn canonical(word: u64) -> Result<u64, crate::decode::DecodeError> {
    let inst = decode(word)?;
    let text = inst.text(0);
    // A text the decoder printed always encodes; fall back to the word if not.
    Ok(assemble(&text, 0).unwrap_or(word))
}

struct Matcher<'a> {
    form: &'static Form,
    text: &'a str,
    addr: u64,
    found: &'a mut Option<u64>,
}

impl Matcher<'_> {
    /// Matches template pieces from `k` on against the text from byte `pos`,
    /// with `word` holding the groups set so far. Stops at the first word that
    /// decodes back to the text.
    fn piece(&mut self, k: usize, pos: usize, word: u64) -> bool {
        let rest = &self.text[pos..];
        let Some(p) = self.form.template.get(k) else {
            if !rest.is_empty() {
                return false;
            }
            return self.check(word);
        };
        match *p {
            Piece::Lit(s) => rest.starts_with(s) && self.piece(k + 1, pos + s.len(), word),
            Piece::Again(g) => {
                // The group was set at its first print: its second must follow.
                let g = &self.form.groups[g as usize];
                let (deco, val) = g.split(word);
                let Some((pre, post)) = g.decoration(deco, true) else {
                    return false;
                };
                let mut s = String::from(pre);
                render::render(&mut s, g.fmt, val, g.value_bits.len() as u32, self.addr);
                s.push_str(post);
                rest.starts_with(&s) && self.piece(k + 1, pos + s.len(), word)
            }
            Piece::Hole(g) => {
                let g = &self.form.groups[g as usize];
                let width = g.value_bits.len() as u32;
                // The decoration ptxas writes first, then the others in order.
                let preferred = gather(self.form.fill, g.deco_bits) as usize;
                let order = std::iter::once(preferred)
                    .chain((0..g.table.len()).filter(|&d| d != preferred));
                for deco in order {
                    let Some((pre, post)) = g.decoration(deco as u64, false) else {
                        continue;
                    };
                    if !rest.starts_with(pre) {
                        continue;
                    }
                    let w = scatter(word, g.deco_bits, deco as u64);
                    let vstart = pos + pre.len();
                    if g.value_bits.is_empty() {
                        if self.text[vstart..].starts_with(post)
                            && self.piece(k + 1, vstart + post.len(), w)
                        {
                            return true;
                        }
                        continue;
                    }
                    // The value: try every end that leaves `post` next. Values
                    // hold no `,` or `;`, and only the blanks `blank_in_value`
                    // allows.
                    let vtext = &self.text[vstart..];
                    // An optional operand starts with its own separator.
                    let own = match g.fmt {
                        Fmt::OptHex { comma: true } if vtext.starts_with(", ") => 2,
                        _ => 0,
                    };
                    let stop = vtext
                        .char_indices()
                        .skip(own)
                        .find(|&(i, c)| {
                            c == ',' || c == ';' || (c == ' ' && !blank_in_value(vtext, i))
                        })
                        .map_or(vtext.len(), |(i, _)| i);
                    // An optional operand may be empty (`Fmt::OptHex`).
                    for end in (0..=stop).rev() {
                        if !vtext.is_char_boundary(end) || !vtext[end..].starts_with(post) {
                            continue;
                        }
                        let Some(v) = render::parse(g.fmt, &vtext[..end], width, self.addr) else {
                            continue;
                        };
                        let w = scatter(w, g.value_bits, v);
                        if self.piece(k + 1, vstart + end + post.len(), w) {
                            return true;
                        }
                    }
                }
                false
            }
        }
    }

    /// Accepts `word` if it decodes and prints as the text.
    fn check(&mut self, word: u64) -> bool {
        match decode(word) {
            Ok(inst) if inst.text(self.addr) == self.text => {
                *self.found = Some(word);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unknown_mnemonic_names_its_likely_intent() {
        let hint = |t: &str| match super::assemble(t, 8) {
            Err(super::EncodeError::UnknownMnemonic { hint, .. }) => hint,
            other => panic!("{t}: {other:?}"),
        };
        assert_eq!(hint("ffma R1, R2, R3, R4;"), " (FFMA?)");
        assert_eq!(hint("FFAM R1, R2, R3, R4;"), " (FFMA?)");
        assert_eq!(hint("LDS64 R2, [R1];"), " (LDS?)");
        assert_eq!(hint("XYZZY R1;"), "");
    }

    use super::*;

    #[test]
    fn edit_distance_counts_letters_added_dropped_or_changed() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("FFMA", "FFMA"), 0);
        assert_eq!(edit_distance("FMA", "FFMA"), 1);
    }
    use crate::decode::disassemble;

    #[test]
    fn recorded_words_encode_from_their_text() {
        for (w, addr, text) in crate::decode::tests::RECORDED {
            assert_eq!(assemble(text, addr), Ok(w), "{text}");
        }
    }

    #[test]
    fn optional_operands_and_fields_printed_twice_encode() {
        for text in [
            "IMAD32I.U32.U32 R8.CC, R4, 0x160, -R8;",
            "IMAD32I.U32.U32 R8, R4, 0x160, R8;",
            "BPT.TRAP 0x1;",
            "BPT.TRAP;",
            "NOP.TRIG 0x2;",
            "BAR.SYNC 0x0, 0x1;",
            "BAR.SYNC 0x0;",
        ] {
            let w = assemble(text, 0).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(disassemble(w, 0).as_deref(), Ok(text));
        }
        // The destination and the addend are one field: they cannot differ.
        assert!(assemble("IMAD32I.U32.U32 R8, R4, 0x160, R9;", 0).is_err());
    }

    #[test]
    fn blanks_are_normalized() {
        assert_eq!(normalize("  @P0   EXIT "), "@P0 EXIT;");
        assert_eq!(normalize("FMUL R9, R0, +INF"), "FMUL R9, R0, +INF ;");
        assert_eq!(normalize("F2I.U8.F64 R16, -0.0;"), "F2I.U8.F64 R16, -0.0 ;");
        for text in [
            "FADD32I.FTZ R20.CC, R0, -QNAN .NEG;",
            "F2I.U8.F64 R16, -0.0 ;",
            "DSET.LEU.XOR R7, -|R9|, -QNAN .NEG, P0;",
        ] {
            let w = assemble(text, 0).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(disassemble(w, 0).as_deref(), Ok(text));
        }
        assert_eq!(
            normalize("FSETP.GTU.AND P0, PT, |R0|, -QNAN, PT;"),
            "FSETP.GTU.AND P0, PT, |R0|, -QNAN , PT;"
        );
        assert_eq!(
            normalize("MOV R1 , c[0x0][0x44] ;"),
            "MOV R1, c[0x0][0x44];"
        );
        assert_eq!(
            assemble("FFMA  R4,R0, c[0x0][0x148],  R0", 0),
            assemble("FFMA R4, R0, c[0x0][0x148], R0;", 0)
        );
    }

    #[test]
    fn bad_text_is_an_error_that_names_it() {
        let e = assemble("FROB R0, R1;", 0).unwrap_err();
        assert!(e.to_string().contains("FROB"), "{e}");
        let e = assemble("FFMA R0, R1;", 0).unwrap_err();
        assert!(matches!(e, EncodeError::NoForm { .. }), "{e}");
        let e = assemble("MOV R255, R1;", 0).unwrap_err();
        assert!(matches!(e, EncodeError::NoForm { .. }), "{e}");
        // A runaway text is quoted to its first 100 characters.
        for text in [
            format!("FFMA R1, R2, R3, {};", "R4".repeat(50_000)),
            format!("{} R1;", "X".repeat(100_000)),
        ] {
            let e = assemble(&text, 0).unwrap_err().to_string();
            assert!(
                e.len() < 300 && e.contains(&text[..100]) && e.contains("..."),
                "{e}"
            );
        }
    }

    #[test]
    fn the_canonical_word_prints_the_same_text() {
        for w in [0x64c0_3c00_089c_0006u64, 0x4c00_0000_291c_0012] {
            let c = canonical(w).unwrap();
            assert_eq!(disassemble(c, 0), disassemble(w, 0));
        }
    }
}
