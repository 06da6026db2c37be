//! Trace diff: where two traces (e.g. two runs of the same scenario on different commits) part
//! ways, with the events just before and just after.
//!
//! Events are compared in order, field by field (id, global time, node, local clock, kind and
//! everything the kind carries), and shown as their [`render::event_line`] text.

use crate::render;
use crate::trace::{Event, Trace};
use std::fmt;

/// The first place where two traces differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// Index (position in the trace) of the first event that differs.
    pub index: usize,
    /// Trace a's event at `index` (`None`: trace a ended before it).
    pub a: Option<Event>,
    /// Trace b's event at `index` (`None`: trace b ended before it).
    pub b: Option<Event>,
    /// Up to `context` events before `index`, oldest first (the same in both traces).
    pub before: Vec<Event>,
    /// Up to `context` events of trace a after `index`.
    pub after_a: Vec<Event>,
    /// Up to `context` events of trace b after `index`.
    pub after_b: Vec<Event>,
    /// Number of events of trace a.
    pub len_a: usize,
    /// Number of events of trace b.
    pub len_b: usize,
}

impl Divergence {
    /// The fields in which the two diverging events differ (`t_ns`, `local_ns`, `kind.msg`,
    /// ...), or `["end of trace a"]` / `["end of trace b"]` when one trace ended.
    pub fn differing_fields(&self) -> Vec<String> {
        let (a, b) = match (&self.a, &self.b) {
            (Some(a), Some(b)) => (a, b),
            (None, _) => return vec!["end of trace a".into()],
            (_, None) => return vec!["end of trace b".into()],
        };
        let (va, vb) = match (serde_json::to_value(a), serde_json::to_value(b)) {
            (Ok(va), Ok(vb)) => (va, vb),
            _ => return vec!["event".into()],
        };
        let mut out = Vec::new();
        diff_values("", &va, &vb, &mut out);
        out
    }
}

impl Divergence {
    /// Each differing field of the two diverging events with its value in a and in b, as
    /// JSON (`null` where one has none).
    pub fn differing_values(&self) -> Vec<(String, String, String)> {
        let (Some(a), Some(b)) = (&self.a, &self.b) else {
            return Vec::new();
        };
        let (Ok(va), Ok(vb)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
            return Vec::new();
        };
        let at = |v: &serde_json::Value, path: &str| {
            let pointer = format!("/{}", path.replace('.', "/"));
            v.pointer(&pointer)
                .map_or_else(|| "null".to_string(), ToString::to_string)
        };
        self.differing_fields()
            .into_iter()
            .map(|path| {
                let (x, y) = (at(&va, &path), at(&vb, &path));
                (path, x, y)
            })
            .collect()
    }
}

/// Collects the paths at which two JSON values differ (objects compared key by key, in key
/// order).
fn diff_values(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(ma), Value::Object(mb))
            if ma.get("type").is_none() || ma.get("type") == mb.get("type") =>
        {
            let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match (ma.get(k), mb.get(k)) {
                    (Some(x), Some(y)) => diff_values(&sub, x, y, out),
                    _ => out.push(sub),
                }
            }
        }
        _ if a != b => out.push(if path.is_empty() {
            "event".into()
        } else {
            path.into()
        }),
        _ => {}
    }
}

/// The first event at which `a` and `b` differ, with `context` events of context on each side;
/// `None` when both have the same events (node counts are not compared).
pub fn first_divergence(a: &Trace, b: &Trace, context: usize) -> Option<Divergence> {
    let common = a.len().min(b.len());
    let index = (0..common)
        .find(|&i| a.events()[i] != b.events()[i])
        .unwrap_or(common);
    if index == a.len() && index == b.len() {
        return None;
    }
    let after = |t: &Trace| -> Vec<Event> {
        t.events()
            .iter()
            .skip(index + 1)
            .take(context)
            .cloned()
            .collect()
    };
    Some(Divergence {
        index,
        a: a.events().get(index).cloned(),
        b: b.events().get(index).cloned(),
        before: a.events()[index.saturating_sub(context)..index].to_vec(),
        after_a: after(a),
        after_b: after(b),
        len_a: a.len(),
        len_b: b.len(),
    })
}

/// A unified view: the shared context, then trace a's lines (`-`) and trace b's (`+`) from the
/// divergence on, each with its event index.
impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.len_a.max(self.len_b).max(1).to_string().len();
        writeln!(
            f,
            "traces diverge at event {} (a has {} events, b has {}); differs in: {}",
            self.index,
            self.len_a,
            self.len_b,
            self.differing_fields().join(", ")
        )?;
        writeln!(f, "--- a")?;
        writeln!(f, "+++ b")?;
        let first = self.index - self.before.len();
        for (i, e) in self.before.iter().enumerate() {
            writeln!(f, "  [{:>width$}] {}", first + i, render::event_line(e))?;
        }
        for (sign, name, at, rest) in [
            ('-', "a", &self.a, &self.after_a),
            ('+', "b", &self.b, &self.after_b),
        ] {
            match at {
                Some(e) => writeln!(
                    f,
                    "{sign} [{:>width$}] {}",
                    self.index,
                    render::event_line(e)
                )?,
                None => writeln!(f, "{sign} [{:>width$}] (end of trace {name})", self.index)?,
            }
            // Lines that read alike (a difference below the µs a line prints, say) give the
            // exact values: `-` and `+` printed the same line, and the values never appeared.
            if let (Some(a), Some(b)) = (&self.a, &self.b) {
                if render::event_line(a) == render::event_line(b) {
                    for (path, va, vb) in self.differing_values() {
                        let v = if sign == '-' { va } else { vb };
                        writeln!(f, "{sign} {:>width$}   {path} = {v}", "")?;
                    }
                }
            }
            for (i, e) in rest.iter().enumerate() {
                writeln!(
                    f,
                    "{sign} [{:>width$}] {}",
                    self.index + 1 + i,
                    render::event_line(e)
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::Observation;
    use crate::trace::EventKind;

    fn ev(id: u64, t_ms: u64, node: usize, kind: EventKind) -> Event {
        Event {
            id,
            t_ns: t_ms * 1_000_000,
            node: Some(node),
            local_ns: Some((t_ms * 1_000_000) as i64),
            kind,
        }
    }

    fn trace() -> Trace {
        Trace::new(
            2,
            vec![
                ev(0, 0, 0, EventKind::Start { incarnation: 0 }),
                ev(1, 0, 1, EventKind::Start { incarnation: 0 }),
                ev(
                    2,
                    1,
                    1,
                    EventKind::Send {
                        msg_id: 0,
                        to: 0,
                        msg: "Request".into(),
                    },
                ),
                ev(
                    3,
                    3,
                    0,
                    EventKind::Deliver {
                        msg_id: 0,
                        from: 1,
                        sent: 2,
                        msg: "Request".into(),
                    },
                ),
                ev(
                    4,
                    3,
                    0,
                    EventKind::Observe {
                        obs: Observation::CsEnter { resource: 0 },
                    },
                ),
            ],
        )
    }

    #[test]
    fn equal_traces_are_identical() {
        assert_eq!(first_divergence(&trace(), &trace(), 5), None);
        assert_eq!(
            first_divergence(&Trace::default(), &Trace::default(), 5),
            None
        );
    }

    #[test]
    fn finds_the_first_differing_event_and_its_fields() {
        let a = trace();
        let mut b = trace();
        b.events_mut()[3].t_ns += 500_000;
        b.events_mut()[3].local_ns = Some(b.events()[3].t_ns as i64);
        b.events_mut()[4].t_ns += 500_000;
        let d = first_divergence(&a, &b, 2).expect("they differ");
        assert_eq!(d.index, 3);
        assert_eq!(d.a.as_ref(), Some(&a.events()[3]));
        assert_eq!(d.b.as_ref(), Some(&b.events()[3]));
        assert_eq!(d.before, a.events()[1..3].to_vec());
        assert_eq!(d.after_a, vec![a.events()[4].clone()]);
        assert_eq!(d.after_b, vec![b.events()[4].clone()]);
        assert_eq!(d.differing_fields(), vec!["local_ns", "t_ns"]);
        let text = d.to_string();
        assert!(
            text.starts_with(
                "traces diverge at event 3 (a has 5 events, b has 5); differs in: local_ns, t_ns\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("- [3]        3.000 ms  n0   @       3.000  deliver   #0 <- n1  Request"),
            "{text}"
        );
        assert!(
            text.contains("+ [3]        3.500 ms  n0   @       3.500  deliver   #0 <- n1  Request"),
            "{text}"
        );
        assert!(text.contains("  [2] "), "{text}");
        assert!(!text.contains("  [0] "), "{text}");
    }

    /// A difference the lines do not print (1 ns) gives the exact values under them.
    #[test]
    fn lines_that_read_alike_give_the_exact_values() {
        let a = trace();
        let mut b = trace();
        b.events_mut()[3].t_ns += 1;
        let d = first_divergence(&a, &b, 0).unwrap();
        let text = d.to_string();
        assert!(text.contains("t_ns = 3000000\n"), "{text}");
        assert!(text.contains("t_ns = 3000001\n"), "{text}");
        // lines that differ visibly need no such addition
        b.events_mut()[3].t_ns += 500_000;
        let text = first_divergence(&a, &b, 0).unwrap().to_string();
        assert!(!text.contains("t_ns = "), "{text}");
    }

    #[test]
    fn a_kind_change_names_the_field() {
        let a = trace();
        let mut b = trace();
        b.events_mut()[2].kind = EventKind::Send {
            msg_id: 0,
            to: 0,
            msg: "Release".into(),
        };
        let d = first_divergence(&a, &b, 5).unwrap();
        assert_eq!(d.index, 2);
        assert_eq!(d.differing_fields(), vec!["kind.msg"]);
        b.events_mut()[2].kind = EventKind::Input { input: "x".into() };
        let d = first_divergence(&a, &b, 5).unwrap();
        assert_eq!(d.differing_fields(), vec!["kind"]);
    }

    #[test]
    fn a_shorter_trace_diverges_where_it_ends() {
        let a = trace();
        let mut b = trace();
        b.events_mut().truncate(4);
        let d = first_divergence(&a, &b, 1).unwrap();
        assert_eq!((d.index, d.b.as_ref()), (4, None));
        assert_eq!(d.differing_fields(), vec!["end of trace b"]);
        assert!(d.to_string().contains("+ [4] (end of trace b)"), "{d}");
        let d = first_divergence(&b, &a, 1).unwrap();
        assert_eq!(d.differing_fields(), vec!["end of trace a"]);
    }
}
