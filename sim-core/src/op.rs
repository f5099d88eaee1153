//! The lowered instruction: what the executor runs for one instruction slot.
//!
//! Lowering (`lower.rs`) reads each instruction's text once, when a kernel is
//! loaded, and settles everything a per-warp execution would otherwise have to
//! work out again: which operation, which modifiers, which operands and where
//! they come from. An [`Op`] is small and `Copy`, so the hot loop never allocates.

/// Where a source operand's 32 bits come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// Nothing (an absent operand reads as zero).
    None,
    /// A register; 255 is RZ.
    Reg(u8),
    /// An immediate: the 32-bit value (for double instructions, the high word).
    Imm(u32),
    /// `c[bank][offset]`.
    Const { bank: u8, offset: u32 },
    /// `c[bank][reg+offset]`.
    ConstIdx { bank: u8, reg: u8, offset: i32 },
    /// A predicate (7 is PT), for predicate sources.
    Pred(u8),
}

/// A source operand with its decorations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    pub src: Src,
    /// `-x` (arithmetic negation; `.X` additions: one's complement).
    pub neg: bool,
    /// `|x|`.
    pub abs: bool,
    /// `!p` or `~x`.
    pub not: bool,
    /// A byte/half selector (`.B2` = 2, `.H1` = 1), for the video and PRMT forms.
    pub sel: u8,
}

impl Operand {
    pub const NONE: Operand = Operand {
        src: Src::None,
        neg: false,
        abs: false,
        not: false,
        sel: 0,
    };
}

/// Comparison of a set-predicate or select instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Ne,
    Ge,
    T,
    /// Float compares: the ordered ones above are false when either is NaN; these
    /// "unordered" ones are true then.
    Num,
    Nan,
    Ltu,
    Equ,
    Leu,
    Gtu,
    Neu,
    Geu,
}

/// How a set-predicate instruction combines its result with its last predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Floating-point rounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rm,
    Rp,
    Rz,
}

/// Memory access width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    U8,
    S8,
    U16,
    S16,
    B32,
    B64,
    B128,
}

impl Width {
    /// Bytes per thread.
    pub fn bytes(self) -> u32 {
        match self {
            Width::U8 | Width::S8 => 1,
            Width::U16 | Width::S16 => 2,
            Width::B32 => 4,
            Width::B64 => 8,
            Width::B128 => 16,
        }
    }
    /// Registers it fills.
    pub fn regs(self) -> u32 {
        (self.bytes() / 4).max(1)
    }
}

/// The memory space of a load, store or atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// Generic addressing (`LD`/`ST`): global, or the shared or local window.
    Generic,
    /// `LDG`: global through the read-only path.
    GlobalRo,
    Shared,
    Local,
}

/// An atomic operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// The type an atomic works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomType {
    U32,
    S32,
    U64,
    /// Signed 64-bit (`ATOM.E.MIN.S64`): only min and max differ from `U64`.
    S64,
    F32,
}

/// A multi-function unit operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MufuFn {
    Cos,
    Sin,
    Ex2,
    Lg2,
    Rcp,
    Rsq,
    Rcp64h,
    Rsq64h,
}

/// A numeric type of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
    F16,
    F32,
    F64,
}

impl NumType {
    pub fn is_float(self) -> bool {
        matches!(self, NumType::F16 | NumType::F32 | NumType::F64)
    }
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            NumType::S8 | NumType::S16 | NumType::S32 | NumType::S64
        )
    }
    pub fn bits(self) -> u32 {
        match self {
            NumType::U8 | NumType::S8 => 8,
            NumType::U16 | NumType::S16 | NumType::F16 => 16,
            NumType::U32 | NumType::S32 | NumType::F32 => 32,
            NumType::U64 | NumType::S64 | NumType::F64 => 64,
        }
    }
}

/// Rounding to an integer value in a float-to-float or float-to-int conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntRnd {
    /// No rounding to integer (F2F): the conversion's `Rnd` applies.
    None,
    Round,
    Floor,
    Ceil,
    Trunc,
}

/// The shuffle modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

/// The vote modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Eq,
}

/// Special registers (`S2R`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SReg {
    LaneId,
    TidX,
    TidY,
    TidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NtidX,
    NtidY,
    NtidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    /// `SR_TID`: x | y << 16 | z << 26.
    Tid,
    ClockLo,
    ClockHi,
    Clock64Lo,
    SmId,
    WarpId,
    NWarpId,
    GridId,
    LaneMaskEq,
    LaneMaskLt,
    LaneMaskLe,
    LaneMaskGt,
    LaneMaskGe,
    /// `SR_VIRTCFG`: bits 20..28 the number of SMs (`%nsmid`, ptxas extracts
    /// it with `BFE.U32 0x914`).
    VirtCfg,
    /// `SR_VIRTID`: bits 20..28 the SM (`%smid`), bits 8..13 the warp's slot on
    /// it (`%warpid`).
    VirtId,
    /// `SR_SMEMSZ`: the block's shared memory, bytes.
    SmemSz,
    Zero,
}

/// What an instruction does. Modifiers that change the computation are part of
/// the variant; operands are in [`Op::src`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// The control word's slot; never executed.
    Control,
    /// An instruction the simulator does not execute; running it is an error.
    Unsupported,
    Nop,
    /// `IADD`, `IADD32I`: a + b (+ carry with `.X`); `.SAT` saturates signed.
    IAdd {
        x: bool,
        sat: bool,
    },
    /// `ISCADD`: (a << shift) + b.
    IScAdd {
        shift: u8,
    },
    /// `IMUL`, `IMUL32I`, `IMAD`, `IMAD32I`: a * b (+ c). `hi` gives the high
    /// word of the 64-bit product.
    IMad {
        sa: bool,
        sb: bool,
        hi: bool,
        x: bool,
        sat: bool,
        mad: bool,
    },
    /// `IMADSP`: a * b + c on sub-words: each of a, b, c is taken as the type
    /// its modifier names (`U24`, `S24`, `U16H0`, `S16H0`, `U16H1`, `S16H1`,
    /// `U32`, `S32`).
    IMadSp {
        ta: SubWord,
        tb: SubWord,
        tc: SubWord,
    },
    /// `ISAD`: |a - b| + c.
    ISad {
        signed: bool,
    },
    /// `IMNMX`: min when the predicate source is true, else max. A 64-bit
    /// min/max is `IMNMX.XHI Rh.CC` on the high words (its condition code says
    /// whether they were equal and which was chosen), then `IMNMX.U32.XLO` on the
    /// low words, which follows that choice or, if equal, compares them.
    IMnMx {
        signed: bool,
        xlo: bool,
        xhi: bool,
    },
    /// `ISETP`: compare, combine with a predicate, write two predicates.
    ISetP {
        cmp: Cmp,
        signed: bool,
        x: bool,
        bop: BoolOp,
    },
    /// `ISET`: compare, combine, write all ones (or 1.0 with `.BF`) or zero.
    ISet {
        cmp: Cmp,
        signed: bool,
        x: bool,
        bop: BoolOp,
        bf: bool,
    },
    /// `ICMP`: d = (c cmp 0) ? a : b.
    ICmp {
        cmp: Cmp,
        signed: bool,
    },
    /// `LOP`, `LOP32I`: bitwise op; `op` 0 AND, 1 OR, 2 XOR, 3 PASS_B.
    Lop {
        op: u8,
    },
    /// `SHL` (`.W`: shift amount modulo 32, else clamped).
    Shl {
        wrap: bool,
    },
    /// `SHR` (`.U32` logical, else arithmetic).
    Shr {
        signed: bool,
        wrap: bool,
    },
    /// `SHF.L`/`SHF.R`: funnel shift of the 64-bit pair (c:a). `SHF.L` gives the
    /// high word, `SHF.R` the low word (`.HI`: the high word). Shift amounts clamp
    /// at 32 (`.U64`/`.S64`: 64) or, with `.W`, wrap; `.S64` shifts in sign bits.
    Shf {
        right: bool,
        wrap: bool,
        hi: bool,
        wide: bool,
        signed: bool,
    },
    /// `BFE`: extract `len` bits at `pos` (from b = pos | len << 8).
    Bfe {
        signed: bool,
        brev: bool,
    },
    /// `BFI`: insert a into c at b's position/length.
    Bfi,
    /// `POPC`: population count of (a & b).
    Popc,
    /// `FLO`: position of the highest set bit (`.SH`: shift amount).
    Flo {
        signed: bool,
        sh: bool,
    },
    /// `PRMT`: byte permute of (b, a) by c's selectors, in a mode.
    Prmt {
        mode: u8,
    },
    /// `SEL`: predicate ? a : b.
    Sel,
    /// `MOV`, `MOV32I`.
    Mov,
    /// `FADD`, `FADD32I`.
    FAdd {
        ftz: bool,
        sat: bool,
        rnd: Rnd,
    },
    /// `FMUL`, `FMUL32I`.
    FMul {
        ftz: bool,
        sat: bool,
        rnd: Rnd,
    },
    /// `FFMA`, `FFMA32I`.
    FFma {
        ftz: bool,
        sat: bool,
        rnd: Rnd,
    },
    /// `FMNMX`.
    FMnMx {
        ftz: bool,
    },
    /// `FSETP`.
    FSetP {
        cmp: Cmp,
        ftz: bool,
        bop: BoolOp,
    },
    /// `FSET`.
    FSet {
        cmp: Cmp,
        ftz: bool,
        bop: BoolOp,
        bf: bool,
    },
    /// `FCMP`: d = (c cmp 0.0) ? a : b.
    FCmp {
        cmp: Cmp,
        ftz: bool,
    },
    /// `MUFU`.
    Mufu {
        f: MufuFn,
    },
    /// `RRO`: range reduction before SIN/COS/EX2; `ex2` picks which.
    Rro {
        ex2: bool,
    },
    /// `DADD`.
    DAdd {
        rnd: Rnd,
    },
    /// `DMUL`.
    DMul {
        rnd: Rnd,
    },
    /// `DFMA`.
    DFma {
        rnd: Rnd,
    },
    /// `DMNMX`.
    DMnMx,
    /// `DSETP`.
    DSetP {
        cmp: Cmp,
        bop: BoolOp,
    },
    /// `DSET`.
    DSet {
        cmp: Cmp,
        bop: BoolOp,
        bf: bool,
    },
    /// `F2F`: float to float, optionally rounding to an integral value.
    F2F {
        dt: NumType,
        st: NumType,
        rnd: Rnd,
        irnd: IntRnd,
        ftz: bool,
        sat: bool,
    },
    /// `F2I`.
    F2I {
        dt: NumType,
        st: NumType,
        irnd: IntRnd,
        ftz: bool,
    },
    /// `I2F`.
    I2F {
        dt: NumType,
        st: NumType,
        rnd: Rnd,
    },
    /// `I2I`.
    I2I {
        dt: NumType,
        st: NumType,
        sat: bool,
    },
    /// `PSETP`: combine predicates.
    PSetP {
        bop1: BoolOp,
        bop2: BoolOp,
    },
    /// `P2R`: predicates to a register (masked by b).
    P2R,
    /// `R2P`: a register's bits to predicates (masked by b).
    R2P,
    /// `CSETP`: test the condition code.
    CSetP {
        test: CcTest,
        bop: BoolOp,
    },
    /// `FCHK.DIVIDE`: true where a / b is outside the range the fast division
    /// sequence (reciprocal, Newton step, FFMA correction) rounds correctly.
    FChk,
    /// `LDSLK`: load a shared word (`.64`: a register pair) and try to take its
    /// lock (predicate: taken).
    LdsLk {
        wide: bool,
    },
    /// `STSCUL`: store to a shared word (`.64`: a pair) whose lock the thread
    /// holds, and release it.
    StsCul {
        wide: bool,
    },
    /// `S2R`.
    S2R {
        sr: SReg,
    },
    /// `SHFL`.
    Shfl {
        mode: ShflMode,
    },
    /// `VOTE`.
    Vote {
        mode: VoteMode,
    },
    /// Loads: `LD`, `LDG`, `LDS`, `LDL`; `LDC` is [`Kind::Ldc`].
    Ld {
        space: Space,
        w: Width,
    },
    /// Stores: `ST`, `STS`, `STL`.
    St {
        space: Space,
        w: Width,
    },
    /// `LDC`: a constant-bank load with a register index.
    Ldc {
        w: Width,
    },
    /// `ATOM` (returns the old value), `RED` (does not), `ATOMS`.
    Atom {
        space: Space,
        op: AtomOp,
        ty: AtomType,
        ret: bool,
    },
    /// `BRA` (a `.U` branch is the same to the functional model), taken where the
    /// guard holds and the condition-code test `cc` passes.
    Bra {
        cc: CcTest,
    },
    /// `BRX`: indirect, register + offset.
    Brx,
    /// `SSY`: push a reconvergence point.
    Ssy,
    /// `PBK`: push a break point.
    Pbk,
    /// `PCNT`: push a continue point.
    Pcnt,
    /// `PRET`: push a return point.
    Pret,
    /// `BRK`.
    Brk,
    /// `CONT`.
    Cont,
    /// `CAL`, `JCAL`.
    Cal,
    /// `RET`.
    Ret,
    /// `EXIT`.
    Exit,
    /// `BAR.SYNC`, `BAR.ARV`: barrier `id` (b), thread count (c).
    Bar {
        arrive_only: bool,
    },
    /// `BAR.RED.POPC/AND/OR id[, count], P`: a barrier that also reduces a
    /// predicate over the block; `B2R.RESULT` reads the result.
    BarRed {
        red: BarRed,
    },
    /// `B2R.RESULT Rd, P`: the last barrier reduction's result to a register and
    /// (as non-zero) a predicate.
    B2R,
    /// Fences and dependency barriers: no functional effect.
    Fence,
}

/// How `BAR.RED` combines the block's predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarRed {
    Popc,
    And,
    Or,
}

/// A sub-word operand type of `IMADSP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubWord {
    U32,
    S32,
    U24,
    S24,
    U16H0,
    S16H0,
    U16H1,
    S16H1,
}

impl SubWord {
    /// The operand's value as that type.
    #[inline]
    pub fn take(self, x: u32) -> i64 {
        match self {
            SubWord::U32 => x as i64,
            SubWord::S32 => x as i32 as i64,
            SubWord::U24 => (x & 0xff_ffff) as i64,
            SubWord::S24 => (((x << 8) as i32) >> 8) as i64,
            SubWord::U16H0 => (x & 0xffff) as i64,
            SubWord::S16H0 => x as u16 as i16 as i64,
            SubWord::U16H1 => (x >> 16) as i64,
            SubWord::S16H1 => (x >> 16) as u16 as i16 as i64,
        }
    }
}

/// A test of the condition code (`BRA CC.NEU`, `CSETP`): flags zero, sign,
/// carry and overflow as an integer compare with zero would set them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CcTest {
    T,
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Ne,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Off,
    Oft,
    Sff,
    Sft,
    Cff,
    Cft,
}

/// One instruction, ready to run.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    pub kind: Kind,
    /// Guard predicate (7 = PT) and whether it is negated.
    pub guard: (u8, bool),
    /// First destination: a register (255 = RZ) or, for set-predicate forms, a
    /// predicate.
    pub d0: u8,
    /// Second destination (the second predicate of `ISETP`, ...), else 7/255.
    pub d1: u8,
    /// `d0` names a predicate, not a register: the instruction's first operand
    /// is a predicate written (set-predicate forms, `FCHK`), and it writes no
    /// register. Set where lowering reads that operand as a predicate.
    pub pred_dst: bool,
    pub src: [Operand; 4],
    /// Writes the condition code (`.CC` on the destination).
    pub cc: bool,
    /// `.S`: reconverge after this instruction.
    pub sync: bool,
    /// Branch/push target as an instruction slot (byte address / 8); memory
    /// offsets live in `imm`.
    pub target: u32,
    /// A memory operand's byte offset, a shift amount, a barrier's id...
    pub imm: i64,
}

impl Op {
    /// A slot that holds no executable instruction.
    pub const fn filler(kind: Kind) -> Op {
        Op {
            kind,
            guard: (7, false),
            d0: 255,
            d1: 7,
            pred_dst: false,
            src: [Operand::NONE; 4],
            cc: false,
            sync: false,
            target: 0,
            imm: 0,
        }
    }
}
