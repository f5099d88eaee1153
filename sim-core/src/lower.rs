//! Lowering: an instruction's syntax to the [`Op`] the executor runs.
//!
//! Operand order follows nvdisasm's text (destinations first). Anything this
//! does not recognise becomes [`Kind::Unsupported`] with the reason: a kernel
//! that holds such an instruction still loads, and executing it is an error
//! that names the instruction.

use sim_isa::render::Value;

use crate::op::*;
use crate::sass::{OpndKind, Syntax};

/// Lowers one instruction's syntax. `float_bits` are the exact bits of its float
/// immediates in text order (from the decoded fields); `addr` is its byte
/// address (branch targets are absolute already).
pub fn lower(s: &Syntax, float_bits: &[Value]) -> Result<Op, String> {
    let mut op = Op::filler(Kind::Nop);
    if let Some((p, n)) = s.guard {
        op.guard = (p, n);
    }
    let m = |x: &str| s.has(x);
    op.sync = m("S");
    let mut fl = float_bits.iter();
    // Convert the operands (beyond destinations, which each arm picks).
    let ops = &s.operands;
    let mut conv = |i: usize| -> Result<Operand, String> {
        let o = ops
            .get(i)
            .ok_or_else(|| format!("operand {} missing", i + 1))?;
        let sel = o
            .suffix
            .iter()
            .find_map(|x| match x.as_str() {
                "B0" | "H0" => Some(0),
                "B1" | "H1" => Some(1),
                "B2" => Some(2),
                "B3" => Some(3),
                _ => None,
            })
            .unwrap_or(0);
        let src = match &o.kind {
            OpndKind::Reg(r) => Src::Reg(*r),
            OpndKind::Pred(p) => Src::Pred(*p),
            OpndKind::Int(v) => Src::Imm(*v as u32),
            OpndKind::Float(f) => match fl.next() {
                Some(Value::F32(b)) => Src::Imm(*b),
                Some(Value::F64(b)) => Src::Imm((*b >> 32) as u32),
                _ => Src::Imm((*f as f32).to_bits()),
            },
            OpndKind::CBank { bank, offset } => Src::Const {
                bank: *bank,
                offset: *offset as u32,
            },
            OpndKind::CIndex { bank, reg, offset } => Src::ConstIdx {
                bank: *bank,
                reg: *reg,
                offset: *offset as i32,
            },
            other => return Err(format!("unexpected operand `{other}`")),
        };
        Ok(Operand {
            src,
            neg: o.neg,
            abs: o.abs,
            not: o.not,
            sel,
        })
    };
    let reg = |i: usize| -> Result<u8, String> {
        match ops.get(i).map(|o| &o.kind) {
            Some(OpndKind::Reg(r)) => Ok(*r),
            other => Err(format!(
                "operand {} should be a register, is {other:?}",
                i + 1
            )),
        }
    };
    let pred = |i: usize| -> Result<u8, String> {
        match ops.get(i).map(|o| &o.kind) {
            Some(OpndKind::Pred(p)) => Ok(*p),
            other => Err(format!(
                "operand {} should be a predicate, is {other:?}",
                i + 1
            )),
        }
    };
    let dst_cc = |i: usize| {
        ops.get(i)
            .is_some_and(|o| o.suffix.iter().any(|x| x == "CC"))
    };
    let target = |i: usize| -> Result<u32, String> {
        match ops.get(i).map(|o| &o.kind) {
            // A target at a control word means the instruction after it.
            Some(OpndKind::Int(v)) if *v >= 0 && v % 8 == 0 => {
                let slot = (*v / 8) as u32;
                Ok(if slot.is_multiple_of(8) {
                    slot + 1
                } else {
                    slot
                })
            }
            other => Err(format!("bad branch target {}", crate::sass::shown(other))),
        }
    };
    let rnd = if m("RM") {
        Rnd::Rm
    } else if m("RP") {
        Rnd::Rp
    } else if m("RZ") {
        Rnd::Rz
    } else {
        Rnd::Rn
    };
    let ftz = m("FTZ");
    let sat = m("SAT");
    let bop = if m("OR") {
        BoolOp::Or
    } else if m("XOR") {
        BoolOp::Xor
    } else {
        BoolOp::And
    };
    let cmp = s.mods.iter().find_map(|x| cmp_of(x)).unwrap_or(Cmp::T);
    let unsigned = m("U32");
    let mn = s.mnemonic.as_str();

    // Standard shapes.
    macro_rules! rd_srcs {
        ($n:expr) => {{
            op.d0 = reg(0)?;
            op.cc = dst_cc(0);
            for k in 0..$n {
                op.src[k] = conv(k + 1)?;
            }
        }};
    }
    macro_rules! setp {
        ($n:expr) => {{
            op.d0 = pred(0)?;
            op.pred_dst = true;
            op.d1 = pred(1)?;
            for k in 0..$n {
                op.src[k] = conv(k + 2)?;
            }
        }};
    }

    op.kind = match mn {
        "NOP" => Kind::Nop,
        "MOV" => {
            rd_srcs!(1);
            Kind::Mov
        }
        "MOV32I" => {
            rd_srcs!(1);
            Kind::Mov
        }
        "IADD" | "IADD32I" => {
            rd_srcs!(2);
            Kind::IAdd { x: m("X"), sat }
        }
        "ISUB" => {
            // a - b is a + (-b): the adder's one's complement and carry-in.
            rd_srcs!(2);
            op.src[1].neg = !op.src[1].neg;
            Kind::IAdd { x: m("X"), sat }
        }
        "ISCADD" | "ISCADD32I" => {
            rd_srcs!(2);
            let sh = match ops.get(3).map(|o| &o.kind) {
                Some(OpndKind::Int(v)) => *v as u8,
                other => return Err(format!("bad ISCADD shift {}", crate::sass::shown(other))),
            };
            op.imm = sh as i64;
            Kind::IScAdd { shift: sh }
        }
        "IMUL" | "IMUL32I" | "IMAD" | "IMAD32I" => {
            let mad = mn.starts_with("IMAD");
            rd_srcs!(if mad { 3 } else { 2 });
            // Types: `.U32.U32`, `.S32.U32`...: first is a's, second b's; none
            // printed means signed.
            let tys: Vec<bool> = s
                .mods
                .iter()
                .filter_map(|x| match x.as_str() {
                    "U32" => Some(false),
                    "S32" => Some(true),
                    _ => None,
                })
                .collect();
            let (sa, sb) = match tys.as_slice() {
                [] => (true, true),
                [a] => (*a, *a),
                [a, b, ..] => (*a, *b),
            };
            Kind::IMad {
                sa,
                sb,
                hi: m("HI"),
                x: m("X"),
                sat,
                mad,
            }
        }
        "IMADSP" => {
            rd_srcs!(3);
            let tys: Vec<SubWord> = s
                .mods
                .iter()
                .filter_map(|x| {
                    Some(match x.as_str() {
                        "U32" => SubWord::U32,
                        "S32" => SubWord::S32,
                        "U24" => SubWord::U24,
                        "S24" => SubWord::S24,
                        "U16H0" => SubWord::U16H0,
                        "S16H0" => SubWord::S16H0,
                        "U16H1" => SubWord::U16H1,
                        "S16H1" => SubWord::S16H1,
                        _ => return None,
                    })
                })
                .collect();
            let [ta, tb, tc] = tys.as_slice() else {
                return Err(format!("IMADSP.{} is not modelled", s.mods.join(".")));
            };
            Kind::IMadSp {
                ta: *ta,
                tb: *tb,
                tc: *tc,
            }
        }
        "ISAD" => {
            rd_srcs!(3);
            Kind::ISad { signed: !unsigned }
        }
        "IMNMX" => {
            rd_srcs!(3);
            Kind::IMnMx {
                signed: !unsigned,
                xlo: m("XLO"),
                xhi: m("XHI"),
            }
        }
        "ISETP" => {
            setp!(3);
            Kind::ISetP {
                cmp,
                signed: !unsigned,
                x: m("X"),
                bop,
            }
        }
        "ISET" => {
            rd_srcs!(3);
            Kind::ISet {
                cmp,
                signed: !unsigned,
                x: m("X"),
                bop,
                bf: m("BF"),
            }
        }
        "ICMP" => {
            rd_srcs!(3);
            Kind::ICmp {
                cmp,
                signed: !unsigned,
            }
        }
        "LOP" | "LOP32I" => {
            rd_srcs!(2);
            let o = if m("AND") {
                0
            } else if m("OR") {
                1
            } else if m("XOR") {
                2
            } else if m("PASS_B") {
                3
            } else {
                return Err("LOP without an operation".into());
            };
            Kind::Lop { op: o }
        }
        "SHL" => {
            rd_srcs!(2);
            Kind::Shl { wrap: m("W") }
        }
        "SHR" => {
            rd_srcs!(2);
            Kind::Shr {
                signed: !unsigned,
                wrap: m("W"),
            }
        }
        "SHF" => {
            rd_srcs!(3);
            Kind::Shf {
                right: m("R"),
                wrap: m("W"),
                hi: m("HI"),
                wide: m("U64") || m("S64"),
                signed: m("S64") || m("S32"),
            }
        }
        "BFE" => {
            rd_srcs!(2);
            Kind::Bfe {
                signed: !unsigned,
                brev: m("BREV"),
            }
        }
        "BFI" => {
            rd_srcs!(3);
            Kind::Bfi
        }
        "POPC" => {
            // `POPC Rd, Rb` or `POPC Rd, Ra, Rb`.
            if ops.len() == 2 {
                rd_srcs!(1);
                op.src[1] = op.src[0];
                op.src[0] = Operand {
                    src: Src::Imm(u32::MAX),
                    ..Operand::NONE
                };
            } else {
                rd_srcs!(2);
            }
            Kind::Popc
        }
        "FLO" => {
            rd_srcs!(1);
            Kind::Flo {
                signed: !unsigned,
                sh: m("SH"),
            }
        }
        "PRMT" => {
            rd_srcs!(3);
            let mode = ["F4E", "B4E", "RC8", "ECL", "ECR", "RC16"]
                .iter()
                .position(|x| m(x))
                .map_or(0, |p| p as u8 + 1);
            Kind::Prmt { mode }
        }
        "SEL" => {
            rd_srcs!(3);
            Kind::Sel
        }
        "FADD" | "FADD32I" => {
            rd_srcs!(2);
            Kind::FAdd { ftz, sat, rnd }
        }
        "FMUL" | "FMUL32I" => {
            rd_srcs!(2);
            Kind::FMul { ftz, sat, rnd }
        }
        "FFMA" | "FFMA32I" => {
            rd_srcs!(3);
            Kind::FFma { ftz, sat, rnd }
        }
        "FMNMX" => {
            rd_srcs!(3);
            Kind::FMnMx { ftz }
        }
        "FSETP" => {
            setp!(3);
            Kind::FSetP { cmp, ftz, bop }
        }
        "FSET" => {
            rd_srcs!(3);
            Kind::FSet {
                cmp,
                ftz,
                bop,
                bf: m("BF"),
            }
        }
        "FCMP" => {
            rd_srcs!(3);
            Kind::FCmp { cmp, ftz }
        }
        "MUFU" => {
            rd_srcs!(1);
            let f = [
                ("COS", MufuFn::Cos),
                ("SIN", MufuFn::Sin),
                ("EX2", MufuFn::Ex2),
                ("LG2", MufuFn::Lg2),
                ("RCP", MufuFn::Rcp),
                ("RSQ", MufuFn::Rsq),
                ("RCP64H", MufuFn::Rcp64h),
                ("RSQ64H", MufuFn::Rsq64h),
            ]
            .iter()
            .find(|(n, _)| m(n))
            .map(|x| x.1)
            .ok_or("MUFU without a function")?;
            Kind::Mufu { f }
        }
        "RRO" => {
            rd_srcs!(1);
            Kind::Rro { ex2: m("EX2") }
        }
        "DADD" => {
            rd_srcs!(2);
            Kind::DAdd { rnd }
        }
        "DMUL" => {
            rd_srcs!(2);
            Kind::DMul { rnd }
        }
        "DFMA" => {
            rd_srcs!(3);
            Kind::DFma { rnd }
        }
        "DMNMX" => {
            rd_srcs!(3);
            Kind::DMnMx
        }
        "DSETP" => {
            setp!(3);
            Kind::DSetP { cmp, bop }
        }
        "DSET" => {
            rd_srcs!(3);
            Kind::DSet {
                cmp,
                bop,
                bf: m("BF"),
            }
        }
        "F2F" | "F2I" | "I2F" | "I2I" => {
            rd_srcs!(1);
            let tys: Vec<NumType> = s.mods.iter().filter_map(|x| num_type(x)).collect();
            let (dt, st) = match (mn, tys.as_slice()) {
                (_, [d, s2]) => (*d, *s2),
                ("F2F", []) => (NumType::F32, NumType::F32),
                ("F2I", []) => (NumType::S32, NumType::F32),
                ("I2F", []) => (NumType::F32, NumType::S32),
                ("I2I", []) => (NumType::S32, NumType::S32),
                _ => {
                    return Err(format!(
                        "{mn}: cannot tell the types from `.{}`",
                        s.mods.join(".")
                    ))
                }
            };
            let irnd = if m("FLOOR") {
                IntRnd::Floor
            } else if m("CEIL") {
                IntRnd::Ceil
            } else if m("TRUNC") {
                IntRnd::Trunc
            } else if m("ROUND") {
                IntRnd::Round
            } else {
                IntRnd::None
            };
            // A half immediate prints (and decodes) as its value: the F16 source
            // reads 16-bit halves, so hold it as one.
            if st == NumType::F16 {
                if let (Some(OpndKind::Float(_)), Src::Imm(b)) =
                    (ops.get(1).map(|o| &o.kind), op.src[0].src)
                {
                    let h = crate::fp::to_half(f32::from_bits(b) as f64, Rnd::Rn);
                    op.src[0].src = Src::Imm(h);
                }
            }
            match mn {
                "F2F" => Kind::F2F {
                    dt,
                    st,
                    rnd,
                    irnd,
                    ftz,
                    sat,
                },
                "F2I" => Kind::F2I {
                    dt,
                    st,
                    irnd: if irnd == IntRnd::None {
                        IntRnd::Round
                    } else {
                        irnd
                    },
                    ftz,
                },
                "I2F" => Kind::I2F { dt, st, rnd },
                _ => Kind::I2I { dt, st, sat },
            }
        }
        "PSETP" => {
            setp!(2);
            // `PSETP.AND.OR P0, PT, P1, P2, P3`: (a bop1 b) bop2 c.
            op.src[2] = conv(4)?;
            let bops: Vec<BoolOp> = s
                .mods
                .iter()
                .filter_map(|x| match x.as_str() {
                    "AND" => Some(BoolOp::And),
                    "OR" => Some(BoolOp::Or),
                    "XOR" => Some(BoolOp::Xor),
                    _ => None,
                })
                .collect();
            let (b1, b2) = match bops.as_slice() {
                [a, b] => (*a, *b),
                [a] => (*a, BoolOp::And),
                _ => (BoolOp::And, BoolOp::And),
            };
            Kind::PSetP { bop1: b1, bop2: b2 }
        }
        "P2R" => {
            // `P2R R0, PR, R0, 0x7f`: the PR operand is verbatim.
            op.d0 = reg(0)?;
            op.src[0] = conv(2)?;
            op.src[1] = conv(3)?;
            Kind::P2R
        }
        "R2P" => {
            // `R2P PR, R0, 0x7f`.
            op.src[0] = conv(1)?;
            op.src[1] = conv(2)?;
            Kind::R2P
        }
        "S2R" => {
            op.d0 = reg(0)?;
            let name = match ops.get(1).map(|o| &o.kind) {
                Some(OpndKind::Special(n)) => n.clone(),
                other => return Err(format!("S2R of {}", crate::sass::shown(other))),
            };
            Kind::S2R {
                sr: sreg(&name)
                    .ok_or_else(|| format!("special register {name} is not modelled"))?,
            }
        }
        "SHFL" => {
            // `SHFL.DOWN P0, R3, R2, 0x1, 0x1f`.
            op.d1 = pred(0)?;
            op.d0 = reg(1)?;
            op.src[0] = conv(2)?;
            op.src[1] = conv(3)?;
            op.src[2] = conv(4)?;
            let mode = if m("IDX") {
                ShflMode::Idx
            } else if m("UP") {
                ShflMode::Up
            } else if m("DOWN") {
                ShflMode::Down
            } else if m("BFLY") {
                ShflMode::Bfly
            } else {
                return Err("SHFL without a mode".into());
            };
            Kind::Shfl { mode }
        }
        "VOTE" => {
            // `VOTE.ANY R0, P1, P0` (register: the ballot; predicate: the vote).
            let (rd, pi) = match ops.first().map(|o| &o.kind) {
                Some(OpndKind::Reg(r)) => (*r, 1),
                _ => (255, 0),
            };
            op.d0 = rd;
            op.d1 = pred(pi)?;
            op.src[0] = conv(pi + 1)?;
            let mode = if m("ALL") {
                VoteMode::All
            } else if m("ANY") {
                VoteMode::Any
            } else if m("EQ") {
                VoteMode::Eq
            } else {
                return Err("VOTE without a mode".into());
            };
            Kind::Vote { mode }
        }
        "LD" | "LDG" | "LDS" | "LDL" | "LDU" => {
            op.d0 = reg(0)?;
            let (r, off) = mem(ops.get(1))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.d1 = m("E") as u8; // 64-bit address in a register pair
            let space = match mn {
                "LD" | "LDU" => Space::Generic,
                "LDG" => Space::GlobalRo,
                "LDS" => Space::Shared,
                _ => Space::Local,
            };
            Kind::Ld { space, w: width(s) }
        }
        "ST" | "STS" | "STL" => {
            let (r, off) = mem(ops.first())?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.d1 = m("E") as u8;
            op.src[1] = conv(1)?;
            let space = match mn {
                "ST" => Space::Generic,
                "STS" => Space::Shared,
                _ => Space::Local,
            };
            Kind::St { space, w: width(s) }
        }
        "LDC" => {
            op.d0 = reg(0)?;
            op.src[0] = conv(1)?;
            Kind::Ldc { w: width(s) }
        }
        "ATOM" | "RED" | "ATOMS" => {
            let ret = mn != "RED";
            let k0 = if ret {
                op.d0 = reg(0)?;
                1
            } else {
                0
            };
            let (r, off) = mem(ops.get(k0))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.d1 = m("E") as u8;
            op.src[1] = conv(k0 + 1)?;
            if ops.len() > k0 + 2 {
                op.src[2] = conv(k0 + 2)?;
            }
            let aop = [
                ("ADD", AtomOp::Add),
                ("MIN", AtomOp::Min),
                ("MAX", AtomOp::Max),
                ("INC", AtomOp::Inc),
                ("DEC", AtomOp::Dec),
                ("AND", AtomOp::And),
                ("OR", AtomOp::Or),
                ("XOR", AtomOp::Xor),
                ("EXCH", AtomOp::Exch),
                ("CAS", AtomOp::Cas),
            ]
            .iter()
            .find(|(n, _)| m(n))
            .map(|x| x.1)
            .ok_or("atomic without an operation")?;
            let ty = if m("F32") {
                AtomType::F32
            } else if m("S64") {
                AtomType::S64
            } else if m("64") || m("U64") {
                AtomType::U64
            } else if m("S32") {
                AtomType::S32
            } else {
                AtomType::U32
            };
            if (ty == AtomType::F32 && aop != AtomOp::Add)
                || (matches!(ty, AtomType::U64 | AtomType::S64)
                    && matches!(aop, AtomOp::Inc | AtomOp::Dec))
            {
                let name = format!("{mn}.{aop:?}.{ty:?}").to_uppercase();
                return Err(format!("{name} is not modelled"));
            }
            Kind::Atom {
                space: if mn == "ATOMS" {
                    Space::Shared
                } else {
                    Space::Generic
                },
                op: aop,
                ty,
                ret,
            }
        }
        "BRA" | "SSY" | "PBK" | "PCNT" | "PRET" | "CAL" | "JCAL" => {
            // `BRA CC.NEU, 0xd0`: a condition-code test, then the target.
            let (test, ti) = match ops.first().map(|o| &o.kind) {
                Some(OpndKind::Other(t)) if t.starts_with("CC.") => (
                    cc_test(&t[3..]).ok_or_else(|| format!("unknown condition-code test {t}"))?,
                    1,
                ),
                _ => (CcTest::T, 0),
            };
            op.target = target(ti)?;
            match mn {
                "BRA" => Kind::Bra { cc: test },
                "SSY" => Kind::Ssy,
                "PBK" => Kind::Pbk,
                "PCNT" => Kind::Pcnt,
                "PRET" => Kind::Pret,
                _ => Kind::Cal,
            }
        }
        "BRX" | "JMX" => {
            match ops.first().map(|o| &o.kind) {
                Some(OpndKind::RegJump { reg, offset }) => {
                    op.src[0] = reg_op(*reg);
                    op.imm = *offset;
                }
                Some(OpndKind::Reg(r)) => op.src[0] = reg_op(*r),
                other => return Err(format!("bad indirect target {}", crate::sass::shown(other))),
            }
            if mn == "JMX" {
                return Err("JMX is not modelled".into());
            }
            Kind::Brx
        }
        "BRK" => Kind::Brk,
        "CONT" => Kind::Cont,
        "RET" => Kind::Ret,
        "EXIT" => Kind::Exit,
        "BAR" if m("RED") => {
            // `BAR.RED.POPC R8, P0` / `BAR.RED.POPC R10, R10, P0`: the barrier,
            // an optional thread count, the predicate; `B2R.RESULT` reads the
            // result.
            let n = ops.len();
            if !(2..=3).contains(&n) {
                return Err(format!("BAR.RED with {n} operands"));
            }
            op.src[0] = conv(0)?;
            if n == 3 {
                op.src[1] = conv(1)?;
            }
            op.src[2] = conv(n - 1)?;
            let red = if m("POPC") {
                BarRed::Popc
            } else if m("AND") {
                BarRed::And
            } else if m("OR") {
                BarRed::Or
            } else {
                return Err(format!("BAR.{} is not modelled", s.mods.join(".")));
            };
            Kind::BarRed { red }
        }
        "B2R" if m("RESULT") => {
            // `B2R.RESULT R6` or `B2R.RESULT RZ, P0`.
            op.d0 = reg(0)?;
            op.d1 = if ops.len() > 1 { pred(1)? } else { 7 };
            Kind::B2R
        }
        "BAR" => {
            if !(m("SYNC") || m("ARV")) {
                return Err(format!("BAR.{} is not modelled", s.mods.join(".")));
            }
            op.src[0] = conv(0)?;
            if ops.len() > 1 {
                op.src[1] = conv(1)?;
            }
            Kind::Bar {
                arrive_only: m("ARV"),
            }
        }
        "MEMBAR" | "TEXDEPBAR" | "DEPBAR" | "CCTL" | "CCTLL" => Kind::Fence,
        "CSETP" => {
            // `CSETP.NEU.AND P0, PT, CC, PT`.
            op.d0 = pred(0)?;
            op.pred_dst = true;
            op.d1 = pred(1)?;
            let test = s
                .mods
                .first()
                .and_then(|t| cc_test(t))
                .ok_or_else(|| format!("CSETP: unknown test {:?}", s.mods))?;
            op.src[0] = conv(3)?;
            Kind::CSetP { test, bop }
        }
        "FCHK" => {
            // `FCHK.DIVIDE P0, Ra, Rb`: whether a / b needs the slow path.
            if !m("DIVIDE") {
                return Err(format!("FCHK.{} is not modelled", s.mods.join(".")));
            }
            op.d0 = pred(0)?;
            op.pred_dst = true;
            op.src[0] = conv(1)?;
            op.src[1] = conv(2)?;
            Kind::FChk
        }
        "LDSLK" => {
            // `LDSLK P1, R2, [R3]`.
            op.d1 = pred(0)?;
            op.d0 = reg(1)?;
            let (r, off) = mem(ops.get(2))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            Kind::LdsLk { wide: m("64") }
        }
        "STSCUL" => {
            // `STSCUL P2, [R3], R2`.
            op.d1 = pred(0)?;
            op.d0 = 255;
            let (r, off) = mem(ops.get(1))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.src[1] = conv(2)?;
            Kind::StsCul { wide: m("64") }
        }
        other => return Err(format!("{other} is not modelled")),
    };
    Ok(op)
}

fn reg_op(r: u8) -> Operand {
    Operand {
        src: Src::Reg(r),
        ..Operand::NONE
    }
}

fn mem(o: Option<&crate::sass::Operand>) -> Result<(u8, i64), String> {
    match o.map(|o| &o.kind) {
        Some(OpndKind::Mem { reg, offset }) => Ok((*reg, *offset)),
        other => Err(format!(
            "expected a memory operand, found {}",
            crate::sass::shown(other)
        )),
    }
}

fn width(s: &Syntax) -> Width {
    for x in &s.mods {
        match x.as_str() {
            "U8" => return Width::U8,
            "S8" => return Width::S8,
            "U16" => return Width::U16,
            "S16" => return Width::S16,
            "64" => return Width::B64,
            "128" => return Width::B128,
            _ => {}
        }
    }
    Width::B32
}

fn cmp_of(x: &str) -> Option<Cmp> {
    Some(match x {
        "F" => Cmp::F,
        "LT" => Cmp::Lt,
        "EQ" => Cmp::Eq,
        "LE" => Cmp::Le,
        "GT" => Cmp::Gt,
        "NE" => Cmp::Ne,
        "GE" => Cmp::Ge,
        "T" => Cmp::T,
        "NUM" => Cmp::Num,
        "NAN" => Cmp::Nan,
        "LTU" => Cmp::Ltu,
        "EQU" => Cmp::Equ,
        "LEU" => Cmp::Leu,
        "GTU" => Cmp::Gtu,
        "NEU" => Cmp::Neu,
        "GEU" => Cmp::Geu,
        _ => return None,
    })
}

fn cc_test(x: &str) -> Option<CcTest> {
    Some(match x {
        "T" => CcTest::T,
        "F" => CcTest::F,
        "LT" | "LTU" => CcTest::Lt,
        "EQ" | "EQU" => CcTest::Eq,
        "LE" | "LEU" => CcTest::Le,
        "GT" | "GTU" => CcTest::Gt,
        "NE" | "NEU" => CcTest::Ne,
        "GE" | "GEU" => CcTest::Ge,
        "LO" => CcTest::Lo,
        "LS" => CcTest::Ls,
        "HI" => CcTest::Hi,
        "HS" => CcTest::Hs,
        "OFF" => CcTest::Off,
        "OFT" => CcTest::Oft,
        "SFF" => CcTest::Sff,
        "SFT" => CcTest::Sft,
        "CFF" => CcTest::Cff,
        "CFT" => CcTest::Cft,
        _ => return None,
    })
}

fn num_type(x: &str) -> Option<NumType> {
    Some(match x {
        "U8" => NumType::U8,
        "S8" => NumType::S8,
        "U16" => NumType::U16,
        "S16" => NumType::S16,
        "U32" => NumType::U32,
        "S32" => NumType::S32,
        "U64" => NumType::U64,
        "S64" => NumType::S64,
        "F16" => NumType::F16,
        "F32" => NumType::F32,
        "F64" => NumType::F64,
        _ => return None,
    })
}

fn sreg(name: &str) -> Option<SReg> {
    Some(match name {
        "SR_LANEID" => SReg::LaneId,
        "SR_TID.X" => SReg::TidX,
        "SR_TID.Y" => SReg::TidY,
        "SR_TID.Z" => SReg::TidZ,
        "SR_TID" => SReg::Tid,
        "SR_CTAID.X" => SReg::CtaidX,
        "SR_CTAID.Y" => SReg::CtaidY,
        "SR_CTAID.Z" => SReg::CtaidZ,
        "SR_NTID.X" => SReg::NtidX,
        "SR_NTID.Y" => SReg::NtidY,
        "SR_NTID.Z" => SReg::NtidZ,
        "SR_NCTAID.X" => SReg::NctaidX,
        "SR_NCTAID.Y" => SReg::NctaidY,
        "SR_NCTAID.Z" => SReg::NctaidZ,
        "SR_CLOCKLO" => SReg::ClockLo,
        "SR_CLOCKHI" => SReg::ClockHi,
        "SR_CLOCK" => SReg::Clock64Lo,
        "SR_SMID" => SReg::SmId,
        "SR_VIRTID" => SReg::VirtId,
        "SR_WARPID" => SReg::WarpId,
        "SR_NWARPID" => SReg::NWarpId,
        "SR_GRIDID" => SReg::GridId,
        "SR_EQMASK" | "SR_LANEMASK_EQ" => SReg::LaneMaskEq,
        "SR_LTMASK" | "SR_LANEMASK_LT" => SReg::LaneMaskLt,
        "SR_LEMASK" | "SR_LANEMASK_LE" => SReg::LaneMaskLe,
        "SR_GTMASK" | "SR_LANEMASK_GT" => SReg::LaneMaskGt,
        "SR_GEMASK" | "SR_LANEMASK_GE" => SReg::LaneMaskGe,
        "SR_VIRTCFG" => SReg::VirtCfg,
        "SRZ" | "SR_ZERO" => SReg::Zero,
        "SR_SMEMSZ" => SReg::SmemSz,
        // The functional model's only clock is its instruction count.
        "SR_GLOBALTIMERLO" => SReg::ClockLo,
        "SR_GLOBALTIMERHI" => SReg::ClockHi,
        // Performance-monitor counters: no counters run in the functional model.
        "SR_PM0" | "SR_PM1" | "SR_PM2" | "SR_PM3" | "SR_PM4" | "SR_PM5" | "SR_PM6" | "SR_PM7" => {
            SReg::Zero
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn low(t: &str) -> Op {
        lower(&Syntax::parse(t).unwrap(), &[]).unwrap()
    }

    #[test]
    fn lowers_common_forms() {
        let o = low("@!P1 IMAD.U32.U32.HI.X R10, R3, c[0x0][0x28], R14;");
        assert_eq!(o.guard, (1, true));
        assert_eq!(o.d0, 10);
        assert!(matches!(
            o.kind,
            Kind::IMad {
                sa: false,
                sb: false,
                hi: true,
                x: true,
                mad: true,
                ..
            }
        ));
        assert_eq!(
            o.src[1].src,
            Src::Const {
                bank: 0,
                offset: 0x28
            }
        );
        let o = low("ISETP.GE.AND P0, PT, R0, c[0x0][0x150], PT;");
        assert_eq!((o.d0, o.d1), (0, 7));
        assert!(matches!(
            o.kind,
            Kind::ISetP {
                cmp: Cmp::Ge,
                signed: true,
                ..
            }
        ));
        let o = low("LDS.U.128 R4, [R2+0x10];");
        assert!(matches!(
            o.kind,
            Kind::Ld {
                space: Space::Shared,
                w: Width::B128
            }
        ));
        assert_eq!(o.imm, 0x10);
        let o = low("@P0 BRA 0x68;");
        assert_eq!(o.target, 0x68 / 8);
        let o = low("NOP.S;");
        assert!(o.sync);
        let o = low("STL.128 [R1+0x10], R4;");
        assert_eq!(o.src[1].src, Src::Reg(4));
    }

    #[test]
    fn lowers_the_64_bit_min_max_pair() {
        let o = low("IMNMX.U32.XHI R7.CC, R3, R5, !PT;");
        assert!(matches!(
            o.kind,
            Kind::IMnMx {
                signed: false,
                xlo: false,
                xhi: true
            }
        ));
        assert!(o.cc);
        let o = low("IMNMX.U32.XLO R6, R2, R4, PT;");
        assert!(matches!(
            o.kind,
            Kind::IMnMx {
                signed: false,
                xlo: true,
                xhi: false
            }
        ));
    }

    #[test]
    fn wide_shared_lock_pairs() {
        assert!(matches!(
            low("LDSLK.64 P0, R4, [RZ];").kind,
            Kind::LdsLk { wide: true }
        ));
        assert!(matches!(
            low("STSCUL P0, [R6], R5;").kind,
            Kind::StsCul { wide: false }
        ));
    }

    #[test]
    fn signed_64_bit_atomics() {
        let o = low("ATOM.E.MIN.S64 R2, [R6], R2;");
        assert!(matches!(
            o.kind,
            Kind::Atom {
                op: AtomOp::Min,
                ty: AtomType::S64,
                ..
            }
        ));
    }

    #[test]
    fn half_immediates_are_held_as_halves() {
        let i = sim_isa::decode::decode(
            sim_isa::encode::assemble("F2I.U8.F16 R30, 1;", 8).expect("encodes"),
        )
        .expect("decodes");
        let op = lower(
            &Syntax::parse(&i.text(8)).unwrap(),
            &crate::sass::float_fields(&i, 8),
        )
        .unwrap();
        assert_eq!(op.src[0].src, Src::Imm(0x3c00));
    }

    #[test]
    fn unknown_instructions_are_reasons_not_panics() {
        assert!(lower(&Syntax::parse("FROB R0;").unwrap(), &[]).is_err());
        assert!(lower(&Syntax::parse("IADD R0;").unwrap(), &[]).is_err());
    }
}
