#!/usr/bin/env python3
"""Writes the adversarial corpus: checkers/tests/adversarial/<property>/<expected>-<name>.jsonl
(the trace, `Trace::read_jsonl` format) and <expected>-<name>.params.json (quiet_ms, bound_ms,
end_ms or end_ns, note). Hand-made cases, written here compactly; rerun after editing:
    python3 checkers/tests/adversarial/make_corpus.py
`expected` is what the property's definition, as the checker's `# Contract` states it, says
(pass, violation, unjudged); cases a checker gets wrong are listed in
checkers/tests/it/adversarial.rs (KNOWN_BUGS).
"""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1_000_000

class T:
    def __init__(self, nodes):
        self.nodes, self.ev = nodes, []
    def add(self, t_ms, node, kind, local=None, t_ns=None):
        t = t_ns if t_ns is not None else int(round(t_ms * MS))
        e = {"id": len(self.ev), "t_ns": t}
        if node is not None:
            e["node"] = node
            e["local_ns"] = t if local is None else local
        e["kind"] = kind
        self.ev.append(e)
        return e["id"]
    def obs(self, t, node, name, **f):
        return self.add(t, node, {"type": "observe", "obs": {name: f}})
    # mutual exclusion vocabulary
    def req(self, t, n, r=0): return self.obs(t, n, "cs_request", resource=r)
    def enter(self, t, n, r=0): return self.obs(t, n, "cs_enter", resource=r)
    def exit(self, t, n, r=0): return self.obs(t, n, "cs_exit", resource=r)
    def abandon(self, t, n, r=0): return self.obs(t, n, "cs_abandon", resource=r)
    def fault(self, t, node, fault, local=None):
        return self.add(t, node, {"type": "fault", "fault": fault}, local=local)
    def crash(self, t, n): return self.fault(t, n, {"crash": {"node": n}})
    def restart(self, t, n): return self.fault(t, n, {"restart": {"node": n}})
    def pause(self, t, n): return self.fault(t, n, {"pause": {"node": n}})
    def resume(self, t, n): return self.fault(t, n, {"resume": {"node": n}})
    def heal(self, t): return self.fault(t, None, "heal")
    def partition(self, t, groups): return self.fault(t, None, {"partition": {"groups": groups}})
    def jump(self, t, n, d, local=None): return self.fault(t, n, {"clock_jump": {"node": n, "delta_ms": float(d)}}, local=local)
    # messages and clocks
    def send(self, t, n, to, msg_id):
        return self.add(t, n, {"type": "send", "msg_id": msg_id, "to": to, "msg": "m"})
    def deliver(self, t, n, frm, msg_id, sent):
        return self.add(t, n, {"type": "deliver", "msg_id": msg_id, "from": frm, "sent": sent, "msg": "m"})
    def lt(self, t, n, lamport, vector=None):
        f = {"lamport": lamport}
        if vector: f["vector"] = vector
        return self.obs(t, n, "logical_time", **f)
    def vc(self, t, n, vector): return self.lt(t, n, 0, vector)
    def mc(self, t, n, m): return self.obs(t, n, "multicast", id=m)
    def dl(self, t, n, m): return self.obs(t, n, "delivered", id=m)
    def wf(self, t, w, on, observer=None): return self.obs(t, on if observer is None else observer, "wait_for", waiter=w, on=on)
    def we(self, t, w, on, observer=None): return self.obs(t, on if observer is None else observer, "wait_end", waiter=w, on=on)
    def dd(self, t, n, initiator=None): return self.obs(t, n, "deadlock_detected", initiator=n if initiator is None else initiator)
    def leader(self, t, n, l, term=0): return self.obs(t, n, "leader", leader=l, term=term)
    def vote(self, t, n, c, term): return self.obs(t, n, "vote", term=term, candidate=c)
    def all(self, t, nodes, l, term=0):
        for n in nodes: self.leader(t, n, l, term)
    def state(self, t, n, v): return self.obs(t, n, "state", value=v)
    def inp(self, t, n): return self.add(t, n, {"type": "input", "input": "update"})
    def read(self, t, n, local_ms): return self.add(t, n, {"type": "input", "input": "x"}, local=int(local_ms * MS))
    def step(self, t, n, d_ms, how="step", local_ms=None):
        return self.add(t, n, {"type": "clock_adjust", "how": how, "delta_ns": int(d_ms * MS)},
                        local=None if local_ms is None else int(local_ms * MS))

CASES = []
def case(prop, name, t, note, **params):
    CASES.append((prop, name, t, note, params))

# ---------------------------------------------------------------- mutual_exclusion
P = "mutual_exclusion"
t = T(2); t.enter(1, 0); t.exit(2, 0); t.enter(3, 1); t.exit(4, 1)
case(P, "pass-sequential", t, "one after the other")
t = T(2); t.enter(1, 0); t.exit(5, 0); t.enter(5, 1)
case(P, "pass-handover-same-instant-exit-line-first", t, "exit of 0 and entry of 1 at one instant, exit written first")
t = T(2); t.enter(1, 0, 0); t.enter(1, 1, 1); t.enter(2, 0, 1); t.enter(2, 1, 0); t.exit(2, 0, 0); t.exit(2, 1, 1)
case(P, "violation-hand-over-hand-swap-at-one-instant", t, "0 holds r0 and 1 holds r1; at 2 ms each enters the other's before leaving its own: each resource alone has a hand-over, no order serves both")
t = T(2); t.enter(1, 0, 0); t.enter(1, 1, 1); t.exit(2, 0, 0); t.enter(2, 0, 1); t.exit(2, 1, 1); t.enter(2, 1, 0)
case(P, "pass-swap-leaving-first", t, "each leaves its own section before entering the other's: 1 leaves r1, 0 enters it, ... an order exists")
t = T(2); t.enter(1, 0); t.enter(5, 1); t.exit(5, 0)
case(P, "pass-handover-same-instant-enter-line-first", t, "the same hand-over with the entry written first: same-instant events are a set")
t = T(2); t.enter(1, 0); t.crash(2, 0); t.enter(3, 1)
case(P, "pass-crash-releases", t, "a crash ends the stay inside")
t = T(2); t.enter(1, 0, 0); t.enter(2, 1, 1)
case(P, "pass-other-resource", t, "two resources")
t = T(2); t.exit(1, 1); t.enter(2, 0); t.exit(3, 0)
case(P, "pass-exit-without-enter", t, "an exit of a node not inside is ignored")
t = T(2); t.enter(1, 0); t.enter(2, 1)
case(P, "violation-overlap", t, "1 enters while 0 is inside")
t = T(2); t.enter(1, 0); t.enter(2, 0)
case(P, "violation-reenter", t, "a node enters twice without leaving")
t = T(2); t.enter(1, 0); t.enter(3, 1); t.exit(3, 1); t.exit(5, 0)
case(P, "violation-zero-length-inside-other", t, "1 enters and leaves at 3 ms, strictly inside 0's stay [1, 5)")
t = T(2); t.enter(1, 0); t.pause(2, 0); t.enter(3, 1)
case(P, "violation-pause-does-not-release", t, "a paused node inside stays inside")
t = T(2); t.enter(5, 0); t.enter(5, 1)
case(P, "violation-same-instant-two-enters", t, "two entries at one instant, nobody leaves")

# ---------------------------------------------------------------- lamport_condition
P = "lamport_condition"
t = T(2); t.lt(1, 0, 1); s = t.send(2, 0, 1, 0); t.deliver(3, 1, 0, 0, s); t.lt(4, 1, 3)
case(P, "pass-message-chain", t, "C grows along the message")
t = T(2); t.lt(1, 0, 5); t.lt(2, 1, 5)
case(P, "pass-concurrent-equal", t, "concurrent events may have equal clocks")
t = T(2); t.lt(1, 0, 9); t.send(2, 0, 1, 0); t.lt(3, 1, 1)
case(P, "pass-undelivered-message", t, "a message never delivered makes no edge")
t = T(2); t.lt(1, 0, 5); s = t.send(2, 0, 1, 0); t.deliver(3, 1, 0, 0, s); t.lt(4, 1, 5)
case(P, "violation-message", t, "a -> b through a message, C(a) = C(b)")
t = T(2); t.lt(1, 0, 3); t.lt(2, 0, 3)
case(P, "violation-program-order", t, "same node, clock does not grow")
t = T(2); t.lt(1, 0, 4); t.crash(2, 0); t.restart(3, 0); t.lt(4, 0, 1)
case(P, "violation-restart-from-zero", t, "program order continues across a restart")
t = T(3); t.lt(1, 0, 5); s = t.send(2, 0, 1, 0); t.deliver(3, 1, 0, 0, s); s = t.send(4, 1, 2, 1); t.deliver(5, 2, 1, 1, s); t.lt(6, 2, 4)
case(P, "violation-transitive", t, "0 -> 1 -> 2 by two messages; only the ends are labelled")

# ---------------------------------------------------------------- vector_causality
P = "vector_causality"
t = T(2); t.vc(1, 0, [1, 0]); s = t.send(2, 0, 1, 0); t.deliver(3, 1, 0, 0, s); t.vc(4, 1, [2, 1])
case(P, "pass-chain", t, "VC below along the message")
t = T(2); t.vc(1, 0, [1, 0]); t.vc(2, 1, [0, 1])
case(P, "pass-concurrent", t, "incomparable vectors for concurrent events")
t = T(2); t.vc(1, 0, [1, 0]); t.vc(2, 0, [2, 0])
case(P, "pass-program-order", t, "")
t = T(2); t.lt(1, 0, 1); t.lt(2, 1, 1)
case(P, "unjudged-lamport-clocks-only", t, "no logical_time carries a vector: nothing to judge (stop 74: a violation, a vector of 0 entries)")
t = T(2); t.lt(1, 0, 1); t.vc(2, 1, [0, 1])
case(P, "violation-no-vector-among-vectors", t, "node 0 stamps an event with no vector in a run that stamps with vectors")
t = T(2); t.vc(1, 0, [1, 0]); t.vc(2, 1, [1, 1])
case(P, "violation-concurrent-but-ordered", t, "no message, yet VC says 0's event happened before")
t = T(2); t.vc(1, 0, [1, 0]); s = t.send(2, 0, 1, 0); t.deliver(3, 1, 0, 0, s); t.vc(4, 1, [0, 1])
case(P, "violation-hb-not-less", t, "a -> b, VC(a) not below VC(b)")
t = T(2); t.vc(1, 0, [1])
case(P, "violation-wrong-length", t, "one entry in a run of two nodes")

# ---------------------------------------------------------------- causal_delivery
P = "causal_delivery"
t = T(3); t.mc(1, 0, "m"); t.dl(2, 0, "m"); t.dl(3, 1, "m"); t.mc(4, 1, "m*"); t.dl(5, 1, "m*"); t.dl(6, 2, "m"); t.dl(7, 2, "m*"); t.dl(8, 0, "m*")
case(P, "pass-fig-6-13-in-order", t, "everyone delivers m before m*")
t = T(3); t.mc(1, 0, "m"); t.mc(2, 1, "m*"); t.dl(3, 2, "m*"); t.dl(4, 2, "m")
case(P, "pass-concurrent-reorder", t, "concurrent multicasts may be delivered in any order")
t = T(3); t.dl(1, 1, "x"); t.mc(2, 0, "x")
case(P, "violation-delivered-before-multicast", t, "1 delivers x at 1 ms; 0 multicasts it at 2 ms")
t = T(3); t.mc(1, 0, "m"); t.dl(2, 1, "y"); t.dl(3, 2, "z")
case(P, "unjudged-deliveries-never-multicast", t, "only ids no node multicast are delivered: nothing to judge")
t = T(3); t.mc(1, 0, "a"); t.dl(2, 1, "a"); t.mc(3, 1, "b"); t.dl(4, 0, "b"); t.dl(5, 1, "b")
case(P, "pass-sender-skips-own", t, "0 never delivers its own a but delivers b (a -> b): a sender need not deliver its own message")
t = T(3); t.dl(1, 1, "x"); t.mc(2, 0, "y"); t.dl(3, 1, "y")
case(P, "pass-unknown-id-ignored", t, "a delivery of an id never multicast is ignored")
t = T(3); t.mc(1, 0, "m"); t.dl(2, 0, "m"); t.dl(3, 1, "m"); t.mc(4, 1, "m*"); t.dl(5, 1, "m*"); t.dl(6, 2, "m*"); t.dl(7, 2, "m")
case(P, "violation-fig-6-13", t, "2 delivers m* before m")
t = T(3); t.mc(1, 0, "a"); t.mc(2, 0, "b"); t.dl(3, 1, "b")
case(P, "violation-fifo", t, "one sender's order is causal")
t = T(3); t.mc(1, 0, "a"); t.dl(2, 1, "a"); t.dl(3, 1, "a")
case(P, "violation-twice", t, "")
t = T(3); t.mc(1, 0, "a"); t.mc(2, 1, "a")
case(P, "violation-multicast-twice", t, "")
t = T(3); t.mc(1, 0, "a"); t.dl(2, 1, "a"); t.mc(3, 1, "b"); t.dl(4, 0, "b"); t.dl(5, 0, "a")
case(P, "violation-sender-delivers-own-late", t, "0 delivers both, its own a after b although a -> b")

# ---------------------------------------------------------------- total_order
P = "total_order"
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(0, "a"), (1, "a"), (0, "b"), (2, "a"), (1, "b"), (2, "b")])]
case(P, "pass-same-order", t, "")
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(0, "a"), (0, "b"), (0, "c"), (1, "a"), (1, "c")])]
case(P, "pass-gaps", t, "1 skips b")
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(0, "a"), (0, "b"), (1, "b"), (1, "c"), (2, "c"), (2, "a")])]
case(P, "violation-cycle-of-pairs", t, "no two nodes share two messages, but a < b, b < c and c < a fit no single sequence")
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(0, "a"), (0, "b"), (1, "b"), (1, "c"), (2, "a"), (2, "c")])]
case(P, "pass-chain-across-nodes", t, "a < b, b < c and a < c: the sequence a, b, c fits every node")
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(0, "a"), (0, "b"), (1, "b"), (1, "a")])]
case(P, "violation-inverted", t, "")
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(0, "a"), (0, "a")])]
case(P, "violation-twice", t, "")
t = T(3); [t.dl(i + 1, n, m) for i, (n, m) in enumerate([(1, "b"), (1, "a"), (0, "a"), (0, "x"), (0, "b")])]
case(P, "violation-inverted-with-gap", t, "")

# ---------------------------------------------------------------- deadlock_soundness
P = "deadlock_soundness"
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 2); t.wf(3, 2, 0); t.dd(9, 1)
case(P, "pass-real-cycle", t, "")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.wf(3, 2, 0); t.dd(4, 0)
case(P, "pass-two-cycle-with-tail", t, "")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.we(5, 1, 0)
case(P, "pass-no-report", t, "")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 2); t.wf(3, 2, 0); t.we(5, 2, 0); t.dd(9, 1)
case(P, "violation-phantom-ended-edge", t, "")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 2); t.wf(3, 2, 1); t.dd(9, 0)
case(P, "violation-cycle-without-reporter", t, "0 waits into the cycle 1-2 but is not on it")
t = T(3); t.dd(1, 0)
case(P, "violation-no-edges", t, "")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.crash(3, 1); t.restart(4, 1); t.dd(5, 0)
case(P, "violation-crash-removes-edges", t, "the crash of 1 removes 1 -> 0 and what 1 observed")
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.wf(1, 1, 0, observer=2); t.crash(2, 2); t.dd(3, 0)
case(P, "pass-edge-kept-by-its-other-observer", t, "1 -> 0 observed by 0 and by 2: the crash of 2 withdraws only its own observation")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.we(5, 1, 0); t.dd(5, 0)
case(P, "violation-edge-ended-earlier-same-instant", t, "the reporter itself ended an edge of its cycle before reporting, at the same instant: its own order is known")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.we(5, 0, 1); t.dd(5, 0)
case(P, "pass-edge-ended-by-another-node-same-instant", t, "node 1 ends 0 -> 1 at the instant 0 reports, listed first: nothing orders two nodes' events of one instant, and the report may have come first")
t = T(3); t.wf(1, 0, 1); t.dd(5, 0); t.wf(5, 1, 0, observer=2)
case(P, "pass-closing-edge-by-another-node-listed-after", t, "node 2 observes the closing edge 1 -> 0 at the instant 0 reports, listed after the report: it may have come first")
t = T(3); t.wf(1, 0, 1); t.dd(5, 0); t.wf(5, 1, 0, observer=0)
case(P, "violation-own-closing-edge-after-report", t, "the reporter itself observes the closing edge after reporting, at the same instant: its own order is known")
t = T(3); t.wf(1, 0, 2, observer=2); t.wf(1, 1, 2, observer=2); t.dd(5, 0); t.wf(5, 2, 1, observer=0); t.dd(5, 1); t.wf(5, 2, 0, observer=1)
case(P, "violation-two-reports-each-needing-the-others-later-edge", t, "0's report needs 2 -> 0, which 1 adds after its own report; 1's needs 2 -> 1, which 0 adds after its own: each alone has an order, no order serves both")
t = T(3); t.wf(1, 0, 2, observer=2); t.wf(1, 1, 2, observer=2); t.dd(5, 0); t.wf(5, 2, 1, observer=0); t.wf(5, 2, 0, observer=1); t.dd(5, 1)
case(P, "pass-two-reports-one-order-serves-both", t, "the twin of the case above with 1 adding 2 -> 0 before its report: 1 adds, 0 reports, 0 adds, 1 reports")
t = T(3); t.wf(1, 1, 0, observer=2); t.wf(5, 0, 1, observer=1); t.crash(5, 0); t.dd(9, 1)
case(P, "pass-graph-an-instant-order-leaves", t, "at 5 ms node 1 observes 0 -> 1 and node 0 crashes: in trace order the crashed waiter's edge goes, the other way round it stays, so the report at 9 ms may be sound")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.we(5, 0, 1, observer=2); t.dd(9, 0)
case(P, "unjudged-edge-ended-by-a-node-that-never-observed-it", t, "node 2 ends 0 -> 1, which only node 1 observed: the observer ends its edges, so the graph after it is unknown (stop 74: the end withdrew node 1's observation and the report was a phantom)")
t = T(3); t.wf(1, 0, 1); t.wf(2, 1, 0); t.dd(5, 0, initiator=1)
case(P, "violation-initiator-is-not-reporter", t, "0 reports with initiator 1")
t = T(2); t.wf(1, 0, 2, observer=0); t.wf(2, 2, 0, observer=0); t.dd(5, 0)
case(P, "violation-cycle-through-nonexistent-node", t, "nodes = 2; the cycle 0 -> 2 -> 0 passes through a node that does not exist")

# ---------------------------------------------------------------- monotonic_clock
P = "monotonic_clock"
t = T(2); t.read(1, 0, 1); t.read(2, 0, 2); t.read(3, 1, 0.5)
case(P, "pass-increasing", t, "")
t = T(2); t.read(10, 0, 10); t.jump(11, 0, -3, local=11 * MS); t.read(11, 0, 8)
case(P, "pass-back-within-backward-jump", t, "a jump of -3 ms explains going back 3 ms")
t = T(2); t.read(1, 0, 1); t.step(2, 0, 1, local_ms=3); t.step(3, 0, -0.5, how="slew", local_ms=3.5)
case(P, "pass-slew-and-positive-step", t, "")
t = T(2); t.read(0.5, 0, 0.5); t.add(1, 0, {"type": "timer", "timer_id": 0, "timer": "t"}); t.ev[-1].pop("local_ns"); t.read(2, 0, 2)
case(P, "pass-event-without-reading", t, "")
t = T(2); t.read(1, 0, 1); t.read(2, 1, 5)
case(P, "unjudged-one-reading-per-node", t, "no node has two readings: nothing is compared")
t = T(2); t.read(1, 0, 1); t.step(2, 0, -1, local_ms=1)
case(P, "violation-negative-step", t, "")
t = T(2); t.read(1, 0, 5); t.read(2, 0, 4)
case(P, "violation-reading-back", t, "")
t = T(2); t.read(10, 0, 10); t.jump(11, 0, 5, local=11 * MS); t.read(12, 0, 9)
case(P, "violation-back-after-forward-jump", t, "a forward jump does not excuse going back")
t = T(2); t.read(10, 0, 10); t.jump(11, 0, -2, local=11 * MS); t.read(12, 0, 5)
case(P, "violation-back-more-than-backward-jump", t, "a jump of -2 ms does not excuse going back 6 ms")
t = T(2); t.read(10, 0, 10); t.jump(11, 0, -3, local=7 * MS)
case(P, "violation-back-before-jump", t, "the jump's own event carries the reading before the jump: 7 ms after 10 ms")
t = T(2); t.read(10, 0, 10); t.crash(11, 0); t.restart(12, 0); t.read(13, 0, 2)
case(P, "violation-back-across-restart", t, "the clock is kept across a restart")

# ---------------------------------------------------------------- leader_uniqueness
P = "leader_uniqueness"
t = T(3); t.leader(1, 0, 0, 0); t.leader(2, 1, 1, 1)
case(P, "pass-different-terms", t, "")
t = T(2); t.leader(1, 0, 0, 1); t.leader(1, 1, 1, 2); t.leader(2, 0, 0, 2); t.leader(2, 1, 1, 1)
case(P, "violation-two-leaders-swap-terms-at-one-instant", t, "0 leads term 1 and 1 term 2; at 2 ms each claims the other's term: each term alone has a hand-over, no order serves both")
t = T(3); t.leader(1, 0, 0, 0); t.leader(2, 0, None, 0); t.leader(3, 1, 1, 0)
case(P, "pass-sequential", t, "")
t = T(3); t.leader(1, 0, 0, 0); t.crash(2, 0); t.leader(3, 1, 1, 0)
case(P, "pass-crash-ends-claim", t, "")
t = T(3); t.leader(1, 0, 0, 0); t.leader(5, 0, 1, 0); t.leader(5, 1, 1, 0)
case(P, "pass-handover-same-instant-retract-line-first", t, "")
t = T(3); t.leader(1, 0, 0, 0); t.leader(5, 1, 1, 0); t.leader(5, 0, 1, 0)
case(P, "pass-handover-same-instant-claim-line-first", t, "0 hands term 0 to 1 at 5 ms; the claim is written before the retraction: same-instant events are a set")
t = T(3); t.leader(1, 0, 0, 0); t.leader(2, 1, 1, 0)
case(P, "violation-split-brain", t, "")
t = T(3); t.leader(1, 0, 0, 0); t.partition(2, [[0]]); t.leader(3, 1, 1, 0)
case(P, "violation-partitioned-still-live", t, "")
t = T(3); t.leader(1, 0, 0, 0); t.pause(2, 0); t.leader(3, 1, 1, 0)
case(P, "violation-paused-still-live", t, "")
t = T(3); t.leader(5, 0, 0, 0); t.leader(5, 1, 1, 0)
case(P, "violation-same-instant-both-claim", t, "")

# ---------------------------------------------------------------- single_acting_leader
P = "single_acting_leader"
t = T(3); t.leader(1, 0, 0, 1); t.leader(5, 0, None, 1); t.leader(6, 1, 1, 2)
case(P, "pass-lease-expires-before-new-leader", t, "0 steps down at 5 ms, 1 acts from 6 ms")
t = T(3); t.leader(1, 0, 0, 1); t.crash(2, 0); t.leader(3, 1, 1, 2)
case(P, "pass-crash-ends-acting", t, "")
t = T(3); t.leader(1, 0, 0, 1); t.leader(5, 1, 1, 2); t.leader(5, 0, 1, 2)
case(P, "pass-handover-same-instant-claim-line-first", t, "same-instant events are a set")
t = T(3); t.leader(1, 0, 0, 1); t.leader(2, 1, 1, 2)
case(P, "violation-old-term-still-acting", t, "terms differ, yet two nodes act: leader_uniqueness passes this")
t = T(3); t.leader(1, 0, 0, 1); t.partition(2, [[0]]); t.leader(3, 1, 1, 2)
case(P, "violation-partitioned-old-leader", t, "the old leader keeps acting behind the partition")
t = T(3); t.leader(1, 0, 0, 1); t.leader(5, 1, 1, 2); t.leader(5, 1, None, 2)
case(P, "violation-momentary-claim", t, "1 claims and steps down at 5 ms while 0 acts through the instant")

# ---------------------------------------------------------------- leader_stability
P = "leader_stability"
t = T(3); t.all(1, [0, 1, 2], 2); t.leader(50, 0, 2)
case(P, "pass-stable", t, "", quiet_ms=0)
t = T(3); t.all(1, [0, 1, 2], 2); t.crash(5, 2); t.leader(6, 0, None, 1); t.leader(6, 1, None, 1)
case(P, "unjudged-leader-crashed", t, "the agreement [1, 5) ms ends at quiet (5 ms) with the leader's crash, and none forms after it: nothing is judged (stop 69: it passed)", quiet_ms=5)
t = T(3); t.all(1, [0, 1, 2], 2); t.partition(2, [[2]]); t.leader(3, 0, None, 1)
case(P, "pass-leader-unreachable", t, "", quiet_ms=2)
t = T(3); t.all(1, [0, 1, 2], 2); t.pause(2, 1); t.leader(3, 0, None, 1); t.resume(10, 1)
case(P, "pass-agreement-before-quiet", t, "the agreement [1, 2) ms ends with a pause of 1, in effect until quiet", quiet_ms=10)
t = T(3); t.all(1, [0, 1, 2], 2); t.leader(3, 0, None, 1)
case(P, "violation-change-between-faults", t, "no fault in effect before the heal at quiet (10 ms): the run cut there is fault-free, and 0 leaves the agreed leader at 3 ms", quiet_ms=10)
t = T(3); t.all(1, [0, 1, 2], 2); t.crash(2, 0); t.restart(4, 0); t.leader(5, 0, 2); t.leader(7, 1, None, 1)
case(P, "violation-change-after-a-restart-before-quiet", t, "0 restarts at 4 ms, nothing is in effect after it; all agree again at 5 ms and 1 leaves at 7 ms, before quiet (10 ms)", quiet_ms=10)
t = T(3); t.all(1, [0, 1, 2], 2); t.crash(2, 0); t.leader(5, 1, None, 1); t.restart(6, 0)
case(P, "pass-change-while-a-node-is-down", t, "0 is down from 2 to 6 ms: the interval is not judged (before quiet, 10 ms)", quiet_ms=10)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 0, None, 0)
case(P, "violation-new-election", t, "", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 0, 2, 1)
case(P, "violation-term-change", t, "", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 1, 1, 0)
case(P, "violation-leader-change", t, "", quiet_ms=0)
t = T(2); t.leader(1, 0, 5, 0); t.all(2, [0, 1], 1); t.leader(5, 0, None, 1)
case(P, "violation-after-out-of-range-name", t, "nodes = 2: 0 once named node 5, which does not exist; then both agree on 1 and 0 starts an election", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 0, 1); t.crash(50, 2)
case(P, "pass-change-listed-before-the-leaders-crash-of-its-instant", t, "0 changes at the instant 2 crashes: some order has the crash first", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.crash(50, 2); t.leader(50, 0, 1)
case(P, "pass-change-listed-after-the-leaders-crash-of-its-instant", t, "twin of the case before, lines swapped", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 0, 1); t.partition(50, [[2]])
case(P, "pass-change-listed-before-the-cut-of-its-instant", t, "the leader is cut off at the instant of the change", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 0, 1); t.crash(50, 1)
case(P, "violation-change-at-a-followers-crash", t, "a crash of another node excuses nothing in any order", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.crash(50, 2); t.restart(50, 2); t.leader(50, 0, 1)
case(P, "pass-change-between-the-leaders-crash-and-restart", t, "2 crashes and restarts at one instant: 0's change can fall between them", quiet_ms=0)
t = T(3); t.all(10, [0, 1, 2], 2); t.leader(50, 2, 1); t.crash(50, 2)
case(P, "violation-leader-changes-before-its-own-crash", t, "the leader's own change comes before its own crash, in its order", quiet_ms=0)

# ---------------------------------------------------------------- one_leader_per_term
P = "one_leader_per_term"
t = T(3); t.leader(1, 0, 0, 1); t.leader(1, 1, 0, 1); t.leader(1, 2, 0, 1); t.leader(5, 1, 1, 2)
case(P, "pass-one-leader-per-term", t, "0 leads term 1, 1 leads term 2")
t = T(3); t.leader(1, 0, 0, 1); t.crash(2, 0); t.restart(3, 0); t.add(3, 0, {"type": "start", "incarnation": 1}); t.leader(4, 0, 0, 1)
case(P, "pass-same-leader-claims-its-term-again", t, "0 claims term 1 again after a restart: the same leader")
t = T(3); t.leader(1, 0, 1, 1); t.leader(1, 1, None, 1); t.leader(2, 1, 1, 2)
case(P, "pass-naming-another-is-no-claim", t, "0 names 1 in term 1 (1 never claimed it); 1 claims term 2")
t = T(3); t.leader(1, 0, 0, 1); t.crash(2, 0); t.leader(5, 1, 1, 1)
case(P, "violation-second-leader-after-the-first-crashed", t, "never two at once, but two leaders of term 1")
t = T(3); t.leader(1, 2, 2, 4); t.leader(1, 1, 1, 4)
case(P, "violation-two-claims-at-one-instant", t, "2 and 1 claim term 4 at one instant, in either order")
t = T(3); t.leader(1, 0, 0, 1); t.leader(2, 0, None, 2); t.leader(9, 2, 2, 1)
case(P, "violation-late-claim-of-an-old-term", t, "0 led term 1 and moved on; 2 claims term 1 later")

# ---------------------------------------------------------------- one_vote_per_term
P = "one_vote_per_term"
t = T(3); t.vote(1, 0, 0, 1); t.vote(1.5, 1, 0, 1); t.vote(2, 1, 0, 1); t.vote(5, 1, 1, 2); t.vote(5, 2, 1, 2)
case(P, "pass-one-vote-per-term", t, "0 votes for itself in term 1, 1 for 0 (twice, the same vote); term 2 another vote")
t = T(3); t.vote(1, 1, 0, 1); t.crash(2, 1); t.restart(3, 1); t.add(3, 1, {"type": "start", "incarnation": 1}); t.vote(4, 1, 0, 1); t.vote(6, 1, 2, 2)
case(P, "pass-the-same-vote-after-a-restart", t, "1 votes for 0 in term 1 again after a restart, then for 2 in term 2")
t = T(3); t.vote(1, 1, 1, 1); t.leader(1, 1, 1, 1); t.crash(2, 1); t.restart(3, 1); t.add(3, 1, {"type": "start", "incarnation": 1}); t.vote(4, 1, 2, 1)
case(P, "violation-a-vote-forgotten-in-a-restart", t, "1 votes for itself in term 1, restarts, votes for 2 in term 1: no two leaders yet")
t = T(3); t.vote(4, 0, 2, 3); t.vote(4, 0, 1, 3)
case(P, "violation-two-votes-at-one-instant", t, "0 votes for 2 and for 1 in term 3 at one instant, in either order")
t = T(3); t.vote(4, 1, 2, 3); t.vote(4, 0, 2, 3); t.vote(4, 0, 1, 3)
case(P, "violation-two-votes-at-one-instant-other-order", t, "the same two votes of 0, the lower candidate's line last")
t = T(2); t.vote(1, 0, 0, 1); t.vote(2, 5, 1, 1); t.vote(3, 0, 0, 2); t.vote(3, 1, 0, 2)
case(P, "pass-a-node-outside-the-run-is-ignored", t, "node 5 is not one of the run's 2 nodes; 0 and 1 vote once per term")

# ---------------------------------------------------------------- no_abdication
P = "no_abdication"
def born(nodes, t=None):
    """A trace whose nodes all start at 0 (so that `sincro check` accepts it too)."""
    t = t or T(nodes)
    for n in range(nodes): t.add(0, n, {"type": "start", "incarnation": 0})
    return t
def reboot(t, at, n, life): t.restart(at, n); t.add(at, n, {"type": "start", "incarnation": life})
t = born(3); t.all(1, [0, 1, 2], 2); t.crash(3, 1); t.leader(4, 2, 2); t.leader(8, 2, None)
case(P, "violation-a-live-leader-calls-an-election", t, "2 leads and, alive, reports no leader while 1 is down: the ring's stale-coordinator path")
t = born(3); t.leader(1, 1, 1); t.leader(5, 1, 0)
case(P, "violation-a-live-leader-adopts-a-lower-node", t, "1 leads, then names 0 with no fault of its own")
t = born(3); t.leader(1, 2, 2); reboot(t, 2, 2, 1); t.leader(5, 2, 2); t.leader(6, 0, 2); t.leader(9, 2, 1)
case(P, "violation-a-step-down-in-a-later-life", t, "2 reboots, leads again in its new life, then names 1 with no fault of its own")
t = born(3); t.leader(1, 2, 2); reboot(t, 5, 2, 1); t.leader(5, 2, 2); t.leader(9, 2, None)
case(P, "violation-a-claim-right-after-a-reboot-then-a-step-down", t, "2's claim follows its restart line at 5 ms: the new life's claim, then its step-down at 9 ms")
t = born(3); t.leader(1, 2, 2); t.leader(5, 2, None); reboot(t, 5, 2, 1)
case(P, "violation-a-step-down-right-before-a-reboot", t, "2 reports no leader at 5 ms before its restart line of that instant: the old life stepped down while alive")
t = born(3); t.leader(1, 1, 1); t.leader(2, 1, 2); t.leader(3, 1, None); t.leader(4, 2, 2); t.crash(5, 2); reboot(t, 6, 2, 1); t.leader(7, 2, None)
case(P, "pass-yield-upward-and-crash", t, "1 yields to 2 (then may name none); 2 crashes and comes back electing")
t = born(3); t.leader(1, 2, 2); reboot(t, 5, 2, 1); t.leader(5, 2, None)
case(P, "pass-a-report-after-its-restart-line", t, "2's report of no leader follows its restart line at 5 ms: the new life's")
t = born(3); t.leader(1, 2, 2); t.leader(5, 2, 2); reboot(t, 5, 2, 1); t.leader(9, 2, None)
case(P, "pass-a-claim-right-before-a-reboot", t, "2's claim at 5 ms precedes its restart line: it ends with that life")
t = T(2); t.leader(1, 5, 5); t.leader(2, 5, None); t.leader(3, 1, 1); t.leader(4, 1, 1)
case(P, "pass-a-node-outside-the-run-is-ignored", t, "node 5 is not one of the run's 2 nodes (checker only: sincro check refuses the trace); 1 leads and stays")

# ---------------------------------------------------------------- bounded_waiting (n = 3: k = 2)
P = "bounded_waiting"
def ex(t, at, n): t.enter(at, n); t.exit(at + 0.5, n)
t = T(3); t.req(1, 0); t.req(1, 1); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); ex(t, 4, 2)
case(P, "pass-round-robin", t, "")
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.enter(4, 2)
case(P, "pass-two-overtakes", t, "k = 2")
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.abandon(4, 2); t.req(5, 2); ex(t, 6, 0); ex(t, 7, 1)
case(P, "pass-abandon-resets", t, "")
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.crash(4, 2); ex(t, 5, 0)
case(P, "pass-crash-cancels", t, "")
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.enter(4, 0)
case(P, "violation-three-overtakes", t, "")
t = T(3); t.req(1, 2); t.enter(2, 2); t.req(3, 2); t.exit(4, 2); ex(t, 5, 0); ex(t, 6, 1); ex(t, 7, 0)
case(P, "violation-second-request-after-exit", t, "")
t = T(3); t.req(1, 2); ex(t, 2, 0); t.crash(3, 2); t.restart(3.5, 2); t.req(4, 2); ex(t, 5, 0); ex(t, 6, 1); t.enter(7, 0)
case(P, "violation-after-restart", t, "")
# An entry at the instant the waiter's own exit starts its wait follows that exit in every
# order that keeps mutual exclusion: it overtakes (stop 57: it was excused, and the trace
# passed both properties, each by an order of its own), whatever order the lines are in.
t = T(3); t.req(1, 2); t.enter(1.5, 2); t.req(2, 2); t.exit(3, 2); ex(t, 3, 0); ex(t, 4, 1); t.enter(5, 0)
case(P, "violation-entry-at-the-waiters-own-exit", t, "overtaken at 3 (with the exit), 4 and 5")
t = T(3); t.req(1, 2); t.enter(1.5, 2); t.req(2, 2); t.enter(3, 0); t.exit(3, 2); t.exit(3.5, 0); ex(t, 4, 1); t.enter(5, 0)
case(P, "violation-entry-at-the-waiters-own-exit-listed-first", t, "the same, node 0's entry listed before the exit")
# An entry at the instant of the request itself may have come first: not counted.
t = T(3); t.req(3, 2); ex(t, 3, 0); ex(t, 4, 1); ex(t, 5, 0); t.enter(6, 2)
case(P, "pass-entry-at-the-request-instant", t, "overtaken at 4 and 5 only")
# The mirror at the end of the wait: the waiter enters and stays inside at an instant where
# another node enters and leaves; that entry came first in every order that keeps mutual
# exclusion (stop 71: it was excused as possibly after the waiter's entry, and passed).
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.enter(4, 0); t.exit(4, 0); t.enter(4, 2)
case(P, "violation-entry-left-at-the-waiters-entry", t, "overtaken at 2, 3 and 4 (node 0 in and out before node 2 enters)")
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.enter(4, 2); t.enter(4, 0); t.exit(4, 0)
case(P, "violation-entry-left-at-the-waiters-entry-listed-after", t, "the same, node 2's entry listed first")
t = T(3); t.req(1, 2); ex(t, 2, 0); ex(t, 3, 1); t.enter(4, 0); t.exit(4, 0); t.enter(4, 2); t.exit(4, 2)
case(P, "pass-entry-at-the-waiters-entry-and-exit", t, "node 2 also leaves at 4: node 0 may have come after it")

# ---------------------------------------------------------------- liveness
P = "liveness"
t = T(2); t.req(1, 0); t.enter(5, 0)
case(P, "pass-served-in-bound", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.req(1, 0); t.enter(11, 0)
case(P, "pass-served-at-deadline", t, "deadline 11 ms, served at 11 ms", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.req(1, 0); t.req(2, 1); t.crash(3, 1); t.abandon(5, 0)
case(P, "pass-abandon-and-crash", t, "0 abandons in time, 1's request dies with it", quiet_ms=3, bound_ms=10, end_ms=100)
t = T(2); t.req(1, 0); t.req(2, 0); t.enter(3, 0); t.exit(4, 0); t.enter(5, 0)
case(P, "pass-fifo", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.req(1, 0); t.enter(12, 0)
case(P, "violation-late", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.req(1, 0)
case(P, "violation-never-served", t, "", quiet_ms=0, bound_ms=10, end_ms=20)
t = T(2); t.req(1, 0); t.crash(5, 1); t.enter(9, 0)
case(P, "violation-quiet-shifts-deadline", t, "deadline max(1, 5) + 3 = 8 ms", quiet_ms=5, bound_ms=3, end_ms=100)
t = T(2); t.req(1, 0)
case(P, "unjudged-open-at-end", t, "deadline 11 ms, run ends at 5 ms", quiet_ms=0, bound_ms=10, end_ms=5)
t = T(2); t.req(1, 0)
case(P, "unjudged-deadline-at-end", t, "deadline 11 ms = end", quiet_ms=0, bound_ms=10, end_ms=11)
t = T(2); t.req(1, 0)
case(P, "violation-deadline-1ns-before-end", t, "deadline 11 ms, end 11 ms + 1 ns", quiet_ms=0, bound_ms=10, end_ns=11 * MS + 1)

# ---------------------------------------------------------------- no_deadlock
P = "no_deadlock"
t = T(2); t.req(1, 0); t.enter(3, 0)
case(P, "pass-progress", t, "", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0); t.enter(4, 1); t.exit(8, 1); t.enter(12, 1); t.exit(16, 1); t.abandon(18, 0)
case(P, "pass-others-progress-excuses", t, "", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0); t.crash(2, 0)
case(P, "pass-crash-cancels", t, "", quiet_ms=2, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0)
case(P, "violation-standstill", t, "", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0); t.enter(3, 1); t.exit(10, 1)
case(P, "violation-gap", t, "7 ms without progress", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0); t.crash(10, 1); t.enter(16, 0)
case(P, "violation-after-quiet", t, "", quiet_ms=10, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0)
case(P, "unjudged-standstill-at-end", t, "deadline 6 ms, run ends at 6 ms", quiet_ms=0, bound_ms=5, end_ms=6)
t = T(2); t.req(1, 0); t.req(2, 1); t.abandon(4, 1)
case(P, "violation-abandon-is-not-progress", t, "1 gives up at 4 ms, but nobody entered: 0 still waits past 1 + 5 ms", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0); t.req(4, 1); t.abandon(5, 0); t.enter(8.5, 1)
case(P, "violation-oldest-abandons-while-another-waits", t, "0 waits from 1 ms and gives up at 5 ms while 1 waits from 4 ms: someone waited throughout, nobody entered until 8.5 ms, past 1 + 5 ms", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(2); t.req(1, 0); t.req(3, 1); t.abandon(4, 0); t.req(4, 0); t.abandon(6, 1); t.req(6, 1); t.abandon(8, 0); t.req(8, 0); t.enter(9, 1)
case(P, "violation-abandon-churn", t, "two nodes give up and ask again in turn: a request is always pending from 1 ms, nobody enters until 9 ms", quiet_ms=0, bound_ms=5, end_ms=100)
t = T(1); t.req(1, 0)
for k in range(1, 50): t.abandon(1 + 3 * k, 0); t.req(1 + 3 * k, 0)
t.enter(150, 0)
case(P, "violation-give-up-and-ask-again-at-one-instant", t, "0 gives up and asks again at one instant every 3 ms: a request is pending throughout from 1 ms, nobody enters until 150 ms", quiet_ms=0, bound_ms=5, end_ms=300)
t = T(2); t.req(1, 0); t.abandon(3, 0); t.req(4, 1); t.enter(8.5, 1)
case(P, "pass-a-new-wait-after-a-gap", t, "the only request is given up at 3 ms; nobody waits until 1 asks at 4 ms and enters within 5 ms of it", quiet_ms=0, bound_ms=5, end_ms=100)

# ---------------------------------------------------------------- election_termination
P = "election_termination"
t = T(3); t.leader(1, 0, None); t.leader(5, 0, 2)
case(P, "pass-ends", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None); t.crash(2, 0)
case(P, "pass-crash-cancels", t, "", quiet_ms=2, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None); t.leader(8, 0, None, 1); t.leader(11, 0, 1, 1)
case(P, "pass-second-start-keeps-first", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None); t.leader(12, 0, 2)
case(P, "violation-late", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None)
case(P, "violation-never-ends", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None); t.leader(8, 0, None, 1); t.leader(12, 0, 1, 1)
case(P, "violation-second-start-keeps-first", t, "deadline from the first start: 11 ms", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.leader(1, 0, None); t.leader(2, 0, 7)
case(P, "violation-out-of-range-leader-does-not-end", t, "nodes = 2: naming node 7 ends nothing", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None)
case(P, "unjudged-open-at-end", t, "", quiet_ms=0, bound_ms=10, end_ms=5)

# ---------------------------------------------------------------- leader_agreement
P = "leader_agreement"
t = T(3); t.all(1, [0, 1, 2], 2)
case(P, "pass-agree", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 2); t.crash(5, 2); t.all(8, [0, 1], 1)
case(P, "pass-agree-after-crash", t, "", quiet_ms=5, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, 2, 0); t.leader(1, 1, 2, 1); t.leader(1, 2, 2, 2)
case(P, "pass-terms-differ", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.leader(1, 0, 5); t.all(2, [0, 1], 1)
case(P, "pass-after-out-of-range-name", t, "nodes = 2: 0 first names node 5 (does not exist), then both agree on 1", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, 2); t.leader(1, 1, 2); t.leader(1, 2, 1)
case(P, "violation-never-agree", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 2); t.crash(5, 2)
case(P, "violation-dead-leader", t, "", quiet_ms=5, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 2); t.leader(20, 0, None, 1)
case(P, "violation-ends-disagreeing", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1], 1)
case(P, "violation-silent-node", t, "node 2 never reports", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, 2); t.leader(1, 1, 2); t.leader(1, 2, 1)
case(P, "unjudged-ended-before-quiet-plus-bound", t, "", quiet_ms=0, bound_ms=10, end_ms=5)
t = T(3); t.all(1, [0, 1, 2], 2); t.leader(95, 0, None, 1)
case(P, "unjudged-ends-disagreeing-within-bound", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.crash(1, 2)
case(P, "unjudged-no-report-at-all", t, "no node ever reports: no election happened, nothing to agree on", quiet_ms=1, bound_ms=10, end_ms=100)
t = T(3); t.all(50, [0, 1, 2], 2)
case(P, "pass-first-report-after-quiet-plus-bound", t, "nobody had reported by quiet + bound = 10 ms: agreement is owed only at the end", quiet_ms=0, bound_ms=10, end_ms=100)

# ---------------------------------------------------------------- leader_validity (highest id)
P = "leader_validity"
t = T(3); t.all(1, [0, 1, 2], 2)
case(P, "pass-highest", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.partition(0, [[2]]); t.all(1, [0, 1], 1); t.leader(1, 2, 2)
case(P, "pass-highest-reachable", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, None); t.all(1, [1, 2], 2)
case(P, "pass-no-leader-not-judged", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 1)
case(P, "violation-not-highest", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 2); t.crash(5, 2)
case(P, "violation-crashed-leader", t, "", quiet_ms=5, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 2); t.leader(50, 0, 1)
case(P, "violation-later-report", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 2); t.leader(50, 0, 7)
case(P, "violation-out-of-range-leader", t, "nodes = 3: node 7 does not exist (main's checker says violation too, but because phantom node 7 then outranks node 2)", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.leader(1, 0, 7); t.all(2, [0, 1, 2], 2)
case(P, "violation-out-of-range-name-before-quiet-plus-bound", t, "nodes = 3: 0 names node 7 (does not exist) before quiet + bound, then all name 2: no node can ever be node 7, reported at any time", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.all(1, [0, 1, 2], 1)
case(P, "unjudged-ended-before-quiet-plus-bound", t, "", quiet_ms=0, bound_ms=10, end_ms=5)
t = T(3); t.all(1, [0, 1, 2], 1); t.crash(4, 2)
case(P, "pass-best-crashed", t, "all name 1 below 2, then 2 crashes: 1 is the best live node at quiet + bound", quiet_ms=4, bound_ms=10, end_ms=100)

# ---------------------------------------------------------------- deadlock_completeness
P = "deadlock_completeness"
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.dd(5, 0)
case(P, "pass-reported", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.we(8, 1, 0)
case(P, "pass-broken-in-time", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 2)
case(P, "pass-no-cycle", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0)
case(P, "violation-unreported", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.dd(5, 2)
case(P, "violation-reported-by-non-member", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.dd(1, 0); t.wf(2, 0, 1); t.wf(2, 1, 0)
case(P, "violation-report-before-forming", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.dd(2, 0); t.wf(2, 1, 0, observer=2)
case(P, "pass-report-listed-before-another-nodes-closing-edge", t, "node 2 closes 0-1-0 at the instant 0 reports, listed after the report: nothing orders two nodes' events of one instant, so the report may have come after", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.dd(2, 0); t.wf(2, 1, 0, observer=0)
case(P, "violation-report-before-own-closing-edge-same-instant", t, "the reporter itself closes 0-1-0 after reporting, at the same instant: its own order says the report came first", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.we(12, 1, 0)
case(P, "violation-broken-too-late", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 1, 2); t.wf(1, 2, 0); t.wf(1, 1, 0); t.wf(2, 0, 1); t.we(3, 1, 0)
case(P, "violation-second-cycle-of-closing-edge", t, "0 -> 1 closes 0-1-0 and 0-1-2-0; 1 -> 0 ends at 3 ms, 0-1-2-0 persists unreported", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0)
case(P, "unjudged-open-at-end", t, "", quiet_ms=0, bound_ms=10, end_ms=5)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.we(5, 1, 0, observer=2)
case(P, "unjudged-edge-ended-by-a-node-that-never-observed-it", t, "node 2 ends 1 -> 0, which only node 0 observed, before the cycle's deadline: the graph after it is unknown (stop 74: the cycle passed as broken)", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.wf(1, 0, 1); t.wf(1, 1, 0); t.we(50, 1, 0, observer=2)
case(P, "violation-unreported-before-an-end-by-a-node-that-never-observed-it", t, "the cycle's deadline (11 ms) passed before node 2's end of an edge it never observed", quiet_ms=0, bound_ms=10, end_ms=100)

# ---------------------------------------------------------------- replica_agreement
P = "replica_agreement"
t = T(3); t.state(1, 0, "a"); t.state(1, 1, "a"); t.state(1, 2, "a")
case(P, "pass-agree", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.state(1, 0, "a")
case(P, "unjudged-one-reporter", t, "one of three replicas reported: nothing to compare", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.inp(1, 0); t.state(2, 0, "$1100"); t.state(7, 1, "$1100")
case(P, "unjudged-a-replica-never-reported", t, "0 and 1 end in $1100; 2 never reported a state (the update may never have reached it): it cannot be compared, so the run is not judged, never a pass", quiet_ms=0, bound_ms=10, end_ms=500)
t = T(1); t.state(1, 0, "a")
case(P, "pass-one-node-run", t, "a one-node run's replica agrees with itself", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(2); t.state(1, 0, "a"); t.state(2, 1, "b"); t.state(3, 0, "b")
case(P, "pass-last-state-counts", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.state(1, 0, "a"); t.state(1, 1, "b")
case(P, "violation-disagree", t, "", quiet_ms=0, bound_ms=10, end_ms=100)
t = T(3); t.state(1, 0, "a"); t.state(1, 1, "a"); t.crash(2, 1); t.state(3, 0, "b")
case(P, "violation-crashed-replica-stale", t, "", quiet_ms=2, bound_ms=10, end_ms=100)
t = T(3); t.state(1, 0, "a"); t.state(1, 1, "a"); t.crash(2, 1); t.restart(3, 1); t.state(4, 0, "b")
case(P, "violation-restarted-keeps-old", t, "", quiet_ms=3, bound_ms=10, end_ms=100)
t = T(3); t.state(1, 0, "a"); t.state(1, 1, "b")
case(P, "unjudged-disagree-before-quiet-plus-bound", t, "the run ends 5 ms after the faults stopped, within the 10 ms an update takes to reach every replica: one may be on its way", quiet_ms=0, bound_ms=10, end_ms=5)
t = T(2); t.state(1, 0, "a"); t.state(1, 1, "a"); t.inp(50, 0); t.state(50, 0, "b")
case(P, "unjudged-disagree-within-bound-of-last-input", t, "input at 50 ms, run ends at 55 ms: the update may still reach node 1 by 60 ms", quiet_ms=0, bound_ms=10, end_ms=55)
t = T(2); t.state(1, 0, "a"); t.state(1, 1, "a"); t.inp(50, 0); t.state(50, 0, "b")
case(P, "violation-disagree-past-bound-of-last-input", t, "input at 50 ms, run ends at 70 ms: node 1 never caught up", quiet_ms=0, bound_ms=10, end_ms=70)

def main():
    for d in os.listdir(HERE):
        if os.path.isdir(os.path.join(HERE, d)):
            shutil.rmtree(os.path.join(HERE, d))
    for prop, name, t, note, params in CASES:
        d = os.path.join(HERE, prop)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name + ".jsonl"), "w") as f:
            f.write(json.dumps({"sincro_trace": 1, "nodes": t.nodes}) + "\n")
            for e in t.ev:
                f.write(json.dumps(e) + "\n")
        p = dict(params)
        if note:
            p["note"] = note
        with open(os.path.join(d, name + ".params.json"), "w") as f:
            f.write(json.dumps(p, indent=1) + "\n")
    print(len(CASES), "cases")

main()
