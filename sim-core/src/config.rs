//! The machine configuration: `configs/k20m.ron`.
//!
//! The raw form ([`RawConfig`]) is what a RON file says, every field optional; the
//! validated form ([`Config`]) has every value checked and filled from the K20m's
//! defaults. Validation errors name the file, the line and the field. Today the
//! functional model reads the chip's limits (launch checks, `%nsmid`); the timing
//! model reads `timing`, its blocks' parameters.

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
    pub timing: Timing,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            chip: Chip::K20M,
            timing: Timing::K20M,
        }
    }
}

/// Declares the timing parameters once: the validated struct, its raw twin,
/// the K20m's values and each value's allowed range.
macro_rules! timing_params {
    ($( $(#[doc = $doc:literal])* $name:ident : $ty:ty = $def:expr, $lo:expr, $hi:expr; )*) => {
        /// The timing model's parameters (`timing:` in the configuration file).
        /// Each field says its unit and where its K20m value comes from.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct Timing {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        impl Timing {
            /// The K20m.
            pub const K20M: Timing = Timing { $( $name: $def, )* };

            /// Each parameter's name and the least and greatest values a
            /// configuration may give it.
            pub const LIMITS: &'static [(&'static str, f64, f64)] =
                &[$( (stringify!($name), $lo as f64, $hi as f64), )*];

            /// The least and greatest values parameter `name` may take.
            pub fn limits(name: &str) -> Option<(f64, f64)> {
                Self::LIMITS
                    .iter()
                    .find(|l| l.0 == name)
                    .map(|&(_, lo, hi)| (lo, hi))
            }
        }

        /// The timing section as written.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct RawTiming {
            $( pub $name: Option<$ty>, )*
        }

        impl RawTiming {
            /// Sets parameter `name` to `value` as written on a command line;
            /// none when there is no such parameter.
            fn set(&mut self, name: &str, value: &str) -> Option<Result<(), String>> {
                match name {
                    $( stringify!($name) => Some(parse_value::<$ty>(value).map(|v| {
                        self.$name = Some(v);
                    })), )*
                    _ => None,
                }
            }

            /// Every parameter's name.
            const NAMES: &'static [&'static str] = &[$( stringify!($name), )*];

            fn validate(&self, text: &str, file: &str) -> Result<Timing, ConfigError> {
                Ok(Timing { $(
                    $name: {
                        let v = self.$name.unwrap_or($def);
                        #[allow(clippy::manual_range_contains, unused_comparisons)]
                        if !(v >= $lo && v <= $hi) {
                            return Err(ConfigError {
                                file: file.into(),
                                line: line_of(text, stringify!($name)),
                                field: format!("timing.{}", stringify!($name)),
                                why: format!("{} is outside {}..={}", v, $lo, $hi),
                            });
                        }
                        v
                    },
                )* })
            }
        }
    };
}

timing_params! {
    /// Warp schedulers per SM (data sheet: 4).
    schedulers: u32 = 4, 1, 4;
    /// Warp selection: 0 loose round robin (each scheduler starts its search
    /// after the warp it issued last), 1 greedy-then-oldest (the same warp while
    /// it can issue, else the oldest). Not measured; 0 by default.
    policy: u32 = 0, 0, 1;
    /// Whether a scheduler may dual-issue (the second instruction of a pair on
    /// its pair's shared 32-lane group): 1 yes, 0 never (data sheet: 2 dispatch
    /// units per scheduler).
    dual_issue: u32 = 1, 0, 1;
    /// Whether a pair must be one aligned 16-byte half of its 64-byte group:
    /// instructions 1+2, 3+4 or 5+6 of the group's seven (1), or any two
    /// neighbours (0). 1 is what makes 1-2-2-1 the only one of the six orders
    /// that dual-issues every pair, and why a hot loop must start a group.
    dual_issue_aligned: u32 = 1, 0, 1;
    /// Who wins a pair's shared core group when both schedulers of the pair
    /// want it in the same cycle: 0 the lower-numbered one, always; 1 the one
    /// that lost the last such conflict (the pair's visiting order flips
    /// only on a conflict, so a pair that has settled into turns keeps them);
    /// 2 as 1, and a scheduler whose warp would have its pair broken by the
    /// taken group issues another ready warp first, if it has one.
    shared_group_arbitration: u32 = 2, 0, 2;
    /// Which pair of schedulers goes first for what all four share (the
    /// SM's load/store unit and texture pipeline): 0 pair 0 always, 1 the
    /// pairs in turn, a cycle each; 2 the pair that took either unit last
    /// goes second; 3 as 2, and within the pair, the scheduler that took it
    /// goes second (not measured; a fixed order starves pair 1's loads).
    pair_rotation: u32 = 1, 0, 3;
    /// Cycles a warp may wait for the load/store unit or the texture
    /// pipeline, while other schedulers' warps take it, before it goes first:
    /// the arbiter's guarantee of progress, not a timing figure (not
    /// measured; no suite kernel waits so long, so it changes no figure).
    unit_starvation_cycles: u32 = 65536, 1, 1 << 30;
    /// Cycles the control byte 0x00 holds the warp (paper: 16; nouveau says 32).
    unscheduled_stall: u32 = 16, 0, 255;
    /// Cycles from a single issue coded 0x20 to the warp's next issue; a
    /// byte 0x2n adds n (ptxas spaces dependent ALU instructions with 0x28
    /// and never less: 3 + 8 = the ALU latency).
    issue_interval: u32 = 3, 1, 16;
    /// Cycles from issue until an FP32/integer result can be read (CUDA C
    /// Programming Guide, compute capability 3.x: about 11).
    alu_latency: u32 = 11, 1, 64;
    /// Cycles the hardware holds back an instruction that reads an ALU
    /// result sooner than its latency (Mesa's Kepler backend: the hardware
    /// still checks data hazards and delays such an instruction by 32
    /// cycles). Loads, stores and atomics wait for their registers instead.
    interlock_cycles: u32 = 32, 1, 1024;
    /// Cycles from a `TEXDEPBAR`'s issue to the warp's next issue, at least
    /// (ptxas puts a `TEXDEPBAR` coded 0xa2 between an FFMA and its dependent
    /// FFMA, so it must cover the rest of the ALU latency).
    texdepbar_cycles: u32 = 8, 1, 64;
    /// Cycles an SFU (MUFU) warp-instruction occupies its scheduler's SFU
    /// (32 SFUs per SM, 8 per scheduler: 4 cycles per warp).
    sfu_interval: u32 = 4, 1, 64;
    /// Cycles from issue to an SFU result (not measured; ptxas's spacing).
    sfu_latency: u32 = 18, 1, 256;
    /// Cycles an FP64 warp-instruction occupies its scheduler's FP64 units
    /// (64 FP64 units per SM, 16 per scheduler: 2 cycles per warp).
    fp64_interval: u32 = 2, 1, 64;
    /// Cycles from issue to an FP64 result (measured: 10 for a dependent
    /// DADD on a Kepler GK110, Arafa et al., HPEC 2019).
    fp64_latency: u32 = 10, 1, 256;
    /// Issue cycles a scheduler loses, per instruction, to a 2-way register
    /// bank conflict, on average, beside the warp's own hold (fitted by the
    /// FFMA R5, R2, R1, R0 row: 119.18 ops/clock/SM, 93.47% of the
    /// conflict-free row's).
    conflict_2way: f64 = 0.068, 0.0, 4.0;
    /// The same for a 3-way conflict (fitted by FFMA R5, R9, R3, R1: 94.52).
    conflict_3way: f64 = 0.353, 0.0, 8.0;
    /// The same for a 4-way conflict (not measured: 3-way's plus one).
    conflict_4way: f64 = 1.353, 0.0, 12.0;
    /// Whether a conflicted instruction also holds its own warp: 0 no (the
    /// cost is the scheduler's alone), 1 the warp's next issue waits
    /// degree - 1 more cycles (its operands take a read per cycle). The
    /// eight-warp bank rows cannot tell the two apart; the paper's +Reg step
    /// (about 10%, two warps a scheduler) chose 1; the row "FFMA 2-way, no
    /// shared operand, 2 warps/scheduler" would check it (64.2 against 80.9).
    conflict_holds_warp: u32 = 1, 0, 1;
    /// Whose operands the operand collector keeps for reuse: 0 only those of
    /// the instruction issued the cycle before, for the same warp's next one;
    /// N (1 to 8) the last instruction of each of the last N warps that
    /// issued, for that warp's next instruction whenever it comes. The
    /// eight-warp bank rows need N below 8 (their conflicts were measured);
    /// the paper's kernel relies on reuse with two warps a scheduler, which
    /// needs N of 2 or more (2: one per dispatch unit); the rows "FFMA R5, R2,
    /// R1, R0, 2 warps/scheduler" tell 0 and 1 from 2 and more.
    reuse_warps: u32 = 2, 0, 8;
    /// How the operand collector reads a dual-issued pair's operands: 1
    /// together (each register once, the pair's busiest bank its conflict
    /// degree), 0 apart (the first's, then the second's with the first's
    /// reused, the busier of the two). Not measured; the paper's published
    /// banks conflict only if a pair is read together, and its whole ladder
    /// (2.6x) is within the check under 1 (2.73x) and past it under 0
    /// (2.96x; docs/timing-model.md). The rows "FFMA 1-2-2-1, pairs 2-way
    /// across their FFMAs" tell the two apart.
    pair_reads_together: u32 = 1, 0, 1;
    /// Load/store warp-instructions the SM's 32 LD/ST units accept per cycle.
    lsu_per_cycle: u32 = 1, 1, 4;
    /// Cycles from an LDS's issue until its value can be used, conflict-free
    /// (measured: 28).
    lds_latency: u32 = 28, 1, 1024;
    /// Cycles from a local-memory load's issue until its value can be used,
    /// an L1 hit (measured: 32 on a Kepler GK110, Arafa et al., HPEC 2019,
    /// arXiv:1905.08778).
    l1_latency: u32 = 32, 1, 1024;
    /// Cycles from an `LDC`'s issue until its value can be used, a constant
    /// cache hit (measured: 16 on a Kepler GK110, the same source).
    ldc_latency: u32 = 16, 1, 1024;
    /// Width of a shared-memory bank, bytes: 4 or 8 (the kernel's
    /// cudaSharedMemConfig; the tuned kernels use 8).
    shared_bank_bytes: u32 = 8, 4, 8;
    /// Bytes one shared-memory transaction moves (measured: a warp's shared
    /// transaction is at most 256 bytes).
    shared_transaction_bytes: u32 = 256, 128, 512;
    /// Cycles one shared-memory transaction occupies the shared-memory
    /// pipeline, on average (fitted by the LDS.64 bandwidth, 137 GB/s per SM:
    /// 256 bytes per 1.317 cycles at 705 MHz).
    shared_cycles_per_transaction: f64 = 1.317, 1.0, 64.0;
    /// Whether a lone transaction that moves fewer distinct bytes than a
    /// whole one (a broadcast) takes only its share of a transaction's
    /// time, at least `shared_min_cycles` (1), or always a whole
    /// transaction's (0).
    shared_cycles_by_bytes: u32 = 1, 0, 1;
    /// The least time one shared-memory instruction occupies the pipeline,
    /// cycles: the LSU takes one instruction a cycle.
    shared_min_cycles: f64 = 1.0, 0.0, 64.0;
    /// Extra cycles each transaction of an instruction beyond its first costs
    /// (the replay of a split LDS.128 or a bank conflict; Fermi and Kepler
    /// replay the instruction through the LSU).
    shared_replay_cycles: u32 = 1, 0, 16;
    /// Issue cycles of its scheduler each replay of a load/store-unit
    /// access takes: a shared access's transactions beyond its first, a
    /// global or local access's 128-byte lines beyond its first (Fermi and
    /// Kepler issue the instruction again for each, in an issue slot; NVIDIA
    /// Nsight's Instruction Statistics). 0: the load/store unit alone
    /// replays. An LDG's hold is `ldg_issue_cycles`.
    replay_issue_cycles: u32 = 1, 0, 16;
    /// Bytes of a global LD/ST/atomic access the load/store unit moves a
    /// cycle: each 128-byte line the access touches holds the LSU for its
    /// 32-byte sectors' bytes over this, rounded up (32: a 32-byte
    /// transaction a cycle, the unit of an L2-only access on cc 3.x; 128: a
    /// line a cycle). Not measured directly: 32 is the reading under which
    /// the paper's +LDG128 step (5-12% on the K20m) gains anything. LDG takes
    /// the texture pipeline.
    global_lsu_bytes: u32 = 32, 32, 128;
    /// Cycles from issue of S2R until its value can be used (not measured).
    s2r_latency: u32 = 20, 1, 256;
    /// Cycles from issue of a taken branch until the warp's next instruction
    /// can issue (not measured).
    branch_latency: u32 = 4, 0, 64;
    /// Bytes of the SM's instruction cache, in 64-byte groups (not published;
    /// 8 KB assumed).
    icache_bytes: u32 = 8192, 64, 1 << 20;
    /// Cycles to fetch a group that misses the instruction cache (not
    /// measured; assumed).
    icache_miss_latency: u32 = 40, 0, 4096;
    /// Bytes of L2 (a K20m's 1280 KB, as its deviceQuery reports).
    l2_bytes: u32 = 1310720, 1024, 1 << 30;
    /// L2 associativity (not published; 16 assumed).
    l2_ways: u32 = 16, 1, 64;
    /// L2 line, bytes (128; a power of two).
    l2_line: u32 = 128, 32, 256;
    /// How a line's address picks its L2 set (not published): 0 the line
    /// address modulo the sets; 1 the same after the address's bits above
    /// the index are folded onto it by exclusive or (a hash).
    l2_set_hash: u32 = 0, 0, 1;
    /// Cycles from an SM's request to an L2 hit's data back, for LD/ST/ATOM
    /// (measured: 188 for a dependent global load that hits L2 on a Kepler
    /// GK110, Arafa et al., HPEC 2019, arXiv:1905.08778).
    l2_latency: u32 = 188, 1, 4096;
    /// L2 bytes per cycle, the whole chip (not measured; assumed, above what
    /// any microbenchmark here needs).
    l2_bytes_per_cycle: u32 = 512, 16, 8192;
    /// Extra cycles of a DRAM access beyond the L2's (measured, same source:
    /// 331 for a dependent global load that misses L2, less the hit's 188).
    dram_latency: u32 = 143, 1, 4096;
    /// DRAM bandwidth, bytes per core cycle, the whole chip (data sheet: 208
    /// GB/s at 705 MHz = 295).
    dram_bytes_per_cycle: f64 = 295.0, 1.0, 10000.0;
    /// Cycles an `LDG.E.128` (512 bytes a warp) holds its scheduler's
    /// dispatch, its own issue cycle included; a narrower LDG in proportion
    /// to its bytes (fitted: the paper's about 10 issue cycles one LDG.128
    /// costs a dense FFMA loop).
    ldg_issue_cycles: u32 = 10, 0, 64;
    /// What an LDG's `ldg_issue_cycles` hold: 0 its scheduler's dispatch
    /// (no warp of the scheduler issues meanwhile), 1 its own warp alone
    /// (the scheduler's other warps issue). Not measured: the paper's
    /// figure is one warp's, under which the two are the same.
    ldg_hold_scope: u32 = 0, 0, 1;
    /// Cycles from an LDG's issue to its data for an L2 hit, through the
    /// read-only cache (~120 as the tuned kernel's scheduling uses it).
    ldg_latency: u32 = 120, 1, 4096;
    /// Bytes of the SM's read-only (texture) cache that LDG reads through
    /// (data sheet: 48 KB).
    ldg_cache_bytes: u32 = 49152, 128, 1 << 20;
    /// Its associativity (not published; 4 assumed).
    ldg_cache_ways: u32 = 4, 1, 64;
    /// Cycles from an LDG's issue to its data when every line hits the
    /// read-only cache (not measured; assumed).
    ldg_cache_latency: u32 = 60, 1, 4096;
    /// Outstanding L2 line requests per SM for LD/ST (fitted by the LD.128
    /// streaming read, 76 GB/s, with `l2_latency` and `dram_latency`).
    ld_outstanding: u32 = 21, 1, 4096;
    /// Outstanding line requests per SM on the read-only path (fitted by the
    /// LDG.128 streaming read, 131 GB/s, with `ldg_latency` at 120).
    ldg_outstanding: u32 = 29, 1, 4096;
    /// Register allocation unit per warp, registers (CUDA occupancy
    /// calculator, cc 3.5: 256).
    register_unit: u32 = 256, 1, 65536;
    /// Shared memory allocation unit per block, bytes (cc 3.5: 256).
    shared_unit: u32 = 256, 1, 65536;
}

/// A configuration file as written: every field may be left out.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    #[serde(default)]
    pub chip: RawChip,
    #[serde(default)]
    pub timing: RawTiming,
}

/// Sets a field of the chip section as a command line writes it.
macro_rules! chip_fields {
    ($($name:ident),* $(,)?) => {
        impl RawChip {
            const NAMES: &'static [&'static str] = &[$( stringify!($name), )*];

            fn set(&mut self, name: &str, value: &str) -> Option<Result<(), String>> {
                match name {
                    $( stringify!($name) => Some(parse_value(value).map(|v| {
                        self.$name = Some(v);
                    })), )*
                    _ => None,
                }
            }
        }
    };
}

chip_fields!(
    sms,
    clock_mhz,
    max_threads_per_block,
    max_threads_per_sm,
    max_blocks_per_sm,
    registers_per_sm,
    max_registers_per_thread,
    shared_per_sm,
    shared_per_block,
);

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

/// A field given on a command line, after the configuration file:
/// `timing.issue_interval=2` (`--param`). The section may be left out when
/// the name is the field's alone (`issue_interval=2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// `timing.issue_interval`.
    pub field: String,
    /// As written: `2`.
    pub value: String,
}

impl std::str::FromStr for Param {
    type Err = String;

    /// Reads `FIELD=VALUE`, naming the field in full (`chip.` or `timing.`);
    /// the value is checked when the configuration is built.
    fn from_str(s: &str) -> Result<Param, String> {
        let Some((name, value)) = s.split_once('=') else {
            return Err(format!(
                "`{s}`: expected FIELD=VALUE (`timing.issue_interval=2`)"
            ));
        };
        let name = name.trim();
        let (section, field) = match name.split_once('.') {
            Some((section, field)) => (section, field),
            None if RawTiming::NAMES.contains(&name) => ("timing", name),
            None if RawChip::NAMES.contains(&name) => ("chip", name),
            None => ("", name),
        };
        let names = match section {
            "timing" => RawTiming::NAMES,
            "chip" => RawChip::NAMES,
            _ if field == name => {
                return Err(match nearest(name) {
                    Some(n) => format!(
                        "`{name}` is no field of the configuration (did you mean `{n}`?)"
                    ),
                    None => format!(
                        "`{name}` is no field of the configuration (`chip.` and `timing.` list theirs in configs/k20m.ron)"
                    ),
                })
            }
            _ => {
                return Err(format!(
                    "`{name}`: the configuration has two sections, `chip` and `timing`"
                ))
            }
        };
        if !names.contains(&field) {
            return Err(format!(
                "`{name}`: `{section}` has no field `{field}` (it has: {})",
                names.join(", ")
            ));
        }
        Ok(Param {
            field: format!("{section}.{field}"),
            value: value.trim().to_string(),
        })
    }
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.field, self.value)
    }
}

/// The field, in full, whose name is nearest `name` by a typo or two
/// (at most two letters added, dropped or changed), if one is.
fn nearest(name: &str) -> Option<String> {
    let fields = RawTiming::NAMES
        .iter()
        .map(|f| ("timing", f))
        .chain(RawChip::NAMES.iter().map(|f| ("chip", f)));
    fields
        .map(|(section, f)| {
            (
                sim_isa::encode::edit_distance(name, f),
                format!("{section}.{f}"),
            )
        })
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, f)| f)
}

/// `value` read as a field of type `T`, or why it is not one.
fn parse_value<T: std::str::FromStr>(value: &str) -> Result<T, String> {
    value.trim().parse::<T>().map_err(|_| {
        let what = if std::any::type_name::<T>() == "f64" {
            "a number"
        } else {
            "a whole number, 0 or more"
        };
        format!("`{value}` is not {what}")
    })
}

/// A configuration that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {field}: {why}", if *line > 0 { format!(":{line}") } else { String::new() })]
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
        Config::validate(&Config::read(text, file)?, text, file)
    }

    /// The file as written, every field optional.
    fn read(text: &str, file: &str) -> Result<RawConfig, ConfigError> {
        let opts = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let raw: RawConfig = opts.from_str(text).map_err(|e| ConfigError {
            file: file.into(),
            line: e.position.line,
            field: "(syntax)".into(),
            why: crate::ron_text::describe(&e.code, |name| match name {
                "RawConfig" => Some("the file"),
                "RawChip" => Some("`chip`"),
                "RawTiming" => Some("`timing`"),
                _ => None,
            }),
        })?;
        Ok(raw)
    }

    /// [`Config::parse`] of `text` (none: the K20m), then each of `params`
    /// set over it, in order. An error in a value a parameter set names
    /// the parameter (`--param timing.issue_interval=0: ...`), not the file.
    pub fn parse_with(
        text: Option<&str>,
        file: &str,
        params: &[Param],
    ) -> Result<Config, ConfigError> {
        let Some(text) = text else {
            return Config::with(RawConfig::default(), "", file, params);
        };
        let raw = Config::read(text, file)?;
        // The file alone must be good: its own errors point into it.
        let alone = Config::validate(&raw, text, file)?;
        if params.is_empty() {
            return Ok(alone);
        }
        Config::with(raw, text, file, params)
    }

    fn with(
        mut raw: RawConfig,
        text: &str,
        file: &str,
        params: &[Param],
    ) -> Result<Config, ConfigError> {
        let at = |p: &Param, why: String| ConfigError {
            file: format!("--param {p}"),
            line: 0,
            field: p.field.clone(),
            why,
        };
        for p in params {
            let set = match p.field.split_once('.') {
                Some(("timing", f)) => raw.timing.set(f, &p.value),
                Some(("chip", f)) => raw.chip.set(f, &p.value),
                _ => None,
            };
            match set {
                Some(Ok(())) => {}
                Some(Err(why)) => return Err(at(p, why)),
                None => return Err(at(p, "no such field".into())),
            }
        }
        Config::validate(&raw, text, file).map_err(|e| {
            // The last parameter that set the field the error is about, or
            // the other field of a bound it broke.
            let names = |p: &&Param| {
                let short = p.field.split_once('.').map_or("", |(_, f)| f);
                e.why
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|w| w == short)
            };
            match params.iter().rev().find(|p| p.field == e.field) {
                Some(p) => at(p, e.why),
                None => match params.iter().rev().find(names) {
                    Some(p) => ConfigError {
                        file: format!("--param {p}"),
                        line: 0,
                        ..e
                    },
                    None => e,
                },
            }
        })
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
        // A bound broken by two fields is told at the one the file writes
        // (the block's, when it writes both).
        let bound = |block: &str, bv: u32, written: bool, sm: &str, sv: u32| {
            if written || line_of(text, sm) == 0 {
                err(block, format!("{bv} is more than {sm} ({sv})"))
            } else {
                err(
                    sm,
                    format!("{sv} is less than {block} ({bv}, the K20m's: lower it too)"),
                )
            }
        };
        if chip.max_threads_per_block > chip.max_threads_per_sm {
            return Err(bound(
                "max_threads_per_block",
                chip.max_threads_per_block,
                r.max_threads_per_block.is_some(),
                "max_threads_per_sm",
                chip.max_threads_per_sm,
            ));
        }
        if chip.shared_per_block > chip.shared_per_sm {
            return Err(bound(
                "shared_per_block",
                chip.shared_per_block,
                r.shared_per_block.is_some(),
                "shared_per_sm",
                chip.shared_per_sm,
            ));
        }
        let timing = raw.timing.validate(text, file)?;
        // Sizes the model takes as a power of two (an address's line is its
        // bits above the line size), or as one of a few widths.
        let terr = |field: &str, why: String| ConfigError {
            file: file.into(),
            line: line_of(text, field),
            field: format!("timing.{field}"),
            why,
        };
        if !timing.l2_line.is_power_of_two() {
            return Err(terr(
                "l2_line",
                format!(
                    "{} bytes is not a power of two (32, 64, 128 or 256)",
                    timing.l2_line
                ),
            ));
        }
        if !matches!(timing.shared_bank_bytes, 4 | 8) {
            return Err(terr(
                "shared_bank_bytes",
                format!(
                    "{} bytes: a bank is 4 or 8 bytes wide",
                    timing.shared_bank_bytes
                ),
            ));
        }
        if timing.shared_min_cycles > timing.shared_cycles_per_transaction {
            return Err(ConfigError {
                file: file.into(),
                line: line_of(text, "shared_min_cycles"),
                field: "timing.shared_min_cycles".into(),
                why: format!(
                    "{} is more than shared_cycles_per_transaction ({}): a share of a transaction cannot take longer than a whole one",
                    timing.shared_min_cycles, timing.shared_cycles_per_transaction
                ),
            });
        }
        Ok(Config { chip, timing })
    }
}

/// The 1-based line where `field:` is written (at the start of a line, or
/// after other fields on it: `(timing: (sms: 2))`), or 0.
fn line_of(text: &str, field: &str) -> usize {
    let key = format!("{field}:");
    let names_it = |l: &str| {
        let code = l.split("//").next().unwrap_or("");
        code.match_indices(&key).any(|(at, _)| {
            !code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    text.lines().position(names_it).map_or(0, |i| i + 1)
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
        // A field written after others on its line is found there, and a
        // name that only ends with it is not it.
        let e = Config::parse(
            "(\n timing: (shared_min_cycles: 1.0, alu_latency: 0),\n)",
            "x.ron",
        )
        .unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "timing.alu_latency"), "{e}");
        assert_eq!(line_of("(\n alu_latency: 1,\n)", "latency"), 0);
        assert_eq!(line_of("(sms: 1) // latency: 3", "latency"), 0);
        let e = Config::parse("(\n chip: (\n  smz: 3,\n ),\n)", "x.ron").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.why
                .starts_with("unknown field `smz` in `chip`: the fields are `sms`, "),
            "{e}"
        );
        let e = Config::parse("(timming: ())", "x.ron").unwrap_err();
        assert_eq!(
            e.why, "unknown field `timming` in the file: the fields are `chip`, `timing`",
            "{e}"
        );
        let e = Config::parse(
            "(chip: (max_threads_per_block: 1024, max_threads_per_sm: 512))",
            "x.ron",
        )
        .unwrap_err();
        assert!(e.why.contains("more than max_threads_per_sm"), "{e}");
        // Only the SM's limit written: the error is told there.
        let e = Config::parse("(\n chip: (\n  shared_per_sm: 0,\n ),\n)", "x.ron").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.ron:3: chip.shared_per_sm: 0 is less than shared_per_block (49152, the K20m's: lower it too)"
        );
        let e = Config::parse("(timing: (\n shared_min_cycles: 64.0,\n))", "x.ron").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "timing.shared_min_cycles"));
        assert!(
            e.why
                .starts_with("64 is more than shared_cycles_per_transaction (1.317)"),
            "{e}"
        );
        // Sizes the model needs as a power of two, or as a bank width.
        let e = Config::parse("(timing: (\n l2_line: 100,\n))", "x.ron").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.ron:2: timing.l2_line: 100 bytes is not a power of two (32, 64, 128 or 256)"
        );
        let e = Config::parse("(timing: (shared_bank_bytes: 6))", "x.ron").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.ron:1: timing.shared_bank_bytes: 6 bytes: a bank is 4 or 8 bytes wide"
        );
        for ok in [
            "(timing: (l2_line: 64))",
            "(timing: (shared_bank_bytes: 4))",
        ] {
            assert!(Config::parse(ok, "x.ron").is_ok(), "{ok}");
        }
    }

    #[test]
    fn the_shipped_file_documents_every_timing_parameter() {
        let text = include_str!("../../configs/k20m.ron");
        let fields = format!("{:?}", Timing::K20M);
        for f in fields
            .split(['{', ','])
            .filter_map(|p| p.split(':').next())
            .map(str::trim)
        {
            if f.is_empty() || f.starts_with("Timing") {
                continue;
            }
            let line = line_of(text, f);
            assert!(line > 0, "configs/k20m.ron does not write timing.{f}");
            let before = text.lines().nth(line - 2).unwrap_or("");
            assert!(
                before.trim_start().starts_with("//"),
                "timing.{f} has no comment above it"
            );
        }
    }

    fn params(list: &[&str]) -> Vec<Param> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn a_param_sets_its_field_over_the_file_as_the_file_would() {
        // Each field set on the command line gives the configuration a file
        // writing it gives.
        let by_param = Config::parse_with(
            None,
            "(the K20m)",
            &params(&["timing.issue_interval=2", "alu_latency=10", "chip.sms=4"]),
        )
        .unwrap();
        let by_file = Config::parse(
            "(chip: (sms: 4), timing: (issue_interval: 2, alu_latency: 10))",
            "x.ron",
        )
        .unwrap();
        assert_eq!(by_param, by_file);
        assert_ne!(by_param, Config::default());
        // Over a file, and the last of two settings wins.
        let c = Config::parse_with(
            Some("(timing: (reuse_warps: 0))"),
            "x.ron",
            &params(&["reuse_warps=4", "conflict_2way=0.5", "reuse_warps=3"]),
        )
        .unwrap();
        assert_eq!((c.timing.reuse_warps, c.timing.conflict_2way), (3, 0.5));
        assert_eq!(c.chip, Chip::K20M);
        // Every parameter can be set, to its K20m value, as named.
        for &(name, _, _) in Timing::LIMITS {
            let value = format!("{:?}", Timing::K20M)
                .split([',', '{', '}'])
                .find_map(|f| {
                    f.trim()
                        .strip_prefix(&format!("{name}: "))
                        .map(String::from)
                })
                .unwrap();
            let p = params(&[&format!("timing.{name}={value}")]);
            assert_eq!(
                Config::parse_with(None, "(the K20m)", &p),
                Ok(Config::default()),
                "{name}"
            );
        }
    }

    #[test]
    fn a_bad_param_is_refused_by_name() {
        let bad = |s: &str| s.parse::<Param>().unwrap_err();
        assert_eq!(
            bad("issue_interval"),
            "`issue_interval`: expected FIELD=VALUE (`timing.issue_interval=2`)"
        );
        assert!(
            bad("timing.issue_intervall=2").starts_with(
                "`timing.issue_intervall`: `timing` has no field `issue_intervall` (it has: schedulers, policy,"
            ),
            "{}",
            bad("timing.issue_intervall=2")
        );
        assert!(bad("chip.issue_interval=2").contains("`chip` has no field"));
        assert_eq!(
            bad("speed=2"),
            "`speed` is no field of the configuration (`chip.` and `timing.` list theirs in configs/k20m.ron)"
        );
        // A typo or two away from a field: that one.
        assert_eq!(
            bad("issue_intervl=2"),
            "`issue_intervl` is no field of the configuration (did you mean `timing.issue_interval`?)"
        );
        assert_eq!(
            bad("sm=2"),
            "`sm` is no field of the configuration (did you mean `chip.sms`?)"
        );
        assert_eq!(
            bad("gpu.sms=2"),
            "`gpu.sms`: the configuration has two sections, `chip` and `timing`"
        );
        let err = |list: &[&str]| {
            Config::parse_with(None, "(the K20m)", &params(list))
                .unwrap_err()
                .to_string()
        };
        for (param, want) in [
            (
                "timing.issue_interval=x",
                "--param timing.issue_interval=x: timing.issue_interval: `x` is not a whole number, 0 or more",
            ),
            (
                "sms=-1",
                "--param chip.sms=-1: chip.sms: `-1` is not a whole number, 0 or more",
            ),
            (
                "clock_mhz=fast",
                "--param chip.clock_mhz=fast: chip.clock_mhz: `fast` is not a number",
            ),
            (
                "timing.issue_interval=0",
                "--param timing.issue_interval=0: timing.issue_interval: 0 is outside 1..=16",
            ),
            (
                "conflict_2way=NaN",
                "--param timing.conflict_2way=NaN: timing.conflict_2way: NaN is outside 0..=4",
            ),
            // A bound between two fields names the parameter that broke it.
            (
                "chip.shared_per_sm=0",
                "--param chip.shared_per_sm=0: chip.shared_per_block: 49152 is more than shared_per_sm (0)",
            ),
        ] {
            assert_eq!(err(&[param]), want);
        }
        assert!(
            err(&["shared_min_cycles=2"]).starts_with(
                "--param timing.shared_min_cycles=2: timing.shared_min_cycles: 2 is more than"
            ),
            "{}",
            err(&["shared_min_cycles=2"])
        );
        // The file's own errors still point into it.
        let e = Config::parse_with(
            Some("(\n timing: (alu_latency: 0),\n)"),
            "x.ron",
            &params(&["alu_latency=11"]),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.ron:2: timing.alu_latency: 0 is outside 1..=64"
        );
    }

    #[test]
    fn fields_left_out_are_the_k20m() {
        let c = Config::parse("(chip: (sms: 2))", "x.ron").unwrap();
        assert_eq!(c.chip.sms, 2);
        assert_eq!(c.chip.clock_mhz, 705.0);
        assert_eq!(Config::parse("()", "x.ron").unwrap(), Config::default());
    }
}
