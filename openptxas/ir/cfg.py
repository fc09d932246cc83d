"""CFG analyses: reverse post-order, dominators and post-dominators (Cooper, Harvey and
Kennedy's iterative algorithm), loop depth."""

from __future__ import annotations

from dataclasses import dataclass

from openptxas.ir.core import Function, all_successors, invert


@dataclass
class CFG:
    succs: list[list[int]]
    preds: list[list[int]]

    @staticmethod
    def of(fn: Function, *, over_calls: bool = False) -> CFG:
        """``over_calls``: each function's own control flow (ir.core.successors)."""
        succs = all_successors(fn, over_calls=over_calls)
        return CFG(succs, invert(succs))  # (predecessors() would compute succs again)

    @property
    def n(self) -> int:
        return len(self.succs)


def reverse_postorder(succs: list[list[int]], entries: list[int]) -> list[int]:
    seen: set[int] = set()
    order: list[int] = []
    for e in entries:
        if e in seen:
            continue
        seen.add(e)
        stack: list[tuple[int, int]] = [(e, 0)]
        while stack:
            node, k = stack[-1]
            if k < len(succs[node]):
                stack[-1] = (node, k + 1)
                s = succs[node][k]
                if s not in seen:
                    seen.add(s)
                    stack.append((s, 0))
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def _idoms(succs: list[list[int]], preds: list[list[int]], entries: list[int]) -> list[int]:
    """Immediate dominators; -1 for unreachable nodes, the node itself for entries."""
    n = len(succs)
    rpo = reverse_postorder(succs, entries)
    index = {b: i for i, b in enumerate(rpo)}
    idom = [-1] * n
    for e in entries:
        idom[e] = e
    changed = True
    while changed:
        changed = False
        for b in rpo:
            if b in entries:
                continue
            new = -1
            for p in preds[b]:
                if idom[p] == -1:
                    continue
                if new == -1:
                    new = p
                    continue
                a, c = p, new
                while a != c:
                    while index[a] > index[c]:
                        a = idom[a]
                    while index[c] > index[a]:
                        c = idom[c]
                new = a
            if new != -1 and idom[b] != new:
                idom[b] = new
                changed = True
    return idom


def dominators(cfg: CFG, entries: list[int] | None = None) -> list[int]:
    """Immediate dominator of every block (entry block 0 dominates itself); ``entries``: the
    roots instead (a kernel's entry and its subroutines' in a CFG over calls)."""
    return _idoms(cfg.succs, cfg.preds, [0] if entries is None else entries)


EXIT_NODE = -2


def post_dominators(cfg: CFG) -> list[int]:
    """Immediate post-dominator of every block; EXIT_NODE when only the virtual exit
    post-dominates it (e.g. the branches of an if whose paths all leave the function)."""
    n = cfg.n
    exits = [i for i in range(n) if not cfg.succs[i]]
    # Reverse graph with a virtual exit node n.
    rsuccs: list[list[int]] = [list(cfg.preds[i]) for i in range(n)] + [exits]
    rpreds: list[list[int]] = [list(cfg.succs[i]) for i in range(n)] + [[]]
    for e in exits:
        rpreds[e].append(n)
    # Blocks in infinite loops cannot reach an exit: give them the virtual exit too.
    idom = _idoms(rsuccs, rpreds, [n])
    return [EXIT_NODE if d in (n, -1) else d for d in idom[:n]]


class Dominance:
    """``dominates`` in constant time: the (post-)dominator forest of ``idom`` numbered in
    depth-first pre- and post-order once, so that a dominates b iff a's interval encloses b's
    (walking b's dominator chain per query was quadratic on long chains of blocks)."""

    def __init__(self, idom: list[int]) -> None:
        n = len(idom)
        children: list[list[int]] = [[] for _ in range(n)]
        roots = []
        for x, d in enumerate(idom):
            if d == x or d < 0:
                roots.append(x)
            else:
                children[d].append(x)
        self.pre = [0] * n
        self.post = [0] * n
        clock = 0
        for root in roots:
            stack = [(root, False)]
            while stack:
                x, done = stack.pop()
                if done:
                    self.post[x] = clock
                    clock += 1
                    continue
                self.pre[x] = clock
                clock += 1
                stack.append((x, True))
                stack.extend((c, False) for c in children[x])

    def __call__(self, a: int, b: int) -> bool:
        """Whether a dominates b (a block dominates itself)."""
        return self.pre[a] <= self.pre[b] and self.post[b] <= self.post[a]


def natural_loops(cfg: CFG, dom: Dominance) -> list[tuple[int, frozenset[int]]]:
    """The natural loops (header, blocks) of each back edge (a branch to a block that
    dominates it), the loops of one header merged."""
    bodies: dict[int, set[int]] = {}
    for x in range(cfg.n):
        for h in cfg.succs[x]:
            if h < 0 or not dom(h, x):
                continue
            body = bodies.setdefault(h, {h})
            work = [x]
            while work:
                y = work.pop()
                if y in body:
                    continue
                body.add(y)
                work.extend(p for p in cfg.preds[y] if p >= 0)
    return [(h, frozenset(b)) for h, b in bodies.items()]
