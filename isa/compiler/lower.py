"""Statements and control flow: a Python kernel's AST becomes instructions (see :mod:`.ir`).

Life of a kernel: :class:`Lowerer` walks the function body with an environment mapping each variable to
its current value. Values are SSA-like: an assignment just rebinds the name, so copies cost nothing. Where
control flow joins (after ``if``/``else``, at a loop head) variables that differ get one merge register,
with moves at the end of each incoming path (:class:`~.ir.Slot`). Loops are lowered rotated (a guard, the
body, the condition at the bottom) and loops with a small constant trip count are unrolled, so their
index arithmetic folds into address offsets, as nvcc/LLVM do. Device functions are inlined
(:meth:`~.calls.Calls.inline`); the function being lowered, its loops and its variables' values are its
:class:`~.scope.Scope`. Variable types
follow numba: a variable has one type, the unification of everything assigned to it; a pass that finds a
wider type than assumed is repeated with the new types (:func:`~isa.compiler.compile_kernel`).
"""
from __future__ import annotations

import ast
from typing import Any, Callable

from ..errors import CompileError
from . import types as T
from .calls import Calls
from .expr import ArrayVal, Expr
from .ir import Builder, Const, Off, Reg, Slot, Value
from .scope import Gone, Loop, Scope
from .source import Source
from .values import Arith

UNROLL_MAX_TRIPS = 32
UNROLL_MAX_NODES = 1500
#: ``a op b`` as ``b op' a``: a bound read from either side of a comparison
_FLIPPED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Lt: ast.Gt, ast.LtE: ast.GtE}


class Lowerer(Arith, Expr, Calls):
    """Lowers one kernel (and the device functions it calls) into :attr:`b`, a :class:`~.ir.Builder`."""

    def __init__(self, func: Callable[..., Any], source: Source, var_types: dict, files: dict) -> None:
        self.b = Builder()
        self.var_types = var_types
        self.changed = False
        self.files = files
        self.shared_vars: list = []    # (symbol, space, nbytes or None for extern, align, init)
        self.arrays: dict = {}         # on-chip arrays by (scope, call node, space): one per call site
        self.nsyms = 0
        self.inline_depth = 0
        self.scope = Scope(func, source, (func, None), {})

    # ------------------------------------------------------------------ errors and locations
    def error(self, node: ast.AST, message: str, hint: str = "") -> CompileError:
        return self.scope.src.error(node, message, hint)

    def at(self, node: ast.AST) -> None:
        if hasattr(node, "lineno"):
            line, col = self.scope.src.position(node)
            self.b.loc = (self.files.setdefault(self.scope.src.file, len(self.files) + 1), line, col)

    # ------------------------------------------------------------------ variables
    def var_type(self, name: str) -> str | None:
        return self.var_types.get((self.scope.key, name))

    def assign_var(self, name: str, v: Any, node: ast.AST) -> None:
        """Bind ``name`` to ``v``. Like numba's SSA form, each assignment has its own type; types are
        unified only where paths meet (:meth:`join`, loop registers)."""
        old = self.scope.env.get(name)
        is_num = hasattr(v, "t") and isinstance(v.t, str)
        if old is not None and isinstance(old, ArrayVal) != isinstance(v, ArrayVal):
            raise self.error(node, f"variable '{name}' holds an array on one path and a number on another",
                             "one kind of value per variable")
        if not is_num and not isinstance(v, ArrayVal) and not hasattr(v, "items") and not hasattr(v, "obj"):
            raise self.error(node, f"cannot assign {self.describe(v)} to a variable")
        self.scope.env[name] = v

    def widen_to(self, key: tuple, t: str) -> str:
        """Record that the register for ``key`` needs type ``t`` (another pass uses it)."""
        old = self.var_types.get(key)
        u = T.unify(old, t)
        if u is None:
            raise RuntimeError(f"cannot unify {old} and {t}")
        if u != old:
            self.var_types[key] = u
            self.changed = True
        return u

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list[ast.stmt]) -> bool:
        """Lower a statement list; returns False when control cannot fall out of it."""
        for s in stmts:
            if self.scope.env is None:
                return False
            self.stmt(s)
        return self.scope.env is not None

    def stmt(self, node: ast.stmt) -> None:
        self.at(node)
        self.cur_node = node
        m = getattr(self, "s_" + type(node).__name__, None)
        if m is None:
            raise self.error(node, f"{type(node).__name__} statements are not supported in kernels",
                             "assignments, if/elif/else, for ... in range(...), while, break, continue, "
                             "return, calls")
        m(node)

    def s_Pass(self, node: ast.Pass) -> None:
        """``pass``: nothing to emit."""

    def s_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return                                        # docstring
        if not isinstance(node.value, ast.Call):
            raise self.error(node, "an expression statement without effect", "assign the result or remove it")
        self.expr(node.value, statement=True)

    def s_Assign(self, node: ast.Assign) -> None:
        v = self.expr(node.value)
        for target in node.targets:
            self.store_target(target, v, node)

    def s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        self.store_target(node.target, self.expr(node.value), node)

    def store_target(self, target: ast.expr, v: Any, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.assign_var(target.id, v, target)
        elif isinstance(target, ast.Subscript):
            self.store_item(target, v)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(v, len(target.elts), target)
            for t, item in zip(target.elts, items):
                self.store_target(t, item, node)
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__}",
                             "assign to a variable, an array element or a tuple of variables")

    def s_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            cur = self.name_value(node.target.id, node.target)
            self.assign_var(node.target.id, self.binop(node.op, cur, self.expr(node.value), node), node.target)
        elif isinstance(node.target, ast.Subscript):
            arr, space, mem, dtype = self.element(node.target)
            cur = self.load_element(space, mem, dtype)
            self.write_element(space, mem, dtype, self.binop(node.op, cur, self.expr(node.value), node), arr)
        else:
            raise self.error(node, "augmented assignment needs a variable or an array element")

    def s_Return(self, node: ast.Return) -> None:
        sc = self.scope
        if sc.ret is None:
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                raise self.error(node, "a kernel cannot return a value", "write results into an array argument")
            self.b.emit("bra", [], ["$L__exit"])
            sc.env = None
            return
        v = self.expr(node.value) if node.value is not None else Const(0, "i64")
        reg, label = sc.ret
        u = self.widen_to((sc.key, "<return>"), v.t)
        if reg is None:
            reg = sc.ret[0] = self.b.reg(u)
        self.b.emit(f"mov.{T.ptx(reg.t)}", [reg], [self.opnd(self.convert(v, reg.t))])
        self.b.emit("bra", [], [label])
        sc.env = None

    def s_If(self, node: ast.If) -> None:
        c = self.cond(node.test)
        if isinstance(c, Const):                       # decided at compile time: lower one side only
            self.block(node.body if c.value else node.orelse)
            return
        facts = self.guard_facts(node.test)

        def then() -> None:
            saved = dict(self.b.lower)
            for name, least in facts:
                if least > self.b.lower.get(name, least - 1):
                    self.b.lower[name] = least
            try:
                self.block(node.body)
            finally:
                self.b.lower = saved
        self.branch(c, then, (lambda: self.block(node.orelse)) if node.orelse else None)

    def guard_facts(self, test: ast.expr) -> list:
        """What an ``if`` test that holds says of its variables' least values: ``[(register, least)]`` from
        the comparisons of a variable with a constant it is made of (``0 < y``, ``y >= 1``, ``0 < y < h - 1
        and 0 < x < w - 1``), so that ``a[y - 1]`` in its body needs no negative-index wraparound, as LLVM
        proves for numba."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return [f for v in test.values for f in self.guard_facts(v)]
        if not isinstance(test, ast.Compare):
            return []
        out = []
        terms = [test.left] + list(test.comparators)
        for (left, right), op in zip(zip(terms, terms[1:]), test.ops):
            for var, bound, op_ in ((right, left, type(op)), (left, right, _FLIPPED.get(type(op)))):
                k = self.constant_int(bound)
                v = self.scope.env.get(var.id) if isinstance(var, ast.Name) and self.scope.env else None
                if k is None or op_ not in (ast.Lt, ast.LtE) or not isinstance(v, (Reg, Off)) \
                        or not T.is_signed(v.t) or T.bits(v.t) < 32:
                    continue
                least = k + 1 if op_ is ast.Lt else k          # k < v, k <= v
                name, c = (v.reg.name, v.c) if isinstance(v, Off) else (v.name, 0)
                out.append((name, least - int(c)))
        return out

    def constant_int(self, node: ast.expr) -> int | None:
        """``node``'s integer value where it is a literal or a name bound to a constant (None otherwise)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            k = self.constant_int(node.operand)
            return None if k is None else -k
        if isinstance(node, ast.Name) and self.scope.env:
            v = self.scope.env.get(node.id)
            if isinstance(v, Const) and T.is_int(v.t) and T.is_signed(v.t):
                return int(v.value)
        return None

    def branch(self, p: Reg, then: Callable[[], Any], otherwise: Callable[[], Any] | None) -> None:
        """``if p: then() else: otherwise()`` with the variables merged after it."""
        b = self.b
        l_else, l_end = b.label(), b.label()
        b.emit("bra", [], [l_else], guard=(p.name, True))
        snap = b.vt.snapshot()
        env0 = dict(self.scope.env)
        then()
        env_a, slot_a = self.scope.env, Slot()
        if env_a is not None:
            b.body.append(slot_a)
            b.emit("bra", [], [l_end])
        b.vt.restore(snap)
        b.place(l_else)
        self.scope.env = dict(env0)
        if otherwise is not None:
            otherwise()
        env_b, slot_b = self.scope.env, Slot()
        if env_b is not None:
            b.body.append(slot_b)
        b.place(l_end)
        b.vt.restore(snap)
        self.scope.env = self.join([(env_a, slot_a), (env_b, slot_b)])

    def join(self, paths: list[tuple[dict | None, Slot]]) -> dict | None:
        """The environment after paths meet: differing variables get a merge register, filled by moves in
        each path's slot."""
        live = [(e, s) for e, s in paths if e is not None]
        if not live:
            return None
        if len(live) == 1:
            return dict(live[0][0])
        out = {}
        names = dict.fromkeys(k for e, _ in live for k in e)     # in a fixed order (a set's would follow
                                                                 # the string hash: the merge moves' order)
        for name in names:
            vals = [self.resolved(e.get(name)) for e, _ in live]
            if all(v == vals[0] for v in vals):
                out[name] = vals[0]
                continue
            if any(v is None for v in vals) or not all(hasattr(v, "t") and isinstance(v.t, str) for v in vals):
                if all(isinstance(v, ArrayVal) or v is None for v in vals):
                    out[name] = next(v for v in vals if v is not None)
                continue                                 # defined on some paths only: undefined after
            t = vals[0].t
            for v in vals[1:]:
                t = T.unify(t, v.t)
            if t is None:
                raise self.error(self.cur_node, f"variable '{name}' holds incompatible types on different paths")
            m = self.b.reg(t)
            for (_e, slot), v in zip(live, vals):
                self.move_into(slot, m, v)
            out[name] = m
        return out

    def move_into(self, slot: Slot, reg: Reg, v: Value) -> None:
        """Append to ``slot`` the instructions setting ``reg`` to ``v`` (converted to its type)."""
        save, self.b.body = self.b.body, slot.moves
        try:
            v = self.convert(v, reg.t) if v.t != reg.t else v
            if reg.t == "b1":
                src = self.reg_of(v) if not isinstance(v, Const) else None
                if src is None:
                    self.b.emit("setp.ne.s32", [reg], ["1" if v.value else "0", "0"])
                else:
                    self.b.emit("mov.pred", [reg], [src.name])
            else:
                self.b.emit(f"mov.{T.ptx(reg.t)}", [reg], [self.opnd(v)])
        finally:
            self.b.body = save

    # ------------------------------------------------------------------ loops
    def s_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error(node, "while ... else is not supported", "a flag variable")
        self.loop(node.body, lambda: self.cond(node.test), None, node)

    def s_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node, "for ... else is not supported", "a flag variable")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and self.lookup_global(it.func.id, it.func) is range):
            raise self.error(it, "for loops iterate over range(start, stop, step) only",
                             "for i in range(n): ... or a while loop")
        if not isinstance(node.target, ast.Name) or it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(node, "for loops need one variable and range() with 1 to 3 arguments")
        args = [self.expr(a) for a in it.args]
        for a, n in zip(args, it.args):
            if not (hasattr(a, "t") and T.is_int(a.t) or getattr(a, "t", None) == "b1"):
                raise self.error(n, f"range() arguments must be integers, got {getattr(a, 't', type(a).__name__)}")
        t = "i64"
        for a in args:
            t = T.arith(t, a.t) if T.is_int(a.t) else t
        start, stop, step = (Const(0, t), args[0], Const(1, t)) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) == 3 else Const(1, t))
        start, stop, step = (self.convert(v, t) for v in (start, stop, step))
        if isinstance(step, Const) and step.value == 0:
            raise self.error(it, "range() step must not be zero")
        var = node.target.id
        if self.try_unroll(node, var, start, stop, step, t):
            return
        self.assign_var(var, start, node.target)

        def test() -> Const | Reg:
            i = self.scope.env[var]
            if isinstance(step, Const) or self.positive(step):
                return self.compare("lt" if not isinstance(step, Const) or step.value > 0 else "gt", i, stop, t)
            up = self.compare("gt", step, Const(0, t), t)
            lt, gt = self.compare("lt", i, stop, t), self.compare("gt", i, stop, t)
            a = self.b.op("and.pred", "b1", up.name, lt.name)
            nup = self.b.op("not.pred", "b1", up.name)
            c = self.b.op("and.pred", "b1", nup.name, gt.name)
            return self.b.op("or.pred", "b1", a.name, c.name)

        def increment() -> None:
            self.scope.env[var] = self.iadd(self.scope.env[var], step, t)
        counting_up = self.nonneg(start) and (isinstance(step, Const) and step.value > 0 or self.positive(step))
        self.loop(node.body, test, increment, node, induction=var, counting_up=counting_up)
        if self.scope.env is not None:
            self.scope.env[var] = Gone(f"the loop variable '{var}' is not available after its loop",
                                       "copy it into another variable inside the loop")

    def try_unroll(self, node: ast.For, var: str, start: Value, stop: Value, step: Value, t: str) -> bool:
        if not all(isinstance(v, Const) for v in (start, stop, step)):
            return False
        trips = len(range(start.value, stop.value, step.value))
        size = sum(1 for _ in ast.walk(ast.Module(body=node.body, type_ignores=[])))
        if trips > UNROLL_MAX_TRIPS or trips * size > UNROLL_MAX_NODES or _has(node.body, (ast.Break, ast.Continue)):
            return False
        if any(var in _assigned(s) for s in node.body):
            return False
        for k in range(start.value, stop.value, step.value):
            if self.scope.env is None:
                break
            self.assign_var(var, Const(k, t), node.target)
            self.block(node.body)
        return True

    def loop(self, body: list[ast.stmt], test: Callable[[], Const | Reg], increment: Callable[[], None] | None,
             node: ast.AST, induction: str | None = None, counting_up: bool = False) -> None:
        """A rotated loop: ``if test: do { body; increment } while (test)``."""
        b, sc = self.b, self.scope
        assigned = set()
        for s in body:
            assigned |= _assigned(s)
        if induction:
            assigned.add(induction)
        clobbers = _clobbers(body)
        for space in clobbers:
            b.vt.clobber(space)
        # loop-carried variables live in one register each across iterations
        regs, keys = {}, {}
        for name in sorted(assigned):
            cur = sc.env[name] = self.resolved(sc.env.get(name))
            if cur is None or not (hasattr(cur, "t") and isinstance(cur.t, str)):
                continue                      # first defined inside the loop (or an array): not carried
            key = (sc.key, name, id(node))
            t = self.widen_to(key, cur.t)
            r = regs[name] = b.reg(t)
            keys[name] = key
            if name == induction and counting_up:
                b.nonneg.add(r.name)
                least = self.least(cur) if T.is_signed(cur.t) else None
                if least is not None and least > 0:       # range(1, n): i - 1 needs no wraparound
                    b.lower[r.name] = least
            s = Slot()
            b.body.append(s)
            self.move_into(s, r, cur)
            sc.env[name] = r
        l_top, l_cont, l_exit = b.label(), b.label(), b.label()
        snap = b.vt.snapshot()
        p = test()
        b.vt.restore(snap)
        if isinstance(p, Const):
            if not p.value:
                return
        else:
            b.emit("bra", [], [l_exit], guard=(p.name, True))
        b.place(l_top)
        env_top = dict(sc.env)
        sc.loops.append(Loop(regs, l_cont, l_exit, keys))
        self.block(body)
        sc.loops.pop()
        if sc.env is not None:
            self.back_edge(Loop(regs, l_cont, l_exit, keys))
        b.place(l_cont)
        b.vt.restore(snap)
        sc.env = dict(env_top)
        if increment is not None:
            increment()
            for name, r in regs.items():
                v = sc.env[name]
                self.widen_to(keys[name], v.t)
                if v != r:
                    s = Slot()
                    b.body.append(s)
                    self.move_into(s, r, v)
                    sc.env[name] = r
        p = test()
        if isinstance(p, Const):
            if p.value:
                b.emit("bra", [], [l_top])
        else:
            b.emit("bra", [], [l_top], guard=(p.name, False))
        b.vt.restore(snap)
        b.place(l_exit)
        sc.env = dict(env_top)
        for space in clobbers:
            b.vt.clobber(space)

    def back_edge(self, lp: Loop) -> None:
        """Moves making the loop registers hold this path's values (end of body, continue, break)."""
        s = Slot()
        self.b.body.append(s)
        for name, r in lp.regs.items():
            v = self.resolved(self.scope.env.get(name))
            if v is not None and v != r:
                self.widen_to(lp.keys[name], v.t)
                self.move_into(s, r, v)

    def s_Break(self, node: ast.Break) -> None:
        self.leave_loop(node, "break", "exit")

    def s_Continue(self, node: ast.Continue) -> None:
        self.leave_loop(node, "continue", "cont")

    def leave_loop(self, node: ast.AST, what: str, label: str) -> None:
        """``break``/``continue``: this path's values into the loop registers, then a jump."""
        if not self.scope.loops:
            raise self.error(node, f"{what} outside a loop")
        lp = self.scope.loops[-1]
        self.back_edge(lp)
        self.b.emit("bra", [], [getattr(lp, label)])
        self.scope.env = None

    # ------------------------------------------------------------------ the kernel
    def lower_kernel(self, fdef: ast.FunctionDef, params: list[tuple[str, str | T.ArrayT]]) -> None:
        """Lower the kernel body; ``params``: (name, type) per Python argument."""
        env = self.scope.env
        for name, t in params:
            env[name] = self.param_value(name, t)
        self.block(fdef.body)
        self.b.place("$L__exit")
        self.b.emit("ret", [], [])


def _assigned(node) -> set:
    """Names assigned anywhere inside ``node`` (loop-carried candidates)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
    return out


def _has(stmts, kinds) -> bool:
    """Whether ``stmts`` hold a statement of ``kinds`` belonging to this loop (not to a nested one)."""
    def walk(nodes: list) -> bool:
        for n in nodes:
            if isinstance(n, kinds):
                return True
            if isinstance(n, (ast.For, ast.While)):
                continue
            for field in ("body", "orelse"):
                if walk(getattr(n, field, []) or []):
                    return True
        return False
    return walk(stmts)


_SYNC = {"syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "threadfence",
         "threadfence_block", "threadfence_system", "syncwarp"}


def _clobbers(stmts) -> set:
    """The memory spaces whose loads a loop body may invalidate (conservatively, by syntax)."""
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if any(isinstance(t, ast.Subscript) for t in targets):
                    out.add("all")
            elif isinstance(n, ast.Call):
                f = n.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in _SYNC or (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute)
                                     and f.value.attr == "atomic") or isinstance(f, ast.Name):
                    out.add("all")
    return out
