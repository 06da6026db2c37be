//! The compact form a run records its trace in (issue 15: compact traces).
//!
//! An [`Event`] is 104 bytes in memory, and a run records several per message: a token ring
//! of 500,000 hops wrote 208 MB, then walked it again to free it. Packed, an event is a few
//! bytes in one growing byte vector:
//!
//! - a header byte: the kind (low 4 bits), whether the node and the local clock reading are
//!   given, whether the time is the previous event's, and whether the node and the reading
//!   are the previous event's (a callback's events after its first);
//! - the time as a varint difference from the previous event's (wrapping, so any order
//!   packs), the node as a varint, the local clock as a zigzag varint difference from the
//!   global time;
//! - the kind's fields as varints, a message id as a zigzag difference from the last one
//!   packed (a send's is usually the next, a delivery's often the last); a message text as
//!   its length and its bytes, once, at the send: a delivery of the same text names its
//!   send instead.
//!
//! Records are read in order; a send's text is found again through a mark every
//! [`MARK_EVERY`] events (a quarter of a byte an event, where an offset per event was four)
//! and a small table of the recent sends. The event id is the event's position. An event
//! this form has no room for (a fault, a panic, a cut, an observation carrying text or JSON,
//! an id that is not the position) is kept whole in a side vector and the stream holds its
//! index. Packing is canonical: equal event sequences pack to equal bytes, so two packed
//! traces compare by their bytes.
//!
//! **A message rendered later.** A run whose checkers read no sends or deliveries need not
//! render each message with `Debug` as it is sent (about a fifth of a traced token ring's
//! work): the engine keeps the message itself, and its send is packed with the message's
//! index in a store of [`LaterTexts`] the trace gets when the run ends, rendered when the
//! event is read. Such a send's record ([`SEND_LATER`]) differs from one with its text, so
//! a trace recorded so compares with one recorded with texts by its events, not its bytes
//! ([`Packed::defers`]).

use super::{Event, EventKind, Text};
use crate::net::DropReason;
use crate::process::{ClockAdjust, Observation};
use std::fmt;
use std::sync::Arc;

const START: u8 = 0;
const SEND: u8 = 1;
const DELIVER: u8 = 2;
const DROP: u8 = 3;
const TIMER: u8 = 4;
const INPUT: u8 = 5;
const CLOCK_ADJUST: u8 = 6;
const OBSERVE: u8 = 7;
/// The event is kept whole in `Packed::whole`.
const WHOLE: u8 = 8;
/// A send whose text is rendered when read: the record holds the message's index in the
/// trace's [`LaterTexts`] where a [`SEND`] holds the text.
const SEND_LATER: u8 = 9;

const KIND_MASK: u8 = 0x0f;
const HAS_NODE: u8 = 0x10;
const HAS_LOCAL: u8 = 0x20;
const SAME_TIME: u8 = 0x40;
/// The node and the local clock reading are the previous event's (both given): not written.
const SAME_PLACE: u8 = 0x80;

/// Where every this many events' record starts is kept (a mark), to find a record again.
pub(crate) const MARK_EVERY: usize = 16;

/// Entries of the table of recent sends (a power of two): a delivery's send is looked up
/// there first, then from the mark before it.
const RECENT_SENDS: usize = 1024;

const CS_REQUEST: u8 = 0;
const CS_ENTER: u8 = 1;
const CS_EXIT: u8 = 2;
const CS_ABANDON: u8 = 3;
const LEADER: u8 = 4;
const VOTE: u8 = 5;
const WAIT_FOR: u8 = 6;
const WAIT_END: u8 = 7;
const DEADLOCK: u8 = 8;

/// Events packed into bytes (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Packed {
    bytes: Vec<u8>,
    /// Where the record of every [`MARK_EVERY`]-th event starts in `bytes`.
    marks: Vec<u32>,
    /// The number of events.
    n: usize,
    /// Where the last event's record starts.
    last_at: usize,
    /// The events kept whole.
    whole: Vec<Event>,
    /// What the next record is packed against, and what the last one was.
    state: State,
    before_last: State,
    /// Recent sends, by event id modulo [`RECENT_SENDS`]: `(id + 1, record start)` (0: none).
    /// Made at the first send.
    recent: Vec<(u64, u32)>,
    /// Sends packed as [`SEND_LATER`].
    later_sends: usize,
    /// Their messages, rendered when read: given when the run ends ([`Packed::set_later`]);
    /// until then such a send reads as the empty text.
    later: Option<Arc<dyn LaterTexts>>,
}

/// The messages of a trace's sends that are rendered when read, by index.
pub(crate) trait LaterTexts: Send + Sync + fmt::Debug {
    /// Messages held.
    fn len(&self) -> usize;
    /// Message `k` rendered as a recorder renders it when sent (`Debug`); the empty text past
    /// the end.
    fn text(&self, k: usize) -> Text;
}

/// A run's sent messages, kept to be rendered when read.
#[derive(Debug)]
pub(crate) struct LaterMsgs<M>(pub(crate) Vec<M>);

impl<M: fmt::Debug + Send + Sync> LaterTexts for LaterMsgs<M> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn text(&self, k: usize) -> Text {
        match self.0.get(k) {
            Some(m) => Text::from(format!("{m:?}").as_str()),
            None => Text::EMPTY,
        }
    }
}

/// Packing is canonical: equal bytes are equal events (the rest is derived from them), once
/// the messages rendered later render alike too.
impl PartialEq for Packed {
    fn eq(&self, other: &Packed) -> bool {
        self.n == other.n
            && self.bytes == other.bytes
            && self.whole == other.whole
            && self.same_later(other)
    }
}

/// What a record is packed against: the previous event's time and place, and the last
/// message id packed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct State {
    t_ns: u64,
    node: Option<usize>,
    local_ns: Option<i64>,
    msg_id: u64,
}

impl State {
    /// The message id `id` as a difference from the last one (zigzag), and the last made `id`.
    #[inline]
    fn msg_id_word(&mut self, id: u64) -> u64 {
        let word = zigzag(id.wrapping_sub(self.msg_id) as i64);
        self.msg_id = id;
        word
    }

    /// Writes the header of a record of `kind` for `e` and its time and place (each left
    /// out when the previous event's), and makes `e`'s place the state's.
    #[inline(always)]
    fn head(&mut self, f: &mut Fields, kind: u8, e: &Event) {
        self.head_with(f, kind, e, |_| {});
    }

    /// [`State::head`], with what comes between the header and the time (`between`: a send's
    /// text or message index).
    #[inline(always)]
    fn head_with(
        &mut self,
        f: &mut Fields,
        kind: u8,
        e: &Event,
        between: impl FnOnce(&mut Fields),
    ) {
        let mut header = kind;
        if e.node.is_some() {
            header |= HAS_NODE;
        }
        if e.local_ns.is_some() {
            header |= HAS_LOCAL;
        }
        let same_time = e.t_ns == self.t_ns;
        if same_time {
            header |= SAME_TIME;
        }
        let same_place = e.node.is_some()
            && e.local_ns.is_some()
            && (e.node, e.local_ns) == (self.node, self.local_ns);
        if same_place {
            header |= SAME_PLACE;
        }
        f.byte(header);
        between(f);
        if !same_time {
            f.put(e.t_ns.wrapping_sub(self.t_ns));
        }
        if !same_place {
            if let Some(n) = e.node {
                f.put(n as u64);
            }
            if let Some(l) = e.local_ns {
                f.put(zigzag(l.wrapping_sub(e.t_ns as i64)));
            }
        }
        self.node = e.node;
        self.local_ns = e.local_ns;
    }

    /// The message id of `word` ([`State::msg_id_word`]), made the last.
    #[inline]
    fn msg_id_of(&mut self, word: u64) -> u64 {
        self.msg_id = self.msg_id.wrapping_add(unzigzag(word) as u64);
        self.msg_id
    }
}

/// The most bytes a packed trace holds: offsets are 32-bit. A run's trace is bounded far
/// below by `limits.max_trace_bytes` (it counts each event at its unpacked size).
const BYTES_MAX: usize = u32::MAX as usize;

impl Packed {
    /// An empty store reusing `bytes` and `marks` (cleared) as its buffers.
    pub(crate) fn with_buffers(mut bytes: Vec<u8>, mut marks: Vec<u32>) -> Packed {
        bytes.clear();
        marks.clear();
        Packed {
            bytes,
            marks,
            ..Packed::default()
        }
    }

    /// The buffers, emptied, for reuse.
    pub(crate) fn into_buffers(mut self) -> (Vec<u8>, Vec<u32>) {
        self.bytes.clear();
        self.marks.clear();
        (self.bytes, self.marks)
    }

    /// The bytes the buffers hold room for.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.bytes.capacity() + 4 * self.marks.capacity()
    }

    /// The number of events.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// The time of the last event, if any.
    pub(crate) fn last_t_ns(&self) -> Option<u64> {
        (self.n > 0).then_some(self.state.t_ns)
    }

    /// Whether some send is packed to be rendered when read ([`SEND_LATER`]): such a
    /// trace's bytes differ from those of the same events recorded with their texts.
    pub(crate) fn defers(&self) -> bool {
        self.later_sends > 0
    }

    /// Gives the messages the sends packed with an index into them render from.
    pub(crate) fn set_later(&mut self, later: Arc<dyn LaterTexts>) {
        self.later = Some(later);
    }

    /// Whether both stores of messages rendered later render alike (each message the sends
    /// name).
    fn same_later(&self, other: &Packed) -> bool {
        match (&self.later, &other.later) {
            (None, None) => true,
            (a, b) => {
                let len = |l: &Option<Arc<dyn LaterTexts>>| l.as_ref().map_or(0, |l| l.len());
                len(a) == len(b) && (0..len(a)).all(|k| self.later_text(k) == other.later_text(k))
            }
        }
    }

    /// Message `k` of the store of messages rendered later (the empty text without one).
    fn later_text(&self, k: usize) -> Text {
        self.later.as_ref().map_or(Text::EMPTY, |l| l.text(k))
    }

    /// Appends `e`.
    #[inline]
    pub(crate) fn push(&mut self, e: &Event) {
        self.push_later(e, None);
    }

    /// Appends `e`; a send with `later` given (an index into the messages the trace will
    /// render when read, [`Packed::set_later`]) is packed with it, its own text ignored.
    #[inline]
    pub(crate) fn push_later(&mut self, e: &Event, later: Option<u64>) {
        let at = self.bytes.len();
        debug_assert!(
            later.is_none() || (e.id == self.n as u64 && matches!(e.kind, EventKind::Send { .. })),
            "only a send whose id is its position is packed to be rendered later"
        );
        assert!(
            at < BYTES_MAX,
            "a packed trace holds at most {BYTES_MAX} bytes"
        );
        let id = self.n as u64;
        if self.n % MARK_EVERY == 0 {
            self.marks.push(at as u32);
        }
        self.before_last = self.state;
        if e.id != id || !self.pack_fields(e, later) {
            self.bytes.truncate(at);
            self.bytes.push(WHOLE);
            put(&mut self.bytes, self.whole.len() as u64);
            self.whole.push(e.clone());
        } else if matches!(e.kind, EventKind::Send { .. }) {
            self.remember_send(id, at);
        }
        // a record kept whole moves only the time on
        self.state.t_ns = e.t_ns;
        self.last_at = at;
        self.n += 1;
        debug_assert_eq!(self.marks.len(), self.n.div_ceil(MARK_EVERY));
    }

    /// Keeps where send `id`'s record starts in the table of recent sends.
    #[inline]
    fn remember_send(&mut self, id: u64, at: usize) {
        if self.recent.is_empty() {
            self.recent = vec![(0, 0); RECENT_SENDS];
        }
        self.recent[id as usize % RECENT_SENDS] = (id + 1, at as u32);
    }

    /// Where event `i`'s record starts: from the table of recent sends when it is one of
    /// them, otherwise read on from the mark before it.
    #[inline]
    fn record_start(&self, i: usize) -> Option<usize> {
        if i >= self.n {
            return None;
        }
        if let Some(&(id1, at)) = self.recent.get(i % RECENT_SENDS) {
            if id1 == i as u64 + 1 {
                return Some(at as usize);
            }
        }
        Some(self.record_start_from_mark(i))
    }

    /// [`Packed::record_start`] of an event past the table: read on from its mark.
    #[cold]
    fn record_start_from_mark(&self, i: usize) -> usize {
        let mut at = self.marks[i / MARK_EVERY] as usize;
        for _ in 0..i % MARK_EVERY {
            at = self.record_end(at);
        }
        at
    }

    /// Where the record after the one at `at` starts (read without unpacking it).
    fn record_end(&self, at: usize) -> usize {
        let mut r = Reader { b: &self.bytes, at };
        let header = r.byte();
        let kind = header & KIND_MASK;
        if kind == WHOLE {
            r.varint();
            return r.at;
        }
        if kind == SEND {
            r.text_bytes();
        } else if kind == SEND_LATER {
            r.varint();
        }
        if header & SAME_TIME == 0 {
            r.varint();
        }
        if header & SAME_PLACE == 0 {
            if header & HAS_NODE != 0 {
                r.varint();
            }
            if header & HAS_LOCAL != 0 {
                r.varint();
            }
        }
        let varints = match kind {
            START | INPUT => usize::from(kind == START),
            SEND | SEND_LATER => 2,
            DELIVER => {
                r.varint();
                r.varint();
                let word = r.varint();
                if word >> 1 == 0 {
                    r.varint();
                }
                if word & 1 != 0 {
                    r.text_bytes();
                }
                0
            }
            DROP => {
                for _ in 0..3 {
                    r.varint();
                }
                r.byte();
                0
            }
            TIMER => 1,
            CLOCK_ADJUST => {
                r.byte();
                1
            }
            OBSERVE => {
                let sub = r.byte();
                take_observation(&mut r, sub);
                0
            }
            other => unreachable!("kind tag {other} is never packed"),
        };
        for _ in 0..varints {
            r.varint();
        }
        if kind == TIMER || kind == INPUT {
            r.text_bytes();
        }
        r.at
    }

    /// Packs `e`'s record after its offset; false when it has no compact form (nothing is
    /// written then). One match on the kind: each arm writes the header and the time and place
    /// ([`Packed::head`]), then its own fields; a send's text comes right after its header,
    /// where a delivery finds it without reading the rest.
    #[inline]
    fn pack_fields(&mut self, e: &Event, later: Option<u64>) -> bool {
        match &e.kind {
            EventKind::Observe { obs } => {
                let Some(sub) = observation_tag(obs) else {
                    return false;
                };
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, OBSERVE, e);
                f.byte(sub);
                put_observation(&mut f, obs);
                f.done();
            }
            EventKind::Send { msg_id, to, .. } if later.is_some() => {
                let mut f = Fields::new(&mut self.bytes, 0);
                let k = later.unwrap_or_default();
                self.state.head_with(&mut f, SEND_LATER, e, |f| f.put(k));
                self.later_sends += 1;
                f.put(self.state.msg_id_word(*msg_id));
                f.put(*to as u64);
                f.done();
            }
            EventKind::Send { msg_id, to, msg } => {
                let text = msg.as_bytes();
                let mut f = Fields::new(&mut self.bytes, text.len());
                self.state.head_with(&mut f, SEND, e, |f| {
                    f.put(text.len() as u64);
                    f.write(text);
                });
                f.put(self.state.msg_id_word(*msg_id));
                f.put(*to as u64);
                f.done();
            }
            EventKind::Deliver {
                msg_id,
                from,
                sent,
                msg,
            } => {
                // a delivery of its send's text names the send instead (how far back it is;
                // 0: not before this event, its id follows)
                let named = *sent < e.id && self.sends_text(*sent as usize, msg.as_bytes());
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, DELIVER, e);
                f.put(self.state.msg_id_word(*msg_id));
                f.put(*from as u64);
                let back = e.id.saturating_sub(*sent);
                f.put(back << 1 | u64::from(!named));
                if back == 0 {
                    f.put(*sent);
                }
                f.done();
                if !named {
                    put_text(&mut self.bytes, msg);
                }
            }
            EventKind::Start { incarnation } => {
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, START, e);
                f.put(u64::from(*incarnation));
                f.done();
            }
            EventKind::Drop {
                msg_id,
                from,
                to,
                reason,
            } => {
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, DROP, e);
                f.put(self.state.msg_id_word(*msg_id));
                f.put(*from as u64);
                f.put(*to as u64);
                f.byte(drop_reason_tag(*reason));
                f.done();
            }
            EventKind::Timer { timer_id, timer } => {
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, TIMER, e);
                f.put(*timer_id);
                f.done();
                put_text(&mut self.bytes, timer);
            }
            EventKind::Input { input } => {
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, INPUT, e);
                f.done();
                put_text(&mut self.bytes, input);
            }
            EventKind::ClockAdjust { how, delta_ns } => {
                let mut f = Fields::new(&mut self.bytes, 0);
                self.state.head(&mut f, CLOCK_ADJUST, e);
                f.byte(match how {
                    ClockAdjust::Step => 0,
                    ClockAdjust::Slew => 1,
                });
                f.put(zigzag(*delta_ns));
                f.done();
            }
            EventKind::Fault { .. } | EventKind::Panic { .. } | EventKind::Cut { .. } => {
                return false
            }
        }
        true
    }

    /// Whether event `i` is a packed send of the text `text`: one packed with it, or one
    /// rendered later, which a delivery names with the empty text (the recorder gives a
    /// delivery its send's text, the empty one for such a send).
    #[inline]
    fn sends_text(&self, i: usize, text: &[u8]) -> bool {
        let Some(at) = self.record_start(i) else {
            return false;
        };
        let mut r = Reader { b: &self.bytes, at };
        match r.byte() & KIND_MASK {
            SEND => r.text_bytes() == text,
            SEND_LATER => text.is_empty(),
            _ => false,
        }
    }

    /// The message text of event `i` when it is a send.
    pub(crate) fn send_text(&self, i: usize) -> Option<Text> {
        let at = self.record_start(i)?;
        let mut r = Reader { b: &self.bytes, at };
        match r.byte() & KIND_MASK {
            SEND => Some(Text::from(utf8(r.text_bytes()))),
            SEND_LATER => Some(self.later_text(r.varint() as usize)),
            WHOLE => match &self.whole[r.varint() as usize].kind {
                EventKind::Send { msg, .. } => Some(msg.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The last event, unpacked (`None` when there is none).
    pub(crate) fn last(&self) -> Option<Event> {
        let i = self.n.checked_sub(1)?;
        let mut state = self.before_last;
        let (e, _) = self.unpack(
            i,
            self.last_at,
            &mut state,
            &mut |sent| self.send_text(sent),
            &mut |k| self.later_text(k),
        );
        Some(e)
    }

    /// Every event, in order, unpacked.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        let (mut at, mut state) = (0, State::default());
        (0..self.n).map(move |i| {
            let (e, next) = self.unpack(
                i,
                at,
                &mut state,
                &mut |sent| self.send_text(sent),
                &mut |k| self.later_text(k),
            );
            at = next;
            e
        })
    }

    /// Every event, unpacked into a vector (a delivery shares its send's text, and a
    /// broadcast's copies rendered later share one rendering).
    pub(crate) fn unpack_all(&self) -> Vec<Event> {
        let mut out: Vec<Event> = Vec::with_capacity(self.n);
        let (mut at, mut state) = (0, State::default());
        let mut rendered: Option<(usize, Text)> = None;
        for i in 0..self.n {
            let mut later = |k: usize| match &rendered {
                Some((last, text)) if *last == k => text.clone(),
                _ => {
                    let text = self.later_text(k);
                    rendered = Some((k, text.clone()));
                    text
                }
            };
            let sent_text = &mut |sent: usize| match out.get(sent).map(|e| &e.kind) {
                Some(EventKind::Send { msg, .. }) => Some(msg.clone()),
                _ => None,
            };
            let (e, next) = self.unpack(i, at, &mut state, sent_text, &mut later);
            at = next;
            out.push(e);
        }
        debug_assert_eq!(at, self.bytes.len());
        out
    }

    /// Unpacks the record of event `i` at `at` against `state` (made the state of the next
    /// record); the event, and where the next record starts. `sent_text` gives a send's
    /// text, `later_text` a message rendered later.
    fn unpack(
        &self,
        i: usize,
        at: usize,
        state: &mut State,
        sent_text: &mut dyn FnMut(usize) -> Option<Text>,
        later_text: &mut dyn FnMut(usize) -> Text,
    ) -> (Event, usize) {
        let mut r = Reader { b: &self.bytes, at };
        let header = r.byte();
        let kind_tag = header & KIND_MASK;
        if kind_tag == WHOLE {
            let e = self.whole[r.varint() as usize].clone();
            state.t_ns = e.t_ns;
            return (e, r.at);
        }
        let send_text = match kind_tag {
            SEND => Some(Text::from(utf8(r.text_bytes()))),
            SEND_LATER => Some(later_text(r.varint() as usize)),
            _ => None,
        };
        let t_ns = if header & SAME_TIME != 0 {
            state.t_ns
        } else {
            state.t_ns.wrapping_add(r.varint())
        };
        state.t_ns = t_ns;
        if header & SAME_PLACE == 0 {
            state.node = (header & HAS_NODE != 0).then(|| r.varint() as usize);
            state.local_ns =
                (header & HAS_LOCAL != 0).then(|| unzigzag(r.varint()).wrapping_add(t_ns as i64));
        }
        let (node, local_ns) = (state.node, state.local_ns);
        let id = i as u64;
        let kind = match kind_tag {
            START => EventKind::Start {
                incarnation: r.varint() as u32,
            },
            SEND | SEND_LATER => EventKind::Send {
                msg_id: state.msg_id_of(r.varint()),
                to: r.varint() as usize,
                msg: send_text.unwrap_or_default(),
            },
            DELIVER => {
                let msg_id = state.msg_id_of(r.varint());
                let from = r.varint() as usize;
                let word = r.varint();
                let sent = match word >> 1 {
                    0 => r.varint(),
                    back => id - back,
                };
                let msg = if word & 1 != 0 {
                    Text::from(utf8(r.text_bytes()))
                } else {
                    sent_text(sent as usize).expect("a packed delivery names a packed send")
                };
                EventKind::Deliver {
                    msg_id,
                    from,
                    sent,
                    msg,
                }
            }
            DROP => EventKind::Drop {
                msg_id: state.msg_id_of(r.varint()),
                from: r.varint() as usize,
                to: r.varint() as usize,
                reason: drop_reason(r.byte()),
            },
            TIMER => EventKind::Timer {
                timer_id: r.varint(),
                timer: utf8(r.text_bytes()).to_string(),
            },
            INPUT => EventKind::Input {
                input: utf8(r.text_bytes()).to_string(),
            },
            CLOCK_ADJUST => EventKind::ClockAdjust {
                how: match r.byte() {
                    0 => ClockAdjust::Step,
                    _ => ClockAdjust::Slew,
                },
                delta_ns: unzigzag(r.varint()),
            },
            OBSERVE => {
                let sub = r.byte();
                EventKind::Observe {
                    obs: take_observation(&mut r, sub),
                }
            }
            other => unreachable!("kind tag {other} is never packed"),
        };
        let e = Event {
            id,
            t_ns,
            node,
            local_ns,
            kind,
        };
        (e, r.at)
    }
}

/// The tag of an observation with a compact form.
fn observation_tag(obs: &Observation) -> Option<u8> {
    Some(match obs {
        Observation::CsRequest { .. } => CS_REQUEST,
        Observation::CsEnter { .. } => CS_ENTER,
        Observation::CsExit { .. } => CS_EXIT,
        Observation::CsAbandon { .. } => CS_ABANDON,
        Observation::Leader { .. } => LEADER,
        Observation::Vote { .. } => VOTE,
        Observation::WaitFor { .. } => WAIT_FOR,
        Observation::WaitEnd { .. } => WAIT_END,
        Observation::DeadlockDetected { .. } => DEADLOCK,
        _ => return None,
    })
}

fn put_observation(b: &mut Fields, obs: &Observation) {
    match obs {
        Observation::CsRequest { resource }
        | Observation::CsEnter { resource }
        | Observation::CsExit { resource }
        | Observation::CsAbandon { resource } => b.put(u64::from(*resource)),
        Observation::Leader { leader, term } => {
            b.put(leader.map_or(0, |l| (l as u64).wrapping_add(1)));
            if *leader == Some(usize::MAX) {
                // `usize::MAX + 1` wraps to the `None` word: say it apart
                b.byte(1);
            } else if leader.is_none() {
                b.byte(0);
            }
            b.put(*term);
        }
        Observation::Vote { term, candidate } => {
            b.put(*term);
            b.put(*candidate as u64);
        }
        Observation::WaitFor { waiter, on } | Observation::WaitEnd { waiter, on } => {
            b.put(*waiter as u64);
            b.put(*on as u64);
        }
        Observation::DeadlockDetected { initiator } => b.put(*initiator as u64),
        _ => unreachable!("observation_tag said it packs"),
    }
}

fn take_observation(r: &mut Reader<'_>, sub: u8) -> Observation {
    match sub {
        CS_REQUEST => Observation::CsRequest {
            resource: r.varint() as u32,
        },
        CS_ENTER => Observation::CsEnter {
            resource: r.varint() as u32,
        },
        CS_EXIT => Observation::CsExit {
            resource: r.varint() as u32,
        },
        CS_ABANDON => Observation::CsAbandon {
            resource: r.varint() as u32,
        },
        LEADER => {
            let word = r.varint();
            let leader = match word {
                0 => match r.byte() {
                    0 => None,
                    _ => Some(usize::MAX),
                },
                w => Some((w - 1) as usize),
            };
            Observation::Leader {
                leader,
                term: r.varint(),
            }
        }
        VOTE => Observation::Vote {
            term: r.varint(),
            candidate: r.varint() as usize,
        },
        WAIT_FOR => Observation::WaitFor {
            waiter: r.varint() as usize,
            on: r.varint() as usize,
        },
        WAIT_END => Observation::WaitEnd {
            waiter: r.varint() as usize,
            on: r.varint() as usize,
        },
        DEADLOCK => Observation::DeadlockDetected {
            initiator: r.varint() as usize,
        },
        other => unreachable!("observation tag {other} is never packed"),
    }
}

fn drop_reason_tag(r: DropReason) -> u8 {
    match r {
        DropReason::Loss => 0,
        DropReason::Partitioned => 1,
        DropReason::NoLink => 2,
        DropReason::DestinationCrashed => 3,
        DropReason::NoSuchNode => 4,
        DropReason::InFlightLimit => 5,
    }
}

fn drop_reason(tag: u8) -> DropReason {
    match tag {
        0 => DropReason::Loss,
        1 => DropReason::Partitioned,
        2 => DropReason::NoLink,
        3 => DropReason::DestinationCrashed,
        4 => DropReason::NoSuchNode,
        5 => DropReason::InFlightLimit,
        other => unreachable!("drop reason tag {other} is never packed"),
    }
}

/// Bytes packed from a `&str`.
fn utf8(bytes: &[u8]) -> &str {
    // SAFETY: text bytes are only ever packed from a `&str` (`put_text`), whole.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// The most bytes a record takes past a send's text: its header, the text's length, eight
/// varints of at most ten bytes (time, node, local clock and up to five of the kind's) and
/// two single bytes.
const FIELDS_BYTES_MAX: usize = 1 + 10 + 8 * 10 + 2;

/// Writes a record at the end of the byte vector, in room reserved for it at once (a send's
/// text and [`FIELDS_BYTES_MAX`]), so each byte is a store past a check of the room, and the
/// vector's length is moved once, when the record is [done](Fields::done): records are
/// written for every event of every traced run.
struct Fields<'a> {
    v: &'a mut Vec<u8>,
    /// Where the record starts: the vector's end when the room was reserved.
    base: *mut u8,
    /// Bytes written from `base`.
    w: usize,
    /// Bytes reserved from `base`.
    room: usize,
}

impl<'a> Fields<'a> {
    #[inline]
    fn new(v: &'a mut Vec<u8>, text_len: usize) -> Fields<'a> {
        let room = FIELDS_BYTES_MAX + text_len;
        v.reserve(room);
        // SAFETY: the vector's length is inside its allocation (one past its end at most).
        let base = unsafe { v.as_mut_ptr().add(v.len()) };
        Fields {
            v,
            base,
            w: 0,
            room,
        }
    }

    /// Writes `bytes` (fewer than the room left) at the end.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        assert!(
            bytes.len() <= self.room - self.w,
            "a record overflows its room"
        );
        // SAFETY: `new` reserved `room` bytes from `base`, and `w` of them are written:
        // the assert keeps these inside.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(self.w), bytes.len());
        }
        self.w += bytes.len();
    }

    /// Writes `v` as a varint (at most ten bytes).
    #[inline]
    fn put(&mut self, mut v: u64) {
        assert!(self.room - self.w >= 10, "a record overflows its room");
        // SAFETY: as in `write`: at most ten bytes, and ten are left in the room.
        unsafe {
            let mut at = self.base.add(self.w);
            if v < 0x80 {
                // most words: a node, a message id's difference, a kind's small field
                at.write(v as u8);
                self.w += 1;
                return;
            }
            let start = at;
            while v >= 0x80 {
                at.write(v as u8 | 0x80);
                at = at.add(1);
                v >>= 7;
            }
            at.write(v as u8);
            self.w += at.offset_from(start) as usize + 1;
        }
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        assert!(self.room > self.w, "a record overflows its room");
        // SAFETY: as in `write`: one byte, and one is left in the room.
        unsafe { self.base.add(self.w).write(b) };
        self.w += 1;
    }

    /// Counts the record's bytes in the vector's length.
    #[inline]
    fn done(self) {
        debug_assert!(self.w <= self.room);
        // SAFETY: the `w` bytes from the vector's end (`base`, the vector untouched since,
        // as `self` borrows it) are written, inside the room reserved.
        unsafe { self.v.set_len(self.v.len() + self.w) };
    }
}

#[inline]
fn put(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push(v as u8 | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

#[inline]
fn put_text(b: &mut Vec<u8>, s: &str) {
    put(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn byte(&mut self) -> u8 {
        let v = self.b[self.at];
        self.at += 1;
        v
    }

    #[inline]
    fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let byte = self.byte();
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return v;
            }
            shift += 7;
        }
    }

    #[inline]
    fn text_bytes(&mut self) -> &'a [u8] {
        let len = self.varint() as usize;
        let s = &self.b[self.at..self.at + len];
        self.at += len;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::Fault;
    use crate::rng::SimRng;
    use crate::trace::Trace;

    /// A random event `id` of any kind, with the odd values a hand-made trace may hold: time
    /// going back, ids that are not positions, deliveries naming no send or another text,
    /// extreme numbers, long and non-ASCII texts.
    fn arbitrary_event(rng: &mut SimRng, id: u64, t_ns: &mut u64) -> Event {
        let big = |rng: &mut SimRng| match rng.index(4) {
            0 => rng.next_u64(),
            1 => u64::MAX - rng.range_u64(0, 3),
            _ => rng.range_u64(0, 1000),
        };
        let node = |rng: &mut SimRng| match rng.index(5) {
            0 => usize::MAX,
            _ => rng.index(6),
        };
        let text = |rng: &mut SimRng| match rng.index(5) {
            0 => String::new(),
            1 => "é∑ a longer text than twenty-two bytes, kept shared".to_string(),
            2 => format!("Hop({})", rng.next_u64()),
            3 => "x".repeat(Text::INLINE_MAX + rng.index(3)),
            _ => format!("Req {{ ts: {} }}", rng.range_u64(0, 99)),
        };
        *t_ns = match rng.index(10) {
            0 => rng.next_u64(),
            1..=4 => *t_ns,
            _ => t_ns.saturating_add(rng.range_u64(0, 5_000_000)),
        };
        let obs = match rng.index(12) {
            0 => Observation::CsRequest {
                resource: rng.next_u64() as u32,
            },
            1 => Observation::CsEnter { resource: 0 },
            2 => Observation::CsExit { resource: 1 },
            3 => Observation::CsAbandon { resource: 2 },
            4 => Observation::Leader {
                leader: [None, Some(usize::MAX), Some(node(rng))][rng.index(3)],
                term: big(rng),
            },
            5 => Observation::Vote {
                term: big(rng),
                candidate: node(rng),
            },
            6 => Observation::WaitFor {
                waiter: node(rng),
                on: node(rng),
            },
            7 => Observation::WaitEnd {
                waiter: node(rng),
                on: node(rng),
            },
            8 => Observation::DeadlockDetected {
                initiator: node(rng),
            },
            9 => Observation::Note { text: text(rng) },
            10 => Observation::LogicalTime {
                lamport: big(rng),
                vector: vec![1, 2],
            },
            _ => Observation::State { value: text(rng) },
        };
        let kind = match rng.index(14) {
            0 => EventKind::Start {
                incarnation: rng.next_u64() as u32,
            },
            1..=3 => EventKind::Send {
                msg_id: big(rng),
                to: node(rng),
                msg: Text::from(text(rng)),
            },
            4..=6 => EventKind::Deliver {
                msg_id: big(rng),
                from: node(rng),
                sent: match rng.index(4) {
                    0 => big(rng),
                    _ => id.saturating_sub(rng.range_u64(1, 4)),
                },
                msg: Text::from(text(rng)),
            },
            7 => EventKind::Drop {
                msg_id: big(rng),
                from: node(rng),
                to: node(rng),
                reason: drop_reason(rng.index(6) as u8),
            },
            8 => EventKind::Timer {
                timer_id: big(rng),
                timer: text(rng),
            },
            9 => EventKind::Input { input: text(rng) },
            10 => EventKind::ClockAdjust {
                how: [ClockAdjust::Step, ClockAdjust::Slew][rng.index(2)],
                delta_ns: [i64::MIN, i64::MAX, -5, 0, 7][rng.index(5)],
            },
            11 => EventKind::Fault {
                fault: Fault::Crash { node: node(rng) },
            },
            12 => EventKind::Cut {
                reason: text(rng),
                run_stopped: rng.chance(0.5),
            },
            _ => EventKind::Observe { obs },
        };
        Event {
            id: if rng.chance(0.05) { big(rng) } else { id },
            t_ns: *t_ns,
            node: rng.chance(0.8).then(|| node(rng)),
            local_ns: match rng.index(4) {
                0 => None,
                1 => Some([i64::MIN, i64::MAX][rng.index(2)]),
                _ => Some(*t_ns as i64 + rng.range_u64(0, 2000) as i64 - 1000),
            },
            kind,
        }
    }

    fn arbitrary_events(seed: u64, n: usize) -> Vec<Event> {
        let mut rng = SimRng::new(seed);
        let mut t_ns = 0;
        let mut events: Vec<Event> = Vec::with_capacity(n);
        for i in 0..n as u64 {
            let mut e = arbitrary_event(&mut rng, i, &mut t_ns);
            // a callback's later events: the node and the clock reading of the one before
            if let Some(prev) = events.last().filter(|_| rng.chance(0.3)) {
                e.node = prev.node;
                e.local_ns = prev.local_ns;
            }
            // message ids near the last one, as a run's are
            if let EventKind::Send { msg_id, .. }
            | EventKind::Deliver { msg_id, .. }
            | EventKind::Drop { msg_id, .. } = &mut e.kind
            {
                if rng.chance(0.5) {
                    *msg_id = i / 3 + rng.range_u64(0, 2);
                }
            }
            // most deliveries carry their send's text, as recorded ones do
            if let EventKind::Deliver { sent, msg, .. } = &mut e.kind {
                if let Some(EventKind::Send { msg: sent_msg, .. }) =
                    events.get(*sent as usize).map(|s| &s.kind)
                {
                    if rng.chance(0.8) {
                        *msg = sent_msg.clone();
                    }
                }
            }
            events.push(e);
        }
        events
    }

    fn pack(events: &[Event]) -> Packed {
        let mut p = Packed::default();
        for e in events {
            p.push(e);
        }
        p
    }

    #[test]
    fn every_event_unpacks_as_it_was_packed() {
        let mut whole = 0;
        for seed in 0..200 {
            let events = arbitrary_events(seed, 1 + seed as usize % 60);
            let p = pack(&events);
            assert_eq!(p.len(), events.len());
            assert_eq!(p.unpack_all(), events, "seed {seed}");
            assert_eq!(p.iter().collect::<Vec<_>>(), events, "seed {seed}");
            assert_eq!(p.last_t_ns(), events.last().map(|e| e.t_ns));
            assert_eq!(p.last().as_ref(), events.last(), "seed {seed}");
            for n in 0..events.len() {
                // the last event of every prefix
                assert_eq!(pack(&events[..=n]).last().as_ref(), Some(&events[n]));
            }
            for (i, e) in events.iter().enumerate() {
                let want = match &e.kind {
                    EventKind::Send { msg, .. } => Some(msg.clone()),
                    _ => None,
                };
                assert_eq!(p.send_text(i), want, "seed {seed} event {i}");
            }
            assert_eq!(p.send_text(events.len()), None);
            whole += p.whole.len();
        }
        assert!(whole > 500, "the odd events are kept whole: {whole}");
    }

    /// A message kept to be rendered later: renders as the text it was made of.
    #[derive(Clone)]
    struct Raw(Text);

    impl fmt::Debug for Raw {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0)
        }
    }

    /// Packs `events` as a run that renders its messages later records them: each send
    /// whose id is its position without its text (message k of the store, a copy of the send
    /// just before sharing its message as a broadcast's does), each delivery of such a send's
    /// text with the empty text (what the recorder gives it); the store, and how many sends
    /// were packed so. A delivery with the empty text of another send's is given a text of
    /// its own first (in `events`): a recorder that renders later gives a delivery no text
    /// but its send's.
    fn pack_later(events: &mut [Event]) -> (Packed, Vec<Raw>, usize) {
        for i in 0..events.len() {
            if let EventKind::Deliver { sent, msg, .. } = &events[i].kind {
                let other_text = match events.get(*sent as usize).map(|s| &s.kind) {
                    Some(EventKind::Send { msg: sent_msg, .. }) => sent_msg != msg,
                    _ => true,
                };
                if msg.is_empty() && other_text {
                    if let EventKind::Deliver { msg, .. } = &mut events[i].kind {
                        *msg = Text::from("its own");
                    }
                }
            }
        }
        let mut p = Packed::default();
        let mut msgs: Vec<Raw> = Vec::new();
        let mut later_at: Vec<Option<u64>> = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            let mut e = e.clone();
            let later = match &mut e.kind {
                EventKind::Send { msg, .. } if e.id == i as u64 => {
                    let shared = msgs.last().filter(|last| last.0 == *msg && i % 2 == 0);
                    if shared.is_none() {
                        msgs.push(Raw(msg.clone()));
                    }
                    *msg = Text::EMPTY;
                    Some(msgs.len() as u64 - 1)
                }
                EventKind::Deliver { sent, msg, .. } => {
                    let of_later = (*sent < i as u64)
                        .then(|| later_at.get(*sent as usize).copied().flatten())
                        .flatten();
                    let same = match events.get(*sent as usize).map(|s| &s.kind) {
                        Some(EventKind::Send { msg: sent_msg, .. }) => sent_msg == msg,
                        _ => false,
                    };
                    // (a record kept whole keeps its text: the recorder's ids are their
                    // positions, so it keeps no delivery whole)
                    if of_later.is_some() && same && e.id == i as u64 {
                        *msg = Text::EMPTY;
                    }
                    None
                }
                _ => None,
            };
            later_at.push(later);
            p.push_later(&e, later);
        }
        let sends = later_at.iter().flatten().count();
        (p, msgs, sends)
    }

    /// Sends packed to be rendered later read back as the events recorded with their texts:
    /// in order, one at a time, the last alone, each send's text alone, and past the table
    /// of recent sends (found from their marks); until the store is given they read as the
    /// empty text.
    #[test]
    fn sends_rendered_later_read_back_as_the_events_with_their_texts() {
        for seed in 0..60 {
            let n = if seed < 4 {
                3 * RECENT_SENDS + 7
            } else {
                1 + seed as usize % 60
            };
            let mut events = arbitrary_events(seed, n);
            let (mut p, msgs, sends) = pack_later(&mut events);
            assert_eq!(p.defers(), sends > 0, "seed {seed}");
            assert_eq!(p.later_sends, sends);
            if sends > 0 {
                let before = p.unpack_all();
                assert_ne!(before, events, "seed {seed}: no store, no texts");
            }
            p.set_later(Arc::new(LaterMsgs(msgs)));
            assert_eq!(p.unpack_all(), events, "seed {seed}");
            assert_eq!(p.iter().collect::<Vec<_>>(), events, "seed {seed}");
            assert_eq!(p.last().as_ref(), events.last(), "seed {seed}");
            for (i, e) in events.iter().enumerate() {
                let want = match &e.kind {
                    EventKind::Send { msg, .. } => Some(msg.clone()),
                    _ => None,
                };
                assert_eq!(p.send_text(i), want, "seed {seed} event {i}");
            }
        }
    }

    /// A trace recorded with its sends rendered later equals the same events recorded with
    /// their texts (by events: the bytes differ) and the events themselves; one whose store
    /// renders a message otherwise differs, as does one with an event changed.
    #[test]
    fn a_trace_rendered_later_equals_the_same_events_and_no_other() {
        let mut judged = 0;
        for seed in 0..40 {
            let mut events = arbitrary_events(seed, 40);
            let (p, msgs, sends) = pack_later(&mut events);
            if sends == 0 {
                continue;
            }
            judged += 1;
            let mut later = p.clone();
            later.set_later(Arc::new(LaterMsgs(msgs.clone())));
            let with_texts = pack(&events);
            assert_ne!(later.bytes, with_texts.bytes, "seed {seed}");
            let trace = |p: &Packed| {
                let mut t = Trace::packed(6);
                t.packed = Some(Box::new(p.clone()));
                t
            };
            assert_eq!(trace(&later), trace(&with_texts), "seed {seed}");
            assert_eq!(trace(&with_texts), trace(&later), "seed {seed}");
            assert_eq!(trace(&later), Trace::new(6, events.clone()), "seed {seed}");
            assert_eq!(trace(&later), trace(&later.clone()), "seed {seed}");
            // a message rendered otherwise
            let mut other = msgs.clone();
            other[0] = Raw(Text::from(format!("{}!", other[0].0).as_str()));
            let mut changed = p.clone();
            changed.set_later(Arc::new(LaterMsgs(other)));
            assert_ne!(changed, later, "seed {seed}");
            assert_ne!(trace(&changed), trace(&later), "seed {seed}");
            assert_ne!(trace(&changed), trace(&with_texts), "seed {seed}");
            // an event changed
            let mut moved = events.clone();
            moved[39].t_ns = moved[39].t_ns.wrapping_add(1);
            assert_ne!(trace(&later), trace(&pack(&moved)), "seed {seed}");
        }
        assert!(judged > 30, "{judged} seeds had a send to render later");
    }

    /// Every record is found again where it was written: from its mark, reading the records
    /// before it, or from the table of recent sends (a trace longer than the table, so that
    /// older sends are found from their marks).
    #[test]
    fn every_record_is_found_again_where_it_was_written() {
        for seed in 0..4 {
            let events = arbitrary_events(seed, 3 * RECENT_SENDS + 7);
            let mut p = Packed::default();
            let mut starts = Vec::with_capacity(events.len());
            for e in &events {
                starts.push(p.bytes.len());
                p.push(e);
            }
            for (i, &at) in starts.iter().enumerate() {
                assert_eq!(p.record_start(i), Some(at), "seed {seed} event {i}");
                let next = starts.get(i + 1).copied().unwrap_or(p.bytes.len());
                assert_eq!(p.record_end(at), next, "seed {seed} event {i}");
            }
            assert_eq!(p.record_start(events.len()), None);
            assert_eq!(p.marks.len(), events.len().div_ceil(MARK_EVERY));
        }
    }

    #[test]
    fn packing_is_canonical_so_packed_traces_compare_by_their_bytes() {
        for seed in 0..100 {
            let events = arbitrary_events(seed, 40);
            assert_eq!(pack(&events), pack(&events));
            let mut other = events.clone();
            let i = seed as usize % other.len();
            other[i].t_ns ^= 1;
            assert_ne!(pack(&events), pack(&other), "seed {seed}");
            // and a trace compares alike, packed or not
            let mut a = Trace::packed(3);
            let mut b = Trace::packed(3);
            for e in &events {
                a.push(e.clone());
            }
            for e in &other {
                b.push(e.clone());
            }
            let plain = Trace::new(3, events.clone());
            assert_eq!(a, plain);
            assert_eq!(plain, a);
            assert_eq!(a != b, events != other);
            assert_eq!(a.to_jsonl(), plain.to_jsonl(), "seed {seed}");
            assert_eq!(a.first_difference(&plain), None);
            assert_eq!(a.len(), plain.len());
            assert_eq!(a.last_t_ns(), plain.last_t_ns());
        }
    }

    #[test]
    fn a_packed_trace_unpacks_once_and_for_good_when_changed() {
        let events = arbitrary_events(7, 50);
        let mut t = Trace::packed(4);
        for e in &events {
            t.push(e.clone());
        }
        assert!(t.is_packed());
        assert_eq!(t.events(), &events[..]);
        let seen: Vec<Event> = t.iter().map(|e| e.into_owned()).collect();
        assert_eq!(seen, events);
        // pushing after a read: the view is made again
        let extra = Event {
            id: 50,
            ..events[3].clone()
        };
        t.push(extra.clone());
        assert_eq!(t.events().last(), Some(&extra));
        t.events_mut()[0].t_ns += 1;
        assert!(!t.is_packed());
        assert_eq!(t.events()[0].t_ns, events[0].t_ns + 1);
        assert_eq!(t.len(), 51);
        assert_eq!(t.clone().into_events().len(), 51);
    }

    /// What a traced token ring records per hop (a send, its delivery, two observations)
    /// packs to a few bytes an event, its texts in the bytes or its messages kept to be
    /// rendered later (an 8-byte token each, counted with the bytes).
    #[test]
    fn a_token_ring_packs_to_a_few_bytes_per_event() {
        let ring = |later: bool| {
            let mut p = Packed::default();
            let mut t_ns = 0;
            let text = |hop: u64| match later {
                true => Text::EMPTY,
                false => Text::from(format!("Token({hop})")),
            };
            for hop in 0..10_000u64 {
                let id = p.len() as u64;
                let node = (hop % 5) as usize;
                let send = Event {
                    id,
                    t_ns,
                    node: Some(node),
                    local_ns: Some(t_ns as i64),
                    kind: EventKind::Send {
                        msg_id: hop,
                        to: (node + 1) % 5,
                        msg: text(hop),
                    },
                };
                p.push_later(&send, later.then_some(hop));
                t_ns += 1_000_000 + hop % 1_000_000;
                let at = |id, kind| Event {
                    id,
                    t_ns,
                    node: Some((node + 1) % 5),
                    local_ns: Some(t_ns as i64),
                    kind,
                };
                p.push(&at(
                    id + 1,
                    EventKind::Deliver {
                        msg_id: hop,
                        from: node,
                        sent: id,
                        msg: text(hop),
                    },
                ));
                for obs in [
                    Observation::CsEnter { resource: 0 },
                    Observation::CsExit { resource: 0 },
                ] {
                    p.push(&at(p.len() as u64, EventKind::Observe { obs }));
                }
            }
            let store = if later { 8 * 10_000 } else { 0 };
            let bytes = p.capacity_bytes().min(p.bytes.len() + 4 * p.marks.len()) + store;
            (p, bytes as f64 / 40_000.0)
        };
        let (p, per_event) = ring(false);
        // 13.5 with an offset per event and whole message ids and places (stop 84)
        assert!(per_event < 8.0, "{per_event:.2} bytes per event");
        assert!(p.whole.is_empty());
        assert_eq!(p.unpack_all().len(), 40_000);
        let (mut later, later_per_event) = ring(true);
        assert!(
            later_per_event < per_event,
            "{later_per_event:.2} bytes per event rendered later, {per_event:.2} with texts"
        );
        assert!(later.whole.is_empty());
        let tokens: Vec<Raw> = (0..10_000)
            .map(|hop| Raw(Text::from(format!("Token({hop})"))))
            .collect();
        later.set_later(Arc::new(LaterMsgs(tokens)));
        assert_eq!(later.unpack_all(), p.unpack_all());
    }
}
