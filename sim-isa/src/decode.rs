//! Decoding and printing instruction words with the generated table.
//!
//! A word is matched against the forms' fixed bits, most specific mask first (an
//! index built once, on first use), except that the forms the crack split off
//! for a register at `RZ` ([`Form::rz_split`]) come before all others; its text
//! is the form's template with each hole filled by its group. Decoding never panics: a word no form claims, or a group
//! value nvdisasm rejects, is a [`DecodeError`] that says which bits.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::render;
use crate::sm35_table::FORMS;
use crate::table::{gather, scatter, Form, Piece};

/// Why a word does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// No form's fixed bits match. `nearest` is the known form whose fixed bits
    /// differ in fewest places, and those bits.
    #[error(
        "{word:#018x}: no sm_35 instruction has these opcode bits{}",
        nearest_text(nearest)
    )]
    Unknown {
        word: u64,
        nearest: Option<(&'static str, u64)>,
    },
    /// A form matches, but one of its bit groups holds a value that is not valid.
    #[error("{word:#018x}: {mnemonic} with bits {bits} = {value:#x}, which is not a valid value")]
    BadField {
        word: u64,
        mnemonic: &'static str,
        bits: String,
        value: u64,
    },
}

/// One group of an instruction's bits, typed: the text around its value and
/// what the value means. A field with `Value::None` is a run of modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub pre: &'static str,
    pub post: &'static str,
    pub value: render::Value,
}

/// A decoded instruction: its form and the word.
#[derive(Debug, Clone, Copy)]
pub struct Instruction {
    pub form: &'static Form,
    /// Index of the form in [`FORMS`].
    pub form_index: usize,
    pub word: u64,
}

/// Bits of a word that pick its bucket: 63..52 and 1..0, which hold the opcode
/// of nearly every form.
const KEY_BITS: [u8; 14] = [0, 1, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63];

struct Index {
    /// Distinct masks, in the order they are tried (the forms split off for
    /// `RZ` first, then most bits first), each with its forms by fixed-bit
    /// value.
    by_mask: Vec<(u64, HashMap<u64, usize>)>,
    /// For each value of the key bits, the forms that can match, most specific
    /// first: `items[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    items: Vec<u16>,
}

fn key_of(word: u64) -> usize {
    gather(word, &KEY_BITS) as usize
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut m: HashMap<(bool, u64), HashMap<u64, usize>> = HashMap::new();
        for (i, f) in FORMS.iter().enumerate() {
            m.entry((f.rz_split, f.mask))
                .or_default()
                .entry(f.bits)
                .or_insert(i);
        }
        let mut by_mask: Vec<((bool, u64), HashMap<u64, usize>)> = m.into_iter().collect();
        by_mask.sort_by_key(|&((rz_split, mask), _)| {
            (!rz_split, std::cmp::Reverse(mask.count_ones()), mask)
        });
        let by_mask: Vec<(u64, HashMap<u64, usize>)> = by_mask
            .into_iter()
            .map(|((_, mask), f)| (mask, f))
            .collect();
        // Buckets: each form goes to every key value its fixed bits allow, in the
        // order the masks are tried.
        let mut buckets: Vec<Vec<u16>> = vec![Vec::new(); 1 << KEY_BITS.len()];
        for (mask, forms) in &by_mask {
            let kmask = gather(*mask, &KEY_BITS);
            let free: Vec<u8> = (0..KEY_BITS.len() as u8)
                .filter(|b| kmask >> b & 1 == 0)
                .collect();
            let mut sorted: Vec<usize> = forms.values().copied().collect();
            sorted.sort_unstable();
            for i in sorted {
                let kbits = gather(FORMS[i].bits, &KEY_BITS);
                for v in 0..1u64 << free.len() {
                    let k = scatter(kbits, &free, v) as usize;
                    buckets[k].push(i as u16);
                }
            }
        }
        let mut start = Vec::with_capacity(buckets.len() + 1);
        let mut items = Vec::new();
        for b in &buckets {
            start.push(items.len() as u32);
            items.extend_from_slice(b);
        }
        start.push(items.len() as u32);
        Index {
            by_mask,
            start,
            items,
        }
    })
}

/// Indices of all forms in the order the decoder tries them: the forms split
/// off for `RZ`, then most fixed bits first; a form whose fixed bits repeat an
/// earlier one's comes last.
pub fn index_order() -> Vec<usize> {
    let idx = index();
    let mut order: Vec<usize> = Vec::with_capacity(FORMS.len());
    for (_, forms) in &idx.by_mask {
        let mut v: Vec<usize> = forms.values().copied().collect();
        v.sort_unstable();
        order.extend(v);
    }
    let mut seen = vec![false; FORMS.len()];
    for &i in &order {
        seen[i] = true;
    }
    order.extend((0..FORMS.len()).filter(|&i| !seen[i]));
    order
}

/// Decodes one instruction word (not a control word).
pub fn decode(word: u64) -> Result<Instruction, DecodeError> {
    let idx = index();
    let k = key_of(word);
    let candidates = &idx.items[idx.start[k] as usize..idx.start[k + 1] as usize];
    for &i in candidates {
        let i = i as usize;
        let form = &FORMS[i];
        if word & form.mask == form.bits {
            for g in form.groups {
                let deco = gather(word, g.deco_bits);
                if g.decoration(deco, false).is_none() {
                    let bits = g
                        .deco_bits
                        .iter()
                        .map(|b| b.to_string())
                        .collect::<Vec<_>>()
                        .join(",");
                    return Err(DecodeError::BadField {
                        word,
                        mnemonic: form.mnemonic,
                        bits,
                        value: deco,
                    });
                }
            }
            return Ok(Instruction {
                form,
                form_index: i,
                word,
            });
        }
    }
    Err(DecodeError::Unknown {
        word,
        nearest: nearest(word),
    })
}

/// The form whose fixed bits differ from `word`'s in fewest places (first in
/// the decoder's order on a tie), and the differing bits.
fn nearest(word: u64) -> Option<(&'static str, u64)> {
    let idx = index();
    idx.by_mask
        .iter()
        .flat_map(|(_, forms)| forms.values())
        .map(|&i| (&FORMS[i], (word & FORMS[i].mask) ^ FORMS[i].bits))
        .min_by_key(|(f, d)| {
            (
                d.count_ones(),
                std::cmp::Reverse(f.mask.count_ones()),
                f.bits,
            )
        })
        .map(|(f, d)| (f.mnemonic, d))
}

fn nearest_text(nearest: &Option<(&'static str, u64)>) -> String {
    match nearest {
        Some((m, d)) => {
            let bits: Vec<String> = (0..64)
                .rev()
                .filter(|b| d >> b & 1 == 1)
                .map(|b| b.to_string())
                .collect();
            format!(
                " (nearest: {m}, which differs in bit{} {})",
                if bits.len() == 1 { "" } else { "s" },
                bits.join(", ")
            )
        }
        None => String::new(),
    }
}

impl Instruction {
    /// The text nvdisasm prints for this instruction at byte address `addr` (which
    /// matters only to branch targets): `@P0 BRA 0x48;`.
    pub fn text(&self, addr: u64) -> String {
        let mut out = String::with_capacity(48);
        for p in self.form.template {
            match *p {
                Piece::Lit(s) => out.push_str(s),
                Piece::Hole(g) | Piece::Again(g) => {
                    let g = &self.form.groups[g as usize];
                    let (deco, val) = g.split(self.word);
                    // decode() checked every decoration value.
                    let again = matches!(p, Piece::Again(_));
                    if let Some((pre, post)) = g.decoration(deco, again) {
                        out.push_str(pre);
                        render::render(&mut out, g.fmt, val, g.value_bits.len() as u32, addr);
                        out.push_str(post);
                    }
                }
            }
        }
        out
    }

    /// The instruction's fields in text order: for each group of its bits, the
    /// text around the value (modifiers such as `.FTZ`, a guard `@!P0 `, `-`,
    /// `|`) and the value's meaning, for the instruction at byte `addr`. A group
    /// nvdisasm prints twice (`IMAD32I R8.CC, R4, 0x160, -R8`) is a field each
    /// time it prints, with the text around that print.
    pub fn fields(&self, addr: u64) -> impl Iterator<Item = Field> + '_ {
        self.form.template.iter().filter_map(move |p| match *p {
            Piece::Lit(_) => None,
            Piece::Hole(g) | Piece::Again(g) => {
                let g = &self.form.groups[g as usize];
                let (deco, val) = g.split(self.word);
                let (pre, post) = g.decoration(deco, matches!(p, Piece::Again(_)))?;
                Some(Field {
                    pre,
                    post,
                    value: render::value_of(g.fmt, val, g.value_bits.len() as u32, addr),
                })
            }
        })
    }

    /// The base mnemonic, e.g. `FFMA`.
    pub fn mnemonic(&self) -> &'static str {
        self.form.mnemonic
    }
}

/// Decodes and prints `word` at `addr`: the text, or the error.
pub fn disassemble(word: u64, addr: u64) -> Result<String, DecodeError> {
    decode(word).map(|i| i.text(addr))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Recorded from nvdisasm 11.8 (a saxpy-like kernel): word, address, text.
    pub(crate) const RECORDED: [(u64, u64, &str); 5] = [
        (0x64c0_3c00_089c_0006, 0x08, "MOV R1, c[0x0][0x44];"),
        (0x8640_0000_109c_0002, 0x10, "S2R R0, SR_TID.X;"),
        (
            0x4c00_0000_291c_0012,
            0x38,
            "FFMA R4, R0, c[0x0][0x148], R0;",
        ),
        (0x1800_0000_0000_003c, 0x50, "@P0 EXIT;"),
        (0x1200_7fff_fc1c_003c, 0x68, "BRA 0x68;"),
    ];

    #[test]
    fn ptxas_words_print_as_nvdisasm_prints_them() {
        for (w, addr, text) in RECORDED {
            assert_eq!(disassemble(w, addr).as_deref(), Ok(text), "{w:#018x}");
        }
    }

    #[test]
    fn fields_give_typed_operands() {
        use render::Value;
        let i = decode(0x4c00_0000_291c_0012).unwrap(); // FFMA R4, R0, c[0x0][0x148], R0;
        let vals: Vec<Value> = i.fields(0x38).map(|f| f.value).collect();
        assert!(vals.contains(&Value::Reg(4)));
        assert!(
            vals.contains(&Value::CBank {
                bank: 0,
                offset: 0x148
            }) || vals.contains(&Value::Int(0x148))
        );
        let b = decode(0x1200_7fff_fc1c_003c).unwrap(); // BRA 0x68 at 0x68
        assert!(b.fields(0x68).any(|f| f.value == Value::Target(0x68)));
        let g = decode(0x1800_0000_0000_003c).unwrap(); // @P0 EXIT;
        assert!(g.fields(0x50).any(|f| f.pre == "@P0 "));
    }

    /// Recorded from nvdisasm 11.8 (`-raw`, address 0x8): words whose text has an
    /// optional operand, or a field printed twice.
    const RECORDED_SHAPES: [(u64, &str); 6] = [
        (0x84800000b01c1020, "IMAD32I.U32.U32 R8.CC, R4, 0x160, -R8;"),
        (0x0000000000800300, "BPT.TRAP 0x1;"),
        (0x0000000000000300, "BPT.TRAP;"),
        (0x85800000011cbc02, "NOP.TRIG 0x2;"),
        (0x8540dc00009c0002, "BAR.SYNC 0x0, 0x1;"),
        (
            0x7540a805021ffc02,
            "TXQ.T R0, RZ, TEX_HEADER_DIMENSION, 0x54, 0x1;",
        ),
    ];

    #[test]
    fn optional_operands_and_fields_printed_twice() {
        for (w, text) in RECORDED_SHAPES {
            assert_eq!(disassemble(w, 0x8).as_deref(), Ok(text), "{w:#018x}");
        }
    }

    /// Each word prints as recorded at address 0x8, and its text encodes to a
    /// word that prints the same.
    fn prints_and_encodes_back(cases: &[(u64, &str)]) {
        for &(w, text) in cases {
            assert_eq!(disassemble(w, 0x8).as_deref(), Ok(text), "{w:#018x}");
            let back = crate::encode::assemble(text, 0x8).expect(text);
            assert_eq!(disassemble(back, 0x8).as_deref(), Ok(text), "{w:#018x}");
        }
    }

    /// Recorded from nvdisasm 11.8 (`-raw`, the fuzz test's mutated words):
    /// forms several flips away from any seed, each flip another instruction
    /// (the condition code of `NOP` and `BRK` is an opcode field, bindless
    /// textures with index 0xff).
    const RECORDED_FAR: [(u64, &str); 8] = [
        (0x85800000011c181e, "NOP CC.GE, 0x2;"),
        (0x1a000000201c0030, "BRK CC.GTU;"),
        (0x193f00002b1c3878, "RET CC.RLE;"),
        (0x780a013e7f9c1022, "TLD.B.LZ.P R8, R4, 0x0, 3D, 0xf;"),
        (0x7e8bfc017f9c244a, "TMML.B.LOD.T R18, R9, 0x0, 1D, 0x0;"),
        (0x7dc00180211c0036, "TLD4.R.B R13, R0, R66, 0x0, CUBE, 0x0;"),
        (0x7fc25409409c0872, "FSWZ.2301.RM R28, R2, R129, PPNPPPPN;"),
        (0x7f220000481ffc1a, "AST a[0x90], R6, R128;"),
    ];

    #[test]
    fn forms_far_from_the_seeds_print_and_encode() {
        prints_and_encodes_back(&RECORDED_FAR);
    }

    /// Recorded from nvdisasm 11.8 (`-raw`, address 0x8): attribute loads and
    /// stores whose base register at RZ prints other modifiers, and the other
    /// bases, with which a nonzero offset is rejected.
    const RECORDED_RZ: [(u64, &str); 8] = [
        (0x7ef00000101ffc32, "ALD R12, a[0x20], R0;"),
        (0x7ec00000001ffc0a, "ALD R2, a[RZ], R0;"),
        (0x7ec00004009ffc0a, "ALD.P R2, a[0x1], R0;"),
        (0x7ec3fc00009ffc0a, "ALD R2, a[0x1];"),
        (0x7ee00008000c182a, "@P3 ALD.O.PHYS R10, a[R6], R0;"),
        (0x7ec3fc08001c000a, "ALD.O.PHYS R2, a[R0];"),
        (0x7f0000000003fc02, "@P0 AST a[RZ], R0, R0;"),
        (0x7f00000000000002, "@P0 AST.PHYS a[R0], R0, R0;"),
    ];

    #[test]
    fn a_base_register_at_rz_picks_the_form_split_off_for_it() {
        prints_and_encodes_back(&RECORDED_RZ);
        // With another base, nvdisasm rejects a nonzero offset.
        assert!(decode(0x7ec0000000800002).is_err());
    }

    /// Recorded from nvdisasm 11.8 (`-raw`, address 0x8): a barrier's thread
    /// count is optional for `BAR.SYNC` (nothing at zero) but printed at zero
    /// for `BAR.ARV`.
    const RECORDED_BAR: [(u64, &str); 4] = [
        (0x85405c08001c2002, "BAR.ARV R8, 0x0;"),
        (0x85405c08029c2002, "BAR.ARV R8, 0x5;"),
        (0x85405c00001c2002, "BAR.SYNC R8;"),
        (0x85405c00029c2002, "BAR.SYNC R8, 0x5;"),
    ];

    #[test]
    fn an_optional_operand_prints_its_zero_where_nvdisasm_does() {
        prints_and_encodes_back(&RECORDED_BAR);
    }

    /// Recorded from nvdisasm 11.8 (`-raw`, address 0x8): TXQ's query prints
    /// as a number or a name, by value (0 is invalid with these bits); FCCO's
    /// last register vanishes, comma and all, at `RZ`.
    const RECORDED_NAMES_AND_VANISHING: [(u64, &str); 5] = [
        (
            0x7d600040051ffc02,
            "TXQ.B R0, RZ, TEX_HEADER_TEXTURE_TYPE, 0x0, 0x0;",
        ),
        (0x7d6000400d1ffc02, "TXQ.B R0, RZ, 3, 0x0, 0x0;"),
        (
            0x7d600040211ffc02,
            "TXQ.B R0, RZ, TEX_SAMPLER_FILTER, 0x0, 0x0;",
        ),
        (
            0xb48bfefc00202021,
            "@!P0 FCCO.SP P1, R8, 1.84467440737095516160e+19;",
        ),
        (
            0xb48bf8fc00202021,
            "@!P0 FCCO.SP P1, R8, 5.42101086242752217e-20, R254;",
        ),
    ];

    #[test]
    fn named_values_and_operands_vanishing_at_rz_print_as_nvdisasm_prints_them() {
        prints_and_encodes_back(&RECORDED_NAMES_AND_VANISHING);
        assert!(decode(0x7d600040011ffc02).is_err());
    }

    #[test]
    fn a_field_printed_twice_is_a_field_each_time() {
        use render::Value;
        let i = decode(0x84800000b01c1020).unwrap(); // IMAD32I.U32.U32 R8.CC, R4, 0x160, -R8;
        let ops: Vec<Value> = i
            .fields(0x8)
            .map(|f| f.value)
            .filter(|v| *v != Value::None && !matches!(v, Value::Pred(_)))
            .collect();
        assert_eq!(
            ops,
            [
                Value::Reg(8),
                Value::Reg(4),
                Value::Int(0x160),
                Value::Reg(8)
            ]
        );
        // The text around each print is its own: `.CC` after the first only.
        let posts: Vec<&str> = i.fields(0x8).map(|f| f.post).collect();
        assert_eq!(posts.iter().filter(|p| **p == ".CC").count(), 1);
    }

    #[test]
    fn unknown_words_name_the_nearest_form() {
        // A control word's opcode bits are no instruction's.
        let e = decode(0x0800_0000_0000_0000).unwrap_err().to_string();
        assert!(e.contains("nearest: "), "{e}");
    }

    #[test]
    fn unknown_words_are_errors_not_panics() {
        // Bits 63..59 = 00001 with bits 1..0 = 00 is a control word, never an
        // instruction.
        assert!(decode(0x0800_0000_0000_0000).is_err());
        for w in [0u64, u64::MAX, 0xdead_beef_dead_beef, 0x5555_5555_5555_5555] {
            let _ = disassemble(w, 0);
        }
    }
}
