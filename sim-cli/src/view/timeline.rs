//! The schedulers pane: a row per cycle around the one shown, a column per
//! warp scheduler; each cell the warp and instruction issued (a dual pair as
//! `FFMA ‖ FFMA`, a register bank conflict as `!2`..`!4` before it, the first
//! of a pair issued alone with why, `∤group` and the like) or, in grey, why
//! nothing issued.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::model::Cell;
use super::{apart_short, stall_name, warp_name, App};
use sim_core::timing::Stall;

/// The schedulers pane of an [`App`].
pub struct Timeline<'a>(pub &'a App);

/// Cycle numbers' width.
const CYCLE_W: usize = 8;

impl Timeline<'_> {
    /// A cell's text and style.
    fn cell(&self, c: Cell) -> (String, Style) {
        let app = self.0;
        match c {
            Cell::Empty => (String::new(), Style::default()),
            Cell::Issue {
                warp,
                pc,
                dual,
                conflict,
                apart,
            } => {
                let body = if dual {
                    format!(
                        "{} ‖ {}",
                        app.mnemonic(pc),
                        app.mnemonic(sim_core::exec::next_slot(pc))
                    )
                } else {
                    app.text(pc).to_string()
                };
                // First, so that a narrow column does not cut them off: the
                // bank conflict's degree, then why a pair issued apart.
                let mut marks = String::new();
                if conflict >= 2 {
                    marks = format!("!{conflict} ");
                }
                if let Some(why) = apart {
                    marks = format!("{marks}{} ", apart_short(why).1);
                }
                let style = if conflict >= 2 {
                    Style::default().fg(Color::Red)
                } else if dual {
                    Style::default().fg(Color::Green)
                } else if apart.is_some() {
                    Style::default().fg(Color::Magenta)
                } else {
                    Style::default()
                };
                let followed = app.follow == Some(warp);
                let mark = if followed { "▶" } else { "" };
                (
                    format!("{mark}w{} {marks}{body}", warp_name(warp)),
                    if followed {
                        style.add_modifier(Modifier::BOLD)
                    } else {
                        style
                    },
                )
            }
            Cell::Stall { why, .. } => (
                format!("· {}", stall_name(why)),
                Style::default().fg(if why == Stall::Sync {
                    Color::Yellow
                } else {
                    Color::DarkGray
                }),
            ),
        }
    }
}

/// `s` cut or padded to `w` characters.
pub fn fit(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n > w {
        let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
        t.push('…');
        t
    } else {
        format!("{s}{}", " ".repeat(w - n))
    }
}

impl Widget for Timeline<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let m = &app.model;
        let block =
            Block::bordered().title(format!(" schedulers · SM {} · cycle {} ", m.sm, app.cycle));
        let inner = block.inner(area);
        block.render(area, buf);
        let ns = m.sched.len().max(1);
        let col = (inner.width as usize)
            .saturating_sub(CYCLE_W + 1)
            .checked_div(ns)
            .unwrap_or(0)
            .max(1);
        let rows = inner.height.saturating_sub(1) as u64;
        // The cycle shown sits a third of the way down: what led to it
        // above, what follows below.
        let top = app
            .cycle
            .saturating_sub(rows / 3)
            .max(m.first)
            .min(m.end.saturating_sub(rows).max(m.first));
        let mut lines = Vec::with_capacity(inner.height as usize);
        let mut head = vec![Span::raw(fit("cycle", CYCLE_W + 1))];
        for s in 0..ns {
            head.push(Span::styled(
                fit(&format!("scheduler {s}"), col),
                Style::default().add_modifier(Modifier::BOLD),
            ));
        }
        lines.push(Line::from(head));
        for c in top..top.saturating_add(rows).min(m.end.max(top)) {
            let now = c == app.cycle;
            let mut spans = vec![Span::styled(
                format!("{:>w$} ", c, w = CYCLE_W),
                if now {
                    Style::default().add_modifier(Modifier::REVERSED)
                } else {
                    Style::default().fg(Color::DarkGray)
                },
            )];
            for s in 0..ns {
                let (text, style) = self.cell(m.cell(s, c));
                let style = if now {
                    style.add_modifier(Modifier::REVERSED)
                } else {
                    style
                };
                // A space after each cell keeps columns apart.
                spans.push(Span::styled(fit(&text, col.saturating_sub(1)), style));
                spans.push(Span::raw(" "));
            }
            lines.push(Line::from(spans));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::tests::{app, lines};

    #[test]
    fn rows_are_cycles_and_cells_show_issues_pairs_conflicts_and_stalls() {
        let mut a = app();
        a.jump(2);
        let l = lines(Timeline(&a), 100, 9);
        assert_eq!(
            l,
            [
                "┌ schedulers · SM 0 · cycle 2 ─────────────────────────────────────────────────────────────────────┐",
                "│cycle    scheduler 0                                 scheduler 1                                  │",
                "│       0 w0.0 S2R R0, SR_TID.X                       w0.1 S2R R0, SR_TID.X                        │",
                "│       1 · control code                              · control code                               │",
                "│       2 w0.0 !2 FFMA ‖ FFMA                         w0.1 FFMA ‖ FFMA                             │",
                "│       3 · bank conflict                             w0.1 LD.E R9, [R10]                          │",
                "│       4 w0.0 LD.E R9, [R10]                         · control code                               │",
                "│       5 · control code                              w0.1 BAR.SYNC 0x0                            │",
                "└──────────────────────────────────────────────────────────────────────────────────────────────────┘",
            ]
        );
    }

    #[test]
    fn the_followed_warp_is_marked_and_long_text_is_cut() {
        let mut a = app();
        a.follow = Some((0, 1));
        let l = lines(Timeline(&a), 40, 5);
        assert_eq!(l[2], "│       0 w0.0 S2R R0,… ▶w0.1 S2R R0…  │");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("ab", 4), "ab  ");
    }
}
