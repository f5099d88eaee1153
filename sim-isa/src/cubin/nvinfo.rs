//! The `.nv.info` attribute streams of a cubin: decoding, encoding, names and typed views.
//!
//! A `.nv.info` section (type `SHT_CUDA_INFO`, 0x70000000) is a packed sequence of
//! attributes with no padding between them. Each starts with a format byte and an
//! attribute id (`EIATTR_*`); the format says what follows:
//! `0x01` (EIFMT_NVAL) two ignored bytes, `0x02` (EIFMT_BVAL) one value byte and one
//! ignored byte, `0x03` (EIFMT_HVAL) a little-endian u16, `0x04` (EIFMT_SVAL) a u16 byte
//! count and that many bytes. Every attribute is decoded generically into [`Attribute`];
//! [`KernelInfo`] and [`SymbolInfo`] then give typed access to the ones keplersim needs.
//! The id to name table was read off NVIDIA's nvdisasm (CUDA 11.8) by feeding it each id.

use std::fmt;

use super::CubinError;

/// `EIATTR_*` attribute ids as CUDA 11.8 numbers them (only the ones this crate reads or
/// writes by name; [`eiattr_name`] knows them all).
pub mod eiattr {
    /// Kernel uses `%ctaid.z` (EIFMT_NVAL).
    pub const CTAIDZ_USED: u8 = 0x04;
    /// `.maxntid` as three u32 (EIFMT_SVAL).
    pub const MAX_THREADS: u8 = 0x05;
    /// Parameter constant bank: u32 symbol of `.nv.constant0.<k>`, u16 offset, u16 size.
    pub const PARAM_CBANK: u8 = 0x0a;
    /// `.reqntid` as three u32 (EIFMT_SVAL).
    pub const REQNTID: u8 = 0x10;
    /// Per-function frame size in `.nv.info`: u32 symbol, u32 bytes.
    pub const FRAME_SIZE: u8 = 0x11;
    /// Per-function minimum stack size in `.nv.info`: u32 symbol, u32 bytes.
    pub const MIN_STACK_SIZE: u8 = 0x12;
    /// One kernel parameter: u32 index, u16 ordinal, u16 offset, u32 packed flags/size.
    pub const KPARAM_INFO: u8 = 0x17;
    /// Bytes of parameters in the constant bank (EIFMT_HVAL).
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    /// Register limit the kernel was compiled for, 0xff when unlimited (EIFMT_HVAL).
    pub const MAXREG_COUNT: u8 = 0x1b;
    /// Byte offsets of the EXIT instructions in the kernel's code (u32 list).
    pub const EXIT_INSTR_OFFSETS: u8 = 0x1c;
    /// Byte offsets of the `S2R SR_CTAID.*` instructions (u32 list).
    pub const S2RCTAID_INSTR_OFFSETS: u8 = 0x1d;
    /// Call/return/sync (CRS) stack bytes the kernel needs (u32).
    pub const CRS_STACK_SIZE: u8 = 0x1e;
    /// Software workaround 1850030 (flag).
    pub const SW1850030_WAR: u8 = 0x2a;
    /// Per-function maximum stack size in `.nv.info`: u32 symbol, u32 bytes.
    pub const MAX_STACK_SIZE: u8 = 0x23;
    /// Register count in `.nv.info`: u32 symbol, u32 registers.
    pub const REGCOUNT: u8 = 0x2f;
    /// Software workaround 2393858 (flag).
    pub const SW2393858_WAR: u8 = 0x30;
    /// Byte offsets of warp-wide integer instructions (u32 list).
    pub const INT_WARP_WIDE_INSTR_OFFSETS: u8 = 0x31;
    /// Software workaround 2861232 (flag).
    pub const SW2861232_WAR: u8 = 0x35;
    /// Software workaround flags word (u32).
    pub const SW_WAR: u8 = 0x36;
    /// CUDA API version the code was built against, e.g. 0x76 = 118 for CUDA 11.8 (u32).
    pub const CUDA_API_VERSION: u8 = 0x37;
}

/// `EIFMT_NVAL`: no value (two ignored bytes follow the id).
pub const EIFMT_NVAL: u8 = 0x01;
/// `EIFMT_BVAL`: one value byte (and one ignored byte).
pub const EIFMT_BVAL: u8 = 0x02;
/// `EIFMT_HVAL`: a little-endian u16 value.
pub const EIFMT_HVAL: u8 = 0x03;
/// `EIFMT_SVAL`: a u16 byte count followed by that many bytes.
pub const EIFMT_SVAL: u8 = 0x04;

/// Names of attribute ids 0x00..=0x41, as nvdisasm and cuobjdump print them.
const EIATTR_NAMES: [&str; 0x42] = [
    "EIATTR_ERROR",
    "EIATTR_PAD",
    "EIATTR_IMAGE_SLOT",
    "EIATTR_JUMPTABLE_RELOCS",
    "EIATTR_CTAIDZ_USED",
    "EIATTR_MAX_THREADS",
    "EIATTR_IMAGE_OFFSET",
    "EIATTR_IMAGE_SIZE",
    "EIATTR_TEXTURE_NORMALIZED",
    "EIATTR_SAMPLER_INIT",
    "EIATTR_PARAM_CBANK",
    "EIATTR_SMEM_PARAM_OFFSETS",
    "EIATTR_CBANK_PARAM_OFFSETS",
    "EIATTR_SYNC_STACK",
    "EIATTR_TEXID_SAMPID_MAP",
    "EIATTR_EXTERNS",
    "EIATTR_REQNTID",
    "EIATTR_FRAME_SIZE",
    "EIATTR_MIN_STACK_SIZE",
    "EIATTR_SAMPLER_FORCE_UNNORMALIZED",
    "EIATTR_BINDLESS_IMAGE_OFFSETS",
    "EIATTR_BINDLESS_TEXTURE_BANK",
    "EIATTR_BINDLESS_SURFACE_BANK",
    "EIATTR_KPARAM_INFO",
    "EIATTR_SMEM_PARAM_SIZE",
    "EIATTR_CBANK_PARAM_SIZE",
    "EIATTR_QUERY_NUMATTRIB",
    "EIATTR_MAXREG_COUNT",
    "EIATTR_EXIT_INSTR_OFFSETS",
    "EIATTR_S2RCTAID_INSTR_OFFSETS",
    "EIATTR_CRS_STACK_SIZE",
    "EIATTR_NEED_CNP_WRAPPER",
    "EIATTR_NEED_CNP_PATCH",
    "EIATTR_EXPLICIT_CACHING",
    "EIATTR_ISTYPEP_USED",
    "EIATTR_MAX_STACK_SIZE",
    "EIATTR_SUQ_USED",
    "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",
    "EIATTR_LOAD_CACHE_REQUEST",
    "EIATTR_ATOM_SYS_INSTR_OFFSETS",
    "EIATTR_COOP_GROUP_INSTR_OFFSETS",
    "EIATTR_COOP_GROUP_MASK_REGIDS",
    "EIATTR_SW1850030_WAR",
    "EIATTR_WMMA_USED",
    "EIATTR_HAS_PRE_V10_OBJECT",
    "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS",
    "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",
    "EIATTR_REGCOUNT",
    "EIATTR_SW2393858_WAR",
    "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",
    "EIATTR_SHARED_SCRATCH",
    "EIATTR_STATISTICS",
    "EIATTR_INDIRECT_BRANCH_TARGETS",
    "EIATTR_SW2861232_WAR",
    "EIATTR_SW_WAR",
    "EIATTR_CUDA_API_VERSION",
    "EIATTR_NUM_MBARRIERS",
    "EIATTR_MBARRIER_INSTR_OFFSETS",
    "EIATTR_COROUTINE_RESUME_ID_OFFSETS",
    "EIATTR_SAM_REGION_STACK_SIZE",
    "EIATTR_PER_REG_TARGET_PERF_STATS",
    "EIATTR_CTA_PER_CLUSTER",
    "EIATTR_EXPLICIT_CLUSTER",
    "EIATTR_MAX_CLUSTER_RANK",
    "EIATTR_INSTR_REG_MAP",
    "EIATTR_ERROR_LAST",
];

/// The `EIATTR_*` name nvdisasm prints for an attribute id, or `None` for ids past
/// `EIATTR_ERROR_LAST` (0x41) that CUDA 11.8 does not know.
pub fn eiattr_name(id: u8) -> Option<&'static str> {
    EIATTR_NAMES.get(usize::from(id)).copied()
}

/// The name of an attribute id for messages: the `EIATTR_*` name, or `EIATTR_0x5f` for
/// an unknown id.
pub fn eiattr_label(id: u8) -> String {
    match eiattr_name(id) {
        Some(n) => n.to_string(),
        None => format!("EIATTR_{id:#04x}"),
    }
}

/// The value part of one attribute; its variant is the attribute's format.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttrValue {
    /// EIFMT_NVAL: presence is the information.
    None,
    /// EIFMT_BVAL: one byte.
    U8(u8),
    /// EIFMT_HVAL: a 16-bit value.
    U16(u16),
    /// EIFMT_SVAL: a sized blob, usually a list of little-endian u32.
    Blob(Vec<u8>),
}

/// One decoded `.nv.info` attribute: its id and its value. Unknown ids are kept as they
/// are, so a stream decodes and re-encodes to the same bytes (pad bytes written as zero).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Attribute {
    /// The `EIATTR_*` id (see [`eiattr`] and [`eiattr_name`]).
    pub id: u8,
    /// The value, whose variant fixes the format byte.
    pub value: AttrValue,
}

impl Attribute {
    /// An EIFMT_SVAL attribute holding `words` as little-endian u32.
    pub fn words(id: u8, words: &[u32]) -> Attribute {
        Attribute {
            id,
            value: AttrValue::Blob(words.iter().flat_map(|w| w.to_le_bytes()).collect()),
        }
    }

    /// The `EIATTR_*` name, `None` for ids CUDA 11.8 does not know.
    pub fn name(&self) -> Option<&'static str> {
        eiattr_name(self.id)
    }

    /// The format byte (`EIFMT_*`) this attribute is written with.
    pub fn format(&self) -> u8 {
        match self.value {
            AttrValue::None => EIFMT_NVAL,
            AttrValue::U8(_) => EIFMT_BVAL,
            AttrValue::U16(_) => EIFMT_HVAL,
            AttrValue::Blob(_) => EIFMT_SVAL,
        }
    }

    /// The blob read as little-endian u32, or `None` when this is not an EIFMT_SVAL
    /// attribute or its length is not a multiple of four.
    pub fn as_words(&self) -> Option<Vec<u32>> {
        match &self.value {
            AttrValue::Blob(b) if b.len() % 4 == 0 => Some(
                b.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Bytes this attribute occupies when encoded.
    pub fn encoded_len(&self) -> usize {
        match &self.value {
            AttrValue::Blob(b) => 4 + b.len(),
            _ => 4,
        }
    }

    /// Appends the encoded attribute to `out`. A blob longer than 0xffff bytes cannot be
    /// encoded; [`encode_attributes`] reports that as an error before calling this.
    fn encode_into(&self, out: &mut Vec<u8>) {
        out.push(self.format());
        out.push(self.id);
        match &self.value {
            AttrValue::None => out.extend_from_slice(&[0, 0]),
            AttrValue::U8(v) => out.extend_from_slice(&[*v, 0]),
            AttrValue::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
            AttrValue::Blob(b) => {
                let len = u16::try_from(b.len()).unwrap_or(u16::MAX);
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&b[..usize::from(len)]);
            }
        }
    }
}

impl fmt::Display for Attribute {
    /// `EIATTR_NAME value`, with blobs of whole u32 shown as hex words and other blobs as
    /// hex bytes, e.g. `EIATTR_EXIT_INSTR_OFFSETS 0x30 0x90`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&eiattr_label(self.id))?;
        match &self.value {
            AttrValue::None => Ok(()),
            AttrValue::U8(v) => write!(f, " {v:#x}"),
            AttrValue::U16(v) => write!(f, " {v:#x}"),
            AttrValue::Blob(b) => {
                if let Some(words) = self.as_words() {
                    for w in words {
                        write!(f, " {w:#x}")?;
                    }
                } else {
                    f.write_str(" bytes")?;
                    for x in b {
                        write!(f, " {x:02x}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// Decodes a whole `.nv.info*` section. `section` names it in error messages.
///
/// Fails on an unknown format byte or an attribute that runs past the end of the data;
/// never panics.
pub fn parse_attributes(section: &str, data: &[u8]) -> Result<Vec<Attribute>, CubinError> {
    let mut attrs = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let truncated = || CubinError::AttributeTruncated {
            section: section.to_string(),
            offset: pos as u64,
            size: data.len() as u64,
        };
        let head = data.get(pos..pos + 4).ok_or_else(truncated)?;
        let (format, id) = (head[0], head[1]);
        let arg = u16::from_le_bytes([head[2], head[3]]);
        let value = match format {
            EIFMT_NVAL => AttrValue::None,
            EIFMT_BVAL => AttrValue::U8(head[2]),
            EIFMT_HVAL => AttrValue::U16(arg),
            EIFMT_SVAL => {
                let start = pos + 4;
                let blob = data
                    .get(start..start + usize::from(arg))
                    .ok_or_else(truncated)?;
                AttrValue::Blob(blob.to_vec())
            }
            _ => {
                return Err(CubinError::AttributeFormat {
                    section: section.to_string(),
                    offset: pos as u64,
                    format,
                })
            }
        };
        let attr = Attribute { id, value };
        pos += attr.encoded_len();
        attrs.push(attr);
    }
    Ok(attrs)
}

/// Encodes attributes back into `.nv.info` bytes (the inverse of [`parse_attributes`]).
/// `section` names the section in the error for a blob longer than 0xffff bytes.
pub fn encode_attributes(section: &str, attrs: &[Attribute]) -> Result<Vec<u8>, CubinError> {
    let mut out = Vec::with_capacity(attrs.iter().map(Attribute::encoded_len).sum());
    for a in attrs {
        if let AttrValue::Blob(b) = &a.value {
            if b.len() > usize::from(u16::MAX) {
                return Err(CubinError::Unsupported(format!(
                    "{section}: {} value is {:#x} bytes, at most 0xffff fit",
                    eiattr_label(a.id),
                    b.len()
                )));
            }
        }
        a.encode_into(&mut out);
    }
    Ok(out)
}

/// One kernel parameter as `EIATTR_KPARAM_INFO` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelParam {
    /// The leading u32 (ptxas writes 0).
    pub index: u32,
    /// Position in the PTX parameter list, from 0.
    pub ordinal: u16,
    /// Byte offset within the parameter area (which starts at `c[0x0][0x140]` on sm_35).
    pub offset: u16,
    /// Bytes (14 bits: bits 18..=31 of the packed word).
    pub size: u16,
    /// Log2 of the pointee's alignment for pointer parameters (bits 0..=7).
    pub pointee_log_align: u8,
    /// The pointee's state space for pointer parameters (bits 8..=11).
    pub pointee_space: u8,
    /// Constant bank field (bits 12..=16; ptxas writes 0x1f).
    pub cbank: u8,
    /// Bit 17: the parameter lives in shared memory (`SMEM`) rather than a constant bank.
    pub in_smem: bool,
}

impl KernelParam {
    /// A plain constant-bank parameter as ptxas describes it (cbank 0x1f, no pointee
    /// information).
    pub fn new(ordinal: u16, offset: u16, size: u16) -> KernelParam {
        KernelParam {
            index: 0,
            ordinal,
            offset,
            size,
            pointee_log_align: 0,
            pointee_space: 0,
            cbank: 0x1f,
            in_smem: false,
        }
    }

    /// Decodes the 12-byte KPARAM_INFO value; `None` if it is not 12 bytes long.
    pub fn decode(b: &[u8]) -> Option<KernelParam> {
        if b.len() != 12 {
            return None;
        }
        let index = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let ordinal = u16::from_le_bytes([b[4], b[5]]);
        let offset = u16::from_le_bytes([b[6], b[7]]);
        let w = u32::from_le_bytes([b[8], b[9], b[10], b[11]]);
        Some(KernelParam {
            index,
            ordinal,
            offset,
            size: (w >> 18) as u16,
            pointee_log_align: (w & 0xff) as u8,
            pointee_space: ((w >> 8) & 0xf) as u8,
            cbank: ((w >> 12) & 0x1f) as u8,
            in_smem: (w >> 17) & 1 == 1,
        })
    }

    /// The 12-byte KPARAM_INFO value (sizes above 0x3fff are cut to 14 bits).
    pub fn encode(&self) -> Vec<u8> {
        let w = u32::from(self.pointee_log_align)
            | (u32::from(self.pointee_space & 0xf) << 8)
            | (u32::from(self.cbank & 0x1f) << 12)
            | (u32::from(self.in_smem) << 17)
            | (u32::from(self.size & 0x3fff) << 18);
        let mut v = Vec::with_capacity(12);
        v.extend_from_slice(&self.index.to_le_bytes());
        v.extend_from_slice(&self.ordinal.to_le_bytes());
        v.extend_from_slice(&self.offset.to_le_bytes());
        v.extend_from_slice(&w.to_le_bytes());
        v
    }

    /// This parameter as an `EIATTR_KPARAM_INFO` attribute.
    pub fn to_attribute(&self) -> Attribute {
        Attribute {
            id: eiattr::KPARAM_INFO,
            value: AttrValue::Blob(self.encode()),
        }
    }
}

/// `EIATTR_PARAM_CBANK`: where the parameters live in the constant bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamCbank {
    /// Symbol-table index of the `.nv.constant0.<kernel>` section symbol.
    pub symbol: u32,
    /// Byte offset of the first parameter in bank 0 (0x140 on sm_35).
    pub offset: u16,
    /// Bytes of parameters.
    pub size: u16,
}

/// A software-workaround attribute (`EIATTR_SW*_WAR`) found on a kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SwWorkaround {
    /// The attribute id.
    pub id: u8,
    /// Its `EIATTR_*` name.
    pub name: &'static str,
    /// The flags word for value-carrying forms (EIATTR_SW_WAR), `None` for flags.
    pub value: Option<u32>,
}

/// Typed view of a kernel's own `.nv.info.<kernel>` attributes. Attributes it has no
/// field for are still in [`super::Kernel::attributes`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelInfo {
    /// EIATTR_CUDA_API_VERSION (0x76 = 118 for CUDA 11.8).
    pub cuda_api_version: Option<u32>,
    /// EIATTR_PARAM_CBANK.
    pub param_cbank: Option<ParamCbank>,
    /// EIATTR_CBANK_PARAM_SIZE: bytes of parameters.
    pub cbank_param_size: Option<u16>,
    /// Every EIATTR_KPARAM_INFO, sorted by ordinal (ptxas writes them last to first).
    pub params: Vec<KernelParam>,
    /// EIATTR_MAXREG_COUNT (0xff = no limit).
    pub max_reg_count: Option<u16>,
    /// EIATTR_EXIT_INSTR_OFFSETS: byte offsets of the EXIT instructions.
    pub exit_offsets: Vec<u32>,
    /// EIATTR_S2RCTAID_INSTR_OFFSETS: byte offsets of the `S2R SR_CTAID.*` instructions.
    pub s2r_ctaid_offsets: Vec<u32>,
    /// EIATTR_INT_WARP_WIDE_INSTR_OFFSETS.
    pub int_warp_wide_offsets: Vec<u32>,
    /// EIATTR_CTAIDZ_USED is present.
    pub ctaidz_used: bool,
    /// EIATTR_MAX_THREADS (`.maxntid x, y, z`).
    pub max_threads: Option<[u32; 3]>,
    /// EIATTR_REQNTID (`.reqntid x, y, z`).
    pub req_ntid: Option<[u32; 3]>,
    /// EIATTR_CRS_STACK_SIZE: bytes of call/return/sync stack.
    pub crs_stack_size: Option<u32>,
    /// EIATTR_SW1850030_WAR, EIATTR_SW2393858_WAR, EIATTR_SW2861232_WAR, EIATTR_SW_WAR.
    pub sw_workarounds: Vec<SwWorkaround>,
}

/// Checks that a known attribute has the value shape its typed view needs.
fn expect_words(
    section: &str,
    index: usize,
    a: &Attribute,
    count: Option<usize>,
) -> Result<Vec<u32>, CubinError> {
    let bad = |len: usize| CubinError::AttributeSize {
        section: section.to_string(),
        attr: eiattr_label(a.id),
        index,
        len,
        expected: match count {
            Some(n) => format!("{} (EIFMT_SVAL)", n * 4),
            None => "a multiple of 4 (EIFMT_SVAL)".to_string(),
        },
    };
    match &a.value {
        AttrValue::Blob(b) => {
            let ok = b.len() % 4 == 0
                && match count {
                    Some(n) => b.len() == n * 4,
                    None => true,
                };
            if !ok {
                return Err(bad(b.len()));
            }
            Ok(a.as_words().unwrap_or_default())
        }
        AttrValue::U8(_) => Err(bad(1)),
        AttrValue::U16(_) => Err(bad(2)),
        AttrValue::None => Err(bad(0)),
    }
}

/// Reads a u16 from an EIFMT_HVAL (or a one-word EIFMT_SVAL) attribute.
fn expect_u16(section: &str, index: usize, a: &Attribute) -> Result<u16, CubinError> {
    match &a.value {
        AttrValue::U16(v) => Ok(*v),
        AttrValue::U8(v) => Ok(u16::from(*v)),
        _ => {
            let w = expect_words(section, index, a, Some(1))?;
            Ok(w[0] as u16)
        }
    }
}

impl KernelInfo {
    /// Builds the typed view from a kernel's attributes. `section` names the section in
    /// errors, which report a known attribute whose value has the wrong size.
    pub fn from_attributes(section: &str, attrs: &[Attribute]) -> Result<KernelInfo, CubinError> {
        let mut k = KernelInfo::default();
        for (i, a) in attrs.iter().enumerate() {
            match a.id {
                eiattr::CUDA_API_VERSION => {
                    k.cuda_api_version = Some(expect_words(section, i, a, Some(1))?[0])
                }
                eiattr::PARAM_CBANK => {
                    let w = expect_words(section, i, a, Some(2))?;
                    k.param_cbank = Some(ParamCbank {
                        symbol: w[0],
                        offset: (w[1] & 0xffff) as u16,
                        size: (w[1] >> 16) as u16,
                    });
                }
                eiattr::CBANK_PARAM_SIZE => k.cbank_param_size = Some(expect_u16(section, i, a)?),
                eiattr::KPARAM_INFO => {
                    expect_words(section, i, a, Some(3))?;
                    if let AttrValue::Blob(b) = &a.value {
                        if let Some(p) = KernelParam::decode(b) {
                            k.params.push(p);
                        }
                    }
                }
                eiattr::MAXREG_COUNT => k.max_reg_count = Some(expect_u16(section, i, a)?),
                eiattr::EXIT_INSTR_OFFSETS => {
                    k.exit_offsets.extend(expect_words(section, i, a, None)?);
                }
                eiattr::S2RCTAID_INSTR_OFFSETS => {
                    k.s2r_ctaid_offsets
                        .extend(expect_words(section, i, a, None)?);
                }
                eiattr::INT_WARP_WIDE_INSTR_OFFSETS => {
                    k.int_warp_wide_offsets
                        .extend(expect_words(section, i, a, None)?);
                }
                eiattr::CTAIDZ_USED => k.ctaidz_used = true,
                eiattr::MAX_THREADS => {
                    let w = expect_words(section, i, a, Some(3))?;
                    k.max_threads = Some([w[0], w[1], w[2]]);
                }
                eiattr::REQNTID => {
                    let w = expect_words(section, i, a, Some(3))?;
                    k.req_ntid = Some([w[0], w[1], w[2]]);
                }
                eiattr::CRS_STACK_SIZE => {
                    k.crs_stack_size = Some(expect_words(section, i, a, Some(1))?[0])
                }
                eiattr::SW1850030_WAR
                | eiattr::SW2393858_WAR
                | eiattr::SW2861232_WAR
                | eiattr::SW_WAR => {
                    let value = match &a.value {
                        AttrValue::None => None,
                        AttrValue::U8(v) => Some(u32::from(*v)),
                        AttrValue::U16(v) => Some(u32::from(*v)),
                        AttrValue::Blob(_) => a.as_words().and_then(|w| w.first().copied()),
                    };
                    k.sw_workarounds.push(SwWorkaround {
                        id: a.id,
                        name: eiattr_name(a.id).unwrap_or("EIATTR_SW_WAR"),
                        value,
                    });
                }
                _ => {}
            }
        }
        k.params.sort_by_key(|p| p.ordinal);
        Ok(k)
    }
}

/// The per-function values the global `.nv.info` section keys by symbol index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SymbolInfo {
    /// EIATTR_REGCOUNT: registers per thread.
    pub regcount: Option<u32>,
    /// EIATTR_FRAME_SIZE: bytes of local-memory frame.
    pub frame_size: Option<u32>,
    /// EIATTR_MIN_STACK_SIZE: bytes.
    pub min_stack_size: Option<u32>,
    /// EIATTR_MAX_STACK_SIZE: bytes.
    pub max_stack_size: Option<u32>,
}

/// Collects the symbol-keyed values (REGCOUNT, FRAME_SIZE, MIN/MAX_STACK_SIZE) of the
/// global `.nv.info` attributes, as (symbol index, values) pairs in first-seen order.
pub fn symbol_infos(
    section: &str,
    attrs: &[Attribute],
) -> Result<Vec<(u32, SymbolInfo)>, CubinError> {
    let mut out: Vec<(u32, SymbolInfo)> = Vec::new();
    for (i, a) in attrs.iter().enumerate() {
        let slot: fn(&mut SymbolInfo) -> &mut Option<u32> = match a.id {
            eiattr::REGCOUNT => |s| &mut s.regcount,
            eiattr::FRAME_SIZE => |s| &mut s.frame_size,
            eiattr::MIN_STACK_SIZE => |s| &mut s.min_stack_size,
            eiattr::MAX_STACK_SIZE => |s| &mut s.max_stack_size,
            _ => continue,
        };
        let w = expect_words(section, i, a, Some(2))?;
        let pos = match out.iter().position(|(s, _)| *s == w[0]) {
            Some(p) => p,
            None => {
                out.push((w[0], SymbolInfo::default()));
                out.len() - 1
            }
        };
        *slot(&mut out[pos].1) = Some(w[1]);
    }
    Ok(out)
}
