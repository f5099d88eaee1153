//! The machine configuration: `configs/k20m.ron`.
//!
//! The raw form ([`RawConfig`]) is what a RON file says, every field optional; the
//! validated form ([`Config`]) has every value checked and filled from the K20m's
//! defaults. Validation errors name the file, the line and the field. Today the
//! functional model reads the chip's limits (launch checks, `%nsmid`); the timing
//! model of issue 4 adds its blocks' parameters here.

use serde::Deserialize;

/// The chip: counts and limits (Tesla K20m, GK110; NVIDIA's data sheet and the
/// CUDA C Programming Guide's table for compute capability 3.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chip {
    /// Streaming multiprocessors (K20m: 13).
    pub sms: u32,
    /// Core clock, MHz (K20m: 705).
    pub clock_mhz: f64,
    /// Threads per block, at most (1024).
    pub max_threads_per_block: u32,
    /// Resident threads per SM, at most (2048).
    pub max_threads_per_sm: u32,
    /// Resident blocks per SM, at most (16).
    pub max_blocks_per_sm: u32,
    /// 32-bit registers per SM (65536).
    pub registers_per_sm: u32,
    /// Registers per thread, at most (255).
    pub max_registers_per_thread: u32,
    /// Shared memory per SM in the 48 KB shared / 16 KB L1 split, bytes (49152).
    pub shared_per_sm: u32,
    /// Shared memory per block, bytes (49152).
    pub shared_per_block: u32,
}

impl Chip {
    /// The Tesla K20m.
    pub const K20M: Chip = Chip {
        sms: 13,
        clock_mhz: 705.0,
        max_threads_per_block: 1024,
        max_threads_per_sm: 2048,
        max_blocks_per_sm: 16,
        registers_per_sm: 65536,
        max_registers_per_thread: 255,
        shared_per_sm: 49152,
        shared_per_block: 49152,
    };
}

/// A validated configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub chip: Chip,
}

impl Default for Config {
    fn default() -> Self {
        Config { chip: Chip::K20M }
    }
}

/// A configuration file as written: every field may be left out.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    #[serde(default)]
    pub chip: RawChip,
}

/// The chip section as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChip {
    pub sms: Option<u32>,
    pub clock_mhz: Option<f64>,
    pub max_threads_per_block: Option<u32>,
    pub max_threads_per_sm: Option<u32>,
    pub max_blocks_per_sm: Option<u32>,
    pub registers_per_sm: Option<u32>,
    pub max_registers_per_thread: Option<u32>,
    pub shared_per_sm: Option<u32>,
    pub shared_per_block: Option<u32>,
}

/// A configuration that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {field}: {why}")]
pub struct ConfigError {
    pub file: String,
    /// 1-based; 0 when the field is not written in the file.
    pub line: usize,
    /// `chip.sms`.
    pub field: String,
    pub why: String,
}

impl Config {
    /// Parses and validates a configuration file's `text`; `file` names it in
    /// errors.
    pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
        let opts = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let raw: RawConfig = opts.from_str(text).map_err(|e| ConfigError {
            file: file.into(),
            line: e.position.line,
            field: "(syntax)".into(),
            why: e.code.to_string(),
        })?;
        Config::validate(&raw, text, file)
    }

    /// Checks every value of `raw` and fills the rest from the K20m.
    pub fn validate(raw: &RawConfig, text: &str, file: &str) -> Result<Config, ConfigError> {
        let d = Chip::K20M;
        let r = &raw.chip;
        let err = |field: &str, why: String| ConfigError {
            file: file.into(),
            line: line_of(text, field),
            field: format!("chip.{field}"),
            why,
        };
        let range =
            |field: &str, v: Option<u32>, def: u32, lo: u32, hi: u32| -> Result<u32, ConfigError> {
                let v = v.unwrap_or(def);
                if (lo..=hi).contains(&v) {
                    Ok(v)
                } else {
                    Err(err(field, format!("{v} is outside {lo}..={hi}")))
                }
            };
        let clock_mhz = r.clock_mhz.unwrap_or(d.clock_mhz);
        if !(clock_mhz.is_finite() && clock_mhz > 0.0 && clock_mhz <= 10_000.0) {
            return Err(err(
                "clock_mhz",
                format!("{clock_mhz} MHz is not a clock (0 < MHz <= 10000)"),
            ));
        }
        let chip = Chip {
            sms: range("sms", r.sms, d.sms, 1, 256)?,
            clock_mhz,
            max_threads_per_block: range(
                "max_threads_per_block",
                r.max_threads_per_block,
                d.max_threads_per_block,
                32,
                1024,
            )?,
            max_threads_per_sm: range(
                "max_threads_per_sm",
                r.max_threads_per_sm,
                d.max_threads_per_sm,
                32,
                4096,
            )?,
            max_blocks_per_sm: range(
                "max_blocks_per_sm",
                r.max_blocks_per_sm,
                d.max_blocks_per_sm,
                1,
                64,
            )?,
            registers_per_sm: range(
                "registers_per_sm",
                r.registers_per_sm,
                d.registers_per_sm,
                256,
                1 << 20,
            )?,
            max_registers_per_thread: range(
                "max_registers_per_thread",
                r.max_registers_per_thread,
                d.max_registers_per_thread,
                16,
                255,
            )?,
            shared_per_sm: range(
                "shared_per_sm",
                r.shared_per_sm,
                d.shared_per_sm,
                0,
                1 << 20,
            )?,
            shared_per_block: range(
                "shared_per_block",
                r.shared_per_block,
                d.shared_per_block,
                0,
                1 << 20,
            )?,
        };
        if chip.max_threads_per_block > chip.max_threads_per_sm {
            return Err(err(
                "max_threads_per_block",
                format!(
                    "{} is more than max_threads_per_sm ({})",
                    chip.max_threads_per_block, chip.max_threads_per_sm
                ),
            ));
        }
        if chip.shared_per_block > chip.shared_per_sm {
            return Err(err(
                "shared_per_block",
                format!(
                    "{} is more than shared_per_sm ({})",
                    chip.shared_per_block, chip.shared_per_sm
                ),
            ));
        }
        Ok(Config { chip })
    }
}

/// The 1-based line where `field:` is written, or 0.
fn line_of(text: &str, field: &str) -> usize {
    let key = format!("{field}:");
    text.lines()
        .position(|l| {
            l.split("//")
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with(&key)
        })
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_is_the_k20m() {
        let text = include_str!("../../configs/k20m.ron");
        assert_eq!(
            Config::parse(text, "configs/k20m.ron"),
            Ok(Config::default())
        );
    }

    #[test]
    fn bad_values_name_the_file_line_and_field() {
        let text = "(\n  chip: (\n    clock_mhz: 705.0,\n    sms: 0,\n  ),\n)\n";
        let e = Config::parse(text, "x.ron").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (4, "chip.sms"));
        assert_eq!(e.to_string(), "x.ron:4: chip.sms: 0 is outside 1..=256");
        let e = Config::parse("(chip: (clock_mhz: -1.0))", "x.ron").unwrap_err();
        assert!(e.to_string().contains("chip.clock_mhz"), "{e}");
        let e = Config::parse("(\n chip: (\n  smz: 3,\n ),\n)", "x.ron").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.why.contains("smz"), "{e}");
        let e = Config::parse(
            "(chip: (max_threads_per_block: 1024, max_threads_per_sm: 512))",
            "x.ron",
        )
        .unwrap_err();
        assert!(e.why.contains("more than max_threads_per_sm"), "{e}");
    }

    #[test]
    fn fields_left_out_are_the_k20m() {
        let c = Config::parse("(chip: (sms: 2))", "x.ron").unwrap();
        assert_eq!(c.chip.sms, 2);
        assert_eq!(c.chip.clock_mhz, 705.0);
        assert_eq!(Config::parse("()", "x.ron").unwrap(), Config::default());
    }
}
