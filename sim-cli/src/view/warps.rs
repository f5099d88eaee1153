//! The warps pane: each warp of the SM at the cycle shown, with its
//! scheduler, its pc (the next instruction it issues) and what it waits for,
//! as far as the events tell: issuing, at a barrier, a control code's stall
//! count, a load or shared access not yet back, its scheduler's stall reason
//! when its next instruction gave it, or exited.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use sim_core::timing::ctrl::Ctrl;

use super::model::{Cell, SmModel, WarpId};
use super::timeline::fit;
use super::{apart_short, stall_name, warp_name, App};

/// The warps pane of an [`App`].
pub struct Warps<'a>(pub &'a App);

/// Warp `w`'s pc at `cycle`: the instruction it issues next (or, once it
/// issues no more, the last it issued).
pub fn pc_of(m: &SmModel, w: WarpId, cycle: u64) -> Option<u32> {
    m.next_issue(w, cycle.saturating_sub(1))
        .filter(|i| i.cycle >= cycle)
        .or_else(|| m.last_issue(w, cycle))
        .map(|i| i.pc)
}

/// What warp `w` does or waits for at the cycle shown, and its colour.
pub fn state(app: &App, w: WarpId) -> (String, Color) {
    let m = &app.model;
    let c = app.cycle;
    let stay = m.stay(w, c);
    match stay {
        None => return ("not started".into(), Color::DarkGray),
        Some(s) if s.done <= c => {
            return (format!("exited (block done {})", s.done), Color::DarkGray)
        }
        _ => {}
    }
    let last = m.last_issue(w, c);
    if let Some(i) = last.filter(|i| i.cycle == c) {
        let what = match m.cell(i.sched as usize, c) {
            Cell::Issue {
                apart: Some(why), ..
            } => format!("issues alone ({})", apart_short(why).0),
            _ if i.dual => "issues a pair".into(),
            _ => "issues".into(),
        };
        return (format!("{what}: {}", app.mnemonic(i.pc)), Color::Green);
    }
    if let Some(since) = m.at_barrier(w, c) {
        return (
            format!("barrier (since {since}, {} cycles)", c - since),
            Color::Yellow,
        );
    }
    if let Some(i) = last {
        let pc = if i.dual {
            sim_core::exec::next_slot(i.pc)
        } else {
            i.pc
        };
        let ctrl = app
            .trace
            .header
            .listing
            .get(pc as usize)
            .map_or(0, |l| l.ctrl);
        let gap = Ctrl(ctrl).gap(app.trace.header.reading()) as u64;
        let free = i.cycle.saturating_add(gap);
        if c < free {
            return (
                format!("control code ({} of {gap} left)", free - c),
                Color::Cyan,
            );
        }
    }
    let pending = m
        .in_flight(c)
        .filter(|a| a.warp == w)
        .max_by_key(|a| a.ready);
    if let Some(a) = pending {
        let what = if a.global { "load" } else { "shared" };
        return (
            format!(
                "{what} {} /*{:04x}*/ back in {}",
                app.mnemonic(a.pc),
                a.pc as u64 * 8,
                a.ready - c
            ),
            Color::Magenta,
        );
    }
    match m.next_issue(w, c) {
        Some(i) => {
            // The scheduler's stall reason, when the instruction that gave
            // it is this warp's next.
            let why = match m.cell(i.sched as usize, c) {
                Cell::Stall { why, pc } if pc == i.pc => format!(" ({})", stall_name(why)),
                _ => String::new(),
            };
            (format!("issues in {}{why}", i.cycle - c), Color::Reset)
        }
        None => ("no more issues recorded".into(), Color::DarkGray),
    }
}

impl Widget for Warps<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let m = &app.model;
        let warps = m.warps();
        let block = Block::bordered().title(format!(" warps ({}) ", warps.len()));
        let inner = block.inner(area);
        block.render(area, buf);
        let width = inner.width as usize;
        let mut lines = vec![Line::styled(
            fit("  warp  sch  pc      state", width),
            Style::default().add_modifier(Modifier::BOLD),
        )];
        // Keep the followed warp in view.
        let rows = inner.height.saturating_sub(1) as usize;
        let at = app
            .follow
            .and_then(|f| warps.iter().position(|&w| w == f))
            .unwrap_or(0);
        let skip = (at + 1).saturating_sub(rows);
        for &w in warps.iter().skip(skip).take(rows) {
            let sched = m
                .issues
                .get(&w)
                .and_then(|v| v.first())
                .map_or("-".to_string(), |i| i.sched.to_string());
            let pc = pc_of(m, w, app.cycle)
                .map_or("-".to_string(), |pc| format!("{:04x}", pc as u64 * 8));
            let (text, color) = state(app, w);
            let followed = app.follow == Some(w);
            let head = format!(
                "{}{:<5} {:>3}  {:<6}  ",
                if followed { "▶ " } else { "  " },
                warp_name(w),
                sched,
                pc
            );
            let rest = width.saturating_sub(head.chars().count());
            let style = if followed {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            lines.push(Line::from(vec![
                Span::styled(head, style),
                Span::styled(fit(&text, rest), style.fg(color)),
            ]));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::tests::{app, lines};

    #[test]
    fn each_warp_shows_its_pc_and_what_it_waits_for() {
        let mut a = app();
        let at = |a: &mut App, c: u64| {
            a.jump(c);
            lines(Warps(a), 60, 5)
        };
        assert_eq!(
            at(&mut a, 1),
            [
                "┌ warps (2) ───────────────────────────────────────────────┐",
                "│  warp  sch  pc      state                                │",
                "│  0.0     0  0010    control code (3 of 4 left)           │",
                "│  0.1     1  0010    control code (3 of 4 left)           │",
                "└──────────────────────────────────────────────────────────┘",
            ]
        );
        let l = at(&mut a, 6);
        assert_eq!(
            l[2],
            "│  0.0     0  0028    issues: BAR.SYNC                     │"
        );
        assert_eq!(
            l[3],
            "│  0.1     1  0030    barrier (since 5, 1 cycles)          │"
        );
        let l = at(&mut a, 150);
        assert_eq!(
            l[2],
            "│  0.0     0  0030    load LD.E /*0020*/ back in 50        │"
        );
        a.follow = Some((0, 1));
        let l = at(&mut a, 303);
        assert_eq!(
            l[3],
            "│▶ 0.1     1  0038    exited (block done 302)              │"
        );
    }
}
