//! Checking a buffer's final contents against its reference: a file, or a
//! built-in reference computed from the launch's inputs; bit for bit, or
//! within a number of ulps.

use std::collections::BTreeMap;

use super::spec::*;
use super::{invalid, Buffer, LaunchError, Resolved};
use crate::reference::{self, RefInput};

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    pub buffer: String,
    pub elements: usize,
    pub mismatches: usize,
    /// The first mismatch: index, value, expected (as text).
    pub first: Option<(usize, String, String)>,
    /// The largest difference in ulps among floats.
    pub max_ulp: u64,
}

impl CheckResult {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `got` (the buffer's final bytes) with the reference.
pub fn check(
    c: &CheckSpec,
    r: &Resolved,
    initial: &[Buffer],
    got: &Buffer,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<CheckResult, LaunchError> {
    let expected = match &c.reference {
        Reference::File(f) => {
            let i = r.checks.iter().position(|x| std::ptr::eq(x, c));
            match i.and_then(|i| r.expected.get(i)).cloned().flatten() {
                Some(d) => d,
                None => read(f)
                    .map_err(|e| LaunchError::Invalid(format!("check of `{}`: {e}", c.buffer)))?,
            }
        }
        Reference::Builtin {
            name,
            inputs,
            params,
        } => {
            let f = reference::builtin(name)
                .ok_or_else(|| LaunchError::Invalid(format!("no built-in reference `{name}`")))?;
            let mut p: BTreeMap<String, i64> = r.vars.clone();
            for (k, v) in params {
                if let Num::Lit(v) = v {
                    p.insert(k.clone(), *v);
                }
            }
            let bufs = inputs
                .iter()
                .map(|i| {
                    let b = initial
                        .iter()
                        .find(|b| &b.name == i)
                        .expect("checked in resolve");
                    (b.name.as_str(), b.elem, b.data.as_slice())
                })
                .collect();
            f(&RefInput {
                buffers: bufs,
                params: &p,
            })
            .map_err(|e| LaunchError::Invalid(format!("reference `{name}`: {e}")))?
        }
    };
    if expected.len() != got.data.len() {
        return invalid(format!(
            "check of `{}`: the reference has {} bytes, the buffer {}",
            c.buffer,
            expected.len(),
            got.data.len()
        ));
    }
    let es = got.elem.size();
    let n = got.data.len() / es;
    let mut res = CheckResult {
        buffer: c.buffer.clone(),
        elements: n,
        mismatches: 0,
        first: None,
        max_ulp: 0,
    };
    for i in 0..n {
        let g = &got.data[i * es..(i + 1) * es];
        let e = &expected[i * es..(i + 1) * es];
        let (ok, ulp) = match (c.compare, got.elem) {
            (_, _) if g == e => (true, 0),
            (Compare::Ulp(u), Elem::F32) => {
                let (a, b) = (
                    f32::from_le_bytes(g.try_into().unwrap_or([0; 4])),
                    f32::from_le_bytes(e.try_into().unwrap_or([0; 4])),
                );
                let d = ulp32(a, b);
                (d <= u as u64, d)
            }
            (Compare::Ulp(u), Elem::F64) => {
                let (a, b) = (
                    f64::from_le_bytes(g.try_into().unwrap_or([0; 8])),
                    f64::from_le_bytes(e.try_into().unwrap_or([0; 8])),
                );
                let d = ulp64(a, b);
                (d <= u as u64, d)
            }
            _ => (false, u64::MAX),
        };
        if ulp != u64::MAX {
            res.max_ulp = res.max_ulp.max(ulp);
        }
        if !ok {
            res.mismatches += 1;
            if res.first.is_none() {
                res.first = Some((i, show(got.elem, g), show(got.elem, e)));
            }
        }
    }
    Ok(res)
}

fn ulp32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX - 1;
    }
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b & 0x8000_0000 != 0 {
            0x8000_0000 - b
        } else {
            b
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn ulp64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX - 1;
    }
    let key = |x: f64| {
        let b = x.to_bits() as i128;
        if b & (1 << 63) != 0 {
            (1i128 << 63) - b
        } else {
            b
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::MAX as u128 - 1) as u64
}

/// One element as text.
pub fn show(e: Elem, b: &[u8]) -> String {
    let a4 = |b: &[u8]| -> [u8; 4] { b.try_into().unwrap_or([0; 4]) };
    let a8 = |b: &[u8]| -> [u8; 8] { b.try_into().unwrap_or([0; 8]) };
    match e {
        Elem::U8 => b[0].to_string(),
        Elem::I8 => (b[0] as i8).to_string(),
        Elem::U16 => u16::from_le_bytes([b[0], b[1]]).to_string(),
        Elem::I16 => i16::from_le_bytes([b[0], b[1]]).to_string(),
        Elem::U32 => u32::from_le_bytes(a4(b)).to_string(),
        Elem::I32 => i32::from_le_bytes(a4(b)).to_string(),
        Elem::U64 => u64::from_le_bytes(a8(b)).to_string(),
        Elem::I64 => i64::from_le_bytes(a8(b)).to_string(),
        Elem::F32 => {
            let v = f32::from_le_bytes(a4(b));
            format!("{v:e} ({:#010x})", v.to_bits())
        }
        Elem::F64 => {
            let v = f64::from_le_bytes(a8(b));
            format!("{v:e} ({:#018x})", v.to_bits())
        }
    }
}
