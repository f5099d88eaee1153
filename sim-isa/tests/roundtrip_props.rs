//! Property tests of the decode / print / parse / encode round trips over
//! generated instructions.
//!
//! - A word built from a form of the table (its fixed bits, a valid decoration
//!   in every group, random bits elsewhere) decodes to a form whose fixed bits
//!   it has; its text is in the parser's normal form and encodes, at any
//!   address, to the word's canonical word, which prints the same text and is
//!   its own canonical word.
//! - Any word decodes without panicking, to a form whose fixed bits it has
//!   (and then round trips as above), or to an error that says why: no form's
//!   fixed bits match (naming the nearest form and the bits it differs in), or
//!   a form matches but one group holds a value the table rejects (naming the
//!   form, the bits and the value).

use proptest::prelude::*;
use sim_isa::decode::{decode, disassemble, DecodeError};
use sim_isa::encode::{assemble, canonical, normalize};
use sim_isa::sm35_table::FORMS;
use sim_isa::table::{gather, scatter, Form, Group};

/// The decoration values of group `g` that print (in both prints of a group
/// printed twice).
fn valid_decorations(g: &Group) -> Vec<u64> {
    (0..g.table.len() as u64)
        .filter(|&d| {
            g.decoration(d, false).is_some()
                && (g.again.is_empty() || g.decoration(d, true).is_some())
        })
        .collect()
}

/// `r`'s bits outside form `i`'s fixed ones, with a valid decoration (picked
/// by `pick`) in each of its groups.
fn valid_word(i: usize, r: u64, pick: u64) -> u64 {
    let f = &FORMS[i];
    let mut w = f.bits | (r & !f.mask);
    for (k, g) in f.groups.iter().enumerate() {
        let valid = valid_decorations(g);
        assert!(
            !valid.is_empty(),
            "form {i} ({}): group {k} has no valid decoration",
            f.mnemonic
        );
        let d = valid[(pick.rotate_left(7 * k as u32) % valid.len() as u64) as usize];
        w = scatter(w, g.deco_bits, d);
    }
    w
}

/// Words of a random form: its fixed bits, a valid decoration in every group,
/// random bits elsewhere.
fn form_word() -> impl Strategy<Value = u64> {
    (0..FORMS.len(), any::<u64>(), any::<u64>()).prop_map(|(i, r, pick)| valid_word(i, r, pick))
}

/// Addresses of instruction slots (not control slots), up to 1 MiB.
fn slot_addr() -> impl Strategy<Value = u64> {
    (0u64..(1 << 17)).prop_map(|k| 8 * (k / 7 * 8 + k % 7 + 1))
}

/// A decoded word prints a text in normal form that encodes at `addr` to the
/// word's canonical word, which prints the same text at `addr`.
fn round_trip(w: u64, addr: u64) -> Result<(), TestCaseError> {
    let inst = decode(w).map_err(|e| TestCaseError::fail(format!("{w:#018x}: {e}")))?;
    let form: &Form = &FORMS[inst.form_index];
    prop_assert!(std::ptr::eq(inst.form, form), "{:#018x}: form index", w);
    prop_assert_eq!(
        w & form.mask,
        form.bits,
        "{:#018x}: the fixed bits of {}",
        w,
        form.mnemonic
    );
    let text = inst.text(addr);
    prop_assert_eq!(normalize(&text), text.clone());
    let e = assemble(&text, addr).map_err(|e| TestCaseError::fail(format!("{w:#018x}: {e}")))?;
    prop_assert_eq!(
        disassemble(e, addr),
        Ok(text.clone()),
        "{:#018x} -> {:#018x}",
        w,
        e
    );
    // The encoder gives the canonical word, at any address (`canonical`
    // encodes the text at address 0), and it is a fixed point.
    prop_assert_eq!(canonical(w), Ok(e), "{:#018x}: {}", w, text);
    prop_assert_eq!(canonical(e), Ok(e), "{:#018x}: {}", e, text);
    prop_assert_eq!(assemble(&disassemble(e, addr).unwrap(), addr), Ok(e));
    Ok(())
}

/// A word that does not decode is an error that names the word and says why,
/// truthfully.
fn error_says_why(w: u64, e: &DecodeError) -> Result<(), TestCaseError> {
    let msg = e.to_string();
    prop_assert!(msg.contains(&format!("{w:#018x}")), "{}", msg);
    match e {
        DecodeError::Unknown { word, nearest } => {
            prop_assert_eq!(*word, w);
            prop_assert!(
                FORMS.iter().all(|f| w & f.mask != f.bits),
                "{:#018x}: a form's fixed bits match, yet `{}`",
                w,
                msg
            );
            let Some((m, diff)) = *nearest else {
                return Err(TestCaseError::fail(format!(
                    "{w:#018x}: no nearest form: {msg}"
                )));
            };
            prop_assert!(diff != 0, "{}", msg);
            prop_assert!(
                FORMS
                    .iter()
                    .any(|f| f.mnemonic == m && (w & f.mask) ^ f.bits == diff),
                "{:#018x}: no form {} differs in exactly those bits: {}",
                w,
                m,
                msg
            );
            prop_assert!(msg.contains(m), "{}", msg);
        }
        DecodeError::BadField {
            word,
            mnemonic,
            bits,
            value,
        } => {
            prop_assert_eq!(*word, w);
            // A form of that name matches, and its group at `bits` holds
            // `value`, which it does not print.
            let named = FORMS
                .iter()
                .filter(|f| f.mnemonic == *mnemonic && w & f.mask == f.bits);
            let group_rejects = |g: &Group| {
                let at: Vec<String> = g.deco_bits.iter().map(|b| b.to_string()).collect();
                at.join(",") == *bits
                    && gather(w, g.deco_bits) == *value
                    && !valid_decorations(g).contains(value)
            };
            prop_assert!(
                named
                    .into_iter()
                    .any(|f| f.groups.iter().any(group_rejects)),
                "{:#018x}: no form {} rejects bits {} = {:#x}",
                w,
                mnemonic,
                bits,
                value
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn any_word_decodes_and_round_trips_or_says_why(w in any::<u64>(), addr in slot_addr()) {
        match decode(w) {
            Ok(_) => round_trip(w, addr)?,
            Err(e) => error_says_why(w, &e)?,
        }
    }

    #[test]
    fn form_words_decode_and_round_trip(w in form_word(), addr in slot_addr()) {
        round_trip(w, addr)?;
    }

    #[test]
    fn blanks_do_not_matter(w in form_word(), extra in 1usize..4) {
        let text = disassemble(w, 0x8).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let pad = " ".repeat(extra);
        let loose = text.replace(", ", &format!("{pad},{pad}")).replace(';', "");
        let tight = assemble(&text, 0x8);
        prop_assert!(tight.is_ok(), "{}: {:?}", text, tight);
        prop_assert_eq!(assemble(&loose, 0x8), tight, "{}", loose);
    }
}

/// Every form of the table yields words that decode: its own fixed bits with
/// the first valid decoration of each group and every other bit zero, or one.
#[test]
fn every_form_has_words_that_decode() {
    let mut failed = Vec::new();
    for (i, f) in FORMS.iter().enumerate() {
        for r in [0, u64::MAX] {
            let w = valid_word(i, r, 0);
            if let Err(e) = decode(w) {
                failed.push(format!("form {i} ({}): {e}", f.mnemonic));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} words do not decode: {failed:#?}",
        failed.len()
    );
}
