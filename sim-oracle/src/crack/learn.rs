//! The learning passes of the crack. Each pass gathers the words it needs for all
//! forms at once and sends them to nvdisasm in large batches; answers are cached,
//! so no word is ever disassembled twice.

use std::collections::HashSet;
use std::collections::{BTreeMap, HashMap};

use bitvec::prelude::{BitArray, Lsb0};
use bitvec::view::BitView;

use sim_isa::render;
use sim_isa::table::{gather, scatter, Fmt};

use super::text::{
    diff_span, is_numeric, linked_registers, mnemonic, operands, optional_operand, repeated_change,
    same_form, signature, tokens,
};
use super::MAX_ENUM_BITS;

/// A group whose decoration part is wider than this is not explained by a format.
const MAX_DECO_BITS: usize = 10;
use crate::tools::{OracleError, Tools, Verdict, NEUTRAL_CONTROL};

/// A set of bit positions of a 64-bit instruction word (bit `i` is `1 << i`):
/// the crack's bookkeeping of which bits are fixed, operand or ignored. The
/// forms it learns keep them as plain `u64`s, as the table and the decoder do.
type Bits = BitArray<u64, Lsb0>;

/// What nvdisasm said of one word, as the learner keeps it.
#[derive(Debug, Clone)]
struct Probe {
    /// Text with branch targets made relative (see [`Learner::canon`]), or the
    /// rejection message.
    text: Result<String, String>,
    /// Address the word sat at.
    addr: u64,
}

/// A learned bit group.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedGroup {
    pub deco_bits: Vec<u8>,
    pub value_bits: Vec<u8>,
    pub fmt: Fmt,
    /// Indexed by decoration value.
    pub table: Vec<Option<(String, String)>>,
    /// For a group whose value prints twice, the decorations of the second
    /// print; empty otherwise.
    pub again: Vec<Option<(String, String)>>,
}

/// A piece of a learned template.
#[derive(Debug, Clone, PartialEq)]
pub enum LearnedPiece {
    Lit(String),
    /// A group's text.
    Hole(usize),
    /// A group's value printed a second time, with the decorations of its
    /// `again` table.
    Again(usize),
}

/// A learned form.
#[derive(Debug, Clone)]
pub struct LearnedForm {
    pub mask: u64,
    pub bits: u64,
    pub mnemonic: String,
    pub template: Vec<LearnedPiece>,
    pub groups: Vec<LearnedGroup>,
    pub ignored: u64,
    /// The bits outside the mask as ptxas writes them: the per-bit majority over
    /// the seeds of this form, the sweep's only where no other seed falls in it
    /// (zero where none).
    pub fill: u64,
    /// How many of the seeds (most are ptxas's words) this form holds.
    pub seen: u32,
    /// The form was split off another for a register field at `RZ` (see
    /// [`sim_isa::table::Form::rz_split`]): the decoder tries it first.
    pub rz_split: bool,
    /// A word of this form that nvdisasm accepts.
    pub seed: u64,
    /// Validation: random words of the form checked, and how many printed exactly.
    pub checked: usize,
    pub agreed: usize,
    /// Why the form could not be learned completely, if it could not.
    pub problem: Option<String>,
    /// The first validation word printed differently: word, nvdisasm's text, ours.
    pub mismatch: Option<(u64, String, String)>,
}

/// The outcome of a crack.
#[derive(Debug, Default)]
pub struct CrackReport {
    pub forms: Vec<LearnedForm>,
    pub seeds: usize,
    pub probes: usize,
}

/// Deterministic xorshift generator: the crack must give the same table every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

struct Learner<'a> {
    tools: &'a Tools,
    cache: HashMap<u64, Probe>,
    probes: usize,
    /// Operand indices that are branch targets, by form key.
    pcrel_ops: HashMap<(u64, u64), Vec<usize>>,
    /// The keys of the forms split off for a register at `RZ`, most fixed bits
    /// first: the decoder tries them before all others, so their words are no
    /// other form's.
    rz_keys: Vec<(u64, u64)>,
}

impl<'a> Learner<'a> {
    /// Disassembles every word not yet in the cache.
    fn fetch(&mut self, words: impl IntoIterator<Item = u64>) -> Result<(), OracleError> {
        let mut todo: Vec<u64> = words
            .into_iter()
            .filter(|w| !self.cache.contains_key(w))
            .collect();
        todo.sort_unstable();
        todo.dedup();
        // A word with a control word's fixed bits is never an instruction (nvdisasm:
        // "Unaligned instruction found"); nvdisasm cannot say so in a batch, and
        // the crack learns nothing from them, so they are not sent.
        todo.retain(|&w| {
            if crate::tools::looks_like_control(w) {
                self.cache.insert(
                    w,
                    Probe {
                        text: Err("Unaligned instruction found".into()),
                        addr: 0,
                    },
                );
                false
            } else {
                true
            }
        });
        // Two nvdisasm processes at a time: the machines have two cores.
        let chunks: Vec<&[u64]> = todo.chunks(20_000).collect();
        for pair in chunks.chunks(2) {
            let results: Vec<Result<Vec<(Verdict, u64)>, OracleError>> = std::thread::scope(|sc| {
                let hs: Vec<_> = pair
                    .iter()
                    .map(|c| sc.spawn(|| self.tools.disasm_words_at(c, NEUTRAL_CONTROL)))
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().expect("nvdisasm thread"))
                    .collect()
            });
            for (chunk, out) in pair.iter().zip(results) {
                self.store(chunk, out?);
            }
        }
        Ok(())
    }

    fn store(&mut self, chunk: &[u64], out: Vec<(Verdict, u64)>) {
        {
            self.probes += chunk.len();
            for (&w, (v, addr)) in chunk.iter().zip(out) {
                let text = match v {
                    Verdict::Text(t) => Ok(t),
                    Verdict::Rejected(e) => Err(e),
                };
                self.cache.insert(w, Probe { text, addr });
            }
        }
    }

    /// Loads the answers saved by [`Learner::save`] from `KEPLERSIM_CRACK_CACHE`,
    /// if set: a development aid, so that a changed crack asks nvdisasm only
    /// about words it has not seen. The table test runs without it.
    fn load(&mut self) {
        let Some(path) = std::env::var_os("KEPLERSIM_CRACK_CACHE") else {
            return;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        for line in text.lines() {
            let mut it = line.splitn(4, '\t');
            let (Some(w), Some(addr), Some(kind), Some(t)) =
                (it.next(), it.next(), it.next(), it.next())
            else {
                continue;
            };
            let (Ok(w), Ok(addr)) = (u64::from_str_radix(w, 16), u64::from_str_radix(addr, 16))
            else {
                continue;
            };
            let text = match kind {
                "T" => Ok(t.to_string()),
                _ => Err(t.to_string()),
            };
            self.cache.insert(w, Probe { text, addr });
        }
    }

    /// Saves every answer to `KEPLERSIM_CRACK_CACHE`, if set.
    fn save(&self) {
        let Some(path) = std::env::var_os("KEPLERSIM_CRACK_CACHE") else {
            return;
        };
        let mut out = String::with_capacity(self.cache.len() * 64);
        for (w, p) in &self.cache {
            let (kind, t) = match &p.text {
                Ok(t) => ("T", t.as_str()),
                Err(e) => ("E", e.as_str()),
            };
            let t = t.replace(['\t', '\n'], " ");
            out.push_str(&format!("{w:x}\t{:x}\t{kind}\t{t}\n", p.addr));
        }
        let _ = std::fs::write(path, out);
    }

    /// Whether `word`, though it has the fixed bits of `w`, belongs to a form
    /// split off for `RZ` that the decoder tries first.
    fn claimed(&self, w: &Work, word: u64) -> bool {
        !w.rz_split && self.rz_form(word).is_some()
    }

    /// The first form split off for `RZ` whose fixed bits `word` has.
    fn rz_form(&self, word: u64) -> Option<(u64, u64)> {
        self.rz_keys.iter().copied().find(|&(m, b)| word & m == b)
    }

    fn raw(&self, w: u64) -> &Probe {
        &self.cache[&w]
    }

    /// The text of `w` with the branch-target operands at `pcrel` rewritten as
    /// offsets from the word's own address, so texts of words disassembled at
    /// different addresses compare equal when their encodings agree.
    fn canon(&self, w: u64, pcrel: &[usize]) -> Result<String, String> {
        let p = self.raw(w);
        let t = p.text.clone()?;
        if pcrel.is_empty() {
            return Ok(t);
        }
        Ok(rewrite_pcrel(&t, pcrel, p.addr))
    }
}

/// Rewrites the branch-target operands (by index) of `text` as `0x<target - addr>`
/// in 32-bit two's complement.
fn rewrite_pcrel(text: &str, pcrel: &[usize], addr: u64) -> String {
    let ops = operands(text);
    let mut out = text.to_string();
    for &k in pcrel {
        let Some(op) = ops.get(k) else { continue };
        // The last hex number in the operand is the target.
        if let Some(pos) = op.rfind("0x") {
            let digits: String = op[pos + 2..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            if let Ok(v) = i64::from_str_radix(&digits, 16) {
                let neg = pos > 0 && op.as_bytes()[pos - 1] == b'-';
                let start = if neg { pos - 1 } else { pos };
                let target = if neg { -v } else { v };
                let rel = target.wrapping_sub(addr as i64);
                let text = if rel < 0 {
                    format!("-{:#x}", rel.unsigned_abs())
                } else {
                    format!("{rel:#x}")
                };
                let new_op = format!("{}{}{}", &op[..start], text, &op[pos + 2 + digits.len()..]);
                out = out.replacen(op.as_str(), &new_op, 1);
            }
        }
    }
    out
}

/// The bits of `s` (text `t`) whose flip changes the layout: nvdisasm then reads
/// another operation, other operand kinds, or a change that spans operands.
fn opcode_bits(l: &Learner, s: u64, pcrel: &[usize], t: &str) -> u64 {
    let sig = signature(t);
    let mut mask = Bits::ZERO;
    for i in 0..64 {
        let f = s ^ (1u64 << i);
        let opcode = match &l.raw(f).text {
            Err(e) => is_opcode_rejection(e),
            Ok(tf) => {
                let ctf = l.canon(f, pcrel).unwrap_or_default();
                !optional_operand(t, &ctf) && (signature(tf) != sig || crosses_operands(t, &ctf))
            }
        };
        mask.set(i, opcode);
    }
    mask.into_inner()
}

/// True when two texts differ in a stretch that spans more than one operand: a
/// change of layout, not of one field.
fn crosses_operands(x: &str, y: &str) -> bool {
    let (xt, yt) = (tokens(x), tokens(y));
    // One field printed in two operands is still one field.
    if repeated_change(&xt, &yt).is_some() || linked_registers(&xt, &yt) {
        return false;
    }
    let (a, b, b2) = diff_span(&xt, &yt);
    xt[a..b].contains(&",") || yt[a..b2].contains(&",")
}

fn is_opcode_rejection(msg: &str) -> bool {
    msg.contains("Unrecognized operation") || msg.contains("Unaligned") || !msg.contains("table")
}

/// A form under construction.
struct Work {
    seed: u64,
    mask: u64,
    sig: String,
    pcrel: Vec<usize>,
    variants: Vec<u64>,
    /// How many of the variants are seeds (the first is): the others are
    /// random words of the form.
    seeds: usize,
    /// Split off a form in which a register field at `RZ` prints other
    /// modifiers (see [`rz_splits`]), or a case of such a form: tried before
    /// the forms it overlaps.
    rz_split: bool,
}

/// At most this many seeds of a form are its variants.
const MAX_SEED_VARIANTS: usize = 4;

/// A form's key: its fixed bits (the mask) and their values.
type Key = (u64, u64);

/// A word waiting to seed a form: the word, the fixed bits it inherits, its
/// branch-target operands, and whether it was split off for RZ.
type Pending = (u64, u64, Vec<usize>, bool);

/// Runs the crack over `seeds`.
pub fn crack(
    tools: &Tools,
    seeds: &[u64],
    mut log: impl FnMut(&str),
) -> Result<CrackReport, OracleError> {
    let mut l = Learner {
        tools,
        cache: HashMap::new(),
        probes: 0,
        pcrel_ops: HashMap::new(),
        rz_keys: Vec::new(),
    };
    l.load();
    let mut seeds: Vec<u64> = seeds.to_vec();
    seeds.sort_unstable();
    seeds.dedup();

    // Pass 1: seeds, seeds at a second address (branch targets), all single flips.
    log(&format!(
        "pass 1: {} seeds, {} flips",
        seeds.len(),
        seeds.len() * 64
    ));
    l.fetch(seeds.iter().copied())?;
    let valid: Vec<u64> = seeds
        .iter()
        .copied()
        .filter(|s| l.raw(*s).text.is_ok())
        .collect();
    let pcrel_of = find_pcrel(&mut l, &valid)?;
    l.fetch(
        valid
            .iter()
            .flat_map(|&s| (0..64).map(move |i| s ^ (1u64 << i))),
    )?;

    let mut works = find_forms(&mut l, &valid, &pcrel_of, &mut log)?;
    log(&format!(
        "{} forms from {} valid seeds",
        works.len(),
        valid.len()
    ));
    order_rz_forms(&mut l, &mut works, &mut log);
    add_seed_variants(&l, &mut works, &valid);

    let keys: Vec<Key> = works.keys().copied().collect();
    let (plans, mut forms) = learn_groups(&mut l, &works, &keys, &mut log)?;
    complete_decorations(&mut l, &keys, &plans, &mut forms, &mut log)?;
    split_optional_zeros(&mut l, &works, &keys, &plans, &mut forms, &mut log)?;
    fill_from_seeds(&mut forms, &seeds);
    l.save();
    log(&format!("done: {} forms, {} probes", forms.len(), l.probes));
    Ok(CrackReport {
        forms,
        seeds: seeds.len(),
        probes: l.probes,
    })
}

/// Passes 2 and 3: the forms, from the `valid` seeds. Forms are refined
/// until no single flip of any variant changes the layout: a bit that does so
/// in some context (IMAD's two negations print as `.PO` together) joins the
/// mask, and the form splits by its value.
///
/// Phase 1 learns the forms split off for a register at RZ, from seeds the
/// forms of phase 0 give (see [`rz_splits`]), so that phase 0 finds what it
/// would without them. It seeds no forms from flips: those are the flips of
/// the forms the splits come from, with a register at RZ, and seed the same
/// instructions.
fn find_forms(
    l: &mut Learner,
    valid: &[u64],
    pcrel_of: &HashMap<u64, Vec<usize>>,
    log: &mut impl FnMut(&str),
) -> Result<BTreeMap<Key, Work>, OracleError> {
    let mut works: BTreeMap<Key, Work> = BTreeMap::new();
    let mut pending: Vec<Pending> = valid
        .iter()
        .map(|&s| (s, 0, pcrel_of.get(&s).cloned().unwrap_or_default(), false))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut seen: HashSet<(String, u64)> = HashSet::new();
    // The forms the splits of phase 1 came from.
    let mut rz_parents: Vec<Key> = Vec::new();
    for phase in 0..2 {
        if phase == 1 {
            rz_parents = seed_rz_forms(l, &works, &mut pending, log)?;
        }
        for round in 0..8 {
            l.fetch(
                pending
                    .iter()
                    .flat_map(|p| (0..64).map(move |i| p.0 ^ (1u64 << i))),
            )?;
            let new_keys = admit(l, &mut works, std::mem::take(&mut pending));
            log(&format!(
                "round {round}: {} new forms, {} in all",
                new_keys.len(),
                works.len()
            ));
            if round < 7 && phase == 1 {
                // The other registers of the forms split off for RZ and of
                // those they came from may print differently at RZ too (ALD's
                // vertex register: `ALD R2, a[0x1];`): each such case is a form
                // with both fields fixed, found as its parent was.
                let mut keys = new_keys.clone();
                if round == 0 {
                    keys.extend(rz_parents.iter().copied());
                }
                let splits = rz_splits(l, &works, &keys, RzChange::Text, |w| w.mask)?;
                seed_splits(
                    splits,
                    false,
                    "other register fields of those print differently at RZ",
                    &mut pending,
                    log,
                );
            }
            if round < 7 && phase == 0 {
                pending.extend(other_instructions(l, &works, &new_keys, &mut seen, log)?);
            }
            if new_keys.is_empty() {
                break;
            }
            add_random_variants(l, &mut works, &new_keys, &mut rng)?;
            // (The last round splits nothing.)
            pending.extend(split_by_flips(l, &mut works, &new_keys, round < 7)?);
        }
    }
    Ok(works)
}

/// Phase 1's seeds, queued on `pending`: register fields of the forms found
/// whose value RZ prints with other modifiers, and those whose operand
/// vanishes at RZ (FCCO's last register: `FCCO.SP P1, R8, R3, 0x1` and
/// `FCCO.SP P1, R8, 0x1`), a layout of its own: a form with the parent's
/// fixed bits and the field's. Gives the forms the first came from.
fn seed_rz_forms(
    l: &mut Learner,
    works: &BTreeMap<Key, Work>,
    pending: &mut Vec<Pending>,
    log: &mut impl FnMut(&str),
) -> Result<Vec<Key>, OracleError> {
    let keys: Vec<Key> = works.keys().copied().collect();
    let splits = rz_splits(l, works, &keys, RzChange::Modifiers, |_| 0)?;
    let mut rz_parents: Vec<Key> = splits.iter().map(|x| x.key).collect();
    rz_parents.sort_unstable();
    rz_parents.dedup();
    seed_splits(
        splits,
        true,
        "register fields whose value RZ prints other modifiers seed forms",
        pending,
        log,
    );
    let vanish = rz_splits(l, works, &keys, RzChange::Vanishes, |w| w.mask)?;
    seed_splits(
        vanish,
        false,
        "register fields whose operand vanishes at RZ seed forms",
        pending,
        log,
    );
    Ok(rz_parents)
}

/// Each pending word that nvdisasm reads makes a form of its text's layout
/// (its key: its fixed bits and their values), unless the form is known;
/// gives the keys of the new forms.
fn admit(l: &mut Learner, works: &mut BTreeMap<Key, Work>, pending: Vec<Pending>) -> Vec<Key> {
    let mut new_keys = Vec::new();
    for (s, parent_mask, pcrel, rz_split) in pending {
        let Ok(t) = l.canon(s, &pcrel) else { continue };
        let sig = signature(&t);
        let mask = parent_mask | opcode_bits(l, s, &pcrel, &t);
        let key = (mask, s & mask);
        match works.entry(key) {
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(Work {
                    seed: s,
                    mask,
                    sig,
                    pcrel: pcrel.clone(),
                    variants: vec![s],
                    seeds: 1,
                    rz_split,
                });
                l.pcrel_ops.insert(key, pcrel);
                new_keys.push(key);
            }
            // A form found from another seed too is the same form: it
            // still goes first if it is the RZ case of another.
            std::collections::btree_map::Entry::Occupied(mut e) => {
                e.get_mut().rz_split |= rz_split;
            }
        }
    }
    new_keys
}

/// Single flips of the seeds of the forms `new_keys` that make another
/// instruction (FFMA32I from FFMA, BRX from BRA) seed forms of their own: one
/// per text signature and fixed-bit value of the seed they came from
/// (`seen`). So do those of forms found later: a condition code that is an
/// opcode field (`NOP CC.GE, 0x2`) reaches every value a flip at a time.
fn other_instructions(
    l: &mut Learner,
    works: &BTreeMap<Key, Work>,
    new_keys: &[Key],
    seen: &mut HashSet<(String, u64)>,
    log: &mut impl FnMut(&str),
) -> Result<Vec<Pending>, OracleError> {
    let mut extra: Vec<u64> = Vec::new();
    for key in new_keys {
        let w = &works[key];
        for i in 0..64 {
            let f = w.seed ^ (1u64 << i);
            let Ok(t) = l.canon(f, &w.pcrel) else {
                continue;
            };
            let sig = signature(&t);
            if sig != w.sig && seen.insert((sig, f & w.mask)) {
                extra.push(f);
            }
        }
    }
    let extra_pcrel = find_pcrel(l, &extra)?;
    log(&format!(
        "{} single flips that change the instruction seed forms too",
        extra.len()
    ));
    Ok(extra
        .into_iter()
        .map(|f| {
            let pcrel = extra_pcrel.get(&f).cloned().unwrap_or_default();
            (f, 0, pcrel, false)
        })
        .collect())
}

/// Random variants of each new form: up to five words of its layout, the
/// bits outside its mask drawn from `rng`.
fn add_random_variants(
    l: &mut Learner,
    works: &mut BTreeMap<Key, Work>,
    new_keys: &[Key],
    rng: &mut Rng,
) -> Result<(), OracleError> {
    let mut cands: Vec<(Key, u64)> = Vec::new();
    for key in new_keys {
        let w = &works[key];
        for _ in 0..24 {
            cands.push((*key, w.seed ^ (rng.next() & !w.mask)));
        }
    }
    l.fetch(cands.iter().map(|c| c.1))?;
    for (key, c) in cands {
        let w = works.get_mut(&key).expect("form");
        if w.variants.len() >= w.seeds + 5 || w.variants.contains(&c) {
            continue;
        }
        if let Ok(t) = l.canon(c, &w.pcrel) {
            if same_form(&signature(&t), &w.sig) {
                w.variants.push(c);
            }
        }
    }
    Ok(())
}

/// All flips of every variant of the forms `new_keys`; a bit that changes the
/// layout of any variant splits the form (when `split`): it is taken out, and
/// its variants, and their flips of those bits, are queued with the bits
/// fixed.
fn split_by_flips(
    l: &mut Learner,
    works: &mut BTreeMap<Key, Work>,
    new_keys: &[Key],
    split: bool,
) -> Result<Vec<Pending>, OracleError> {
    l.fetch(
        new_keys
            .iter()
            .flat_map(|k| works[k].variants.clone())
            .flat_map(|v| (0..64).map(move |i| v ^ (1u64 << i))),
    )?;
    let mut pending = Vec::new();
    for key in new_keys {
        let w = &works[key];
        let mut extra = 0u64;
        for &v in &w.variants {
            let t = l.canon(v, &w.pcrel).expect("variant is valid");
            extra |= opcode_bits(l, v, &w.pcrel, &t) & !w.mask;
        }
        if extra != 0 && split {
            let w = works.remove(key).expect("form");
            for &v in &w.variants {
                pending.push((v, w.mask | extra, w.pcrel.clone(), w.rz_split));
                for i in 0..64 {
                    if extra >> i & 1 == 1 {
                        pending.push((
                            v ^ (1u64 << i),
                            w.mask | extra,
                            w.pcrel.clone(),
                            w.rz_split,
                        ));
                    }
                }
            }
        }
    }
    Ok(pending)
}

/// The forms split off for RZ, in the order the decoder tries them
/// (`l.rz_keys`). A form whose fixed bits hold those of one split off for RZ
/// is a case of it (AST with base RZ and no source, `AST a[0x20], R6`): it
/// goes first too, and before it, the decoder trying the most fixed bits
/// first. A random variant that a form split off for RZ holds is that form's
/// (the seed, the first variant, is the only one from the seeds yet).
fn order_rz_forms(l: &mut Learner, works: &mut BTreeMap<Key, Work>, log: &mut impl FnMut(&str)) {
    let split: Vec<Key> = works
        .iter()
        .filter(|(_, w)| w.rz_split)
        .map(|(k, _)| *k)
        .collect();
    for (&(mask, bits), w) in works.iter_mut() {
        w.rz_split |= split.iter().any(|&(m, b)| mask & m == m && bits & m == b);
    }
    l.rz_keys = works
        .iter()
        .filter(|(_, w)| w.rz_split)
        .map(|(k, _)| *k)
        .collect();
    l.rz_keys
        .sort_unstable_by_key(|k| (std::cmp::Reverse(k.0.count_ones()), *k));
    log(&format!(
        "{} forms split off for a register at RZ",
        l.rz_keys.len()
    ));
    for w in works.values_mut().filter(|w| !w.rz_split) {
        let seed = w.seed;
        w.variants.retain(|&v| v == seed || l.rz_form(v).is_none());
    }
}

/// The seeds a form holds (as the decoder would pick it) are its variants
/// too, up to [`MAX_SEED_VARIANTS`]: ptxas's words show fields that random
/// ones hide (VMNMX's sign types print only with valid byte selectors). Their
/// flips were fetched in pass 1.
fn add_seed_variants(l: &Learner, works: &mut BTreeMap<Key, Work>, valid: &[u64]) {
    let mut masks: Vec<u64> = works.keys().map(|k| k.0).collect();
    masks.sort_unstable_by_key(|m| (std::cmp::Reverse(m.count_ones()), *m));
    masks.dedup();
    for &s in valid {
        let Some(key) = l.rz_form(s).or_else(|| {
            masks
                .iter()
                .map(|&m| (m, s & m))
                .find(|k| works.contains_key(k))
        }) else {
            continue;
        };
        let w = works.get_mut(&key).expect("form");
        if w.seeds >= MAX_SEED_VARIANTS || w.variants.contains(&s) {
            continue;
        }
        if l.canon(s, &w.pcrel)
            .is_ok_and(|t| same_form(&signature(&t), &w.sig))
        {
            w.variants.push(s);
            w.seeds += 1;
        }
    }
}

/// Passes 4 and 5: each form's groups, and the forms learned from them.
/// Pass 4: group structure, then rounds of enumeration; a group whose values
/// change text outside its hole is widened and merged with what it overlaps,
/// and enumerated again. Pass 5: validation with 96 random words of each
/// form; each disagreement merges the groups whose holes touch the text that
/// differs, and the forms are learned again, until no form regroups (six
/// rounds at most). A regrouping that did worse than the round before is
/// undone.
fn learn_groups(
    l: &mut Learner,
    works: &BTreeMap<Key, Work>,
    keys: &[Key],
    log: &mut impl FnMut(&str),
) -> Result<(Vec<Plan>, Vec<LearnedForm>), OracleError> {
    let mut plans: Vec<Plan> = keys.iter().map(|k| plan_groups(l, &works[k])).collect();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let checks: Vec<(usize, u64)> = keys
        .iter()
        .enumerate()
        .flat_map(|(i, k)| {
            let mask = k.0 | plans[i].fixed;
            let bits = k.1 | (plans[i].base & plans[i].fixed);
            (0..96)
                .map(|_| (i, bits | (rng.next() & !mask)))
                .collect::<Vec<_>>()
        })
        .collect();
    l.fetch(checks.iter().map(|c| c.1))?;
    let mut forms = Vec::new();
    for vround in 0..6 {
        enumerate_groups(l, works, keys, &mut plans, vround, log)?;
        let prev_plans = plans.clone();
        let prev_forms = std::mem::take(&mut forms);
        forms = keys
            .iter()
            .zip(plans.iter())
            .map(|(key, plan)| finish_form(l, &works[key], plan))
            .collect();
        enumerate_modifier_runs(l, works, keys, &mut plans, &mut forms, log)?;
        let (mut merges, mut live) = validate(l, works, keys, &plans, &mut forms, &checks)?;
        if !prev_forms.is_empty() {
            for i in 0..forms.len() {
                let (old, new) = (&prev_forms[i], &forms[i]);
                let old_score = if old.problem.is_some() { 0 } else { old.agreed };
                let new_score = if new.problem.is_some() { 0 } else { new.agreed };
                if debug_seed() == Some(old.seed) {
                    eprintln!(
                        "vround {vround}: score {old_score} -> {new_score}, problem {:?}",
                        new.problem
                    );
                }
                if old_score > new_score {
                    forms[i] = old.clone();
                    plans[i] = prev_plans[i].clone();
                    merges[i].clear();
                    live[i].clear();
                }
            }
        }
        let merged = regroup(&mut plans, merges, live);
        let checked: usize = forms.iter().map(|f| f.checked).sum();
        let agreed: usize = forms.iter().map(|f| f.agreed).sum();
        log(&format!(
            "validation {vround}: {agreed}/{checked}; {merged} forms regroup"
        ));
        if merged == 0 {
            break;
        }
    }
    Ok((plans, forms))
}

/// Pass 4's rounds: every group of every form enumerated, and widened where
/// its values change text outside its hole, until no form changes (twelve
/// rounds at most).
fn enumerate_groups(
    l: &mut Learner,
    works: &BTreeMap<Key, Work>,
    keys: &[Key],
    plans: &mut [Plan],
    vround: usize,
    log: &mut impl FnMut(&str),
) -> Result<(), OracleError> {
    for round in 0..12 {
        l.fetch(
            plans
                .iter()
                .filter(|p| p.problem.is_none())
                .flat_map(|p| p.enum_words()),
        )?;
        let mut changed = 0;
        for (key, plan) in keys.iter().zip(plans.iter_mut()) {
            if plan.problem.is_none() && widen(l, &works[key], plan) {
                changed += 1;
            }
        }
        if changed == 0 {
            break;
        }
        log(&format!(
            "pass 4.{vround} round {round}: {changed} forms regrouped, {} probes so far",
            l.probes
        ));
    }
    Ok(())
}

/// A wide group no format explains, all of whose bits change modifiers, is a
/// run of modifiers: it is enumerated in full and learned as a table.
fn enumerate_modifier_runs(
    l: &mut Learner,
    works: &BTreeMap<Key, Work>,
    keys: &[Key],
    plans: &mut [Plan],
    forms: &mut [LearnedForm],
    log: &mut impl FnMut(&str),
) -> Result<(), OracleError> {
    let mut again = Vec::new();
    for (i, f) in forms.iter().enumerate() {
        let Some(g) = f.groups.iter().find(|g| g.table.is_empty()) else {
            continue;
        };
        let bits = &g.deco_bits;
        if debug_seed() == Some(f.seed) {
            eprintln!(
                "unexplained group {bits:?}: full {:?}, modifiers {}",
                plans[i].full,
                modifier_bits(l, &works[&keys[i]], &plans[i], bits)
            );
        }
        if bits.len() > MAX_ENUM_BITS
            && bits.len() <= MAX_FULL_BITS
            && !plans[i].full.contains(bits)
            && modifier_bits(l, &works[&keys[i]], &plans[i], bits)
        {
            plans[i].full.push(bits.clone());
            again.push(i);
        }
    }
    if !again.is_empty() {
        l.fetch(again.iter().flat_map(|&i| plans[i].enum_words()))?;
        for &i in &again {
            forms[i] = finish_form(l, &works[&keys[i]], &plans[i]);
        }
        log(&format!(
            "{} forms with wide modifier groups enumerated in full",
            again.len()
        ));
    }
    Ok(())
}

/// Groups to merge (by index, before any merge), per form.
type Merges = Vec<Vec<Vec<usize>>>;
/// Ignored bits that join a group (bit, group index), per form.
type Live = Vec<Vec<(u8, usize)>>;

/// Pass 5's validation: each form prints its random words (`checks`), counted
/// in its `checked` and `agreed`. Each disagreement inside one operand
/// merges the groups whose holes touch the text that differs; a bit the plan
/// holds ignored but whose flip changes a disagreeing word's text (SUSTGA's
/// width bit, silent where the base word prints no width) joins the group
/// whose hole the difference is in.
fn validate(
    l: &mut Learner,
    works: &BTreeMap<Key, Work>,
    keys: &[Key],
    plans: &[Plan],
    forms: &mut [LearnedForm],
    checks: &[(usize, u64)],
) -> Result<(Merges, Live), OracleError> {
    let live_probes: Vec<u64> = checks
        .iter()
        .filter(|&&(i, word)| {
            let want = l.canon(
                word,
                &l.pcrel_ops.get(&keys[i]).cloned().unwrap_or_default(),
            );
            want.is_ok()
                && !l.claimed(&works[&keys[i]], word)
                && print_learned(&forms[i], word) != want.ok()
        })
        .flat_map(|&(i, word)| {
            plans[i]
                .ignored
                .iter_ones()
                .map(move |b| word ^ (1u64 << b))
        })
        .collect();
    l.fetch(live_probes)?;
    let mut merges: Merges = vec![Vec::new(); forms.len()];
    let mut live: Live = vec![Vec::new(); forms.len()];
    for &(i, word) in checks {
        let f = &mut forms[i];
        let pcrel = l.pcrel_ops.get(&keys[i]).cloned().unwrap_or_default();
        let want = l.canon(word, &pcrel).ok();
        // A word that nvdisasm reads as another form says nothing about this one.
        if let Some(t) = &want {
            if !same_form(&signature(t), &signature(&f_seed_text(l, f, &pcrel))) {
                continue;
            }
        }
        if l.claimed(&works[&keys[i]], word) {
            continue; // another form's: decoded before this one
        }
        let got = print_learned_spans(f, word);
        f.checked += 1;
        if got.as_ref().map(|g| &g.0) == want.as_ref() {
            f.agreed += 1;
            continue;
        }
        if f.mismatch.is_none() {
            f.mismatch = Some((
                word,
                want.clone().unwrap_or_default(),
                got.as_ref()
                    .map(|g| g.0.clone())
                    .unwrap_or_else(|| "(rejected)".into()),
            ));
        }
        if let (Some(want), Some((got, holes))) = (want, got) {
            let (a, b) = char_diff(&want, &got);
            let involved: Vec<&(usize, usize, usize)> =
                holes.iter().filter(|h| h.1 <= b && h.2 >= a).collect();
            // Only a difference inside one operand (or the guard and mnemonic)
            // says which groups interact; a wider one is left to other words.
            // The literal text between the holes must not hold a space or a
            // comma: the holes are in one run of modifiers, or one operand.
            let mut sorted: Vec<&&(usize, usize, usize)> = involved.iter().collect();
            sorted.sort_by_key(|h| h.1);
            let tight = sorted.windows(2).all(|p| {
                let gap = got.get(p[0].2..p[1].1).unwrap_or(" ");
                !gap.contains(' ') && !gap.contains(',')
            });
            if debug_seed() == Some(f.seed) && involved.len() > 1 {
                eprintln!(
                    "mismatch {word:#018x} tight {tight}: {want} | {got} | {:?}",
                    sorted
                );
            }
            if involved.len() > 1 && involved.len() <= 3 && tight {
                merges[i].push(involved.iter().map(|h| h.0).collect());
            }
            if let [h] = involved.as_slice() {
                for b in plans[i].ignored.iter_ones() {
                    if l.canon(word ^ (1u64 << b), &pcrel).ok().as_ref() != Some(&want) {
                        live[i].push((b as u8, h.0));
                    }
                }
            }
        }
    }
    Ok((merges, live))
}

/// Applies validation's findings to the plans: the live bits join their
/// groups, and the groups found to interact merge; gives how many forms
/// regroup.
fn regroup(plans: &mut [Plan], mut merges: Merges, live: Live) -> usize {
    let mut merged = 0;
    for ((plan, ms), ls) in plans.iter_mut().zip(merges.iter_mut()).zip(live) {
        if plan.problem.is_some() {
            continue;
        }
        let mut grew = false;
        for (b, gi) in ls {
            if !plan.ignored[b as usize] {
                continue;
            }
            let Some(g) = plan.groups.get_mut(gi) else {
                continue;
            };
            g.0.push(b);
            g.0.sort_unstable();
            plan.ignored.set(b as usize, false);
            grew = true;
        }
        if grew && ms.is_empty() {
            merged += 1;
        }
        if ms.is_empty() {
            continue;
        }
        let ms = std::mem::take(ms);
        merged += 1;
        // Indices refer to the groups before any merge: take their bits first.
        let bit_sets: Vec<Vec<u8>> = ms
            .iter()
            .map(|m| {
                m.iter()
                    .filter_map(|&i| plan.groups.get(i))
                    .flat_map(|g| g.0.iter().copied())
                    .collect()
            })
            .collect();
        for bits in bit_sets {
            merge_groups(plan, &bits);
        }
    }
    merged
}

/// The register fields of the word `s` (text `t`, fixed bits `mask`): runs of 8
/// bits outside the mask, bit `k` of which renumbers one register token of the
/// text by `1 << k` (`R6` to `R7`, `R2`, `R14`). Each as its lowest bit and
/// the index of its token in the text.
fn register_fields(l: &Learner, s: u64, mask: u64, pcrel: &[usize], t: &str) -> Vec<(u8, usize)> {
    let reg = |x: &str| -> Option<u64> {
        if x == "RZ" {
            return Some(255);
        }
        x.strip_prefix('R')?.parse().ok()
    };
    let xt = tokens(t);
    // (lowest bit, token) -> the field's bits seen so far.
    let mut seen: BTreeMap<(u8, usize), u8> = BTreeMap::new();
    for i in mask.view_bits::<Lsb0>().iter_zeros().map(|i| i as u8) {
        let Ok(tf) = l.canon(s ^ (1u64 << i), pcrel) else {
            continue;
        };
        let yt = tokens(&tf);
        if yt.len() != xt.len() {
            continue;
        }
        let mut diff = (0..xt.len()).filter(|&j| xt[j] != yt[j]);
        let (Some(j), None) = (diff.next(), diff.next()) else {
            continue;
        };
        let (Some(a), Some(b)) = (reg(xt[j]), reg(yt[j])) else {
            continue;
        };
        let k = (a ^ b).trailing_zeros() as u8;
        if (a ^ b).is_power_of_two() && k < 8 && k <= i {
            *seen.entry((i - k, j)).or_default() |= 1 << k;
        }
    }
    seen.into_iter()
        .filter(|&(_, bits)| bits == 0xff)
        .map(|(field, _)| field)
        .collect()
}

/// What a register field at `RZ` must change for [`rz_splits`] to seed a form.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RzChange {
    /// The modifiers, with the instruction and the kinds of its operands the
    /// same.
    Modifiers,
    /// Any text but the register's own token, with the instruction the same:
    /// the modifiers, or the layout (`ALD R2, a[0x1];` when the vertex
    /// register is RZ).
    Text,
    /// The register's operand vanishes with its separator, the rest of the
    /// text the same.
    Vanishes,
}

/// Seeds for the forms in which a register field at `RZ` prints differently
/// from its other values, beyond its own token: `ALD.PHYS R2, a[R6], R0` reads
/// an attribute at a physical address in `R6`, `ALD R2, a[0x20], R0` (base
/// `RZ`) at an offset of the attribute space, and then the offset bits are a
/// field, where with any other base nvdisasm rejects them unless zero. Such an
/// `RZ` is up to 8 flips from the seeds, so no single flip finds it; for each
/// register field of the seed of each form of `keys`, the word with that
/// field all ones is probed. Each seed comes with the form's key and the fixed
/// bits the new form inherits (the field's, and those of `inherit` for the
/// form): as `key`, `word`, `fixed` and the branch-target operands.
fn rz_splits(
    l: &mut Learner,
    works: &BTreeMap<(u64, u64), Work>,
    keys: &[(u64, u64)],
    change: RzChange,
    inherit: impl Fn(&Work) -> u64,
) -> Result<Vec<RzSeed>, OracleError> {
    // Each seed with the index of the register's token.
    let mut probes: Vec<(RzSeed, usize)> = Vec::new();
    for key in keys {
        let w = &works[key];
        let Ok(t) = l.canon(w.seed, &w.pcrel) else {
            continue;
        };
        for (low, tok) in register_fields(l, w.seed, w.mask, &w.pcrel, &t) {
            let field = 0xffu64 << low;
            let word = w.seed | field;
            // The case of a form split off for RZ already is that form's.
            let known = !w.rz_split && works.iter().any(|(k, x)| x.rz_split && word & k.0 == k.1);
            if w.seed & field != field && !known {
                let seed = RzSeed {
                    key: *key,
                    word,
                    fixed: inherit(w) | field,
                    pcrel: w.pcrel.clone(),
                };
                probes.push((seed, tok));
            }
        }
    }
    l.fetch(probes.iter().map(|p| p.0.word))?;
    let mut out = Vec::new();
    for (seed, tok) in probes {
        let w = &works[&seed.key];
        let (Ok(t), Ok(tz)) = (l.canon(w.seed, &w.pcrel), l.canon(seed.word, &w.pcrel)) else {
            continue;
        };
        let split = match change {
            RzChange::Modifiers => {
                same_form(&signature(&tz), &w.sig) && mnemonic(&tz).0 != mnemonic(&t).0
            }
            RzChange::Text => {
                let mut expect = tokens(&t);
                expect[tok] = "RZ";
                mnemonic(&tz).1 == mnemonic(&t).1 && tokens(&tz) != expect
            }
            RzChange::Vanishes => {
                let (xt, zt) = (tokens(&t), tokens(&tz));
                let sep = [",", " "];
                let without = |a: usize, b: usize| -> Vec<&str> {
                    xt[..a].iter().chain(&xt[b..]).copied().collect()
                };
                (tok >= 2 && xt[tok - 2..tok] == sep && zt == without(tok - 2, tok + 1))
                    || (xt.get(tok + 1..tok + 3) == Some(&sep[..]) && zt == without(tok, tok + 3))
            }
        };
        if split {
            out.push(seed);
        }
    }
    Ok(out)
}

/// Queues the seeds of [`rz_splits`] (as split off for RZ, or not) and logs
/// how many there are and what they are.
fn seed_splits(
    splits: Vec<RzSeed>,
    rz_split: bool,
    what: &str,
    pending: &mut Vec<(u64, u64, Vec<usize>, bool)>,
    log: &mut impl FnMut(&str),
) {
    log(&format!("{} {what}", splits.len()));
    pending.extend(
        splits
            .into_iter()
            .map(|x| (x.word, x.fixed, x.pcrel, rz_split)),
    );
}

/// A seed from [`rz_splits`].
struct RzSeed {
    /// The form whose seed it came from.
    key: (u64, u64),
    word: u64,
    /// The bits the new form keeps fixed.
    fixed: u64,
    pcrel: Vec<usize>,
}

/// Fills the decorations a sampled group never showed. A group wider than
/// [`MAX_ENUM_BITS`] is learned from a sample of its values, so some values of
/// its decoration bits may never have been seen (TEX's third register, whose
/// bits 23, 25..30 are a decoration of the texture index: `TEX.P R12, R12, R235,
/// 0x54, ARRAY_2D, 0xf`). Each is probed with the value part of the plan's base
/// word and of a second word; the entry is taken only when both print it
/// around the value as the group's format renders it, and stays invalid when
/// nvdisasm rejects either.
fn complete_decorations(
    l: &mut Learner,
    keys: &[(u64, u64)],
    plans: &[Plan],
    forms: &mut [LearnedForm],
    log: &mut impl FnMut(&str),
) -> Result<(), OracleError> {
    // (form, group, decoration, probe words)
    let mut todo: Vec<(usize, usize, usize, [u64; 2])> = Vec::new();
    for (i, f) in forms.iter().enumerate() {
        if f.problem.is_some() {
            continue;
        }
        let plan = &plans[i];
        for (gi, g) in f.groups.iter().enumerate() {
            let Some((bits, _)) = plan.groups.get(gi) else {
                continue;
            };
            if g.value_bits.is_empty() || !g.again.is_empty() || g.deco_bits.is_empty() {
                continue;
            }
            let mut all: Vec<u8> = g.deco_bits.iter().chain(&g.value_bits).copied().collect();
            all.sort_unstable();
            if all != *bits || bits.len() <= MAX_ENUM_BITS || plan.full.contains(bits) {
                continue;
            }
            let mut sampled = vec![false; g.table.len()];
            for v in plan.values(bits) {
                let d = gather(scatter(plan.base, bits, v), &g.deco_bits) as usize;
                sampled[d] = true;
            }
            let other = plan.base
                ^ (g.value_bits.iter().fold(0u64, |a, &b| a | 1 << b) & 0x5555_5555_5555_5555);
            for (d, seen) in sampled.iter().enumerate() {
                if !seen {
                    let w0 = scatter(plan.base, &g.deco_bits, d as u64);
                    let w1 = scatter(other, &g.deco_bits, d as u64);
                    todo.push((i, gi, d, [w0, w1]));
                }
            }
        }
    }
    l.fetch(todo.iter().flat_map(|t| t.3))?;
    let mut filled = 0usize;
    for (i, gi, d, words) in todo {
        let pcrel = l.pcrel_ops.get(&keys[i]).cloned().unwrap_or_default();
        let mut entry: Option<(String, String)> = None;
        let mut ok = true;
        for w in words {
            let Ok(t) = l.canon(w, &pcrel) else {
                ok = false;
                break;
            };
            if !forms[i].rz_split && l.rz_form(w).is_some() {
                ok = false; // another form's: decoded before this one
                break;
            }
            let mut probe = forms[i].clone();
            probe.groups[gi].table[d] = Some(("\u{1}".into(), "\u{2}".into()));
            let Some(ours) = print_learned(&probe, w) else {
                ok = false;
                break;
            };
            let (Some(p1), Some(p2)) = (ours.find('\u{1}'), ours.find('\u{2}')) else {
                ok = false;
                break;
            };
            let (a, v, b) = (&ours[..p1], &ours[p1 + 1..p2], &ours[p2 + 1..]);
            if v.is_empty() || t.len() < a.len() + b.len() || !t.starts_with(a) || !t.ends_with(b) {
                ok = false;
                break;
            }
            let m = &t[a.len()..t.len() - b.len()];
            let Some(pos) = m.find(v) else {
                ok = false;
                break;
            };
            let e = (m[..pos].to_string(), m[pos + v.len()..].to_string());
            if entry.as_ref().is_some_and(|x| *x != e) {
                ok = false;
                break;
            }
            entry = Some(e);
        }
        if ok {
            forms[i].groups[gi].table[d] = entry;
            filled += 1;
        }
    }
    log(&format!("{filled} decorations never sampled filled in"));
    Ok(())
}

/// An optional operand that prints nothing at zero (`BAR.SYNC 0x0;` has no
/// thread count) was learned at the plan's base word, every other group at its
/// base value. Another group's decoration may make nvdisasm print the zero all
/// the same (`BAR.ARV R8, 0x0;`): each such group's zero is probed under every
/// decoration of every other group, and where nvdisasm prints other than the
/// form, a form with that decoration's bits fixed is split off (the decoder
/// tries the more specific mask first), in which the group is learned again
/// from its values under that decoration.
fn split_optional_zeros(
    l: &mut Learner,
    works: &BTreeMap<(u64, u64), Work>,
    keys: &[(u64, u64)],
    plans: &[Plan],
    forms: &mut Vec<LearnedForm>,
    log: &mut impl FnMut(&str),
) -> Result<(), OracleError> {
    // (form, group printing nothing at zero, other group, its decoration, word)
    let mut todo: Vec<(usize, usize, usize, usize, u64)> = Vec::new();
    for (i, f) in forms.iter().enumerate() {
        if f.problem.is_some() || i >= keys.len() {
            continue;
        }
        let base = plans[i].base;
        for (gi, g) in f.groups.iter().enumerate() {
            let mut s = String::new();
            if g.value_bits.is_empty()
                || !g.again.is_empty()
                || !render::render(&mut s, g.fmt, 0, g.value_bits.len() as u32, 0)
                || !s.is_empty()
            {
                continue;
            }
            let zero = scatter(base, &g.value_bits, 0);
            for (hi, h) in f.groups.iter().enumerate() {
                if hi == gi || h.deco_bits.is_empty() {
                    continue;
                }
                for (d, e) in h.table.iter().enumerate() {
                    if e.is_some() {
                        todo.push((i, gi, hi, d, scatter(zero, &h.deco_bits, d as u64)));
                    }
                }
            }
        }
    }
    l.fetch(todo.iter().map(|t| t.4))?;
    let mut found: Vec<(usize, usize, usize, usize, u64)> = Vec::new();
    for &(i, gi, hi, d, word) in &todo {
        let w = &works[&keys[i]];
        let pcrel = l.pcrel_ops.get(&keys[i]).cloned().unwrap_or_default();
        let Ok(t) = l.canon(word, &pcrel) else {
            continue;
        };
        if l.claimed(w, word) || !same_form(&signature(&t), &w.sig) {
            continue;
        }
        if print_learned(&forms[i], word).as_ref() != Some(&t) {
            found.push((i, gi, hi, d, word));
        }
    }
    // The group's values under the decoration.
    let mut words: Vec<u64> = Vec::new();
    for &(i, gi, _, _, word) in &found {
        if let Some((bits, _)) = plans[i].groups.get(gi) {
            words.extend(
                plans[i]
                    .values(bits)
                    .into_iter()
                    .map(|v| scatter(word, bits, v)),
            );
        }
    }
    l.fetch(words)?;
    let mut split = 0usize;
    for (i, gi, hi, d, word) in found {
        let f = &forms[i];
        let w = &works[&keys[i]];
        let pcrel = l.pcrel_ops.get(&keys[i]).cloned().unwrap_or_default();
        let Some((bits, _)) = plans[i].groups.get(gi) else {
            continue;
        };
        let g = &f.groups[gi];
        let mut all: Vec<u8> = g.deco_bits.iter().chain(&g.value_bits).copied().collect();
        all.sort_unstable();
        let mut sorted = bits.clone();
        sorted.sort_unstable();
        if all != sorted {
            continue;
        }
        // The text around the group's hole, as the form prints it.
        let Some((ours, spans)) = print_learned_spans(f, word) else {
            continue;
        };
        let Some(&(_, a, b)) = spans.iter().find(|s| s.0 == gi) else {
            continue;
        };
        let (prefix, suffix) = (&ours[..a], &ours[b..]);
        let mut holes: Vec<(u64, Option<String>)> = Vec::new();
        let mut texts: Vec<(u64, String)> = Vec::new();
        let mut fits = true;
        for v in plans[i].values(bits) {
            let x = scatter(word, bits, v);
            let hole = match l.canon(x, &pcrel) {
                Ok(t) if !l.claimed(w, x) && same_form(&signature(&t), &w.sig) => {
                    if t.len() < prefix.len() + suffix.len()
                        || !t.starts_with(prefix)
                        || !t.ends_with(suffix)
                    {
                        fits = false;
                        break;
                    }
                    let h = t[prefix.len()..t.len() - suffix.len()].to_string();
                    texts.push((x, t));
                    Some(h)
                }
                _ => None,
            };
            holes.push((v, hole));
        }
        if !fits {
            continue;
        }
        let Some(ng) = explain_group(bits, &holes, 0) else {
            continue;
        };
        let h = &f.groups[hi];
        let hm = h.deco_bits.iter().fold(0u64, |m, &p| m | 1 << p);
        let mut nf = f.clone();
        nf.mask |= hm;
        nf.bits = (nf.bits & !hm) | (word & hm);
        nf.groups[gi] = ng;
        nf.seed = word;
        nf.mismatch = None;
        nf.checked = texts.len();
        nf.agreed = texts
            .iter()
            .filter(|(x, t)| print_learned(&nf, *x).as_ref() == Some(t))
            .count();
        if nf.agreed != nf.checked || forms.iter().any(|o| o.mask == nf.mask && o.bits == nf.bits) {
            continue;
        }
        log(&format!(
            "{:#018x}: group {gi} prints its zero where group {hi} is {d:#x}: {}",
            word,
            texts
                .iter()
                .find(|(x, _)| *x == word)
                .map(|x| x.1.as_str())
                .unwrap_or("")
        ));
        forms.push(nf);
        split += 1;
    }
    log(&format!(
        "{split} forms split off where an optional operand prints its zero"
    ));
    Ok(())
}

/// Sets each form's `fill` to the per-bit majority of the non-mask bits of the
/// seeds it holds, so the encoder writes the bits nvdisasm ignores, and picks
/// among decorations that print alike, as ptxas does. The sweep's words
/// ([`super::sweep_seeds`]) are random in those bits: they vote only in forms
/// that hold no other seed (else two of them outvote ptxas's `CCTL.IVALL [RZ]`,
/// whose ignored bits 23 and 24 are clear).
fn fill_from_seeds(forms: &mut [LearnedForm], seeds: &[u64]) {
    let sweep: HashSet<u64> = super::sweep_seeds().into_iter().collect();
    let mut by_key: HashMap<(bool, u64, u64), usize> = HashMap::new();
    // Only the forms the table will hold: the decoder never sees the others.
    for (i, f) in forms.iter().enumerate() {
        if f.problem.is_none() {
            by_key.entry((f.rz_split, f.mask, f.bits)).or_insert(i);
        }
    }
    // As the decoder tries them: those split off for RZ first.
    let mut masks: Vec<(bool, u64)> = forms
        .iter()
        .filter(|f| f.problem.is_none())
        .map(|f| (f.rz_split, f.mask))
        .collect();
    masks.sort_unstable_by_key(|&(rz, m)| (!rz, std::cmp::Reverse(m.count_ones()), m));
    masks.dedup();
    // Per form: the counts of ptxas's seeds and of the sweep's.
    let mut counts = vec![[(0u32, [0u32; 64]); 2]; forms.len()];
    for &s in seeds {
        // The form the decoder would pick: most specific mask first.
        let Some(i) = masks
            .iter()
            .find_map(|&(rz, m)| by_key.get(&(rz, m, s & m)).copied())
        else {
            continue;
        };
        let c = &mut counts[i][sweep.contains(&s) as usize];
        c.0 += 1;
        for (n, bit) in c.1.iter_mut().zip(s.view_bits::<Lsb0>()) {
            *n += *bit as u32;
        }
    }
    for (f, [ptxas, swept]) in forms.iter_mut().zip(counts) {
        f.seen = ptxas.0 + swept.0;
        let (n, ones) = if ptxas.0 > 0 { ptxas } else { swept };
        let mut fill = 0u64;
        let bits = fill.view_bits_mut::<Lsb0>();
        for b in f.mask.view_bits::<Lsb0>().iter_zeros() {
            bits.set(b, 2 * ones[b] > n);
        }
        f.fill = fill;
    }
}

fn f_seed_text(l: &Learner, f: &LearnedForm, pcrel: &[usize]) -> String {
    l.canon(f.seed, pcrel).unwrap_or_default()
}

/// Finds, for each seed, the operands that are branch targets: those whose number
/// changes when the same word sits at another address.
fn find_pcrel(l: &mut Learner, valid: &[u64]) -> Result<HashMap<u64, Vec<usize>>, OracleError> {
    // Disassemble every seed again, shifted by one slot, outside the cache.
    let mut shifted = vec![crate::tools::NOP_WORD];
    shifted.extend_from_slice(valid);
    let out = l.tools.disasm_words_at(&shifted, NEUTRAL_CONTROL)?;
    l.probes += shifted.len();
    let mut m = HashMap::new();
    for (k, &s) in valid.iter().enumerate() {
        let (Verdict::Text(t2), _) = &out[k + 1] else {
            continue;
        };
        let Ok(t1) = &l.raw(s).text else { continue };
        if t1 == t2 {
            continue;
        }
        let (o1, o2) = (operands(t1), operands(t2));
        let idx: Vec<usize> = (0..o1.len().min(o2.len()))
            .filter(|&i| o1[i] != o2[i])
            .collect();
        m.insert(s, idx);
    }
    Ok(m)
}

/// The group structure of a form, before enumeration.
#[derive(Clone)]
struct Plan {
    /// The variant whose text is the template.
    base: u64,
    base_toks: Vec<String>,
    /// Groups: bits, and the token spans of the base text they print in.
    groups: Vec<PlanGroup>,
    /// The field bits whose flip changes the text of no variant.
    ignored: Bits,
    /// Bits that are not the form's opcode bits but no value of which other than
    /// the base word's prints: they join the form's fixed bits.
    fixed: u64,
    problem: Option<String>,
    /// Groups (by bits) enumerated in full though wider than [`MAX_ENUM_BITS`].
    full: Vec<Vec<u8>>,
}

/// A group of a plan: its bits, and the token spans `[a, b)` of the base text it
/// prints in, in order: one, or one per print of a field printed twice.
type PlanGroup = (Vec<u8>, Vec<(usize, usize)>);

/// Groups of up to this many bits that no format explains, and whose bits all
/// change modifiers, are enumerated in full (SUSTGA's run of 14 modifier bits).
const MAX_FULL_BITS: usize = 14;

impl Plan {
    /// The values of a group's bits that are probed.
    fn values(&self, bits: &[u8]) -> Vec<u64> {
        if self.full.iter().any(|b| b == bits) {
            (0..1u64 << bits.len()).collect()
        } else {
            sample_values(bits.len())
        }
    }

    fn enum_words(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for (bits, _) in &self.groups {
            for v in self.values(bits) {
                out.push(scatter(self.base, bits, v));
            }
        }
        out
    }
}

/// All values of a field up to [`MAX_ENUM_BITS`] bits; for wider fields, zero, every
/// single bit, all ones, and a fixed pseudo-random sample.
fn sample_values(n: usize) -> Vec<u64> {
    if n <= MAX_ENUM_BITS {
        return (0..1u64 << n).collect();
    }
    let mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut v = vec![0, mask];
    for i in 0..n {
        v.push(1 << i);
        v.push(mask ^ (1 << i));
    }
    let mut r = Rng(0xdead_beef_1234_5678 ^ n as u64);
    for _ in 0..96 {
        v.push(r.next() & mask);
    }
    v
}

fn plan_groups(l: &Learner, w: &Work) -> Plan {
    let key = (w.mask, w.seed & w.mask);
    let pcrel = l.pcrel_ops.get(&key).cloned().unwrap_or_default();
    let field_bits: Vec<u8> = w
        .mask
        .view_bits::<Lsb0>()
        .iter_zeros()
        .map(|i| i as u8)
        .collect();
    let (spans, variant_toks, changed) = flip_spans(l, w, &pcrel, &field_bits);
    let mut ignored = Bits::ZERO;
    for &i in &field_bits {
        ignored.set(i as usize, changed >> i & 1 == 0);
    }
    // A bit whose flip nvdisasm rejects in every variant (a value of a named
    // table no other value of which is valid here: TXQ's `TEX_HEADER_DIMENSION`)
    // prints nowhere: it is fixed for this form, like an opcode bit.
    let fixed = field_bits
        .iter()
        .filter(|&&i| changed >> i & 1 == 1 && spans.iter().all(|m| !m.contains_key(&i)))
        .fold(0u64, |acc, &i| acc | 1u64 << i);
    let active: Vec<u8> = field_bits
        .iter()
        .copied()
        .filter(|i| changed >> i & 1 == 1 && fixed >> i & 1 == 0)
        .collect();

    let bit_groups = group_bits(&active, &spans, &variant_toks);

    let best = template_variant(&spans, &bit_groups);
    let Some(vi) = best else {
        if debug_seed() == Some(w.seed) {
            for (vi, m) in spans.iter().enumerate() {
                eprintln!(
                    "variant {:#018x} {:?}",
                    w.variants[vi],
                    l.canon(w.variants[vi], &pcrel)
                );
                for g in &bit_groups {
                    let s: Vec<_> = g
                        .iter()
                        .filter_map(|b| m.get(b).map(|s| (*b, s.clone())))
                        .collect();
                    eprintln!("   group {g:?}: {s:?}");
                }
            }
        }
        return Plan {
            base: w.seed,
            base_toks: Vec::new(),
            groups: Vec::new(),
            ignored,
            fixed,
            problem: Some(format!("no variant shows all {} groups", bit_groups.len())),
            full: Vec::new(),
        };
    };
    let m = &spans[vi];
    let groups: Vec<PlanGroup> = bit_groups
        .into_iter()
        .map(|g| {
            let ss: Vec<&Vec<(usize, usize)>> = g.iter().filter_map(|b| m.get(b)).collect();
            let holes = holes_of(&ss);
            (g, holes)
        })
        .collect();
    let base = w.variants[vi];
    let tv = l.canon(base, &pcrel).expect("valid");
    if debug_seed() == Some(w.seed) {
        eprintln!("plan for {:#018x}: base {base:#018x} {tv}", w.seed);
        for g in &groups {
            eprintln!("  group {:?} holes {:?}", g.0, g.1);
        }
    }
    let base_toks: Vec<String> = tokens(&tv).iter().map(|s| s.to_string()).collect();
    Plan {
        base,
        groups: normalize(&base_toks, groups),
        base_toks,
        ignored,
        fixed,
        problem: None,
        full: Vec::new(),
    }
}

/// The token spans each flip of a field bit changes in each variant of `w`
/// (`spans[variant][bit]`: usually one span; one per print for a field
/// printed twice), each variant's tokens, and the bits whose flip changes
/// the text (or that nvdisasm rejects) in some variant.
#[allow(clippy::type_complexity)]
fn flip_spans(
    l: &Learner,
    w: &Work,
    pcrel: &[usize],
    field_bits: &[u8],
) -> (Vec<HashMap<u8, Vec<(usize, usize)>>>, Vec<Vec<String>>, u64) {
    let mut spans: Vec<HashMap<u8, Vec<(usize, usize)>>> = Vec::new();
    let mut variant_toks: Vec<Vec<String>> = Vec::new();
    let mut changed = 0u64;
    for &v in &w.variants {
        let tv = l.canon(v, pcrel).expect("variant is valid");
        let xt = tokens(&tv);
        variant_toks.push(xt.iter().map(|t| t.to_string()).collect());
        let mut m = HashMap::new();
        for &i in field_bits {
            match l.canon(v ^ (1u64 << i), pcrel) {
                Ok(tf) => {
                    if tf != tv {
                        changed |= 1u64 << i;
                        let yt = tokens(&tf);
                        let hunks = repeated_change(&xt, &yt).unwrap_or_else(|| {
                            let (a, b, _) = diff_span(&xt, &yt);
                            vec![(a, b)]
                        });
                        m.insert(i, hunks);
                    }
                }
                Err(_) => {
                    changed |= 1u64 << i;
                }
            }
        }
        spans.push(m);
    }
    (spans, variant_toks, changed)
}

/// The `active` bits in groups (union-find): bits that overlap in every
/// variant where both change the text, and a bit that renumbers a register
/// and its successor in two operands with every bit that changes either.
fn group_bits(
    active: &[u8],
    spans: &[HashMap<u8, Vec<(usize, usize)>>],
    variant_toks: &[Vec<String>],
) -> Vec<Vec<u8>> {
    let mut parent: HashMap<u8, u8> = active.iter().map(|&i| (i, i)).collect();
    fn find(p: &mut HashMap<u8, u8>, x: u8) -> u8 {
        let mut r = x;
        while p[&r] != r {
            r = p[&r];
        }
        p.insert(x, r);
        r
    }
    for (x, &i) in active.iter().enumerate() {
        for &j in &active[x + 1..] {
            let mut seen = 0;
            let mut all = true;
            for (m, toks) in spans.iter().zip(variant_toks) {
                if let (Some(si), Some(sj)) = (m.get(&i), m.get(&j)) {
                    seen += 1;
                    if !si.iter().any(|&a| sj.iter().any(|&b| collide(toks, a, b))) {
                        all = false;
                        break;
                    }
                }
            }
            if seen > 0 && all {
                let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                if ri != rj {
                    parent.insert(ri, rj);
                }
            }
        }
    }
    // A bit that renumbers a register and its successor in two operands
    // (ATOM.CAS's `R8, R9`) is one field with every bit that changes either
    // operand in that variant, though in another variant (`R8, RZ`) they print
    // apart.
    for (m, toks) in spans.iter().zip(variant_toks) {
        let mut order: Vec<u8> = m.keys().copied().collect();
        order.sort_unstable();
        for &i in &order {
            let si = &m[&i];
            let linked = si
                .iter()
                .any(|&(a, b)| toks.get(a..b).is_some_and(|t| t.iter().any(|x| x == ",")));
            if !linked {
                continue;
            }
            for &j in &order {
                let sj = &m[&j];
                if j != i && si.iter().any(|&a| sj.iter().any(|&b| collide(toks, a, b))) {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    if ri != rj {
                        parent.insert(ri, rj);
                    }
                }
            }
        }
    }
    let mut by_root: BTreeMap<u8, Vec<u8>> = BTreeMap::new();
    for &i in active {
        let r = find(&mut parent, i);
        by_root.entry(r).or_default().push(i);
    }
    let mut bit_groups: Vec<Vec<u8>> = by_root.into_values().collect();
    for g in &mut bit_groups {
        g.sort_unstable();
    }

    bit_groups
}

/// The template variant: one in which every group has a span (overlapping
/// groups are merged there), the one with the most groups printing
/// something.
fn template_variant(
    spans: &[HashMap<u8, Vec<(usize, usize)>>],
    bit_groups: &[Vec<u8>],
) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (vi, m) in spans.iter().enumerate() {
        if !bit_groups
            .iter()
            .all(|g| g.iter().any(|b| m.contains_key(b)))
        {
            continue;
        }
        let nonempty = bit_groups
            .iter()
            .filter(|g| {
                g.iter()
                    .filter_map(|b| m.get(b))
                    .flatten()
                    .any(|s| s.0 < s.1)
            })
            .count();
        if best.is_none_or(|b| nonempty > b.1) {
            best = Some((vi, nonempty));
        }
    }
    best.map(|b| b.0)
}

/// The seed whose learning is traced (`KEPLERSIM_CRACK_DEBUG=0x...`).
fn debug_seed() -> Option<u64> {
    let v = std::env::var("KEPLERSIM_CRACK_DEBUG").ok()?;
    u64::from_str_radix(v.trim_start_matches("0x"), 16).ok()
}

/// Whether two token spans `[a, b)` collide: they overlap, or they are insertions
/// at one point, or one is an insertion strictly inside the other.
fn overlaps(s: (usize, usize), t: (usize, usize)) -> bool {
    let (a1, b1) = s;
    let (a2, b2) = t;
    // Holes with no literal text between them cannot be told apart (`-R0`,
    // `R0.CC`, a float's sign and magnitude): one group.
    if b1 == a2 || b2 == a1 {
        return true;
    }
    if a1 == b1 && a2 == b2 {
        return a1 == a2;
    }
    if a1 == b1 {
        return a2 < a1 && a1 < b2;
    }
    if a2 == b2 {
        return a1 < a2 && a2 < b1;
    }
    a1 < b2 && a2 < b1
}

/// Whether two token spans of `toks` collide ([`overlaps`]), except spans that
/// only touch where the second starts with a comma: an optional operand
/// (`BAR.SYNC 0x0, 0x1`) is a field of its own.
fn collide(toks: &[String], s: (usize, usize), t: (usize, usize)) -> bool {
    let comma_at = |i: usize| toks.get(i).is_some_and(|x| x == ",");
    let apart = (s.1 == t.0 && s.0 < s.1 && t.0 < t.1 && comma_at(t.0))
        || (t.1 == s.0 && t.0 < t.1 && s.0 < s.1 && comma_at(s.0));
    !apart && overlaps(s, t)
}

/// Merges colliding groups (spans of `toks`) until all spans are disjoint; sorts
/// them by position.
fn normalize(toks: &[String], mut groups: Vec<PlanGroup>) -> Vec<PlanGroup> {
    let collide = |x: &PlanGroup, y: &PlanGroup| {
        x.1.iter()
            .any(|&s| y.1.iter().any(|&t| collide(toks, s, t)))
    };
    loop {
        let mut merged = false;
        'outer: for i in 0..groups.len() {
            for j in i + 1..groups.len() {
                if collide(&groups[i], &groups[j]) {
                    let g = groups.remove(j);
                    let f = &mut groups[i];
                    f.0.extend(g.0);
                    f.0.sort_unstable();
                    f.1.extend(g.1);
                    f.1 = coalesce(std::mem::take(&mut f.1));
                    merged = true;
                    break 'outer;
                }
            }
        }
        if !merged {
            break;
        }
    }
    groups.sort_by_key(|g| g.1.first().copied());
    groups
}

/// Spans sorted, those that collide joined.
fn coalesce(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some(l) if overlaps(*l, s) || s.0 < l.1 => l.1 = l.1.max(s.1),
            _ => out.push(s),
        }
    }
    out
}

/// The holes of a group, from the spans its bits change: one around all of them;
/// or, when a bit changes a field printed in several places, one around each
/// place and the spans that collide with it.
fn holes_of(spans: &[&Vec<(usize, usize)>]) -> Vec<(usize, usize)> {
    let all = spans.iter().flat_map(|s| s.iter());
    let one = vec![(
        all.clone().map(|s| s.0).min().unwrap_or(0),
        all.clone().map(|s| s.1).max().unwrap_or(0),
    )];
    let Some(rep) = spans.iter().find(|s| s.len() > 1) else {
        return one;
    };
    let mut holes: Vec<(usize, usize)> = rep.to_vec();
    for &s in all {
        let Some(h) = holes.iter_mut().find(|h| overlaps(**h, s)) else {
            return one;
        };
        h.0 = h.0.min(s.0);
        h.1 = h.1.max(s.1);
    }
    holes.sort_unstable();
    if holes.windows(2).any(|p| overlaps(p[0], p[1])) {
        return one;
    }
    holes
}

/// The texts of the holes `holes` (token spans of `toks`) in `t`, if `t` is
/// `toks` with only the holes changed.
fn split_holes(toks: &[String], holes: &[(usize, usize)], t: &str) -> Option<Vec<String>> {
    let (first, last) = (holes.first()?, holes.last()?);
    let prefix: String = toks[..first.0].concat();
    let suffix: String = toks[last.1..].concat();
    if t.len() < prefix.len() + suffix.len() || !t.starts_with(&prefix) || !t.ends_with(&suffix) {
        return None;
    }
    let inner = &t[prefix.len()..t.len() - suffix.len()];
    let mut out = Vec::new();
    let mut pos = 0;
    for p in holes.windows(2) {
        let mid: String = toks[p[0].1..p[1].0].concat();
        let at = pos + inner[pos..].find(&mid)?;
        out.push(inner[pos..at].to_string());
        pos = at + mid.len();
    }
    out.push(inner[pos..].to_string());
    Some(out)
}

/// Widens every group whose enumerated values change text outside its hole, and
/// merges what then collides. Returns whether anything changed.
fn widen(l: &Learner, w: &Work, plan: &mut Plan) -> bool {
    let key = (w.mask, w.seed & w.mask);
    let pcrel = l.pcrel_ops.get(&key).cloned().unwrap_or_default();
    let base_toks: Vec<&str> = plan.base_toks.iter().map(String::as_str).collect();
    let mut changed = false;
    for g in plan.groups.iter_mut() {
        for v in sample_values(g.0.len()) {
            let word = scatter(plan.base, &g.0, v);
            let Ok(t) = l.canon(word, &pcrel) else {
                continue;
            };
            // A value that makes another instruction (ATOM with destination RZ
            // is RED) belongs to that instruction's form, not this one; so does
            // one that makes the form split off for a register at RZ.
            if !same_form(&signature(&t), &w.sig) || l.claimed(w, word) {
                continue;
            }
            let tt = tokens(&t);
            let (da, db, _) = diff_span(&base_toks, &tt);
            if da == db && db == base_toks.len() && tt.len() == base_toks.len() {
                continue; // identical
            }
            if g.1.len() > 1 && split_holes(&plan.base_toks, &g.1, &t).is_some() {
                continue; // a field printed twice, changed in its places only
            }
            let (a, b) = (g.1[0].0, g.1[g.1.len() - 1].1);
            if g.1.len() > 1 || da < a || db > b {
                if debug_seed() == Some(w.seed) {
                    eprintln!(
                        "widen {:?} {:?} by value {v:#x} to [{da}, {db}): {t}",
                        g.0, g.1
                    );
                }
                g.1 = vec![(a.min(da), b.max(db))];
                changed = true;
            }
        }
    }
    if changed {
        let groups = std::mem::take(&mut plan.groups);
        plan.groups = normalize(&plan.base_toks, groups);
    }
    changed
}

fn finish_form(l: &Learner, w: &Work, plan: &Plan) -> LearnedForm {
    let key = (w.mask, w.seed & w.mask);
    let pcrel = l.pcrel_ops.get(&key).cloned().unwrap_or_default();
    let seed_text = l.canon(w.seed, &pcrel).unwrap_or_default();
    let mut form = LearnedForm {
        mask: w.mask | plan.fixed,
        bits: (w.seed & w.mask) | (plan.base & plan.fixed),
        mnemonic: mnemonic(&seed_text).1.to_string(),
        template: Vec::new(),
        groups: Vec::new(),
        ignored: plan.ignored.into_inner(),
        fill: 0,
        seen: 0,
        rz_split: w.rz_split,
        seed: w.seed,
        checked: 0,
        agreed: 0,
        problem: plan.problem.clone(),
        mismatch: None,
    };
    if form.problem.is_some() {
        return form;
    }
    let toks = &plan.base_toks;
    // The template: literal text between the holes, in text order; a group's
    // first hole prints it, a second one prints its value again.
    let mut holes_in_order: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (gi, (_, spans)) in plan.groups.iter().enumerate() {
        for (k, &(a, b)) in spans.iter().enumerate() {
            holes_in_order.push((a, b, gi, k));
        }
    }
    holes_in_order.sort_unstable();
    let mut pos = 0;
    for &(a, b, gi, k) in &holes_in_order {
        let lit: String = toks[pos.min(a)..a].concat();
        if !lit.is_empty() {
            form.template.push(LearnedPiece::Lit(lit));
        }
        form.template.push(match k {
            0 => LearnedPiece::Hole(gi),
            _ => LearnedPiece::Again(gi),
        });
        pos = b;
    }
    let lit: String = toks[pos.min(toks.len())..].concat();
    if !lit.is_empty() {
        form.template.push(LearnedPiece::Lit(lit));
    }
    for (gi, (bits, spans)) in plan.groups.iter().enumerate() {
        if spans.len() > 2 {
            form.problem = Some(format!(
                "group {gi} (bits {bits:?}) prints {} times",
                spans.len()
            ));
        }
        // Hole texts for each sampled value, one per print.
        let mut holes: Vec<Vec<(u64, Option<String>)>> = vec![Vec::new(); spans.len()];
        // Values whose operand kinds differ from the form's but whose text
        // differs only inside the group's hole (TXQ's query, a number or a name:
        // `TXQ.B R0, RZ, 3, 0x0, 0x0` and `TXQ.B R0, RZ, TEX_HEADER_TEXTURE_TYPE,
        // 0x0, 0x0`): a plain table of the group takes their texts.
        let mut other_kinds: Vec<(u64, String)> = Vec::new();
        let mut bad = None;
        for v in plan.values(bits) {
            let word = scatter(plan.base, bits, v);
            if l.claimed(w, word) {
                continue; // another form's: decoded before this one
            }
            let texts = match l.canon(word, &pcrel) {
                Err(_) => None,
                Ok(t) if !same_form(&signature(&t), &w.sig) => {
                    if let Some(mut x) = split_holes(toks, spans, &t) {
                        if x.len() == 1 && mnemonic(&t).1 == mnemonic(&toks.concat()).1 {
                            other_kinds.push((v, x.remove(0)));
                        }
                    }
                    None
                }
                Ok(t) => {
                    let texts = split_holes(toks, spans, &t);
                    if texts.is_none() {
                        bad = Some(format!("group {gi} (bits {bits:?}) value {v:#x} changes text outside its hole: {t}"));
                    }
                    texts
                }
            };
            for (k, h) in holes.iter_mut().enumerate() {
                h.push((v, texts.as_ref().map(|t| t[k].clone())));
            }
        }
        if let Some(p) = bad {
            if form.problem.is_none() {
                form.problem = Some(p);
            }
        }
        let addr = 0; // texts are canonical: targets relative to the word itself
        let explained = explain_group(bits, &holes[0], addr).and_then(|mut g| {
            if let Some(again) = holes.get(1) {
                g.again = explain_again(bits, &g, again, addr)?;
            }
            Some(g)
        });
        match explained {
            Some(mut g) => {
                if g.value_bits.is_empty() && g.again.is_empty() && g.deco_bits == *bits {
                    for (v, t) in other_kinds {
                        let e = &mut g.table[v as usize];
                        if e.is_none() && !t.is_empty() {
                            *e = Some((t, String::new()));
                        }
                    }
                }
                form.groups.push(g)
            }
            None => {
                if form.problem.is_none() {
                    form.problem = Some(format!("group {gi} (bits {bits:?}) fits no format"));
                }
                form.groups.push(LearnedGroup {
                    deco_bits: bits.clone(),
                    value_bits: vec![],
                    fmt: Fmt::None,
                    table: vec![],
                    again: vec![],
                });
            }
        }
    }
    form
}

/// The decoration table of the second print of group `g` (of `bits`), whose
/// texts are `holes`: the same value in the same format.
fn explain_again(
    bits: &[u8],
    g: &LearnedGroup,
    holes: &[(u64, Option<String>)],
    addr: u64,
) -> Option<Vec<Option<(String, String)>>> {
    let idx = |ps: &[u8]| -> Vec<usize> {
        ps.iter()
            .filter_map(|p| bits.iter().position(|b| b == p))
            .collect()
    };
    let (value_idx, deco_idx) = (idx(&g.value_bits), idx(&g.deco_bits));
    if g.value_bits.is_empty() {
        // A plain table over all bits.
        let mut table = vec![None; 1 << deco_idx.len()];
        for (v, t) in holes {
            table[*v as usize] = t.clone().map(|s| (s, String::new()));
        }
        return Some(table);
    }
    let width = value_idx.len() as u32;
    try_fmt(bits, holes, &value_idx, &deco_idx, g.fmt, width, addr).map(|a| a.table)
}

/// Explains the hole texts of one group: which bits are the value, in what format,
/// and the decoration table.
fn explain_group(bits: &[u8], holes: &[(u64, Option<String>)], addr: u64) -> Option<LearnedGroup> {
    let n = bits.len();
    let exhaustive = holes.len() == 1 << n;
    let (candidates, mem_candidate) = value_candidates(bits, holes);
    for value_idx in candidates.into_iter().chain(mem_candidate.clone()) {
        // A candidate wider than the field (the memory one, a register and
        // an offset run, can be) leaves nothing to decode: not this field.
        if n.checked_sub(value_idx.len())
            .is_none_or(|rest| rest > MAX_DECO_BITS)
        {
            continue;
        }
        let width = value_idx.len() as u32;
        let deco_idx: Vec<usize> = (0..n).filter(|k| !value_idx.contains(k)).collect();
        let is_mem = mem_candidate.as_ref() == Some(&value_idx);
        for f in formats(width, is_mem) {
            if let Some(g) = try_fmt(bits, holes, &value_idx, &deco_idx, f, width, addr) {
                return Some(g);
            }
        }
    }
    if exhaustive {
        // A plain table over all bits.
        let table = holes
            .iter()
            .map(|(_, t)| t.clone().map(|s| (s, String::new())))
            .collect();
        return Some(LearnedGroup {
            deco_bits: bits.to_vec(),
            value_bits: vec![],
            fmt: Fmt::None,
            table,
            again: vec![],
        });
    }
    None
}

/// The candidate value parts of a group of `bits` (indices into `bits`), in
/// the order they are tried: the bits whose single flip from zero changes
/// only numbers, those plus one more (a sign kept apart, as in the 20-bit
/// float immediates), all bits, the longest run of consecutive bits (with
/// each single bit beside it), and an optional operand's (which prints
/// nothing at zero); and the memory candidate, a register's run of 8 and an
/// offset's run, tried last.
fn value_candidates(
    bits: &[u8],
    holes: &[(u64, Option<String>)],
) -> (Vec<Vec<usize>>, Option<Vec<usize>>) {
    let n = bits.len();
    let zero_text = holes.iter().find(|h| h.0 == 0).and_then(|h| h.1.clone());
    // Value bits: those whose single flip from zero changes only numeric tokens.
    let mut value_idx: Vec<usize> = Vec::new();
    if let Some(z) = &zero_text {
        let zs = skeleton(z);
        for k in 0..n {
            if let Some((_, Some(t))) = holes.iter().find(|h| h.0 == 1 << k) {
                if t != z && skeleton(t) == zs {
                    value_idx.push(k);
                }
            }
        }
    }
    // Candidate value parts: the bits that change only numbers; those plus one more
    // bit on top (a sign kept apart, as in the 20-bit float immediates); all bits.
    let mut candidates: Vec<Vec<usize>> = Vec::new();
    if !value_idx.is_empty() {
        candidates.push(value_idx.clone());
        for k in 0..n {
            if !value_idx.contains(&k) {
                let mut c = value_idx.clone();
                c.push(k);
                candidates.push(c);
            }
        }
    }
    candidates.push((0..n).collect());
    // Runs of consecutive bit positions: a field is usually one run, with a sign
    // bit or decorations elsewhere; a memory operand is a register run and an
    // offset run.
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for k in 0..n {
        match runs.last_mut() {
            Some(r) if bits[*r.last().expect("run")] + 1 == bits[k] => r.push(k),
            _ => runs.push(vec![k]),
        }
    }
    let mut by_len = runs.clone();
    by_len.sort_by_key(|r| std::cmp::Reverse(r.len()));
    if let Some(longest) = by_len.first() {
        candidates.push(longest.clone());
        for r in &runs {
            if r.len() == 1 {
                let mut c = longest.clone();
                c.push(r[0]);
                candidates.push(c);
            }
        }
    }
    // An optional operand prints nothing at zero: its value bits are those whose
    // single flip from all ones changes only numbers.
    let full = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    if let Some(Some(f)) = holes.iter().find(|h| h.0 == full).map(|h| &h.1) {
        let fs = skeleton(f);
        let c: Vec<usize> = (0..n)
            .filter(|&k| {
                holes.iter().any(|h| {
                    h.0 == full ^ 1 << k
                        && h.1.as_ref().is_some_and(|t| t != f && skeleton(t) == fs)
                })
            })
            .collect();
        if !c.is_empty() && c != value_idx {
            candidates.push(c);
        }
    }
    let mem_candidate = runs.iter().find(|r| r.len() == 8).and_then(|reg| {
        by_len
            .iter()
            .find(|r| r.len() >= 8 && *r != reg)
            .map(|off| {
                let mut c = reg.clone();
                c.extend(off.iter().copied());
                c
            })
    });
    (candidates, mem_candidate)
}

/// The formats a value part `width` bits wide may print in, in the order
/// they are tried; a memory candidate's (`is_mem`) are the address forms
/// alone.
fn formats(width: u32, is_mem: bool) -> Vec<Fmt> {
    let w = width as u8;
    let fmts = [
        Fmt::Reg,
        Fmt::Pred,
        Fmt::Hex { shl: 0 },
        Fmt::Hex { shl: 2 },
        Fmt::SHex { shl: 0 },
        Fmt::SHex { shl: 2 },
        Fmt::SignHex,
        Fmt::PcRel,
        Fmt::F32 {
            shift: 32u8.saturating_sub(w),
        },
        Fmt::F32 {
            shift: 31u8.saturating_sub(w),
        },
        Fmt::F64 {
            shift: 64u8.saturating_sub(w),
        },
        Fmt::F64 {
            shift: 63u8.saturating_sub(w),
        },
        Fmt::OptHex { comma: false },
        Fmt::OptHex { comma: true },
        Fmt::F16,
    ];
    let cbank = [
        Fmt::CBank {
            off_bits: 14,
            spaced: false,
        },
        Fmt::CBank {
            off_bits: 16,
            spaced: false,
        },
        Fmt::CBank {
            off_bits: 14,
            spaced: true,
        },
    ];
    // Attribute addresses wrap at a width of their own with base RZ: every
    // width below the offset's is a candidate, widest first.
    let mem: Vec<Fmt> = if is_mem {
        let ow = w.saturating_sub(8);
        [
            Fmt::Addr { shl: 0 },
            Fmt::Addr { shl: 2 },
            Fmt::CIndex,
            Fmt::RegJump,
        ]
        .into_iter()
        .chain((1..ow).rev().map(|abs_bits| Fmt::Attr { abs_bits }))
        .collect()
    } else {
        Vec::new()
    };
    fmts.into_iter()
        .chain(cbank)
        .chain(mem.iter().copied())
        .filter(|&f| {
            !((f == Fmt::Reg && width != 8)
                || (f == Fmt::Pred && width != 3)
                || (f == Fmt::F16 && width != 16)
                || (is_mem && !mem.contains(&f)))
        })
        .collect()
}

fn try_fmt(
    bits: &[u8],
    holes: &[(u64, Option<String>)],
    value_idx: &[usize],
    deco_idx: &[usize],
    f: Fmt,
    width: u32,
    addr: u64,
) -> Option<LearnedGroup> {
    let mut table: Vec<Option<Option<(String, String)>>> = vec![None; 1 << deco_idx.len()];
    // Values that print nothing (an optional operand at zero) say nothing of where
    // the decoration splits: they are checked after the others.
    let mut empty: Vec<(usize, &str)> = Vec::new();
    for (v, t) in holes {
        let val = value_idx
            .iter()
            .enumerate()
            .fold(0u64, |acc, (k, &i)| acc | ((v >> i) & 1) << k);
        let deco = deco_idx
            .iter()
            .enumerate()
            .fold(0u64, |acc, (k, &i)| acc | ((v >> i) & 1) << k) as usize;
        let entry = match t {
            None => None,
            Some(t) => {
                let mut s = String::new();
                if !render::render(&mut s, f, val, width, addr) {
                    return None;
                }
                if s.is_empty() {
                    empty.push((deco, t));
                    continue;
                }
                let pos = t.find(&s)?;
                Some((t[..pos].to_string(), t[pos + s.len()..].to_string()))
            }
        };
        match &table[deco] {
            None => table[deco] = Some(entry),
            Some(prev) => {
                if *prev != entry {
                    // An invalid value inside a valid decoration is not a format.
                    return None;
                }
            }
        }
    }
    for (deco, t) in empty {
        match &table[deco] {
            Some(Some((pre, post))) if t.len() == pre.len() + post.len() => {
                if !t.starts_with(pre.as_str()) || !t.ends_with(post.as_str()) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    let value_bits: Vec<u8> = value_idx.iter().map(|&i| bits[i]).collect();
    let deco_bits: Vec<u8> = deco_idx.iter().map(|&i| bits[i]).collect();
    // Decorations never seen are unknown: treat as invalid.
    let table = table.into_iter().map(|e| e.flatten()).collect();
    Some(LearnedGroup {
        deco_bits,
        value_bits,
        fmt: f,
        table,
        again: Vec::new(),
    })
}

/// True when flipping any one of `bits` from the plan's base word changes no
/// number of an operand alone: no bit is a value bit (some may change nothing
/// by themselves).
fn modifier_bits(l: &Learner, w: &Work, plan: &Plan, bits: &[u8]) -> bool {
    let key = (w.mask, w.seed & w.mask);
    let pcrel = l.pcrel_ops.get(&key).cloned().unwrap_or_default();
    let Ok(base) = l.canon(plan.base, &pcrel) else {
        return false;
    };
    let zs = skeleton(&base);
    bits.iter().all(|&b| {
        let word = plan.base ^ (1u64 << b);
        l.cache
            .get(&word)
            .is_some_and(|_| match l.canon(word, &pcrel) {
                // A number among the modifiers (`.64` to `.128`) is a modifier.
                Ok(t) => t == base || skeleton(&t) != zs || mnemonic(&t).0 != mnemonic(&base).0,
                Err(_) => true,
            })
    })
}

/// Text with numeric tokens replaced by `#`.
fn skeleton(t: &str) -> String {
    tokens(t)
        .iter()
        .map(|x| if is_numeric(x) { "#" } else { x })
        .collect()
}

/// The character range where two texts differ (in `y`'s coordinates).
fn char_diff(x: &str, y: &str) -> (usize, usize) {
    let (xb, yb) = (x.as_bytes(), y.as_bytes());
    let mut a = 0;
    while a < xb.len() && a < yb.len() && xb[a] == yb[a] {
        a += 1;
    }
    let mut s = 0;
    while s < xb.len() - a && s < yb.len() - a && xb[xb.len() - 1 - s] == yb[yb.len() - 1 - s] {
        s += 1;
    }
    (a, yb.len() - s)
}

/// Merges the plan's groups holding any of `bits` into one, spanning all of them.
fn merge_groups(plan: &mut Plan, bits: &[u8]) {
    let mut taken: Vec<PlanGroup> = Vec::new();
    plan.groups.retain(|g| {
        if bits.iter().any(|x| g.0.contains(x)) {
            taken.push(g.clone());
            false
        } else {
            true
        }
    });
    if taken.is_empty() {
        return;
    }
    let mut all: Vec<u8> = taken.iter().flat_map(|g| g.0.clone()).collect();
    all.sort_unstable();
    all.dedup();
    let a = taken.iter().map(|g| g.1[0].0).min().unwrap_or(0);
    let b = taken
        .iter()
        .map(|g| g.1[g.1.len() - 1].1)
        .max()
        .unwrap_or(0);
    plan.groups.push((all, vec![(a, b)]));
    let groups = std::mem::take(&mut plan.groups);
    plan.groups = normalize(&plan.base_toks, groups);
}

/// Prints `word` with a learned form (addresses canonical: 0).
pub fn print_learned(f: &LearnedForm, word: u64) -> Option<String> {
    print_learned_spans(f, word).map(|x| x.0)
}

/// As [`print_learned`], also giving each hole's group and character range.
/// A text and, per group, the (group, start, end) of the text it printed.
type Spans = (String, Vec<(usize, usize, usize)>);

fn print_learned_spans(f: &LearnedForm, word: u64) -> Option<Spans> {
    if (f.problem.is_some() && f.template.is_empty()) || word & f.mask != f.bits {
        return None;
    }
    let mut out = String::new();
    let mut holes = Vec::new();
    for p in &f.template {
        match p {
            LearnedPiece::Lit(s) => out.push_str(s),
            LearnedPiece::Hole(gi) | LearnedPiece::Again(gi) => {
                let g = &f.groups[*gi];
                let start = out.len();
                let deco = gather(word, &g.deco_bits) as usize;
                let val = gather(word, &g.value_bits);
                if !g.again.is_empty() && g.again.get(deco)?.is_none() {
                    return None;
                }
                let table = match p {
                    LearnedPiece::Again(_) => &g.again,
                    _ => &g.table,
                };
                let (pre, post) = table.get(deco)?.as_ref()?;
                out.push_str(pre);
                if !render::render(&mut out, g.fmt, val, g.value_bits.len() as u32, 0) {
                    return None;
                }
                out.push_str(post);
                holes.push((*gi, start, out.len()));
            }
        }
    }
    Some((out, holes))
}
