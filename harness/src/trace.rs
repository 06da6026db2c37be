//! The trace: every send, delivery, drop, timer, input, fault, clock adjustment and
//! observation of a run, with global time, node, local clock reading and the ground-truth
//! happens-before relation.
//!
//! Happens-before is recorded cheaply: each event belongs to one node (its order there is the
//! trace order) and each delivery names the event that sent it. [`Trace::vector_clocks`] turns
//! that into vector clock stamps, and [`HappensBefore`] does the same online for checkers, so
//! causality is judged without trusting the algorithm.

use crate::fault::Fault;
use crate::net::DropReason;
use crate::process::{ClockAdjust, Observation};
use crate::NodeId;
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, OnceLock};

mod packed;
pub(crate) use packed::LaterMsgs;
use packed::Packed;

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the trace (0, 1, 2, ...).
    pub id: u64,
    /// Global simulated time, ns.
    pub t_ns: u64,
    /// The node it happened at (`None`: the network or the fault plan as a whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeId>,
    /// The node's software clock at that moment, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_ns: Option<i64>,
    /// What happened.
    pub kind: EventKind,
}

/// The kinds of trace events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", deny_unknown_fields)]
pub enum EventKind {
    /// The node starts (incarnation 0) or restarts (a `Restart` fault: after a crash, or a
    /// reboot of a running node, which no `Crash` event precedes).
    Start {
        /// 0 at the first start, +1 at each restart.
        incarnation: u32,
    },
    /// The node sends a message.
    Send {
        /// Message id (unique in the run).
        msg_id: u64,
        /// Destination.
        to: NodeId,
        /// The message, rendered (empty when the trace is not recorded).
        msg: Text,
    },
    /// A message is delivered to the node.
    Deliver {
        /// Message id.
        msg_id: u64,
        /// Sender.
        from: NodeId,
        /// The send event (the happens-before edge).
        sent: u64,
        /// The message, rendered (shared with the send event).
        msg: Text,
    },
    /// A message is not delivered.
    Drop {
        /// Message id.
        msg_id: u64,
        /// Sender.
        from: NodeId,
        /// Intended destination.
        to: NodeId,
        /// Why.
        reason: DropReason,
    },
    /// A timer fires.
    Timer {
        /// The timer's id.
        timer_id: u64,
        /// The timer payload, rendered.
        timer: String,
    },
    /// A workload input arrives.
    Input {
        /// The input, rendered.
        input: String,
    },
    /// A fault of the plan is applied.
    Fault {
        /// The fault.
        fault: Fault,
    },
    /// The algorithm adjusts its clock.
    ClockAdjust {
        /// Step or slew.
        how: ClockAdjust,
        /// Amount, ns.
        delta_ns: i64,
    },
    /// The algorithm reports an observation.
    Observe {
        /// What it reports.
        obs: Observation,
    },
    /// The algorithm panicked (the run stops).
    Panic {
        /// The panic message.
        message: String,
    },
    /// The trace ends here, before the run did: a run limit stopped the run, or the recorded
    /// trace reached `limits.max_trace_bytes` and the run went on unrecorded to its verdict.
    /// Always the last event, at no node; nothing past it can be judged from the trace.
    Cut {
        /// Which limit, and when (`limits.max_events = 50 steps reached at 118.000 ms`).
        reason: String,
        /// Whether the run stopped there (a run limit: its verdict was the limit), or went on
        /// unrecorded (the trace's own size limit).
        run_stopped: bool,
    },
}

/// The longest type word [`type_word`] returns, in bytes.
pub const TYPE_WORD_BYTES_MAX: usize = 40;

/// Whether `c` can be part of a type word.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The type of a rendered message, timer or input: its first word (`Hop` of `Hop { seq: 0 }`,
/// `Grant` of `Grant`), at most [`TYPE_WORD_BYTES_MAX`] bytes (cut at a character boundary).
pub fn type_word(rendered: &str) -> &str {
    let mut end = word_prefix_len(rendered).min(TYPE_WORD_BYTES_MAX);
    while !rendered.is_char_boundary(end) {
        end -= 1;
    }
    &rendered[..end]
}

/// Which bytes are ASCII word characters (letters, digits, `_`); every other byte is false.
static ASCII_WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 128 {
        t[b] = (b as u8).is_ascii_alphanumeric() || b as u8 == b'_';
        b += 1;
    }
    t
};

/// The length in bytes of the longest prefix of `s` made of [`is_word_char`] characters.
/// ASCII is tested byte by byte (every type word Sincro's algorithms render); the first
/// other byte hands the rest to the `char` test. Pilot runs and coverage read a type word
/// per event, so this is on the hot path of guided campaigns.
#[inline]
pub(crate) fn word_prefix_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if ASCII_WORD[b as usize] {
            i += 1;
        } else if b.is_ascii() {
            return i;
        } else {
            // `i` follows ASCII bytes only, so it is a character boundary.
            return i + s[i..]
                .find(|c: char| !is_word_char(c))
                .unwrap_or(s.len() - i);
        }
    }
    i
}

/// A rendered message in a [`Send`](EventKind::Send) or [`Deliver`](EventKind::Deliver)
/// event: cheap to clone, read as a `&str` (it dereferences to one). A text of up to
/// [`Text::INLINE_MAX`] bytes is kept in place (no allocation, no reference count: most
/// messages render that short); a longer one is shared, so a send and its deliveries hold one
/// copy. The empty text, which every message carries when the trace is not recorded, is an
/// inline one.
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Inline {
        len: u8,
        bytes: [u8; Text::INLINE_MAX],
    },
    Shared(Arc<str>),
}

impl Default for Text {
    fn default() -> Text {
        Text::EMPTY
    }
}

impl Text {
    /// The longest text kept in place, in bytes.
    pub const INLINE_MAX: usize = 22;

    /// The empty text.
    pub const EMPTY: Text = Text(Repr::Inline {
        len: 0,
        bytes: [0; Text::INLINE_MAX],
    });

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // SAFETY: an inline text is only made from a whole `&str` (`Text::from`), so
                // its first `len` bytes are UTF-8.
                unsafe { std::str::from_utf8_unchecked(&bytes[..*len as usize]) }
            }
            Repr::Shared(s) => s,
        }
    }

    /// The text's length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Inline { len, .. } => *len as usize,
            Repr::Shared(s) => s.len(),
        }
    }

    /// Whether the text is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when both are the same shared allocation (not only equal text).
    #[cfg(test)]
    pub(crate) fn shares(&self, other: &Text) -> bool {
        match (&self.0, &other.0) {
            (Repr::Shared(a), Repr::Shared(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Whether the text is kept in place (it owns no memory on the heap).
    #[inline]
    pub(crate) fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }

    #[inline]
    fn inline(s: &str) -> Option<Text> {
        let len = s.len();
        (len <= Text::INLINE_MAX).then(|| {
            let mut bytes = [0; Text::INLINE_MAX];
            bytes[..len].copy_from_slice(s.as_bytes());
            Text(Repr::Inline {
                len: len as u8,
                bytes,
            })
        })
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Text {
    #[inline]
    fn from(s: &str) -> Text {
        Text::inline(s).unwrap_or_else(|| Text(Repr::Shared(Arc::from(s))))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::inline(&s).unwrap_or_else(|| Text(Repr::Shared(Arc::from(s))))
    }
}

impl From<Arc<str>> for Text {
    fn from(s: Arc<str>) -> Text {
        Text::inline(&s).unwrap_or(Text(Repr::Shared(s)))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        String::deserialize(d).map(Text::from)
    }
}

/// A recorded run: the number of nodes and the events, in order.
///
/// The events are read through [`Trace::events`] (a slice) and changed through
/// [`Trace::events_mut`]. A run records its trace packed, a few bytes per event (see
/// `trace/packed.rs`), and the events are unpacked the first time they are read as a slice;
/// [`Trace::write_jsonl`], equality and [`Trace::len`] read the packed form as it is.
#[derive(Clone, Default)]
pub struct Trace {
    /// Number of nodes.
    pub nodes: usize,
    /// The events, when the trace holds them as events (made by hand, read from a file,
    /// changed, or recorded by a pilot run of type words).
    vec: Vec<Event>,
    /// The events, when the trace was recorded packed (`vec` is then empty).
    packed: Option<Box<Packed>>,
    /// The packed events, unpacked on first read.
    view: OnceLock<Vec<Event>>,
}

impl PartialEq for Trace {
    fn eq(&self, other: &Trace) -> bool {
        if self.nodes != other.nodes {
            return false;
        }
        match (&self.packed, &other.packed) {
            // packing is canonical: equal events, equal bytes (and messages rendered later
            // that render alike)
            (Some(a), Some(b)) if a == b => true,
            // a send rendered later packs apart from the same send packed with its text
            (Some(a), Some(b)) if !a.defers() && !b.defers() => false,
            _ => self.len() == other.len() && self.events() == other.events(),
        }
    }
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("nodes", &self.nodes)
            .field("events", &self.events())
            .finish()
    }
}

thread_local! {
    /// One spare event buffer per thread: a trace gives its buffer back when dropped, and the
    /// next run on the thread records into it, so a campaign of runs does not fault in fresh
    /// memory for every trace (the buffer is kept only up to [`SPARE_MAX_BYTES`]).
    static SPARE: std::cell::RefCell<Vec<Event>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The same for packed traces: their bytes and marks.
    static SPARE_PACKED: std::cell::RefCell<(Vec<u8>, Vec<u32>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// Largest event buffer a thread keeps for reuse.
pub const SPARE_MAX_BYTES: usize = 256 << 20;

impl Trace {
    /// A trace of `nodes` nodes made of `events` (in order, ids counting from 0; see
    /// [`Trace::validate`]).
    pub fn new(nodes: usize, events: Vec<Event>) -> Trace {
        Trace {
            nodes,
            vec: events,
            packed: None,
            view: OnceLock::new(),
        }
    }

    /// An empty trace for `nodes` nodes that keeps its events packed (what a run records
    /// into), in this thread's spare buffers if any.
    pub fn packed(nodes: usize) -> Trace {
        let (bytes, marks) = SPARE_PACKED.with(|s| std::mem::take(&mut *s.borrow_mut()));
        Trace {
            nodes,
            vec: Vec::new(),
            packed: Some(Box::new(Packed::with_buffers(bytes, marks))),
            view: OnceLock::new(),
        }
    }

    /// The events, in order (a packed trace is unpacked on the first call).
    #[inline]
    pub fn events(&self) -> &[Event] {
        match &self.packed {
            None => &self.vec,
            Some(p) => self.view.get_or_init(|| p.unpack_all()),
        }
    }

    /// The events, to change (a hand-made or edited trace; a packed trace is unpacked for
    /// good).
    pub fn events_mut(&mut self) -> &mut Vec<Event> {
        if let Some(p) = self.packed.take() {
            self.vec = match self.view.take() {
                Some(v) => v,
                None => p.unpack_all(),
            };
        }
        &mut self.vec
    }

    /// The events, taken out of the trace.
    pub fn into_events(mut self) -> Vec<Event> {
        std::mem::take(self.events_mut())
    }

    /// The number of events.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.packed {
            None => self.vec.len(),
            Some(p) => p.len(),
        }
    }

    /// Whether the trace has no event.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends an event.
    #[inline]
    pub fn push(&mut self, event: Event) {
        match &mut self.packed {
            None => self.vec.push(event),
            Some(p) => {
                p.push(&event);
                self.view.take();
            }
        }
    }

    /// Appends `event` as [`Trace::push`] does, from a reference: a packed trace packs it
    /// where it is (a run records several events a message, and moving each one's 104 bytes
    /// into `push` was a tenth of recording it); an unpacked trace keeps a copy. A send with
    /// `later` given is packed without its text, to be rendered when read from message
    /// `later` of the store [`Trace::set_later`] gives (an unpacked trace keeps the event as
    /// it is).
    #[inline]
    pub(crate) fn push_ref_later(&mut self, event: &Event, later: Option<u64>) {
        match &mut self.packed {
            None => self.vec.push(event.clone()),
            Some(p) => {
                p.push_later(event, later);
                self.view.take();
            }
        }
    }

    /// Whether some send of this packed trace is rendered when read (recorded without its
    /// text, [`Trace::push_ref_later`]).
    #[cfg(test)]
    pub(crate) fn renders_later(&self) -> bool {
        self.packed.as_ref().is_some_and(|p| p.defers())
    }

    /// Gives a packed trace the messages its sends recorded to be rendered later are
    /// rendered from (what a read before showed of them, the empty text, is forgotten).
    pub(crate) fn set_later(&mut self, later: Arc<dyn packed::LaterTexts>) {
        if let Some(p) = &mut self.packed {
            p.set_later(later);
            self.view.take();
        }
    }

    /// The time of the last event, if any.
    pub fn last_t_ns(&self) -> Option<u64> {
        match &self.packed {
            None => self.vec.last().map(|e| e.t_ns),
            Some(p) => p.last_t_ns(),
        }
    }

    /// The message text of event `i` when it is a send (a packed trace reads it in place).
    #[inline]
    pub fn send_text(&self, i: usize) -> Option<Text> {
        match &self.packed {
            None => match self.vec.get(i).map(|e| &e.kind) {
                Some(EventKind::Send { msg, .. }) => Some(msg.clone()),
                _ => None,
            },
            Some(p) => p.send_text(i),
        }
    }

    /// The events in order, without keeping them unpacked: a packed trace not read as a
    /// slice yet unpacks one event at a time, so reading a long recording once costs one
    /// event's memory, not the whole trace's.
    pub fn iter(&self) -> Box<dyn Iterator<Item = std::borrow::Cow<'_, Event>> + '_> {
        match (&self.packed, self.view.get()) {
            (Some(p), None) => Box::new(p.iter().map(std::borrow::Cow::Owned)),
            _ => Box::new(self.events().iter().map(std::borrow::Cow::Borrowed)),
        }
    }

    /// The last event, if any (a packed trace unpacks that one only).
    pub fn last(&self) -> Option<Event> {
        match &self.packed {
            Some(p) if self.view.get().is_none() => p.last(),
            _ => self.events().last().cloned(),
        }
    }

    /// Whether the events are kept packed (a recorded trace not changed since).
    pub fn is_packed(&self) -> bool {
        self.packed.is_some()
    }

    /// An empty trace for `nodes` nodes, recording into this thread's spare buffer if any.
    pub fn with_spare_buffer(nodes: usize) -> Trace {
        let events = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
        Trace::new(nodes, events)
    }

    /// Frees this thread's spare buffers, so the next traced run records into fresh memory
    /// as the first run of a process does (`sincro bench` measures its first traced run of
    /// each workload so, not on the buffer the workload before it left).
    pub fn free_spare_buffer() {
        let _ = SPARE.try_with(|s| {
            if let Ok(mut spare) = s.try_borrow_mut() {
                *spare = Vec::new();
            }
        });
        let _ = SPARE_PACKED.try_with(|s| {
            if let Ok(mut spare) = s.try_borrow_mut() {
                *spare = (Vec::new(), Vec::new());
            }
        });
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        if let Some(p) = self.packed.take() {
            if p.capacity_bytes() == 0 || p.capacity_bytes() > SPARE_MAX_BYTES {
                return;
            }
            let buffers = p.into_buffers();
            let _ = SPARE_PACKED.try_with(|s| {
                if let Ok(mut spare) = s.try_borrow_mut() {
                    if spare.0.capacity() + 4 * spare.1.capacity()
                        < buffers.0.capacity() + 4 * buffers.1.capacity()
                    {
                        *spare = buffers;
                    }
                }
            });
            return;
        }
        let mut events = std::mem::take(&mut self.vec);
        if events.capacity() == 0
            || events.capacity() * std::mem::size_of::<Event>() > SPARE_MAX_BYTES
        {
            return;
        }
        events.clear();
        let _ = SPARE.try_with(|s| {
            if let Ok(mut spare) = s.try_borrow_mut() {
                if spare.capacity() < events.capacity() {
                    *spare = events;
                }
            }
        });
    }
}

/// Where two traces first differ (see [`Trace::first_difference`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TraceDifference {
    /// 1-based line of the JSON Lines text (line 1 is the header).
    pub line: usize,
    /// That line in the first trace (`None`: the first trace ended before it).
    pub left: Option<String>,
    /// That line in the second trace (`None`: the second trace ended before it).
    pub right: Option<String>,
}

impl std::fmt::Display for TraceDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = |l: &Option<String>| l.clone().unwrap_or_else(|| "(trace ended)".into());
        write!(
            f,
            "first difference at trace line {}:\n  first run:  {}\n  second run: {}",
            self.line,
            side(&self.left),
            side(&self.right)
        )
    }
}

/// One JSON Lines row: an event and its vector clock stamp.
#[derive(Serialize)]
struct Row {
    #[serde(flatten)]
    event: Event,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vc: Option<Vec<u32>>,
}

/// A row as read: [`Row`]'s fields spelled out, since a flattened struct cannot refuse
/// unknown fields, and an unknown field is refused (a misspelled `local_ns` was read as no
/// clock reading at all, and `monotonic_clock` passed a trace it should have failed). The
/// stamp is read only to be checked as a list of numbers: readers recompute stamps.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowIn {
    id: u64,
    t_ns: u64,
    #[serde(default)]
    node: Option<NodeId>,
    #[serde(default)]
    local_ns: Option<i64>,
    kind: EventKind,
    #[serde(default)]
    #[allow(dead_code)] // checked for its shape only
    vc: Option<Vec<u32>>,
}

impl Trace {
    /// Vector clock stamp of every event that happened at a node (`None` for network events).
    pub fn vector_clocks(&self) -> Vec<Option<Vec<u32>>> {
        let mut hb = HappensBefore::new(self.nodes);
        self.events()
            .iter()
            .map(|e| hb.stamp(e).map(|v| v.to_vec()))
            .collect()
    }

    /// The trace's JSON Lines, one line at a time (without the newline): the header, then
    /// one event per line with its vector clock (for traces of at most [`STAMPED_NODES_MAX`]
    /// nodes). Nothing is built beyond the current line.
    pub fn jsonl_lines(&self) -> impl Iterator<Item = String> + '_ {
        let header =
            serde_json::json!({ "sincro_trace": TRACE_FORMAT, "nodes": self.nodes }).to_string();
        let mut hb = (self.nodes <= STAMPED_NODES_MAX).then(|| HappensBefore::new(self.nodes));
        // a packed trace not read yet is unpacked one event at a time
        std::iter::once(header).chain(self.iter().map(move |e| {
            let vc = hb.as_mut().and_then(|hb| hb.stamp(&e).map(|v| v.to_vec()));
            serde_json::to_string(&Row {
                event: e.into_owned(),
                vc,
            })
            .expect("an event always serializes")
        }))
    }

    /// Writes the trace as JSON Lines ([`Trace::jsonl_lines`]). Fails, having written no
    /// line past it, when the text would pass [`MAX_TRACE_FILE_BYTES`], the most a reader
    /// (`check`, `show`, `diff`) takes: a file Sincro writes is one it can read back.
    pub fn write_jsonl<W: Write>(&self, w: W) -> io::Result<()> {
        self.write_jsonl_within(w, MAX_TRACE_FILE_BYTES)
    }

    fn write_jsonl_within<W: Write>(&self, mut w: W, max_bytes: u64) -> io::Result<()> {
        let mut written: u64 = 0;
        for line in self.jsonl_lines() {
            written = written.saturating_add(line.len() as u64 + 1);
            if written > max_bytes {
                return Err(io::Error::other(format!(
                    "the trace's JSON Lines pass {max_bytes} bytes, the most a trace file may \
                     have (what check, show and diff read); record a shorter run"
                )));
            }
            w.write_all(line.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    /// The first line where the JSON Lines of `self` and `other` differ, or `None` when they
    /// are byte-identical. Compares line by line without building either text, so checking a
    /// long run for determinism costs two traces, not two traces and two texts.
    pub fn first_difference(&self, other: &Trace) -> Option<TraceDifference> {
        // Equal events serialize to equal lines (the header and the vector clocks are functions
        // of `nodes` and the events), so the common case compares values and renders nothing.
        if self == other {
            return None;
        }
        let (mut a, mut b) = (self.jsonl_lines(), other.jsonl_lines());
        let mut line = 0;
        loop {
            line += 1;
            match (a.next(), b.next()) {
                (None, None) => return None,
                (x, y) if x == y => {}
                (x, y) => {
                    return Some(TraceDifference {
                        line,
                        left: x,
                        right: y,
                    })
                }
            }
        }
    }

    /// The trace as a JSON Lines string (in memory, with no limit on its size; to write a
    /// file, use [`Trace::write_jsonl`]).
    pub fn to_jsonl(&self) -> String {
        let mut text = String::new();
        for line in self.jsonl_lines() {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// Reads a JSON Lines trace (as written by [`Trace::write_jsonl`], or by another system).
    pub fn read_jsonl<R: BufRead>(r: R) -> Result<Trace, String> {
        let mut trace = Trace::default();
        // A blank line is allowed at the end only: in between, every later event's line
        // would be misnamed in a validation error (they name event `i` line `i + 2`).
        let mut blank_at = None;
        let mut header = false;
        for (i, line) in r.lines().enumerate() {
            let line = line.map_err(|e| format!("line {}: {e}", i + 1))?;
            if i == 0 && line.trim().is_empty() {
                return Err(
                    "line 1: blank; expected the header {\"sincro_trace\": 1, \"nodes\": N}".into(),
                );
            }
            if line.trim().is_empty() {
                blank_at = blank_at.or(Some(i));
                continue;
            }
            if i == 0 {
                header = true;
                let head: serde_json::Value =
                    serde_json::from_str(&line).map_err(|e| format!("line 1: {e}"))?;
                match head.get("sincro_trace") {
                    Some(v) if v.as_u64() == Some(TRACE_FORMAT) => {}
                    Some(v) => {
                        return Err(format!(
                            "line 1: trace format {v}; this sincro reads format {TRACE_FORMAT} \
                             (the header's \"sincro_trace\")"
                        ))
                    }
                    None => {
                        return Err(
                            "line 1: expected the header {\"sincro_trace\": 1, \"nodes\": N}"
                                .into(),
                        )
                    }
                }
                // Read again strictly: a key given twice (the last would silently win, and
                // the node count decides which ids exist) or a key of no header is refused.
                serde_json::from_str::<HeaderIn>(&line).map_err(|e| {
                    format!(
                        "line 1: {e}; the header is {{\"sincro_trace\": {TRACE_FORMAT}, \"nodes\": N}}"
                    )
                })?;
                if let Some(n) = head.get("nodes").and_then(|n| n.as_u64()) {
                    trace.nodes = n as usize;
                    continue;
                }
                return Err(
                    "line 1: expected the header {\"sincro_trace\": 1, \"nodes\": N}".into(),
                );
            }
            if let Some(blank) = blank_at {
                return Err(format!(
                    "line {}: blank, with events after it; a trace has one event per line \
                     (errors name events by their line)",
                    blank + 1
                ));
            }
            let row: RowIn =
                serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", i + 1))?;
            trace.push(Event {
                id: row.id,
                t_ns: row.t_ns,
                node: row.node,
                local_ns: row.local_ns,
                kind: row.kind,
            });
        }
        if !header {
            return Err("the file is empty: a trace starts with the header \
                 {\"sincro_trace\": 1, \"nodes\": N}"
                .into());
        }
        Ok(trace)
    }
}

/// Largest node count whose JSON Lines carry each event's vector clock stamp (`vc`). A
/// stamp holds one entry per node, so past this a file grows with events × nodes (a
/// 2,000-node clock run wrote 17 GB of stamps); readers recompute stamps from the events, so
/// they are for people and outside tools only.
pub const STAMPED_NODES_MAX: usize = 64;

/// Largest JSON Lines trace Sincro writes ([`Trace::write_jsonl`]: `run --trace`, `show
/// --format jsonl`) and reads (`check`, `show`, `diff`): 1 GiB.
pub const MAX_TRACE_FILE_BYTES: u64 = 1 << 30;

/// The header line of a JSON Lines trace, read strictly (its values are checked from a
/// [`serde_json::Value`] for clearer messages).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read only to refuse duplicate and unknown keys
struct HeaderIn {
    sincro_trace: serde_json::Value,
    nodes: Option<serde_json::Value>,
}

/// The JSON Lines trace format this version writes and reads (the header's `sincro_trace`).
pub const TRACE_FORMAT: u64 = 1;

/// Largest node count a trace file may declare: the scenario limit, [`crate::scenario::MAX_NODES`].
pub const MAX_TRACE_NODES: usize = crate::scenario::MAX_NODES;

/// Latest global time an event of a trace may have, ns: the end of the longest run a scenario
/// may ask for ([`crate::MAX_TIME_MS`]). Checkers add bounds to event times; past this a
/// trace is not one a run could have produced.
pub const MAX_TRACE_TIME_NS: u64 = crate::MAX_TIME_MS * crate::NS_PER_MS;

/// Largest software clock reading (either sign) an event of a trace may carry, ns: 2^61
/// (73 years), far past any run's clocks, and small enough that checkers may subtract two
/// readings or add a bound to one without overflow.
pub const MAX_TRACE_LOCAL_NS: i64 = 1 << 61;

/// A node's life as [`Trace::validate`] follows it.
#[derive(Clone, Copy, Debug, Default)]
struct Life {
    state: NodeState,
    /// Its last start's incarnation.
    incarnation: Option<u32>,
    /// Paused at this event (while running), and not resumed, crashed or restarted since.
    paused: Option<u64>,
    /// The trace records starts: the node does nothing before its first.
    records_starts: bool,
}

/// Whether a node runs.
#[derive(Clone, Copy, Debug, Default)]
enum NodeState {
    /// Running (or not started yet).
    #[default]
    Up,
    /// Crashed at this event.
    Down(u64),
    /// Restarted at this event, and not started since.
    Restarting(u64),
}

/// Why a trace is not a trace a run could have produced (see [`Trace::validate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line of the JSON Lines text (line 1 is the header; event `i` is line `i + 2`).
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

impl std::error::Error for TraceError {}

impl Trace {
    /// Checks that the trace is one a run could have produced, so that a verdict over it
    /// means something: the header's node count is in `1..=`[`MAX_TRACE_NODES`]; event ids
    /// are their positions (0, 1, 2, ...); global time never goes back; every node id an
    /// event names is below the node count (a send to a non-existent node is allowed, and so
    /// is its `no_such_node` drop); only drops and faults may lack a node; every delivery
    /// names an earlier send of the same message, from its sender, addressed to the
    /// delivering node; every drop names an earlier send of the same message and link; a
    /// message id is sent once; faults name existing nodes; a crashed node does nothing until
    /// it restarts, and each start of a node is a later incarnation. The first problem is
    /// returned, naming its line.
    pub fn validate(&self) -> Result<(), TraceError> {
        if self.nodes == 0 || self.nodes > MAX_TRACE_NODES {
            return Err(TraceError {
                line: 1,
                problem: format!(
                    "the header declares {} nodes; a trace has 1 to {MAX_TRACE_NODES} (`check` \
                     and `show` take the count from `--nodes N` instead)",
                    self.nodes
                ),
            });
        }
        self.validate_with_nodes(self.nodes)
    }

    /// A node's life: between its crash (or a restart) and its next start it does nothing
    /// (only faults of it, inputs it ignores, drops of messages to it and notes are recorded
    /// there), a start after its first follows a restart, and starts a later incarnation.
    /// Judged, a crashed node's entry into a critical section was a mutual exclusion
    /// violation, and a start with no restart before it excused a leader's change. A paused
    /// node does nothing either until it resumes (what reaches it waits), crashes or
    /// restarts; a pause of a node that is down changes nothing (the engines ignore it), a
    /// resume of one that is not paused neither. Judged, a paused node's exit from a critical
    /// section hid a mutual exclusion violation.
    fn check_life(e: &Event, life: &mut Life) -> Result<(), String> {
        let v = e.node.expect("an event at a node");
        match &e.kind {
            EventKind::Fault {
                fault: Fault::Crash { .. },
            } => {
                if !matches!(life.state, NodeState::Down(_)) {
                    life.state = NodeState::Down(e.id);
                }
                life.paused = None;
            }
            EventKind::Fault {
                fault: Fault::Restart { .. },
            } => {
                life.state = NodeState::Restarting(e.id);
                life.paused = None;
            }
            EventKind::Fault {
                fault: Fault::Pause { .. },
            } => {
                if matches!(life.state, NodeState::Up) && life.paused.is_none() {
                    life.paused = Some(e.id);
                }
            }
            EventKind::Fault {
                fault: Fault::Resume { .. },
            } => life.paused = None,
            EventKind::Start { incarnation: k } => {
                match (life.state, life.incarnation) {
                    (NodeState::Down(c), _) => {
                        return Err(format!(
                            "event {} starts node {v}, which crashed at event {c} and has not \
                             restarted",
                            e.id
                        ))
                    }
                    (NodeState::Up, Some(prev)) => {
                        return Err(format!(
                            "event {} starts node {v} again (incarnation {k}, after {prev}) \
                             with no restart of it before",
                            e.id
                        ))
                    }
                    // Later, not always the next: on turmoil a restart and a crash of one
                    // instant count an incarnation that never started.
                    (_, Some(prev)) if *k <= prev => {
                        return Err(format!(
                            "event {} starts node {v} as incarnation {k}, but it started as \
                             incarnation {prev} before: each restart is a later one",
                            e.id
                        ))
                    }
                    _ => {}
                }
                life.state = NodeState::Up;
                life.incarnation = Some(*k);
            }
            // a note is commentary, judged by nothing (Ω's end-of-run summary of every node)
            EventKind::Fault { .. }
            | EventKind::Input { .. }
            | EventKind::Drop { .. }
            | EventKind::Observe {
                obs: Observation::Note { .. },
            } => {}
            kind => match life.state {
                NodeState::Up => {
                    if life.records_starts && life.incarnation.is_none() {
                        return Err(format!(
                            "event {} ({}) happens at node {v} before its start: a trace that \
                             records starts records each node's first before anything it does",
                            e.id,
                            kind_name(kind)
                        ));
                    }
                    if let Some(p) = life.paused {
                        return Err(format!(
                            "event {} ({}) happens at node {v}, which was paused at event {p} \
                             and has not resumed: a paused node does nothing",
                            e.id,
                            kind_name(kind)
                        ));
                    }
                }
                NodeState::Down(c) => {
                    return Err(format!(
                        "event {} ({}) happens at node {v}, which crashed at event {c} and has \
                         not restarted: a crashed node does nothing",
                        e.id,
                        kind_name(kind)
                    ))
                }
                NodeState::Restarting(r) => {
                    return Err(format!(
                        "event {} ({}) happens at node {v}, which restarted at event {r} and \
                         has not started yet",
                        e.id,
                        kind_name(kind)
                    ))
                }
            },
        }
        Ok(())
    }

    /// [`Trace::validate`] for a trace judged as a run of `nodes` nodes (`--nodes` given on
    /// the command line instead of the header's count).
    pub fn validate_with_nodes(&self, nodes: usize) -> Result<(), TraceError> {
        if nodes == 0 || nodes > MAX_TRACE_NODES {
            return Err(TraceError {
                line: 1,
                problem: format!(
                    "judged as a run of {nodes} nodes; a trace has 1 to {MAX_TRACE_NODES}"
                ),
            });
        }
        // msg_id -> (send event id, from, to, the message's text)
        let mut sends: std::collections::HashMap<u64, (u64, NodeId, NodeId, &Text)> =
            std::collections::HashMap::new();
        let mut last_t = 0;
        // A trace that records starts (every engine's does) records each node's first start
        // before anything the node does.
        let records_starts = self
            .events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::Start { .. }));
        let mut lives: Vec<Life> = vec![
            Life {
                records_starts,
                ..Life::default()
            };
            nodes
        ];
        // which nodes some event happened at
        let mut seen = vec![false; nodes];
        // each node's clock adjustments added up
        let mut adjusted = vec![0i128; nodes];
        // and its clock jumps
        let mut jumped = vec![0i128; nodes];
        // When a drop's reason says a partition or a crash stopped it, one was there: the
        // first partition, and each node's first crash (kept in the order of time, not of
        // lines, so an instant's lines may come in any order).
        let first_partition_ns = self
            .events()
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Fault {
                        fault: Fault::Partition { .. } | Fault::PartitionOneway { .. }
                    }
                )
            })
            .map(|e| e.t_ns)
            .next();
        let mut first_crash_ns: Vec<Option<u64>> = vec![None; nodes];
        for e in self.events() {
            if let (
                EventKind::Fault {
                    fault: Fault::Crash { .. },
                },
                Some(v),
            ) = (&e.kind, e.node)
            {
                if let Some(first) = first_crash_ns.get_mut(v) {
                    first.get_or_insert(e.t_ns);
                }
            }
        }
        for (i, e) in self.events().iter().enumerate() {
            let err = |problem: String| TraceError {
                line: i + 2,
                problem,
            };
            if e.id != i as u64 {
                return Err(err(format!(
                    "event id {} where id {i} was expected (ids count events from 0, in order)",
                    e.id
                )));
            }
            if e.t_ns < last_t {
                return Err(err(format!(
                    "time goes back: event {} at {} ns comes after an event at {last_t} ns",
                    e.id, e.t_ns
                )));
            }
            if e.t_ns > MAX_TRACE_TIME_NS {
                return Err(err(format!(
                    "event {} at {} ns is past the end of the longest possible run ({MAX_TRACE_TIME_NS} ns)",
                    e.id, e.t_ns
                )));
            }
            if let Some(l) = e
                .local_ns
                .filter(|l| l.unsigned_abs() > MAX_TRACE_LOCAL_NS as u64)
            {
                return Err(err(format!(
                    "event {} reads the software clock at {l} ns, past the ±{MAX_TRACE_LOCAL_NS} ns any run's clocks stay within",
                    e.id
                )));
            }
            if let EventKind::ClockAdjust { delta_ns, .. } = e.kind {
                if delta_ns.unsigned_abs() > MAX_TRACE_LOCAL_NS as u64 {
                    return Err(err(format!(
                        "event {} adjusts the clock by {delta_ns} ns, past the ±{MAX_TRACE_LOCAL_NS} ns any run's clocks stay within",
                        e.id
                    )));
                }
                // The adjustments add up, whatever their signs: steps of +2^61 ns that a
                // later −2^61 cancels pushed a checker's clock past 64 bits, where it stuck,
                // and a correct run was judged 10^13 ms off real time.
                if let Some(net) = e.node.and_then(|n| adjusted.get_mut(n)) {
                    *net += i128::from(delta_ns);
                    if net.unsigned_abs() > MAX_TRACE_LOCAL_NS as u128 {
                        return Err(err(format!(
                            "event {} brings node {}'s clock adjustments to {net} ns in all, \
                             past the ±{MAX_TRACE_LOCAL_NS} ns any run's clocks stay within",
                            e.id,
                            e.node.unwrap_or_default()
                        )));
                    }
                }
            }
            last_t = e.t_ns;
            if let EventKind::Observe {
                obs: Observation::User { kind, .. },
            } = &e.kind
            {
                if crate::process::RESERVED_KINDS.contains(&kind.as_str()) {
                    return Err(err(format!(
                        "event {} is a user observation of kind `{kind}`, the name of a \
                         built-in one: the built-in properties would take it for theirs",
                        e.id
                    )));
                }
            }
            let in_range = |what: &str, v: NodeId| {
                if v < nodes {
                    Ok(())
                } else {
                    Err(err(format!(
                        "event {} names node {v} ({what}), but the trace has {nodes} nodes",
                        e.id
                    )))
                }
            };
            if let EventKind::Cut { .. } = e.kind {
                if i + 1 != self.len() || e.node.is_some() {
                    return Err(err(format!(
                        "event {} (cut) must be the trace's last event, at no node: it marks \
                         where the trace stops",
                        e.id
                    )));
                }
            }
            // The run stops at a panic: after it come only other nodes' events of its
            // instant (nothing orders them after it) and a cut. A trace with a later event
            // was judged as if the run went on, and passed.
            if let EventKind::Panic { .. } = e.kind {
                let later = self.events()[i + 1..].iter().find(|r| {
                    !matches!(r.kind, EventKind::Cut { .. })
                        && (r.t_ns != e.t_ns || r.node == e.node)
                });
                if let Some(r) = later {
                    return Err(err(format!(
                        "event {} (panic) is followed by event {} (a later instant, or its own \
                         node): the run stops at a panic",
                        e.id, r.id
                    )));
                }
            }
            match e.node {
                Some(v) => {
                    in_range("where it happened", v)?;
                    Self::check_life(e, &mut lives[v]).map_err(err)?;
                    seen[v] = true;
                }
                None if matches!(
                    e.kind,
                    EventKind::Drop { .. } | EventKind::Fault { .. } | EventKind::Cut { .. }
                ) => {}
                None => {
                    return Err(err(format!(
                        "event {} ({}) has no node; only drops, faults and a cut may lack one",
                        e.id,
                        kind_name(&e.kind)
                    )))
                }
            }
            match &e.kind {
                EventKind::Send { msg_id, to, msg } => {
                    let from = e.node.expect("checked above");
                    if sends.insert(*msg_id, (e.id, from, *to, msg)).is_some() {
                        return Err(err(format!(
                            "message {msg_id} is sent twice (event {})",
                            e.id
                        )));
                    }
                }
                EventKind::Deliver {
                    msg_id,
                    from,
                    sent,
                    msg,
                } => {
                    in_range("sender", *from)?;
                    let me = e.node.expect("checked above");
                    match sends.get(msg_id) {
                        // the views draw a message with its send's text, the timeline with
                        // its delivery's: the two are one message
                        Some(&(s, f, t, text)) if s == *sent && f == *from && t == me => {
                            if text != msg {
                                return Err(err(format!(
                                    "event {} delivers message {msg_id} as {:?}, but event {s} sent it as {:?}",
                                    e.id,
                                    msg.as_str(),
                                    text.as_str()
                                )));
                            }
                        }
                        Some(&(s, f, t, _)) => {
                            return Err(err(format!(
                                "event {} delivers message {msg_id} as sent by event {sent} from node {from} to node {me}, but it was sent by event {s} from node {f} to node {t}",
                                e.id
                            )))
                        }
                        None => {
                            return Err(err(format!(
                                "event {} delivers message {msg_id}, which no earlier event sends",
                                e.id
                            )))
                        }
                    }
                }
                EventKind::Drop {
                    msg_id,
                    from,
                    to,
                    reason,
                } => {
                    in_range("sender", *from)?;
                    if *reason != DropReason::NoSuchNode {
                        in_range("destination", *to)?;
                    }
                    // A reason the trace contradicts (stop 72's probe: offline, a drop's
                    // reason decides whether liveness is judged from the end).
                    let before = |t: Option<u64>| t.is_some_and(|t| t <= e.t_ns);
                    let contradicted = match reason {
                        DropReason::NoSuchNode if *to < nodes => {
                            Some(format!("node {to} is a node of the trace"))
                        }
                        DropReason::Partitioned if !before(first_partition_ns) => {
                            Some("no partition came before it".to_string())
                        }
                        DropReason::DestinationCrashed if !before(first_crash_ns[*to]) => {
                            Some(format!("node {to} did not crash before it"))
                        }
                        _ => None,
                    };
                    if let Some(why) = contradicted {
                        return Err(err(format!(
                            "event {} drops message {msg_id} as `{}`, but {why}",
                            e.id,
                            crate::render::drop_reason_text(*reason),
                        )));
                    }
                    match sends.get(msg_id) {
                        Some(&(_, f, t, _)) if f == *from && t == *to => {}
                        _ => {
                            return Err(err(format!(
                                "event {} drops message {msg_id} from node {from} to node {to}, which no earlier event sends",
                                e.id
                            )))
                        }
                    }
                }
                EventKind::Fault { fault } => {
                    // No run drifts a clock past the largest bound a scenario may declare:
                    // beyond −10⁶ ppm a hardware clock would run backwards.
                    fault
                        .validate(nodes, crate::scenario::MAX_RHO_PPM)
                        .map_err(|p| err(format!("event {}: {p}", e.id)))?;
                    // Clock jumps add up as adjustments do: +10⁹ ms ten thousand times, then
                    // −10⁹ ms as often, stuck `monotonic_clock`'s 64-bit sum at its maximum,
                    // and a reading far below the first one passed.
                    if let (Fault::ClockJump { node, delta_ms }, Some(net)) =
                        (fault, e.node.and_then(|n| jumped.get_mut(n)))
                    {
                        *net += (delta_ms * 1e6).round() as i128;
                        if net.unsigned_abs() > MAX_TRACE_LOCAL_NS as u128 {
                            return Err(err(format!(
                                "event {} brings node {node}'s clock jumps to {net} ns in all, \
                                 past the ±{MAX_TRACE_LOCAL_NS} ns any run's clocks stay within",
                                e.id
                            )));
                        }
                    }
                    // A fault of one node happens at that node: checkers key its effect (a
                    // clock jump's excuse) on the event's node, so the two must agree.
                    if let Some(v) = fault.node().filter(|&v| e.node != Some(v)) {
                        return Err(err(format!(
                            "event {} is a fault of node {v} recorded {}: a fault of one node \
                             must be recorded at that node",
                            e.id,
                            e.node
                                .map_or("with no node".to_string(), |n| format!("at node {n}"))
                        )));
                    }
                }
                EventKind::Observe { obs } => {
                    // Node ids inside observations are read by checkers (wait-for graphs,
                    // leaders, deadlock initiators): one past the node count is a node that
                    // does not exist, not something to judge.
                    match obs {
                        Observation::Leader {
                            leader: Some(v), ..
                        } => in_range("as leader", *v)?,
                        Observation::WaitFor { waiter, on }
                        | Observation::WaitEnd { waiter, on } => {
                            in_range("as a waiter", *waiter)?;
                            in_range("as waited on", *on)?;
                        }
                        Observation::DeadlockDetected { initiator } => {
                            in_range("as a deadlock's initiator", *initiator)?
                        }
                        Observation::Vote { candidate, .. } => {
                            in_range("as a vote's candidate", *candidate)?
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        self.every_node_recorded(&seen)
    }

    /// A trace that records its nodes' first starts (every engine's does, at the start of
    /// the run) records each of its nodes: a node with no event at all is not the run's.
    /// Its count changes verdicts (`bounded_waiting` allows n − 1 overtakes,
    /// `leader_agreement` waits for every node), so a silent node is refused, unless the
    /// trace stops early (a cut, a panic) where its start may have been left out. A trace
    /// with no first start (written by hand, recorded elsewhere) declares its count.
    fn every_node_recorded(&self, seen: &[bool]) -> Result<(), TraceError> {
        let records_starts = self
            .events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::Start { incarnation: 0 }));
        let stops_early = self
            .events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::Cut { .. } | EventKind::Panic { .. }));
        match seen.iter().position(|&s| !s) {
            Some(v) if records_starts && !stops_early => Err(TraceError {
                line: 1,
                problem: format!(
                    "the trace is judged as {} nodes, but node {v} has no event at all, \
                     though the trace records its nodes' starts (a run records every node's): \
                     the node count is not the run's",
                    seen.len()
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// The JSON `type` of an event kind.
fn kind_name(k: &EventKind) -> &'static str {
    match k {
        EventKind::Start { .. } => "start",
        EventKind::Send { .. } => "send",
        EventKind::Deliver { .. } => "deliver",
        EventKind::Drop { .. } => "drop",
        EventKind::Timer { .. } => "timer",
        EventKind::Input { .. } => "input",
        EventKind::Fault { .. } => "fault",
        EventKind::ClockAdjust { .. } => "clock_adjust",
        EventKind::Observe { .. } => "observe",
        EventKind::Cut { .. } => "cut",
        EventKind::Panic { .. } => "panic",
    }
}

/// Online ground-truth happens-before: feed it every event in order, get vector clock stamps.
#[derive(Clone, Debug)]
pub struct HappensBefore {
    nodes: usize,
    /// Each node's current stamp, allocated when the node first acts (memory grows with the
    /// nodes that act, not with the node count squared).
    current: Vec<Option<Vec<u32>>>,
    /// Every send's stamp, `nodes` entries each, one after the other in the order stamped
    /// (one allocation for all: a vector per send took 120 bytes for 20 nodes' 80).
    send_stamps: Vec<u32>,
    /// The sends' event ids with their stamp's index, while ids only grow (a trace's order).
    sends_in_order: Vec<(u64, u32)>,
    /// The same for sends stamped after a send of a later or equal id (a hand-made trace out
    /// of order): looked up first, so the latest stamp of an id is its stamp.
    sends_out_of_order: std::collections::BTreeMap<u64, u32>,
    /// Stamp entries held (`nodes` per acting node and per send).
    entries: usize,
    /// The most entries held ([`HappensBefore::ENTRIES_MAX`] unless set lower).
    max: usize,
    /// The stamps would have passed `max`: nothing is stamped from there on.
    over: bool,
}

impl HappensBefore {
    /// The most stamp entries held at once (`nodes` per acting node and per send, 4 bytes
    /// each: 256 MiB). A trace of 10,000 nodes and 30,000 sends, 3 MB, took more than 2.5 GB
    /// and aborted `sincro check`.
    pub const ENTRIES_MAX: usize = 1 << 26;

    /// A tracker for `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Self::with_entries_max(nodes, Self::ENTRIES_MAX)
    }

    /// A tracker for `nodes` nodes holding at most `max` stamp entries.
    pub fn with_entries_max(nodes: usize, max: usize) -> Self {
        HappensBefore {
            nodes,
            current: vec![None; nodes],
            send_stamps: Vec::new(),
            sends_in_order: Vec::new(),
            sends_out_of_order: std::collections::BTreeMap::new(),
            entries: 0,
            max,
            over: false,
        }
    }

    /// Why nothing was stamped from some event on: the stamps would have passed
    /// [`HappensBefore::ENTRIES_MAX`]. A checker built on it cannot judge the rest of the
    /// run and says so (`Checker::could_not_judge`).
    pub fn over_limit(&self) -> Option<String> {
        self.over.then(|| {
            format!(
                "the ground-truth happens-before needs a stamp of {} entries per acting node \
                 and per send, more than {} entries in all (the trace has too many nodes and \
                 sends for it); nothing after that point was judged",
                self.nodes, self.max
            )
        })
    }

    /// Counts `n` more stamp entries; false (and nothing stamped from now on) past the limit.
    fn take(&mut self, n: usize) -> bool {
        match self.entries.checked_add(n) {
            Some(total) if !self.over && total <= self.max => {
                self.entries = total;
                true
            }
            _ => {
                self.over = true;
                false
            }
        }
    }

    /// Stamps `e` (which must come right after the events already stamped); `None` for an
    /// event of no node in range, and for every event once [`HappensBefore::over_limit`].
    pub fn stamp(&mut self, e: &Event) -> Option<&[u32]> {
        let node = e.node?;
        if node >= self.nodes || self.over {
            return None;
        }
        let n = self.nodes;
        if self.current[node].is_none() && !self.take(n) {
            return None;
        }
        if matches!(e.kind, EventKind::Send { .. })
            && (!self.take(n) || self.send_stamps.len() / n >= u32::MAX as usize)
        {
            self.over = true;
            return None;
        }
        let at = match e.kind {
            EventKind::Deliver { sent, .. } => self.send_stamp_index(sent),
            _ => None,
        };
        let cur = self.current[node].get_or_insert_with(|| vec![0; n]);
        if let Some(k) = at {
            let vs = &self.send_stamps[k * n..(k + 1) * n];
            for (c, s) in cur.iter_mut().zip(vs) {
                *c = (*c).max(*s);
            }
        }
        cur[node] += 1;
        if let EventKind::Send { .. } = e.kind {
            // fewer than u32::MAX stamps: checked above
            let k = (self.send_stamps.len() / n) as u32;
            self.send_stamps.extend_from_slice(cur);
            let in_order = self.sends_out_of_order.is_empty()
                && self.sends_in_order.last().is_none_or(|&(id, _)| id < e.id);
            if in_order {
                self.sends_in_order.push((e.id, k));
            } else {
                self.sends_out_of_order.insert(e.id, k);
            }
        }
        self.current[node].as_deref()
    }

    /// Where the stamp of send event `sent` is in `send_stamps` (in stamps, not entries).
    fn send_stamp_index(&self, sent: u64) -> Option<usize> {
        if let Some(&k) = self.sends_out_of_order.get(&sent) {
            return Some(k as usize);
        }
        let i = self
            .sends_in_order
            .binary_search_by_key(&sent, |&(id, _)| id)
            .ok()?;
        Some(self.sends_in_order[i].1 as usize)
    }
}

/// True when `a` happened before `b` (vector clock stamps).
pub fn happened_before(a: &[u32], b: &[u32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y) && a != b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stamps past the entry limit stop the tracker, which says why: a 3 MB trace of 10,000
    /// nodes took gigabytes and aborted.
    #[test]
    fn stamps_stop_at_the_entry_limit_and_say_so() {
        let ev = |id: u64, kind: EventKind| Event {
            id,
            t_ns: id,
            node: Some(0),
            local_ns: None,
            kind,
        };
        let send = |id: u64| {
            ev(
                id,
                EventKind::Send {
                    msg_id: id,
                    to: 1,
                    msg: "m".into(),
                },
            )
        };
        // 4 nodes: node 0's stamp (4) and two sends (8) fit in 12; the third send does not
        let mut hb = HappensBefore::with_entries_max(4, 12);
        assert!(hb.stamp(&send(0)).is_some() && hb.stamp(&send(1)).is_some());
        assert!(hb.over_limit().is_none());
        assert!(hb.stamp(&send(2)).is_none());
        let why = hb.over_limit().expect("over");
        assert!(why.contains("more than 12 entries"), "{why}");
        // and nothing after it is stamped, even an event that would fit
        assert!(hb
            .stamp(&ev(3, EventKind::Input { input: "x".into() }))
            .is_none());
    }

    /// The stamps agree with the plain definition (a map of each send's stamp, the latest
    /// stamp of an id winning), on random runs of sends and deliveries whose ids go up, go
    /// back and repeat, deliveries naming sends that never were.
    #[test]
    fn stamps_agree_with_a_map_of_every_sends_stamp() {
        use std::collections::BTreeMap;
        let mut checked = 0;
        for seed in 0..300 {
            let mut rng = crate::rng::SimRng::new(seed);
            let nodes = 1 + rng.index(6);
            let mut hb = HappensBefore::new(nodes);
            let mut current: Vec<Vec<u32>> = vec![vec![0; nodes]; nodes];
            let mut sends: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
            let mut id = 0u64;
            for _ in 0..rng.index(80) {
                id = match rng.index(10) {
                    0 => id.saturating_sub(rng.range_u64(0, 5)),
                    1 => id,
                    _ => id + rng.range_u64(1, 3),
                };
                let node = rng.index(nodes);
                let kind = if rng.chance(0.5) {
                    EventKind::Send {
                        msg_id: id,
                        to: 0,
                        msg: Text::EMPTY,
                    }
                } else {
                    EventKind::Deliver {
                        msg_id: 0,
                        from: 0,
                        sent: rng.range_u64(0, id + 2),
                        msg: Text::EMPTY,
                    }
                };
                let e = Event {
                    id,
                    t_ns: 0,
                    node: Some(node),
                    local_ns: None,
                    kind,
                };
                // the definition
                let cur = &mut current[node];
                if let EventKind::Deliver { sent, .. } = e.kind {
                    if let Some(vs) = sends.get(&sent) {
                        for (c, s) in cur.iter_mut().zip(vs) {
                            *c = (*c).max(*s);
                        }
                    }
                }
                cur[node] += 1;
                if let EventKind::Send { .. } = e.kind {
                    sends.insert(e.id, cur.clone());
                }
                assert_eq!(hb.stamp(&e), Some(&current[node][..]), "seed {seed}");
                checked += 1;
            }
        }
        assert!(checked > 5000, "{checked}");
    }

    #[test]
    fn a_text_reads_as_its_string_and_the_empty_one_holds_nothing() {
        let t = Text::from("Request { ts: 3 }");
        assert_eq!(t, "Request { ts: 3 }");
        assert_eq!(&*t, "Request { ts: 3 }");
        assert_eq!(t.clone(), t);
        assert_eq!(
            format!("{t}|{t:?}"),
            "Request { ts: 3 }|\"Request { ts: 3 }\""
        );
        // every way to make an empty text gives the one without an allocation
        for empty in [
            Text::from(""),
            Text::from(String::new()),
            Text::from(Arc::<str>::from("")),
            Text::default(),
        ] {
            assert_eq!(empty, Text::EMPTY);
            assert!(empty.is_inline() && empty.is_empty());
        }
        assert_ne!(Text::from("a"), Text::EMPTY);
        // JSON: a plain string both ways, the empty one included
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"Request { ts: 3 }\"");
        assert_eq!(serde_json::from_str::<Text>("\"\"").unwrap(), Text::EMPTY);
        assert_eq!(serde_json::from_str::<Text>("\"x\"").unwrap(), "x");
        assert!(serde_json::from_str::<Text>("3").is_err());
    }

    fn ev(id: u64, node: NodeId, kind: EventKind) -> Event {
        Event {
            id,
            t_ns: id,
            node: Some(node),
            local_ns: Some(0),
            kind,
        }
    }

    #[test]
    fn vector_clocks_follow_messages() {
        // 0 sends to 1, 2 has an input, 1 delivers, 1 sends (its destination is irrelevant).
        let t = valid();
        let vc = t.vector_clocks();
        assert_eq!(vc[2].as_deref(), Some(&[1, 1, 0][..]));
        assert!(happened_before(
            vc[0].as_ref().unwrap(),
            vc[3].as_ref().unwrap()
        ));
        assert!(!happened_before(
            vc[1].as_ref().unwrap(),
            vc[3].as_ref().unwrap()
        ));
        assert!(!happened_before(
            vc[3].as_ref().unwrap(),
            vc[1].as_ref().unwrap()
        ));
    }

    /// A valid 3-node trace: 0 sends to 1, 2 has an input, 1 delivers, 1 sends to 2.
    fn valid() -> Trace {
        Trace::new(
            3,
            vec![
                ev(
                    0,
                    0,
                    EventKind::Send {
                        msg_id: 0,
                        to: 1,
                        msg: "a".into(),
                    },
                ),
                ev(1, 2, EventKind::Input { input: "x".into() }),
                ev(
                    2,
                    1,
                    EventKind::Deliver {
                        msg_id: 0,
                        from: 0,
                        sent: 0,
                        msg: "a".into(),
                    },
                ),
                ev(
                    3,
                    1,
                    EventKind::Send {
                        msg_id: 1,
                        to: 9,
                        msg: "b".into(),
                    },
                ),
                Event {
                    id: 4,
                    t_ns: 3,
                    node: None,
                    local_ns: None,
                    kind: EventKind::Drop {
                        msg_id: 1,
                        from: 1,
                        to: 9,
                        reason: DropReason::NoSuchNode,
                    },
                },
            ],
        )
    }

    #[test]
    fn validate_accepts_a_trace_a_run_could_produce() {
        valid().validate().unwrap();
    }

    /// A user observation may not take a built-in one's name: a trace with a user `vote`
    /// and no vote passed `one_vote_per_term`. `Observation::user` refuses it at the source.
    #[test]
    fn a_user_observation_named_as_a_built_in_one_is_refused() {
        let user = |kind: &str| {
            Trace::new(
                1,
                vec![ev(
                    0,
                    0,
                    EventKind::Observe {
                        obs: Observation::User {
                            kind: kind.into(),
                            data: serde_json::Value::Null,
                        },
                    },
                )],
            )
        };
        let e = user("vote").validate().unwrap_err();
        assert!(e.problem.contains("user observation of kind `vote`"), "{e}");
        user("votes").validate().unwrap();
        let caught = std::panic::catch_unwind(|| Observation::user("cs_enter", ()));
        assert!(caught.is_err(), "Observation::user refuses a reserved kind");
    }

    /// A trace that records its nodes' starts records every node: a header counting a node
    /// with no event at all raised `bounded_waiting`'s bound (a violation passed). Unless the
    /// trace stops early, or records no start (written by hand).
    #[test]
    fn validate_refuses_a_silent_node_where_starts_are_recorded() {
        let start = |id, node| ev(id, node, EventKind::Start { incarnation: 0 });
        let e = Trace::new(3, vec![start(0, 0), start(1, 1)])
            .validate()
            .unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.problem.contains("node 2 has no event at all"), "{e}");
        Trace::new(2, vec![start(0, 0), start(1, 1)])
            .validate()
            .unwrap();
        let cut = Event {
            id: 2,
            t_ns: 1,
            node: None,
            local_ns: None,
            kind: EventKind::Cut {
                reason: "limits.max_trace_bytes".into(),
                run_stopped: false,
            },
        };
        Trace::new(3, vec![start(0, 0), start(1, 1), cut])
            .validate()
            .unwrap();
        let input = ev(0, 0, EventKind::Input { input: "x".into() });
        Trace::new(3, vec![input]).validate().unwrap();
    }

    /// A trace that records starts records each node's first before anything it does: a
    /// hand-made trace whose node 1 sent and observed before its start was accepted.
    #[test]
    fn validate_refuses_an_act_before_the_nodes_start() {
        let start = |id, node| ev(id, node, EventKind::Start { incarnation: 0 });
        let note = |id, node| {
            ev(
                id,
                node,
                EventKind::Observe {
                    obs: Observation::Note { text: "n".into() },
                },
            )
        };
        let act = |id, node| {
            ev(
                id,
                node,
                EventKind::Observe {
                    obs: Observation::CsRequest { resource: 0 },
                },
            )
        };
        let e = Trace::new(2, vec![start(0, 0), note(1, 1), act(2, 1), start(3, 1)])
            .validate()
            .unwrap_err();
        assert!(
            e.problem
                .contains("event 2 (observe) happens at node 1 before its start"),
            "{e}"
        );
        Trace::new(2, vec![start(0, 0), note(1, 1), start(2, 1), act(3, 1)])
            .validate()
            .unwrap();
        // A trace with no start at all (written by hand) is not held to it.
        Trace::new(2, vec![act(0, 0), act(1, 1)])
            .validate()
            .unwrap();
    }

    /// A paused node does nothing until it resumes, crashes or restarts: `check` passed a
    /// hand-made trace whose paused node left its critical section, hiding a mutual exclusion
    /// violation. Faults, inputs, drops and notes may be recorded there; a pause of a crashed
    /// node and a resume of a running one change nothing, as in the engines.
    #[test]
    fn validate_refuses_a_paused_nodes_acts() {
        let fault = |id, f| ev(id, 1, EventKind::Fault { fault: f });
        let exit = |id| {
            ev(
                id,
                1,
                EventKind::Observe {
                    obs: Observation::CsExit { resource: 0 },
                },
            )
        };
        let trace = |events: Vec<Event>| Trace::new(2, events);
        let e = trace(vec![
            fault(0, Fault::Pause { node: 1 }),
            ev(
                1,
                1,
                EventKind::Observe {
                    obs: Observation::Note { text: "n".into() },
                },
            ),
            fault(
                2,
                Fault::ClockJump {
                    node: 1,
                    delta_ms: 1.0,
                },
            ),
            exit(3),
        ])
        .validate()
        .unwrap_err();
        assert_eq!(e.line, 5);
        assert!(
            e.problem.contains(
                "event 3 (observe) happens at node 1, which was paused at event 0 and has not \
                 resumed"
            ),
            "{e}"
        );
        for ends_the_pause in [
            Fault::Resume { node: 1 },
            Fault::Crash { node: 1 },
            Fault::Restart { node: 1 },
        ] {
            let restarted = matches!(ends_the_pause, Fault::Restart { .. });
            let crashed = matches!(ends_the_pause, Fault::Crash { .. });
            let mut events = vec![fault(0, Fault::Pause { node: 1 }), fault(1, ends_the_pause)];
            if restarted {
                events.push(ev(2, 1, EventKind::Start { incarnation: 1 }));
            }
            if crashed {
                // down, then restarted: the pause is not in effect after the restart either
                events.push(fault(2, Fault::Restart { node: 1 }));
                events.push(ev(3, 1, EventKind::Start { incarnation: 1 }));
            }
            let n = events.len() as u64;
            events.push(exit(n));
            trace(events).validate().unwrap();
        }
        // A pause while down is ignored; a resume of a running node changes nothing.
        trace(vec![
            fault(0, Fault::Crash { node: 1 }),
            fault(1, Fault::Pause { node: 1 }),
            fault(2, Fault::Restart { node: 1 }),
            ev(3, 1, EventKind::Start { incarnation: 1 }),
            fault(4, Fault::Resume { node: 1 }),
            exit(5),
        ])
        .validate()
        .unwrap();
    }

    /// A crashed node does nothing until it restarts (its entry into a critical section was
    /// judged a mutual exclusion violation); a fault of it, an input it ignores, a drop of a
    /// message to it and a note are recorded there. A restart's start is a later incarnation.
    #[test]
    fn validate_refuses_a_crashed_nodes_acts_and_an_incarnation_going_back() {
        let fault = |id, f| ev(id, 1, EventKind::Fault { fault: f });
        let enter = |id| {
            ev(
                id,
                1,
                EventKind::Observe {
                    obs: Observation::CsEnter { resource: 0 },
                },
            )
        };
        let start = |id, incarnation| ev(id, 1, EventKind::Start { incarnation });
        // node 0 starts last: a trace that records starts records every node's
        let trace = |mut events: Vec<Event>| {
            events.push(ev(
                events.len() as u64,
                0,
                EventKind::Start { incarnation: 0 },
            ));
            Trace::new(2, events)
        };
        let e = trace(vec![
            start(0, 0),
            fault(1, Fault::Crash { node: 1 }),
            ev(
                2,
                1,
                EventKind::Input {
                    input: "x (ignored: node is crashed)".into(),
                },
            ),
            ev(
                3,
                1,
                EventKind::Observe {
                    obs: Observation::Note { text: "n".into() },
                },
            ),
            enter(4),
        ])
        .validate()
        .unwrap_err();
        assert_eq!(e.line, 6);
        assert!(
            e.problem
                .contains("event 4 (observe) happens at node 1, which crashed at event 1"),
            "{e}"
        );
        trace(vec![
            start(0, 0),
            fault(1, Fault::Crash { node: 1 }),
            fault(2, Fault::Restart { node: 1 }),
            start(3, 1),
            enter(4),
            fault(5, Fault::Restart { node: 1 }),
            start(6, 3),
        ])
        .validate()
        .unwrap();
        let e = trace(vec![
            start(0, 0),
            fault(1, Fault::Restart { node: 1 }),
            start(2, 0),
        ])
        .validate()
        .unwrap_err();
        assert!(
            e.problem
                .contains("as incarnation 0, but it started as incarnation 0"),
            "{e}"
        );
        // A start with no restart before it (it excused a leader's change), an act between
        // a restart and its start, and a start of a crashed node.
        for (events, says) in [
            (
                vec![start(0, 0), start(1, 1)],
                "again (incarnation 1, after 0) with no restart",
            ),
            (
                vec![start(0, 0), fault(1, Fault::Restart { node: 1 }), enter(2)],
                "which restarted at event 1 and has not started yet",
            ),
            (
                vec![start(0, 0), fault(1, Fault::Crash { node: 1 }), start(2, 1)],
                "starts node 1, which crashed at event 1",
            ),
        ] {
            let e = trace(events).validate().unwrap_err();
            assert!(e.problem.contains(says), "{e}");
        }
    }

    #[test]
    fn validate_rejects_each_impossible_trace_naming_its_line() {
        let problem = |f: &dyn Fn(&mut Trace)| {
            let mut t = valid();
            f(&mut t);
            t.validate().expect_err("must be rejected")
        };
        let e = problem(&|t| t.events_mut()[2].t_ns = 0);
        assert_eq!(e.line, 4);
        assert!(e.problem.contains("time goes back"), "{e}");
        let e = problem(&|t| {
            let last = t.len() - 1;
            t.events_mut()[last].t_ns = MAX_TRACE_TIME_NS + 1;
        });
        assert!(e.problem.contains("past the end of the longest"), "{e}");
        let e = problem(&|t| t.events_mut()[1].local_ns = Some(i64::MIN));
        assert!(e.problem.contains("software clock at"), "{e}");
        // Events of node 2 appended at the last instant (with no clock reading, as a fault
        // may be recorded).
        let append = |t: &mut Trace, kinds: Vec<EventKind>| {
            for kind in kinds {
                let mut e = ev(t.len() as u64, 2, kind);
                e.t_ns = t.events().last().map_or(0, |l| l.t_ns);
                e.local_ns = None;
                t.events_mut().push(e);
            }
        };
        // Adjustments each within the bound, adding up past it (then cancelled: the net is
        // what a checker's clock would have wrapped or stuck on); within it, kept.
        let adjust = |t: &mut Trace, deltas: &[i64]| {
            let kinds = deltas.iter().map(|&delta_ns| EventKind::ClockAdjust {
                how: ClockAdjust::Step,
                delta_ns,
            });
            append(t, kinds.collect());
        };
        let big = MAX_TRACE_LOCAL_NS;
        let e = problem(&|t| adjust(t, &[big, big, -big, -big]));
        assert!(e.problem.contains("clock adjustments to"), "{e}");
        let mut t = valid();
        adjust(&mut t, &[big, -big, big, -big, -big]);
        t.validate().expect("each net within the bound");
        // Clock jumps the same (each within the limit on any time, adding up past the clocks'
        // bound, then cancelled); within it, kept.
        let jump = |t: &mut Trace, deltas_ms: &[f64]| {
            let kinds = deltas_ms.iter().map(|&delta_ms| EventKind::Fault {
                fault: Fault::ClockJump { node: 2, delta_ms },
            });
            append(t, kinds.collect());
        };
        let far_ms = crate::MAX_TIME_MS as f64;
        let e = problem(&|t| jump(t, &[far_ms; 3000]));
        assert!(e.problem.contains("clock jumps to"), "{e}");
        let mut t = valid();
        jump(&mut t, &[far_ms, -far_ms, far_ms, -far_ms]);
        t.validate().expect("each net within the bound");
        // A delivery before its send.
        let e = problem(&|t| {
            t.events_mut().swap(0, 2);
            t.events_mut()[0].id = 0;
            t.events_mut()[2].id = 2;
            t.events_mut()[0].t_ns = 0;
            t.events_mut()[2].t_ns = 2;
        });
        assert_eq!(e.line, 2);
        assert!(e.problem.contains("which no earlier event sends"), "{e}");
        let e = problem(&|t| t.events_mut()[1].node = Some(3));
        assert!(
            e.problem
                .contains("names node 3 (where it happened), but the trace has 3 nodes"),
            "{e}"
        );
        let e = problem(&|t| {
            if let EventKind::Deliver { from, .. } = &mut t.events_mut()[2].kind {
                *from = 2;
            }
        });
        assert!(e.problem.contains("sent by event 0 from node 0"), "{e}");
        // A delivery whose text is not its send's: the views would draw two messages.
        let e = problem(&|t| {
            if let EventKind::Deliver { msg, .. } = &mut t.events_mut()[2].kind {
                *msg = "Forged".into();
            }
        });
        assert_eq!(e.line, 4);
        assert!(
            e.problem.contains("as \"Forged\", but event 0 sent it as"),
            "{e}"
        );
        let e = problem(&|t| t.events_mut()[1].id = 7);
        assert!(e.problem.contains("event id 7"), "{e}");
        let e = problem(&|t| t.events_mut()[1].node = None);
        assert!(e.problem.contains("has no node"), "{e}");
        let e = problem(&|t| {
            if let EventKind::Drop { reason, .. } = &mut t.events_mut()[4].kind {
                *reason = DropReason::Loss;
            }
        });
        assert!(e.problem.contains("node 9 (destination)"), "{e}");
        let e = problem(&|t| {
            t.events_mut()[1].kind = EventKind::Fault {
                fault: Fault::Crash { node: 5 },
            }
        });
        assert!(e.problem.contains("node 5 does not exist"), "{e}");
        // A fault of one node recorded elsewhere, or with no node: a clock jump's excuse
        // went to the event's node (a fall of node 2 excused by node 1's jump).
        for at in [Some(2), None] {
            let e = problem(&|t| {
                t.events_mut()[1].node = at;
                t.events_mut()[1].kind = EventKind::Fault {
                    fault: Fault::ClockJump {
                        node: 1,
                        delta_ms: -5.0,
                    },
                }
            });
            assert!(e.problem.contains("is a fault of node 1 recorded"), "{e}");
        }
        // Node ids inside observations: a wait-for edge to node 3 of 3 nodes (a deadlock
        // checker would demand a report of a cycle through a node that does not exist).
        let observe = |obs: Observation| {
            move |t: &mut Trace| t.events_mut()[1].kind = EventKind::Observe { obs: obs.clone() }
        };
        for (obs, says) in [
            (
                Observation::WaitFor { waiter: 2, on: 3 },
                "node 3 (as waited on)",
            ),
            (
                Observation::WaitEnd { waiter: 4, on: 0 },
                "node 4 (as a waiter)",
            ),
            (
                Observation::Leader {
                    leader: Some(7),
                    term: 1,
                },
                "node 7 (as leader)",
            ),
            (
                Observation::DeadlockDetected { initiator: 3 },
                "node 3 (as a deadlock's initiator)",
            ),
            (
                Observation::Vote {
                    term: 1,
                    candidate: 3,
                },
                "node 3 (as a vote's candidate)",
            ),
        ] {
            let e = problem(&observe(obs));
            assert!(e.problem.contains(says), "{e}");
        }
        // A drop's reason the trace contradicts: a partition, a crash that never came, a
        // node that exists (offline, the reason decides whether liveness is judged from the
        // end). With the partition or the crash before it, the same drop is a run's.
        let to_2 = |t: &mut Trace, reason: DropReason| {
            t.events_mut()[3].kind = EventKind::Send {
                msg_id: 1,
                to: 2,
                msg: "b".into(),
            };
            t.events_mut()[4].kind = EventKind::Drop {
                msg_id: 1,
                from: 1,
                to: 2,
                reason,
            };
        };
        for (reason, says) in [
            (
                DropReason::NoSuchNode,
                "as `no_such_node`, but node 2 is a node of the trace",
            ),
            (
                DropReason::Partitioned,
                "as `partitioned`, but no partition came before it",
            ),
            (
                DropReason::DestinationCrashed,
                "as `destination_crashed`, but node 2 did not crash before it",
            ),
        ] {
            let e = problem(&|t| to_2(t, reason));
            assert!(e.problem.contains(says), "{e}");
        }
        for (at, fault) in [
            (
                None,
                Fault::Partition {
                    groups: vec![vec![0, 1], vec![2]],
                },
            ),
            (Some(2), Fault::Crash { node: 2 }),
        ] {
            let mut t = valid();
            let reason = match fault {
                Fault::Crash { .. } => DropReason::DestinationCrashed,
                _ => DropReason::Partitioned,
            };
            to_2(&mut t, reason);
            t.events_mut()[1].node = at;
            t.events_mut()[1].kind = EventKind::Fault { fault };
            t.validate().expect("the drop's cause came before it");
        }
        let e = problem(&|t| t.nodes = 0);
        assert_eq!(e.line, 1);
        let e = problem(&|t| t.nodes = 1_000_000_000);
        assert!(e.problem.contains("1000000000 nodes"), "{e}");
    }

    #[test]
    fn a_header_claiming_a_billion_nodes_costs_nothing_until_nodes_act() {
        let t =
            Trace::read_jsonl("{\"sincro_trace\":1,\"nodes\":1000000000}\n".as_bytes()).unwrap();
        assert!(t.validate().is_err());
        // Stamping allocates only for the nodes that act.
        let mut hb = HappensBefore::new(MAX_TRACE_NODES);
        let stamp = hb
            .stamp(&ev(0, 7, EventKind::Input { input: "x".into() }))
            .unwrap();
        assert_eq!(stamp[7], 1);
    }

    /// Stamps are written up to [`STAMPED_NODES_MAX`] nodes and not past it (they would
    /// make a file grow with events × nodes); the text reads back to the same trace either
    /// way, and a text past the size limit is refused before the line that passes it.
    #[test]
    fn stamps_stop_past_the_node_limit_and_a_file_never_passes_the_size_limit() {
        let input = |id, x: &str| ev(id, 0, EventKind::Input { input: x.into() });
        for (nodes, stamped) in [(STAMPED_NODES_MAX, true), (STAMPED_NODES_MAX + 1, false)] {
            let t = Trace::new(nodes, vec![input(0, "x"), input(1, "y")]);
            let text = t.to_jsonl();
            assert_eq!(text.contains("\"vc\""), stamped, "{nodes} nodes: {text}");
            assert_eq!(Trace::read_jsonl(text.as_bytes()).unwrap(), t);
            let mut all = Vec::new();
            t.write_jsonl_within(&mut all, text.len() as u64).unwrap();
            assert_eq!(all, text.as_bytes());
            let mut cut = Vec::new();
            let e = t
                .write_jsonl_within(&mut cut, text.len() as u64 - 1)
                .unwrap_err();
            assert!(e.to_string().contains("record a shorter run"), "{e}");
            let last_line = text.trim_end().rsplit('\n').next().unwrap().len() + 1;
            assert_eq!(cut.len(), text.len() - last_line, "whole lines only");
        }
    }

    #[test]
    fn a_header_of_another_format_or_none_is_refused() {
        let read = |h: &str| Trace::read_jsonl(format!("{h}\n").as_bytes());
        assert_eq!(read("{\"sincro_trace\":1,\"nodes\":2}").unwrap().nodes, 2);
        let e = read("{\"sincro_trace\":2,\"nodes\":2}").unwrap_err();
        assert!(
            e.contains("trace format 2; this sincro reads format 1"),
            "{e}"
        );
        let e = read("{\"sincro_trace\":\"1\",\"nodes\":2}").unwrap_err();
        assert!(e.contains("trace format \"1\""), "{e}");
        let e = read("{\"nodes\":2}").unwrap_err();
        assert!(e.contains("expected the header"), "{e}");
        // a key twice (the last would win) or a key of no header: refused
        let e = read("{\"sincro_trace\":1,\"nodes\":3,\"nodes\":30}").unwrap_err();
        assert!(e.contains("duplicate field `nodes`"), "{e}");
        let e = read("{\"sincro_trace\":1,\"nodes\":3,\"foo\":1}").unwrap_err();
        assert!(e.contains("unknown field `foo`"), "{e}");
        // No header at all is no trace: an empty file, a blank one, or a blank first line.
        for text in ["", "\n\n", "\n{\"sincro_trace\":1,\"nodes\":2}\n"] {
            let e = Trace::read_jsonl(text.as_bytes()).unwrap_err();
            assert!(e.contains("header"), "{text:?}: {e}");
        }
    }

    #[test]
    fn first_difference_names_the_line_and_both_renderings() {
        let input = |id, x: &str| ev(id, 0, EventKind::Input { input: x.into() });
        let a = Trace::new(1, vec![input(0, "x"), input(1, "y"), input(2, "z")]);
        assert_eq!(a.first_difference(&a.clone()), None);
        let text: Vec<String> = a.to_jsonl().lines().map(String::from).collect();
        assert_eq!(a.jsonl_lines().collect::<Vec<_>>(), text);

        let mut b = a.clone();
        b.events_mut()[1] = input(1, "w");
        let d = a.first_difference(&b).expect("they differ");
        assert_eq!(d.line, 3, "line 1 is the header, line 2 the first event");
        assert!(d.left.as_deref().unwrap().contains("\"y\""), "{d}");
        assert!(d.right.as_deref().unwrap().contains("\"w\""), "{d}");

        let mut short = a.clone();
        short.events_mut().pop();
        let d = a.first_difference(&short).expect("one is shorter");
        assert_eq!((d.line, d.right.is_none()), (4, true));
        assert!(d.to_string().contains("(trace ended)"), "{d}");
    }

    #[test]
    fn a_type_word_is_the_first_word_cut_at_a_character_boundary() {
        assert_eq!(type_word("Request { ts: 3 }"), "Request");
        assert_eq!(type_word("Hop(3)"), "Hop");
        assert_eq!(type_word("Grant"), "Grant");
        assert_eq!(type_word("cs_enter"), "cs_enter");
        assert_eq!(type_word("(1, 2)"), "");
        assert_eq!(type_word(""), "");
        assert_eq!(type_word(&"a".repeat(50)), "a".repeat(TYPE_WORD_BYTES_MAX));
        // 39 ASCII bytes and a two-byte letter: byte 40 is inside it, so the cut is at 39.
        let word = format!("{}é{}", "a".repeat(39), "b".repeat(5));
        assert_eq!(type_word(&word), "a".repeat(39));
        let word = "é".repeat(30);
        assert_eq!(type_word(&word), "é".repeat(20));
    }

    #[test]
    fn the_ascii_fast_path_measures_the_same_word_as_the_char_test() {
        // Mixed scripts, digits, underscores, separators and a letter past ASCII at every
        // position: the byte-by-byte scan must stop where the `char` scan stops.
        let pieces = [
            "a", "Z", "9", "_", " ", "{", "(", "é", "Ж", "日", "-", "😀", "ǅ",
        ];
        let reference = |s: &str| s.find(|c: char| !is_word_char(c)).unwrap_or(s.len());
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in pieces {
                        let s = format!("{a}{b}{c}{d}");
                        assert_eq!(word_prefix_len(&s), reference(&s), "{s:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, pieces.len().pow(4));
    }

    #[test]
    fn a_dropped_trace_lends_its_buffer_to_the_next_one() {
        let mut t = Trace::with_spare_buffer(1);
        t.events_mut().reserve(1000);
        let cap = t.vec.capacity();
        drop(t);
        let again = Trace::with_spare_buffer(1);
        assert!(again.events().is_empty());
        assert_eq!(again.vec.capacity(), cap);
    }

    #[test]
    fn a_freed_spare_buffer_is_not_lent() {
        let mut t = Trace::with_spare_buffer(1);
        t.events_mut().reserve(1000);
        drop(t);
        Trace::free_spare_buffer();
        let fresh = Trace::with_spare_buffer(1);
        assert_eq!(fresh.vec.capacity(), 0);
    }

    #[test]
    fn jsonl_round_trip() {
        let t = Trace::new(
            2,
            vec![
                ev(
                    0,
                    0,
                    EventKind::Observe {
                        obs: Observation::CsEnter { resource: 0 },
                    },
                ),
                Event {
                    id: 1,
                    t_ns: 5,
                    node: None,
                    local_ns: None,
                    kind: EventKind::Fault { fault: Fault::Heal },
                },
            ],
        );
        let text = t.to_jsonl();
        assert!(
            text.lines().nth(1).unwrap().contains("\"vc\":[1,0]"),
            "{text}"
        );
        assert_eq!(Trace::read_jsonl(text.as_bytes()).unwrap(), t);
        assert!(Trace::read_jsonl("{}\n".as_bytes()).is_err());
    }

    /// A field a row does not have is refused, not ignored: a misspelled `local_ns` read as
    /// "no clock reading" turned a `monotonic_clock` violation into a pass. A blank line
    /// between events is refused too (errors name events by line), one at the end is not.
    #[test]
    fn rows_with_unknown_fields_and_blank_lines_between_events_are_refused() {
        let head = "{\"sincro_trace\":1,\"nodes\":1}";
        let start =
            r#"{"id":0,"t_ns":0,"node":0,"local_ns":5,"kind":{"type":"start","incarnation":0}}"#;
        let input =
            r#"{"id":1,"t_ns":9,"node":0,"local_ns":1,"kind":{"type":"input","input":"x"}}"#;
        let read = |lines: &[&str]| Trace::read_jsonl(lines.join("\n").as_bytes());
        let good = read(&[head, start, input, "", ""]).expect("a well-formed trace");
        assert_eq!(good.len(), 2);
        assert_eq!(good.events()[1].local_ns, Some(1));
        let misspelled = input.replace("local_ns", "localns");
        let e = read(&[head, start, &misspelled]).expect_err("an unknown field");
        assert!(e.starts_with("line 3:") && e.contains("localns"), "{e}");
        let inner = start.replace("\"incarnation\":0", "\"incarnation\":0,\"epoch\":2");
        let e = read(&[head, &inner, input]).expect_err("an unknown field of the kind");
        assert!(e.starts_with("line 2:") && e.contains("epoch"), "{e}");
        let e = read(&[head, start, "", input]).expect_err("a blank line in between");
        assert!(e.starts_with("line 3:") && e.contains("blank"), "{e}");
    }

    /// The run stops at a panic: a trace with events after one is refused (it was judged as
    /// if the run went on, and passed).
    #[test]
    fn events_after_a_panic_are_refused() {
        let head = "{\"sincro_trace\":1,\"nodes\":1}";
        let panic = r#"{"id":0,"t_ns":5,"node":0,"kind":{"type":"panic","message":"boom"}}"#;
        let input = r#"{"id":1,"t_ns":9,"node":0,"kind":{"type":"input","input":"x"}}"#;
        let read = |lines: &[&str]| Trace::read_jsonl(lines.join("\n").as_bytes()).unwrap();
        read(&[head, panic])
            .validate()
            .expect("a panic ends a trace");
        let e = read(&[head, panic, input])
            .validate()
            .expect_err("events after it");
        assert!(e.problem.contains("is followed by event 1"), "{e}");
        // another node's event of the panic's instant may be listed after it
        let head2 = "{\"sincro_trace\":1,\"nodes\":2}";
        let other = r#"{"id":1,"t_ns":5,"node":1,"kind":{"type":"input","input":"x"}}"#;
        read(&[head2, panic, other])
            .validate()
            .expect("unordered with the panic");
    }

    /// A hardware clock drifting past −10⁶ ppm would run backwards: no run records one, and
    /// `monotonic_clock` blamed the algorithm for it. Refused; −10⁶ itself (a clock standing
    /// still) is read.
    #[test]
    fn a_drift_change_past_the_largest_bound_is_refused() {
        let head = "{\"sincro_trace\":1,\"nodes\":1}";
        let drift = |ppm: &str| {
            format!(
                r#"{{"id":0,"t_ns":0,"node":0,"kind":{{"type":"fault","fault":{{"drift_change":{{"node":0,"drift_ppm":{ppm}}}}}}}}}"#
            )
        };
        let read = |row: String| Trace::read_jsonl(format!("{head}\n{row}\n").as_bytes());
        let ok = read(drift("-1000000.0")).expect("a clock standing still");
        ok.validate().expect("valid");
        let e = read(drift("-2000000.0"))
            .expect("well-formed")
            .validate()
            .expect_err("backwards");
        assert!(e.problem.contains("drift"), "{e}");
    }
}
