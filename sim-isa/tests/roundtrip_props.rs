//! Property tests of the decode / print / parse / encode round trips over
//! generated instructions: any word decodes without panicking; a word that
//! decodes prints a text that parses and encodes to a word printing the same
//! text (the word itself, or its canonical form), at any address; the printed
//! text is already in the parser's normal form.

use proptest::prelude::*;
use sim_isa::decode::{decode, disassemble};
use sim_isa::encode::{assemble, canonical, normalize};
use sim_isa::sm35_table::FORMS;

/// Words of a random form with random bits outside its fixed ones.
fn form_word() -> impl Strategy<Value = u64> {
    (0..FORMS.len(), any::<u64>()).prop_map(|(i, r)| FORMS[i].bits | (r & !FORMS[i].mask))
}

/// Addresses of instruction slots (not control slots), up to 1 MiB.
fn slot_addr() -> impl Strategy<Value = u64> {
    (0u64..(1 << 17)).prop_map(|k| 8 * (k / 7 * 8 + k % 7 + 1))
}

fn round_trip(w: u64, addr: u64) -> Result<(), TestCaseError> {
    let Ok(inst) = decode(w) else {
        return Ok(());
    };
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
    // Encoding is a fixed point: the canonical word encodes to itself.
    prop_assert_eq!(
        assemble(&text, addr),
        assemble(&disassemble(e, addr).unwrap(), addr)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn any_word_decodes_without_panic_and_round_trips(w in any::<u64>(), addr in slot_addr()) {
        round_trip(w, addr)?;
    }

    #[test]
    fn form_words_round_trip(w in form_word(), addr in slot_addr()) {
        prop_assert!(decode(w).is_ok() || decode(w).is_err());
        round_trip(w, addr)?;
    }

    #[test]
    fn canonical_words_are_fixed_points(w in form_word()) {
        if let Ok(c) = canonical(w) {
            prop_assert_eq!(canonical(c), Ok(c));
            prop_assert_eq!(disassemble(c, 0), disassemble(w, 0));
        }
    }

    #[test]
    fn blanks_do_not_matter(w in form_word(), extra in 1usize..4) {
        if let Ok(text) = disassemble(w, 0x8) {
            let pad = " ".repeat(extra);
            let loose = text.replace(", ", &format!("{pad},{pad}")).replace(';', "");
            prop_assert_eq!(assemble(&loose, 0x8), assemble(&text, 0x8), "{}", loose);
        }
    }
}
