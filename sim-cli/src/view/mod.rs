//! `keplersim view FILE`: the pipeline viewer, a terminal UI over a recorded
//! trace (`keplersim run --trace`). It steps through an SM's cycles: each
//! scheduler's issue or stall ([`timeline`]), the warps and what they wait
//! for ([`warps`]), the SASS with the warps' pcs and per-instruction counts
//! ([`sass`]), and the LSU, global requests and barriers ([`units`]).
//!
//! As in ratatui's demo apps: [`run`] sets the terminal up and restores it
//! (also on a panic), the loop draws and then handles one event; drawing
//! only reads the [`App`] (`impl Widget for &App`), and each key is a small
//! method that changes it. The viewer reads the trace, never the model.

pub mod model;
pub mod sass;
pub mod status;
pub mod timeline;
pub mod units;
pub mod warps;

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;
use sim_core::timing::events::{Apart, NSTALLS};
use sim_core::timing::{Event, Stall};

use crate::trace::Trace;
use model::{Cell, SmModel, WarpId};

/// The arguments of `keplersim view`.
#[derive(Args)]
pub struct ViewArgs {
    /// A trace recorded by `keplersim run --trace FILE`.
    pub file: PathBuf,
    /// Open at this cycle (default: the trace's first).
    #[arg(long)]
    pub cycle: Option<u64>,
    /// Open on this SM (default: the first recorded).
    #[arg(long)]
    pub sm: Option<u32>,
    /// Write the trace as Chrome/Perfetto trace events (JSON) to FILE.json
    /// instead of opening the viewer.
    #[arg(long, value_name = "FILE.json")]
    pub perfetto: Option<PathBuf>,
}

/// Runs `keplersim view`.
pub fn command(args: ViewArgs) -> Result<()> {
    let trace = Trace::read(&args.file)?;
    if let Some(p) = &args.perfetto {
        crate::perfetto::write(&trace, p)?;
        println!("perfetto    {}", p.display());
        return Ok(());
    }
    let mut app = App::new(trace)?;
    if let Some(sm) = args.sm {
        app.select_sm(sm)?;
    }
    if let Some(c) = args.cycle {
        app.jump(c);
    }
    show(app)
}

/// Opens the viewer on `trace`.
pub fn run(trace: Trace) -> Result<()> {
    show(App::new(trace)?)
}

/// Refuses to open the viewer (`what` asks for it) where its screen would
/// go to a pipe or a file, or where there is no terminal to take keys from.
pub fn need_terminal(what: &str) -> Result<()> {
    use std::io::IsTerminal;
    if !(std::io::stdout().is_terminal() && std::io::stdin().is_terminal()) {
        bail!(
            "{what}: the viewer needs a terminal, and standard input or output is not one \
             (open it in a terminal; `--perfetto FILE.json` writes the trace for \
             ui.perfetto.dev instead)"
        );
    }
    Ok(())
}

/// Sets the terminal up, runs the app until it quits, and restores the
/// terminal (`ratatui::try_init` also restores it before a panic's message).
fn show(mut app: App) -> Result<()> {
    need_terminal("keplersim view")?;
    let mut terminal = ratatui::try_init().map_err(|e| {
        ratatui::restore();
        anyhow::anyhow!("keplersim view: the terminal cannot be set up: {e}")
    })?;
    let r = app.run_loop(&mut terminal);
    ratatui::restore();
    r
}

/// The viewer's state: the trace, the SM shown (indexed), and where the
/// user is.
pub struct App {
    pub trace: Trace,
    /// The SMs with events, in order, and which is shown.
    pub sms: Vec<u32>,
    pub sm_index: usize,
    pub model: SmModel,
    /// The cycle shown.
    pub cycle: u64,
    /// Cycles a big step moves.
    pub step: u64,
    /// The warp followed (its pc centres the listing; `n`/`p` move between
    /// its issues).
    pub follow: Option<WarpId>,
    /// The stall reason `s` looks for.
    pub stall_kind: Stall,
    /// A cycle being typed after `g`.
    pub input: Option<String>,
    /// What the last key did, when it has something to say.
    pub message: String,
    pub quit: bool,
}

/// The stall reasons in `Stall` order, for cycling through them.
const KINDS: [Stall; NSTALLS] = [
    Stall::ControlCode,
    Stall::Dependency,
    Stall::Texture,
    Stall::PipeBusy,
    Stall::Sync,
    Stall::BankConflict,
    Stall::Idle,
    Stall::Fetch,
    Stall::Interlock,
    Stall::Replay,
];

/// What the viewer says of an SM whose trace is longer than it indexes
/// (empty: the whole trace is shown).
fn cut_note(m: &SmModel) -> String {
    match m.cut {
        Some(end) => format!(
            "cycles {} to {end} are not shown: the viewer indexes {} cycles an SM \
             (record a shorter window with --trace-cycles)",
            m.end,
            model::MAX_CYCLES
        ),
        None => String::new(),
    }
}

/// The keys, as the help line shows them.
pub const HELP: &str = "←/→ cycle  [/] ±step  g jump  w/W follow warp  n/p its issues  \
k stall kind  s/S stall  b/B barrier  c conflict  d dual  a apart  m/M SM  q quit";

impl App {
    /// The viewer on `trace`, at its first SM and cycle.
    pub fn new(trace: Trace) -> Result<App> {
        let mut sms: Vec<u32> = trace
            .events
            .iter()
            .filter(|e| matches!(e, Event::Issue { .. } | Event::Stall { .. }))
            .map(|e| e.sm())
            .collect();
        sms.sort_unstable();
        sms.dedup();
        if sms.is_empty() {
            bail!("the trace holds no cycles (was its window or SM list empty?)");
        }
        let model = SmModel::build(&trace, sms[0]);
        let message = cut_note(&model);
        Ok(App {
            cycle: model.first,
            trace,
            sms,
            sm_index: 0,
            model,
            step: 100,
            follow: None,
            stall_kind: Stall::Sync,
            input: None,
            message,
            quit: false,
        })
    }

    fn run_loop(&mut self, terminal: &mut ratatui::DefaultTerminal) -> Result<()> {
        while !self.quit {
            terminal.draw(|f| f.render_widget(&*self, f.area()))?;
            if let TermEvent::Key(k) = event::read()? {
                if k.kind == KeyEventKind::Press {
                    self.on_key(k);
                }
            }
        }
        Ok(())
    }

    /// Handles one key.
    pub fn on_key(&mut self, k: KeyEvent) {
        self.message.clear();
        if self.input.is_some() {
            return self.on_input(k.code);
        }
        match k.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Right | KeyCode::Char('l') => self.forward(1),
            KeyCode::Left | KeyCode::Char('h') => self.back(1),
            KeyCode::Char(']') | KeyCode::PageDown => self.forward(self.step),
            KeyCode::Char('[') | KeyCode::PageUp => self.back(self.step),
            KeyCode::Home => self.jump(self.model.first),
            KeyCode::End => self.jump(self.model.end.saturating_sub(1)),
            KeyCode::Char('g') => self.input = Some(String::new()),
            KeyCode::Char('w') => self.follow_next(1),
            KeyCode::Char('W') => self.follow_next(-1),
            KeyCode::Char('n') => self.warp_issue(true),
            KeyCode::Char('p') => self.warp_issue(false),
            KeyCode::Char('k') => self.next_kind(),
            KeyCode::Char('s') => self.find_stall(true),
            KeyCode::Char('S') => self.find_stall(false),
            KeyCode::Char('b') => self.find_barrier(true),
            KeyCode::Char('B') => self.find_barrier(false),
            KeyCode::Char('c') => self.find_cell("bank conflict", true, |c| {
                matches!(c, Cell::Issue { conflict: 2.., .. })
            }),
            KeyCode::Char('C') => self.find_cell("bank conflict", false, |c| {
                matches!(c, Cell::Issue { conflict: 2.., .. })
            }),
            KeyCode::Char('d') => self.find_cell("dual pair", true, |c| {
                matches!(c, Cell::Issue { dual: true, .. })
            }),
            KeyCode::Char('D') => self.find_cell("dual pair", false, |c| {
                matches!(c, Cell::Issue { dual: true, .. })
            }),
            KeyCode::Char('a') => self.find_cell("pair issued apart", true, |c| {
                matches!(c, Cell::Issue { apart: Some(_), .. })
            }),
            KeyCode::Char('A') => self.find_cell("pair issued apart", false, |c| {
                matches!(c, Cell::Issue { apart: Some(_), .. })
            }),
            KeyCode::Char('m') => self.next_sm(1),
            KeyCode::Char('M') => self.next_sm(-1),
            _ => {}
        }
    }

    /// A key while a cycle is typed after `g`.
    fn on_input(&mut self, code: KeyCode) {
        let Some(s) = self.input.as_mut() else {
            return;
        };
        match code {
            KeyCode::Char(c) if c.is_ascii_digit() => s.push(c),
            KeyCode::Backspace => {
                s.pop();
            }
            KeyCode::Enter => {
                let typed = self.input.take().unwrap_or_default();
                match typed.parse() {
                    Ok(c) => self.jump(c),
                    Err(_) => self.message = "no cycle typed".into(),
                }
            }
            KeyCode::Esc => self.input = None,
            _ => {}
        }
    }

    /// Moves to `cycle`, kept inside the SM's recorded cycles.
    pub fn jump(&mut self, cycle: u64) {
        let last = self.model.end.saturating_sub(1).max(self.model.first);
        self.cycle = cycle.clamp(self.model.first, last);
        if self.cycle != cycle {
            self.message = format!("cycle {cycle} is outside the trace");
        }
    }

    fn forward(&mut self, n: u64) {
        self.jump(self.cycle.saturating_add(n));
    }

    fn back(&mut self, n: u64) {
        self.jump(self.cycle.saturating_sub(n).max(self.model.first));
    }

    /// Follows the next (or previous) warp, ending at none.
    fn follow_next(&mut self, dir: i64) {
        let warps = self.model.warps();
        let pos = self
            .follow
            .and_then(|f| warps.iter().position(|&w| w == f))
            .map_or(-1, |p| p as i64);
        let n = warps.len() as i64 + 1;
        let next = (pos + 1 + dir).rem_euclid(n) - 1;
        self.follow = (next >= 0).then(|| warps[next as usize]);
        self.message = match self.follow {
            Some(w) => format!("following warp {}", warp_name(w)),
            None => "following no warp".into(),
        };
    }

    /// The followed warp's next (or previous) issue.
    fn warp_issue(&mut self, forward: bool) {
        let Some(w) = self.follow else {
            self.message = "follow a warp first (w)".into();
            return;
        };
        let found = if forward {
            self.model.next_issue(w, self.cycle)
        } else {
            self.model
                .last_issue(w, self.cycle.saturating_sub(1))
                .filter(|_| self.cycle > 0)
        };
        match found {
            Some(i) => self.cycle = i.cycle,
            None => self.message = format!("warp {} issues no more that way", warp_name(w)),
        }
    }

    fn next_kind(&mut self) {
        let k = KINDS
            .iter()
            .position(|&k| k == self.stall_kind)
            .unwrap_or(0);
        self.stall_kind = KINDS[(k + 1) % KINDS.len()];
        self.message = format!("s finds stalls for: {}", stall_name(self.stall_kind));
    }

    /// The next (or previous) cycle where a scheduler starts stalling for
    /// the chosen reason.
    fn find_stall(&mut self, forward: bool) {
        let kind = self.stall_kind;
        let starts = |m: &SmModel, c: u64| {
            (0..m.sched.len()).any(|s| {
                matches!(m.cell(s, c), Cell::Stall { why, .. } if why == kind)
                    && (c == m.first
                        || !matches!(m.cell(s, c - 1), Cell::Stall { why, .. } if why == kind))
            })
        };
        let what = format!("{} stall", stall_name(kind));
        self.find(&what, forward, starts);
    }

    /// The next (or previous) cycle a scheduler's cell is as `pred` asks.
    fn find_cell(&mut self, what: &str, forward: bool, pred: impl Fn(Cell) -> bool) {
        let hit = |m: &SmModel, c: u64| (0..m.sched.len()).any(|s| pred(m.cell(s, c)));
        self.find(what, forward, hit);
    }

    /// The next (or previous) barrier arrival or release.
    fn find_barrier(&mut self, forward: bool) {
        let m = &self.model;
        let cycles = m
            .arrivals
            .iter()
            .map(|a| a.0)
            .chain(m.releases.iter().map(|r| r.0));
        let c = self.cycle;
        let found = if forward {
            cycles.filter(|&x| x > c).min()
        } else {
            cycles.filter(|&x| x < c).max()
        };
        match found {
            Some(x) => self.cycle = x,
            None => self.message = "no barrier that way".into(),
        }
    }

    /// Moves to the nearest cycle that way where `hit` holds.
    fn find(&mut self, what: &str, forward: bool, hit: impl Fn(&SmModel, u64) -> bool) {
        let m = &self.model;
        let found = if forward {
            (self.cycle.saturating_add(1)..m.end).find(|&c| hit(m, c))
        } else {
            (m.first..self.cycle).rev().find(|&c| hit(m, c))
        };
        match found {
            Some(c) => self.cycle = c,
            None => self.message = format!("no {what} that way"),
        }
    }

    /// Shows SM `sm`.
    pub fn select_sm(&mut self, sm: u32) -> Result<()> {
        let Some(i) = self.sms.iter().position(|&s| s == sm) else {
            let sms: Vec<String> = self.sms.iter().map(u32::to_string).collect();
            bail!(
                "--sm {sm}: the trace holds no events of SM {sm} ({}; `run --trace-sms` chooses them)",
                sim_core::it_has(sms.iter().map(String::as_str))
            );
        };
        self.show_sm(i);
        Ok(())
    }

    fn next_sm(&mut self, dir: i64) {
        let n = self.sms.len() as i64;
        let i = (self.sm_index as i64 + dir).rem_euclid(n) as usize;
        self.show_sm(i);
        self.message = match cut_note(&self.model) {
            note if note.is_empty() => format!("SM {}", self.sms[i]),
            note => format!("SM {}: {note}", self.sms[i]),
        };
    }

    fn show_sm(&mut self, i: usize) {
        if i != self.sm_index || self.model.sm != self.sms[i] {
            self.sm_index = i;
            self.model = SmModel::build(&self.trace, self.sms[i]);
            self.follow = None;
        }
        let c = self.cycle;
        self.jump(c);
        self.message = cut_note(&self.model);
    }

    /// The instruction text of slot `pc`.
    pub fn text(&self, pc: u32) -> &str {
        self.trace
            .header
            .listing
            .get(pc as usize)
            .map_or("?", |l| l.text.as_str())
    }

    /// The mnemonic (with its modifiers and any guard) of slot `pc`.
    pub fn mnemonic(&self, pc: u32) -> &str {
        let t = self.text(pc);
        let end = if t.starts_with('@') {
            t.find(' ').map_or(t.len(), |i| {
                t[i + 1..].find(' ').map_or(t.len(), |j| i + 1 + j)
            })
        } else {
            t.find(' ').unwrap_or(t.len())
        };
        &t[..end]
    }

    /// The slot the listing centres on: the followed warp's pc, else the
    /// first instruction issued at or just before the cycle shown.
    pub fn focus_pc(&self) -> Option<u32> {
        if let Some(w) = self.follow {
            return warps::pc_of(&self.model, w, self.cycle);
        }
        (0..64).find_map(|back| {
            let c = self.cycle.checked_sub(back)?;
            (0..self.model.sched.len()).find_map(|s| match self.model.cell(s, c) {
                Cell::Issue { pc, .. } => Some(pc),
                _ => None,
            })
        })
    }
}

/// A warp's name: `block slot.warp`.
pub fn warp_name(w: WarpId) -> String {
    format!("{}.{}", w.0, w.1)
}

/// A stall reason's name, as the reports give it.
pub fn stall_name(s: Stall) -> &'static str {
    sim_core::timing::events::STALLS[s as usize]
}

/// Why a pair issued apart, as the reports give it.
pub fn apart_name(why: Apart) -> &'static str {
    sim_core::timing::events::APART[why as usize]
}

/// Why a pair issued apart, short, for the warps pane, and as a word for a
/// scheduler's cell: `∤group` (shared core group taken), `∤unit` (second's
/// unit busy), `∤ready` (second not ready), `∤rule` (not pairable).
pub fn apart_short(why: Apart) -> (&'static str, &'static str) {
    match why {
        Apart::GroupTaken => ("group taken", "∤group"),
        Apart::UnitBusy => ("unit busy", "∤unit"),
        Apart::NotReady => ("not ready", "∤ready"),
        Apart::NotPairable => ("not pairable", "∤rule"),
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [title, top, listing, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Percentage(60),
            Constraint::Min(4),
            Constraint::Length(1),
        ])
        .areas(area);
        let [tl, right] =
            Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(top);
        let [wa, un] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(right);
        let sa = listing;
        status::Title(self).render(title, buf);
        timeline::Timeline(self).render(tl, buf);
        sass::Sass(self).render(sa, buf);
        warps::Warps(self).render(wa, buf);
        units::Units(self).render(un, buf);
        status::Help(self).render(help, buf);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::KeyModifiers;
    use ratatui::Terminal;

    pub(crate) fn app() -> App {
        App::new(crate::trace::tests::sample()).unwrap()
    }

    /// The lines `w` draws into a `width`×`height` buffer, right-trimmed.
    pub(crate) fn lines(w: impl Widget, width: u16, height: u16) -> Vec<String> {
        let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
        t.draw(|f| f.render_widget(w, f.area())).unwrap();
        let buf = t.backend().buffer().clone();
        (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    fn key(a: &mut App, c: KeyCode) {
        a.on_key(KeyEvent::new(c, KeyModifiers::NONE));
    }

    fn chars(a: &mut App, s: &str) {
        for c in s.chars() {
            key(a, KeyCode::Char(c));
        }
    }

    /// The sample with scheduler 1's pair at cycle 2 issued apart: the
    /// first alone, the other scheduler of the pair having taken the shared
    /// core group.
    pub(crate) fn apart_sample() -> Trace {
        let mut t = crate::trace::tests::sample();
        let at = t
            .events
            .iter()
            .position(|e| {
                matches!(
                    e,
                    Event::Issue {
                        cycle: 2,
                        sched: 1,
                        ..
                    }
                )
            })
            .unwrap();
        let Event::Issue {
            cycle,
            sm,
            sched,
            slot,
            warp,
            pc,
            dual,
            ..
        } = &mut t.events[at]
        else {
            unreachable!()
        };
        *dual = false;
        let apart = Event::PairApart {
            cycle: *cycle,
            sm: *sm,
            sched: *sched,
            slot: *slot,
            warp: *warp,
            pc: *pc,
            why: Apart::GroupTaken,
        };
        t.events.insert(at + 1, apart);
        t
    }

    #[test]
    fn a_pair_issued_apart_shows_why_in_every_pane_and_a_finds_it() {
        let mut a = App::new(apart_sample()).unwrap();
        key(&mut a, KeyCode::Char('a'));
        assert_eq!(a.cycle, 2);
        let screen = lines(&a, 150, 42).join("\n");
        for want in [
            // The schedulers pane: why, before the instruction.
            "w0.1 ∤group FFMA R1, R2, R3, R4",
            // The warps pane.
            "issues alone (group taken): FFMA",
            // The units pane.
            "issue     2 of 2 schedulers, 1 dual, 1 apart, 1 conflicts",
            // The SASS pane: one of the FFMA's two issues paired, one apart.
            "/*0010*/ dual     FFMA R1, R2, R3, R4                 2     1      1     1",
            "a apart",
        ] {
            assert!(screen.contains(want), "{want}:\n{screen}");
        }
        assert_eq!(
            a.model.cell(1, 2),
            Cell::Issue {
                warp: (0, 1),
                pc: 2,
                dual: false,
                conflict: 0,
                apart: Some(Apart::GroupTaken)
            }
        );
        key(&mut a, KeyCode::Char('a'));
        assert_eq!(
            (a.cycle, a.message.as_str()),
            (2, "no pair issued apart that way")
        );
        key(&mut a, KeyCode::End);
        key(&mut a, KeyCode::Char('A'));
        assert_eq!(a.cycle, 2);
        // The Perfetto export marks it on scheduler 1's track.
        let marks: Vec<_> = crate::perfetto::events(&a.trace)
            .into_iter()
            .filter(|e| e["cat"] == "apart")
            .collect();
        assert_eq!(marks.len(), 1);
        assert_eq!(
            (marks[0]["name"].as_str(), marks[0]["tid"].as_u64()),
            (Some("pair apart: shared core group taken"), Some(1))
        );
        assert_eq!(marks[0]["args"]["instruction"], "FFMA R1, R2, R3, R4");
    }

    #[test]
    fn stepping_moves_by_one_and_by_the_step_and_stays_in_the_trace() {
        let mut a = app();
        assert_eq!(a.cycle, 0);
        key(&mut a, KeyCode::Right);
        assert_eq!(a.cycle, 1);
        key(&mut a, KeyCode::Left);
        key(&mut a, KeyCode::Left);
        assert_eq!(a.cycle, 0);
        key(&mut a, KeyCode::Char(']'));
        assert_eq!(a.cycle, 100);
        key(&mut a, KeyCode::PageDown);
        key(&mut a, KeyCode::PageDown);
        key(&mut a, KeyCode::PageDown);
        assert_eq!(a.cycle, 302, "the last cycle recorded");
        key(&mut a, KeyCode::Char('['));
        assert_eq!(a.cycle, 202);
    }

    #[test]
    fn g_jumps_to_a_typed_cycle() {
        let mut a = app();
        chars(&mut a, "g25");
        assert_eq!(a.input.as_deref(), Some("25"));
        key(&mut a, KeyCode::Backspace);
        chars(&mut a, "00");
        key(&mut a, KeyCode::Enter);
        assert_eq!((a.cycle, a.input.clone()), (200, None));
        chars(&mut a, "g");
        key(&mut a, KeyCode::Esc);
        assert!(!a.quit && a.input.is_none());
    }

    #[test]
    fn searches_find_stalls_barriers_conflicts_and_dual_pairs() {
        let mut a = app();
        chars(&mut a, "s");
        assert_eq!(a.cycle, 6, "the first barrier stall (scheduler 1)");
        chars(&mut a, "s");
        assert_eq!(a.cycle, 7, "scheduler 0's");
        chars(&mut a, "s");
        assert_eq!(a.message, "no barrier stall that way");
        chars(&mut a, "k");
        assert_eq!(a.stall_kind, Stall::BankConflict);
        chars(&mut a, "S");
        assert_eq!(a.cycle, 3);
        chars(&mut a, "B");
        assert_eq!(a.cycle, 3, "no barrier before");
        chars(&mut a, "bb");
        assert_eq!(a.cycle, 6);
        chars(&mut a, "b");
        assert_eq!(a.cycle, 7, "the release");
        chars(&mut a, "C");
        assert_eq!(a.cycle, 2);
        a.jump(0);
        chars(&mut a, "d");
        assert_eq!(a.cycle, 2);
    }

    #[test]
    fn following_a_warp_steps_through_its_issues() {
        let mut a = app();
        chars(&mut a, "n");
        assert_eq!(a.message, "follow a warp first (w)");
        chars(&mut a, "ww");
        assert_eq!(a.follow, Some((0, 1)));
        chars(&mut a, "nnn");
        assert_eq!(a.cycle, 5);
        chars(&mut a, "p");
        assert_eq!(a.cycle, 3);
        assert_eq!(a.focus_pc(), Some(4));
        chars(&mut a, "w");
        assert_eq!(a.follow, None);
        chars(&mut a, "W");
        assert_eq!(a.follow, Some((0, 1)));
    }

    #[test]
    fn m_switches_sm_and_q_quits() {
        let mut t = crate::trace::tests::sample();
        let more: Vec<Event> = t
            .events
            .iter()
            .map(|&e| match e {
                Event::Issue {
                    cycle,
                    sched,
                    slot,
                    warp,
                    pc,
                    dual,
                    conflict,
                    ..
                } => Event::Issue {
                    cycle: cycle + 1000,
                    sm: 5,
                    sched,
                    slot,
                    warp,
                    pc,
                    dual,
                    conflict,
                },
                e => e,
            })
            .filter(|e| e.sm() == 5)
            .collect();
        t.events.extend(more);
        let mut a = App::new(t).unwrap();
        assert_eq!(a.sms, [0, 5]);
        chars(&mut a, "m");
        assert_eq!((a.model.sm, a.cycle), (5, 1000));
        chars(&mut a, "M");
        assert_eq!(a.model.sm, 0);
        assert_eq!(
            a.select_sm(3).unwrap_err().to_string(),
            "--sm 3: the trace holds no events of SM 3 (it has: 0, 5; `run --trace-sms` chooses them)"
        );
        chars(&mut a, "q");
        assert!(a.quit);
    }

    #[test]
    fn the_whole_screen_has_every_pane_and_the_help_line() {
        let a = app();
        let l = lines(&a, 160, 30);
        let all = l.join("\n");
        for pane in ["schedulers", "SASS", "warps", "units"] {
            assert!(all.contains(pane), "{pane} missing:\n{all}");
        }
        assert!(l[29].starts_with("←/→ cycle"), "{}", l[29]);
        assert!(l[0].contains("sample"), "{}", l[0]);
    }

    /// Traces that decode but do not hold together (fields of the sample's
    /// events and header changed at random: a pc past the listing, a
    /// scheduler, slot or warp the header has not, cycles near the ends of
    /// u64, no schedulers, no listing) open, draw, step, search and export
    /// without a panic. Each field change is a byte of its postcard
    /// encoding changed, kept when the result still decodes.
    #[test]
    fn traces_that_do_not_hold_together_never_panic() {
        let base = apart_sample();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut opened = 0;
        for _ in 0..250 {
            let mut t = base.clone();
            let mut bytes = postcard::to_allocvec(&t.header).unwrap();
            let i = (next() % bytes.len() as u64) as usize;
            bytes[i] = next() as u8;
            if let Ok(h) = postcard::from_bytes::<crate::trace::Header>(&bytes) {
                t.header = h;
            }
            for e in &mut t.events {
                if next() % 3 != 0 {
                    continue;
                }
                let mut bytes = postcard::to_allocvec(e).unwrap();
                for _ in 0..1 + next() % 2 {
                    let i = (next() % bytes.len() as u64) as usize;
                    bytes[i] = if next() % 2 == 0 { 0xff } else { next() as u8 };
                }
                if let Ok(m) = postcard::from_bytes::<Event>(&bytes) {
                    *e = m;
                }
            }
            let _ = crate::perfetto::events(&t);
            let Ok(mut a) = App::new(t) else { continue };
            opened += 1;
            let _ = lines(&a, 150, 42);
            for c in "l]hn[wWnpkksSbBcCdDaAmM".chars() {
                key(&mut a, KeyCode::Char(c));
                let _ = lines(&a, 150, 42);
            }
            for k in [KeyCode::End, KeyCode::Home, KeyCode::PageDown] {
                key(&mut a, k);
                let _ = lines(&a, 150, 42);
            }
            chars(&mut a, "g99999999999999999999");
            key(&mut a, KeyCode::Enter);
            let _ = lines(&a, 150, 42);
        }
        assert!(opened > 60, "only {opened} of 250 changed traces opened");
    }

    /// `e` with its cycle, and a load's `ready`, moved by `f`; a stall's
    /// length set to `cycles` where given.
    fn moved(e: Event, f: impl Fn(u64) -> u64, cycles: Option<u64>) -> Event {
        let mut e = e;
        match &mut e {
            Event::Stall {
                cycle, cycles: n, ..
            } => {
                *cycle = f(*cycle);
                *n = cycles.unwrap_or(*n);
            }
            Event::Shared { cycle, ready, .. } | Event::Global { cycle, ready, .. } => {
                *cycle = f(*cycle);
                *ready = f(*ready);
            }
            Event::Issue { cycle, .. }
            | Event::BlockStart { cycle, .. }
            | Event::BlockDone { cycle, .. }
            | Event::BarrierArrive { cycle, .. }
            | Event::BarrierRelease { cycle, .. }
            | Event::PairApart { cycle, .. } => *cycle = f(*cycle),
        }
        e
    }

    /// A trace whose pcs are past every kernel (a damaged file's, up to
    /// `u32::MAX`) draws them as their byte offsets, an unknown instruction
    /// and no control byte; the offsets overflowed a `u32`.
    #[test]
    fn pcs_past_every_kernel_draw_as_their_offsets() {
        let mut t = crate::trace::tests::sample();
        let far = u32::MAX - 1;
        for e in &mut t.events {
            match e {
                Event::Issue { pc, .. }
                | Event::Stall { pc, .. }
                | Event::Shared { pc, .. }
                | Event::Global { pc, .. }
                | Event::BarrierArrive { pc, .. }
                | Event::PairApart { pc, .. } => *pc = far,
                Event::BlockStart { .. }
                | Event::BlockDone { .. }
                | Event::BarrierRelease { .. } => {}
            }
        }
        let mut a = App::new(t).unwrap();
        let _ = crate::perfetto::events(&a.trace);
        let mut seen = String::new();
        for c in "wllllllllllll]]]".chars() {
            key(&mut a, KeyCode::Char(c));
            seen.push_str(&lines(&a, 150, 42).join("\n"));
        }
        assert!(seen.contains("7fffffff0"), "{seen}");
        // Wrapped to 32 bits it would read fffffff0.
        assert!(
            !seen.contains(" fffffff0") && !seen.contains("*fffffff0"),
            "a wrapped offset:\n{seen}"
        );
    }

    /// A trace whose cycles sit at the top of u64 (all of them, or some,
    /// or a stall running past it), as a damaged or hand-made file can hold,
    /// opens, draws, steps, searches and exports without a panic.
    #[test]
    fn traces_at_the_ends_of_the_cycle_range_never_panic() {
        let base = apart_sample();
        let tops = [
            u64::MAX,
            u64::MAX - 1,
            u64::MAX - 302,
            u64::MAX - model::MAX_CYCLES,
            u64::MAX - model::MAX_CYCLES - 303,
        ];
        let mut cases = Vec::new();
        for top in tops {
            // Every event moved up so that the last ends at `top`.
            let all: Vec<Event> = base
                .events
                .iter()
                .map(|&e| moved(e, |c| c.saturating_add(top - 302), None))
                .collect();
            cases.push(all.clone());
            // Stalls of every length up to the end of u64.
            cases.push(
                all.iter()
                    .map(|&e| moved(e, |c| c, Some(u64::MAX)))
                    .collect(),
            );
            // Half the events at the top, half at the bottom.
            cases.push(
                base.events
                    .iter()
                    .enumerate()
                    .map(|(i, &e)| {
                        moved(e, |c| if i % 2 == 0 { c } else { top - c.min(top) }, None)
                    })
                    .collect(),
            );
        }
        for events in cases {
            let t = Trace {
                header: base.header.clone(),
                events,
            };
            let _ = crate::perfetto::events(&t);
            let Ok(mut a) = App::new(t) else { continue };
            let shown = |a: &App| {
                let m = &a.model;
                assert!(
                    m.first <= a.cycle && (a.cycle < m.end || a.cycle == m.first),
                    "cycle {} outside the {}..{} shown",
                    a.cycle,
                    m.first,
                    m.end
                );
                let _ = lines(a, 150, 42);
            };
            shown(&a);
            for c in "l]hn[wWnpkksSbBcCdDaAmM".chars() {
                key(&mut a, KeyCode::Char(c));
                shown(&a);
            }
            for k in [KeyCode::End, KeyCode::Home, KeyCode::PageDown, KeyCode::End] {
                key(&mut a, k);
                for c in "wnnpsSbBcCdDaA".chars() {
                    key(&mut a, KeyCode::Char(c));
                    shown(&a);
                }
            }
            chars(&mut a, "g18446744073709551615");
            key(&mut a, KeyCode::Enter);
            shown(&a);
        }
    }

    /// An SM whose events run past what the viewer indexes shows the first
    /// `MAX_CYCLES` cycles and says so; a barrier or issue past them is not
    /// a place to step to.
    #[test]
    fn a_trace_longer_than_the_viewer_indexes_says_where_it_is_cut() {
        let mut t = crate::trace::tests::sample();
        let late = model::MAX_CYCLES + 500;
        t.events.push(Event::Issue {
            cycle: late,
            sm: 0,
            sched: 0,
            slot: 0,
            warp: 1,
            pc: 2,
            dual: false,
            conflict: 0,
        });
        t.events.push(Event::BarrierArrive {
            cycle: late,
            sm: 0,
            slot: 0,
            warp: 1,
            pc: 5,
        });
        let mut a = App::new(t).unwrap();
        assert_eq!(
            (a.model.end, a.model.cut),
            (model::MAX_CYCLES, Some(late + 1))
        );
        assert_eq!(
            a.message,
            "cycles 4000000 to 4000501 are not shown: the viewer indexes 4000000 cycles an SM \
             (record a shorter window with --trace-cycles)"
        );
        assert!(lines(&a, 150, 42)[41].starts_with("cycles 4000000 to 4000501"));
        chars(&mut a, "bbbb");
        assert_eq!((a.cycle, a.message.as_str()), (7, "no barrier that way"));
        chars(&mut a, "wwnnnn");
        assert_eq!(a.follow, Some((0, 1)));
        assert_eq!(
            (a.cycle, a.message.as_str()),
            (302, "warp 0.1 issues no more that way"),
            "its last issue in the stretch shown"
        );
        let mut b = app();
        assert_eq!((b.model.cut, b.message.as_str()), (None, ""));
        chars(&mut b, "l");
        assert_eq!(b.message, "");
    }
}
