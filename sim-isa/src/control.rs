//! The sm_35 control word: one 64-bit word before every seven instructions.
//!
//! Its bits 63..58 are `000010` and bits 1..0 are `00` (the word's own opcode);
//! bits 2..57 hold seven 8-bit fields, the first instruction's in the lowest bits.
//! This module only moves bits: what each bit of a field means to the scheduler is
//! the timing model's business.
//!
//! The assembler's text form of a field is the byte in hex (`0x20`) or the
//! bit-group notation `T:G:D:S:NN` — bit 7, bit 6, bit 5, bit 4 as `0`/`1`, and
//! bits 3..0 as two hex digits — so `0x25` is `0:0:1:0:05`.

use std::fmt;

/// The fixed bits of every control word.
pub const FIXED_BITS: u64 = 0b10 << 58;
/// The mask of the fixed bits.
pub const FIXED_MASK: u64 = (0x3f << 58) | 0b11;

/// Errors reading a control word or field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("{0:#018x} is not a control word (bits 63..58 must be 000010 and bits 1..0 00)")]
    NotControl(u64),
    #[error("bad control field `{0}`: expected a byte like 0x20 or T:G:D:S:NN like 0:0:1:0:00")]
    BadField(String),
}

/// The seven 8-bit fields of one control word, first instruction first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Control(pub [u8; 7]);

impl Control {
    /// Splits a control word into its fields; refuses a word without the fixed bits.
    pub fn decode(word: u64) -> Result<Control, ControlError> {
        if word & FIXED_MASK != FIXED_BITS {
            return Err(ControlError::NotControl(word));
        }
        let mut f = [0u8; 7];
        for (i, b) in f.iter_mut().enumerate() {
            *b = (word >> (2 + 8 * i)) as u8;
        }
        Ok(Control(f))
    }

    /// The control word holding these fields.
    pub fn encode(&self) -> u64 {
        self.0
            .iter()
            .enumerate()
            .fold(FIXED_BITS, |w, (i, &b)| w | (b as u64) << (2 + 8 * i))
    }
}

/// Prints one field in the `T:G:D:S:NN` notation.
pub struct FieldText(pub u8);

impl fmt::Display for FieldText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{}:{}:{}:{}:{:02x}",
            b >> 7 & 1,
            b >> 6 & 1,
            b >> 5 & 1,
            b >> 4 & 1,
            b & 0xf
        )
    }
}

/// Reads a field written as `0x25` or `0:0:1:0:05`.
pub fn parse_field(s: &str) -> Result<u8, ControlError> {
    let bad = || ControlError::BadField(s.to_string());
    if let Some(h) = s.strip_prefix("0x") {
        return u8::from_str_radix(h, 16).map_err(|_| bad());
    }
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 5 {
        return Err(bad());
    }
    let mut b = 0u8;
    for (k, p) in parts[..4].iter().enumerate() {
        match *p {
            "0" => {}
            "1" => b |= 1 << (7 - k),
            _ => return Err(bad()),
        }
    }
    let low = u8::from_str_radix(parts[4], 16).map_err(|_| bad())?;
    if low > 0xf {
        return Err(bad());
    }
    Ok(b | low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ptxas_control_word_round_trips() {
        let w = 0x08a0_fca0_b0a0_10c0;
        let c = Control::decode(w).unwrap();
        assert_eq!(c.encode(), w);
    }

    #[test]
    fn every_field_value_round_trips_in_both_notations() {
        for b in 0..=255u8 {
            assert_eq!(parse_field(&FieldText(b).to_string()), Ok(b));
            assert_eq!(parse_field(&format!("{b:#04x}")), Ok(b));
            let c = Control([b, 0, 0, 0, 0, 0, b]);
            assert_eq!(Control::decode(c.encode()), Ok(c));
        }
        assert_eq!(FieldText(0x25).to_string(), "0:0:1:0:05");
    }

    #[test]
    fn instruction_words_are_not_control_words() {
        assert!(Control::decode(0x64c0_3c00_089c_0006).is_err());
        assert!(parse_field("0:0:2:0:00").is_err());
        assert!(parse_field("0x100").is_err());
    }
}
