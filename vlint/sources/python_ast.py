"""Python files: ``LLM(...)``, ``EngineArgs(...)``, ``AsyncEngineArgs(...)``, Ray Serve
``LLMConfig(...)`` and ``subprocess`` launches of ``vllm serve``, read with :mod:`ast` only — nothing
is imported or executed.

* Calls count only when the name comes from vLLM (``from vllm import LLM``, ``import vllm`` +
  ``vllm.LLM``, ``from vllm.engine.arg_utils import AsyncEngineArgs``) or from ``ray.serve.llm``;
  an ``LLM`` class of another library is not vLLM's.
* Keyword names are ``EngineArgs`` fields; the first positional argument is the model.
* Values are evaluated statically: literals, module-level constants and local assignments in
  order (``cmd = [...]``, ``cmd += [...]``, ``cmd.append(x)``), ``dict(...)``, ``str()``/``int()``/
  ``float()`` of known values, ``" ".join(...)``, conditional expressions with known tests,
  ``os.getenv(NAME, default)`` / ``os.environ.get(NAME, default)`` (the default is what runs unless
  the environment says otherwise), and ``module.NAME`` of a sibling module the file imports
  (``import config`` + ``config.MAX_MODEL_LEN``), and the parameters of a function the module
  itself calls exactly once (that call's arguments, else the parameters' defaults). Everything else —
  other function parameters, ``os.environ[...]``, calls — is unresolved.
* ``subprocess.Popen/run/call/check_call/check_output``, ``os.system`` and
  ``asyncio.create_subprocess_exec/shell``: an argv list is read like a command line (``vllm serve
  MODEL …``, ``python -m vllm.entrypoints.openai.api_server …``); a string with ``shell=True`` is
  read as a shell command.

Usage context: ``LLM_CLASS`` for ``LLM(...)``; ``ENGINE_CONTEXT`` for ``EngineArgs``/``AsyncEngineArgs``
(``LLMEngine``/``AsyncLLMEngine.from_engine_args`` default to it); Ray's ``LLMConfig`` runs with the
server's context (see :mod:`vlint.sources.ray_serve`).
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

from vlint.core.invocation import LLM_CLASS, Entry, Fact, Invocation, Token
from vlint.core.record import field, record
from vlint.core.span import PositionMap, Span
from vlint.core.typing_names import Any
from vlint.sources import ray_serve
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText, set_head
from vlint.sources.containers.dockerfile import Container, Piece, container_launches, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.sniffing import python as sniff  # noqa: F401 - re-exported: callers use python_ast.sniff

NAME = "python"
ENGINE_CONTEXT = "ENGINE_CONTEXT"

_VLLM_CLASSES = {"LLM": "LLM", "EngineArgs": "EngineArgs", "AsyncEngineArgs": "AsyncEngineArgs"}
_SUBPROCESS = {"Popen", "run", "call", "check_call", "check_output"}
_MAX_STEPS = 200_000


# -- values --------------------------------------------------------------------------------------
@record(slots=True)
class V:
    """An evaluated expression: ``value`` when ``known``; lists hold :class:`V` items, dicts map keys
    to ``(key node, V)``. ``node`` is where it was written."""

    value: Any
    node: ast.AST
    known: bool = True
    #: a list that may hold more items than vlint knows (appended under an unknown condition)
    opaque: bool = False
    #: ``sep.join(items)``: the list it was joined from (for ``Popen(" ".join(cmd), shell=True)``)
    parts: V | None = None


def _unknown(node: ast.AST) -> V:
    return V(None, node, known=False)


def plain(v: V) -> Any:
    """A :class:`V` as plain Python data (unknown parts become None)."""
    if not v.known:
        return None
    if isinstance(v.value, list):
        return [plain(i) for i in v.value]
    if isinstance(v.value, dict):
        return {k: plain(iv) for k, (_kn, iv) in v.value.items()}
    return v.value


def fully_known(v: V) -> bool:
    if not v.known or v.opaque:
        return False
    if isinstance(v.value, list):
        return all(fully_known(i) for i in v.value)
    if isinstance(v.value, dict):
        return all(fully_known(iv) for _kn, iv in v.value.values())
    return True


# -- positions -----------------------------------------------------------------------------------
class _Lines:
    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.split("\n")

    def col(self, line: int, byte_col: int) -> int:
        """ast columns are UTF-8 byte offsets; spans count characters."""
        if 1 <= line <= len(self.lines):
            return len(self.lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1
        return byte_col + 1

    def span(self, node: ast.AST) -> Span:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self.col(line, getattr(node, "col_offset", 0))
        end_col = self.col(end_line, getattr(node, "end_col_offset", None) or 0)
        return Span(self.path, line, col, end_line, end_col)

    def keyword_span(self, kw: ast.keyword) -> Span:
        s = self.span(kw)
        return Span(self.path, s.line, s.column, s.line, s.column + len(kw.arg or ""))

    def source(self, node: ast.AST) -> str:
        s = self.span(node)
        if s.line == s.end_line and 1 <= s.line <= len(self.lines):
            return self.lines[s.line - 1][s.column - 1 : s.end_column - 1]
        try:
            return ast.unparse(node)
        except RecursionError:  # ast.unparse recurses: hundreds of nested operators (---…-x) exceed the limit
            return "…"


# -- the evaluator -------------------------------------------------------------------------------
@record(slots=True)
class _Imports:
    #: local name → what it stands for: "vllm", "vllm:LLM", "ray.serve.llm:LLMConfig", "subprocess",
    #: "subprocess:Popen", "os", "os.environ", "shutil", "asyncio", "module:<path>"
    names: dict[str, str] = field(default_factory=dict)


class _Module:
    """One Python file: its imports, module-level constants and the calls vlint is after."""

    def __init__(
        self, src: SourceText, read_file: ReadFile, depth: int = 0, environ: dict[str, Token] | None = None
    ) -> None:
        self.src = src
        #: the environment the module runs with, where a config that runs it says (a Ray Serve
        #: application's ``runtime_env.env_vars``): ``os.getenv(NAME, default)`` reads it first
        self.environ = environ or {}
        self.read_file = read_file
        self.depth = depth
        self.lines = _Lines(src.path, src.text)
        self.imports = _Imports()
        self.globals: dict[str, V] = {}
        self.calls: list[tuple[ast.Call, dict[str, V]]] = []
        self._seen_calls: set[int] = set()
        self.siblings: dict[str, _Module | None] = {}
        self.linked: list[Path] = []
        self.steps = 0
        with warnings.catch_warnings():  # "invalid escape sequence" and the like are the file's, not vlint's output
            warnings.simplefilter("ignore")
            self.tree = ast.parse(src.text, filename=src.path)

    # ---- walking
    def run(self) -> None:
        functions: list[tuple[ast.AST, dict[str, V]]] = []
        self._walk(self.tree.body, self.globals, functions)
        sites: dict[str, list[ast.Call]] | None = None
        while functions:
            fn, outer = functions.pop(0)
            scope = dict(self.globals)
            scope.update({k: v for k, v in outer.items() if k not in self.globals})
            args = getattr(fn, "args", None)
            if isinstance(args, ast.arguments):
                if sites is None:
                    sites = self._call_sites()
                bound = self._bind(fn, args, outer, sites.get(getattr(fn, "name", ""), []))
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                    if a is not None:
                        scope[a.arg] = bound.get(a.arg) or _unknown(a)
            self._walk(getattr(fn, "body", []), scope, functions)

    def _call_sites(self) -> dict[str, list[ast.Call]]:
        """Calls by a plain name anywhere in the module (``launch_vllm_server()``), by that name."""
        out: dict[str, list[ast.Call]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                out.setdefault(node.func.id, []).append(node)
        return out

    def _bind(self, fn: ast.AST, args: ast.arguments, outer: dict[str, V], sites: list[ast.Call]) -> dict[str, V]:
        """A function's parameters as the module's own call of it gives them: when the module calls it by
        name exactly once (``if __name__ == "__main__": launch()``), each parameter is that call's argument
        (evaluated with the module's names), else its default (evaluated where the ``def`` is). Called
        never, more than once, with ``*args``/``**kw``, or as a method: the parameters stay unknown."""
        if len(sites) != 1 or not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            return {}
        call = sites[0]
        positional = [*args.posonlyargs, *args.args]
        if positional and positional[0].arg in ("self", "cls"):
            return {}
        if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
            return {}
        if len(call.args) > len(positional) and args.vararg is None:
            return {}  # the call would fail
        out: dict[str, V] = {}
        for param, value in zip(positional, call.args, strict=False):
            out[param.arg] = self.eval(value, self.globals)
        names = {a.arg for a in [*positional, *args.kwonlyargs]}
        for kw in call.keywords:
            if kw.arg not in names and args.kwarg is None:
                return {}
            out[kw.arg or ""] = self.eval(kw.value, self.globals)
        with_default = positional[len(positional) - len(args.defaults) :]
        defaults = dict(zip([a.arg for a in with_default], args.defaults, strict=True))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None})
        for param in [*positional, *args.kwonlyargs]:
            if param.arg in out:
                continue
            if param.arg not in defaults:
                return {}  # a required parameter the call leaves out: it would fail
            out[param.arg] = self.eval(defaults[param.arg], outer)
        return out

    def _walk(self, body: list[ast.stmt], scope: dict[str, V], functions: list[tuple[ast.AST, dict[str, V]]]) -> None:
        for stmt in body:
            self.steps += 1
            if self.steps > _MAX_STEPS:
                return
            for expr in _header_exprs(stmt):
                self._scan(expr, scope)
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                self._import(stmt)
            elif isinstance(stmt, ast.Assign):
                value = self.eval(stmt.value, scope)
                for t in stmt.targets:
                    self._assign(t, value, scope)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self._assign(stmt.target, self.eval(stmt.value, scope), scope)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                cur = scope.get(stmt.target.id, _unknown(stmt.target))
                rhs = self.eval(stmt.value, scope)
                scope[stmt.target.id] = _binop(stmt.op, cur, rhs, stmt)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                self._mutation(stmt.value, scope)
            elif isinstance(stmt, ast.If):
                test = self.eval(stmt.test, scope)
                if test.known:
                    self._walk(stmt.body if test.value else stmt.orelse, scope, functions)
                else:
                    self._branches([stmt.body, stmt.orelse], scope, functions)
            elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
                if isinstance(stmt, ast.For | ast.AsyncFor):
                    self._assign(stmt.target, _unknown(stmt.target), scope)
                self._branches([stmt.body + stmt.orelse, []], scope, functions)
            elif isinstance(stmt, ast.With | ast.AsyncWith):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        self._assign(item.optional_vars, _unknown(item.optional_vars), scope)
                self._walk(stmt.body, scope, functions)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                self._walk(stmt.body, scope, functions)  # type: ignore[attr-defined]
                self._branches([h.body for h in stmt.handlers] + [[]], scope, functions)  # type: ignore[attr-defined]
                self._walk(stmt.orelse + stmt.finalbody, scope, functions)  # type: ignore[attr-defined]
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.append((stmt, dict(scope)))
                scope[stmt.name] = _unknown(stmt)
            elif isinstance(stmt, ast.ClassDef):
                self._walk(stmt.body, dict(scope), functions)
                scope[stmt.name] = _unknown(stmt)
            elif type(stmt).__name__ == "Match":
                cases = getattr(stmt, "cases", [])
                self._branches([c.body for c in cases] + [[]], scope, functions)

    def _branches(
        self, bodies: list[list[ast.stmt]], scope: dict[str, V], functions: list[tuple[ast.AST, dict[str, V]]]
    ) -> None:
        """Bodies of which any one may run: names they change end up unknown unless all agree."""
        results = []
        for b in bodies:
            s = dict(scope)
            self._walk(b, s, functions)
            results.append(s)
        for name in {n for r in results for n in r}:
            vals = [r.get(name) for r in results]
            first = vals[0]
            if all(v is not None and first is not None and _same(v, first) for v in vals):
                scope[name] = first  # type: ignore[assignment]
                continue
            base = scope.get(name)
            if base is not None and isinstance(base.value, list) and base.known:
                # a list some branch extends: what it held before, and maybe more
                scope[name] = V(list(base.value), base.node, True, opaque=True)
            else:
                scope[name] = _unknown(first.node if first is not None else ast.Pass())

    def _assign(self, target: ast.AST, value: V, scope: dict[str, V]) -> None:
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if value.known and isinstance(value.value, list) and len(value.value) == len(target.elts):
                for t, v in zip(target.elts, value.value, strict=True):
                    self._assign(t, v, scope)
            else:
                for t in target.elts:
                    self._assign(t, _unknown(t), scope)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, _unknown(target), scope)

    def _mutation(self, call: ast.Call, scope: dict[str, V]) -> None:
        """``cmd.append(x)`` / ``cmd.extend([...])`` / ``cmd.insert(i, x)`` / ``d.update(...)``."""
        f = call.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)):
            return
        name = f.value.id
        cur = scope.get(name)
        if cur is None or not cur.known:
            return
        if isinstance(cur.value, list):
            items = list(cur.value)
            if f.attr == "append" and len(call.args) == 1:
                items.append(self.eval(call.args[0], scope))
            elif f.attr == "extend" and len(call.args) == 1:
                ext = self.eval(call.args[0], scope)
                if not (ext.known and isinstance(ext.value, list)):
                    scope[name] = V(items, cur.node, True, opaque=True)
                    return
                items.extend(ext.value)
            elif f.attr == "insert" and len(call.args) == 2:
                pos = self.eval(call.args[0], scope)
                if not (pos.known and isinstance(pos.value, int)):
                    scope[name] = V(items, cur.node, True, opaque=True)
                    return
                items.insert(pos.value, self.eval(call.args[1], scope))
            else:
                return
            scope[name] = V(items, cur.node, True, opaque=cur.opaque)
        elif isinstance(cur.value, dict) and f.attr == "update":
            upd = self.eval(call.args[0], scope) if call.args else V({}, call)
            merged = dict(cur.value)
            if upd.known and isinstance(upd.value, dict):
                merged.update(upd.value)
            for kw in call.keywords:
                if kw.arg is not None:
                    merged[kw.arg] = (kw, self.eval(kw.value, scope))
            scope[name] = V(merged, cur.node, upd.known)

    def _import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        names = self.imports.names
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                local = a.asname or a.name.split(".")[0]
                names[local] = a.name if a.asname else a.name.split(".")[0]
                if a.name not in ("os", "subprocess", "shutil", "asyncio", "vllm") and "." not in a.name:
                    names[local] = "module:" + a.name
                if a.asname and a.name == "ray.serve.llm":
                    names[local] = "ray.serve.llm"
            return
        mod = stmt.module or ""
        for a in stmt.names:
            local = a.asname or a.name
            if mod == "vllm" or mod.startswith("vllm."):
                names[local] = f"vllm:{a.name}"
            elif mod.startswith("ray.serve.llm"):
                names[local] = f"ray.serve.llm:{a.name}"
            elif mod in ("subprocess", "os", "shutil", "asyncio"):
                names[local] = f"{mod}:{a.name}"
            elif mod == "os" and a.name == "environ":
                names[local] = "os.environ"
            elif stmt.level >= 1 and not mod:
                names[local] = "module:" + a.name
            elif stmt.level == 0 and "." not in mod and mod:
                names[local] = f"from:{mod}:{a.name}"

    # ---- calls of interest
    def _scan(self, expr: ast.AST, scope: dict[str, V]) -> None:
        for node in _walk_expr(expr):
            if isinstance(node, ast.Call) and id(node) not in self._seen_calls and self._kind(node) is not None:
                self._seen_calls.add(id(node))
                self.calls.append((node, dict(scope)))

    def _callee(self, f: ast.AST) -> str | None:
        """The qualified thing a call target names, through this file's imports."""
        if isinstance(f, ast.Name):
            return self.imports.names.get(f.id)
        if isinstance(f, ast.Attribute):
            base = self._callee(f.value)
            if base is None:
                return None
            if base in ("vllm", "ray.serve.llm"):
                return f"{base}:{f.attr}"  # vllm.LLM → vllm:LLM; vllm.engine.arg_utils.X → vllm:engine.arg_utils.X
            return f"{base}.{f.attr}"
        return None

    def _kind(self, call: ast.Call) -> str | None:
        q = self._callee(call.func)
        if q is None:
            return None
        if q.startswith("vllm:") or q.startswith("vllm."):
            name = q.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
            return _VLLM_CLASSES.get(name)
        if q.startswith("ray.serve.llm") and q.rsplit(":", 1)[-1].rsplit(".", 1)[-1] == "LLMConfig":
            return "LLMConfig"
        if q in ("subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call"):
            return "subprocess"
        if q == "subprocess.check_output" or (q.startswith("subprocess:") and q[11:] in _SUBPROCESS):
            return "subprocess"
        if q in ("os.system", "os:system"):
            return "shell"
        if q in ("asyncio.create_subprocess_exec", "asyncio:create_subprocess_exec"):
            return "exec_args"
        if q in ("asyncio.create_subprocess_shell", "asyncio:create_subprocess_shell"):
            return "shell"
        return None

    # ---- expressions
    def eval(self, node: ast.AST, scope: dict[str, V], depth: int = 0) -> V:
        return _bounded(self._eval(node, scope, depth))

    def _eval(self, node: ast.AST, scope: dict[str, V], depth: int) -> V:
        if depth > 50:
            return _unknown(node)
        ev = self.eval
        if isinstance(node, ast.Constant):
            return V(node.value, node)
        if isinstance(node, ast.Name):
            v = scope.get(node.id)
            if v is None:
                return _unknown(node)
            return v
        if isinstance(node, ast.JoinedStr):
            out = []
            size = 0
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                elif isinstance(part, ast.FormattedValue):
                    pv = ev(part.value, scope, depth + 1)
                    if not pv.known or part.format_spec is not None or isinstance(pv.value, list | dict):
                        return _unknown(node)
                    out.append(str(pv.value))
                size += len(out[-1]) if out else 0
                if size > MAX_VALUE_CHARS:
                    return _unknown(node)
            return V("".join(out), node)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items: list[V] = []
            opaque = False
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    sv = ev(e.value, scope, depth + 1)
                    if sv.known and isinstance(sv.value, list):
                        items.extend(sv.value)
                        opaque = opaque or sv.opaque
                    else:
                        opaque = True
                else:
                    iv = ev(e, scope, depth + 1)
                    # an item is shown where the list names it, whatever it is bound to
                    items.append(V(iv.value, e, iv.known, iv.opaque, iv.parts))
            return V(items, node, True, opaque=opaque)
        if isinstance(node, ast.Dict):
            d: dict[Any, tuple[ast.AST, V]] = {}
            known = True
            for k, val in zip(node.keys, node.values, strict=True):
                if k is None:
                    sv = ev(val, scope, depth + 1)
                    if sv.known and isinstance(sv.value, dict):
                        d.update(sv.value)
                    else:
                        known = False
                    continue
                kv = ev(k, scope, depth + 1)
                if not kv.known or isinstance(kv.value, list | dict):
                    known = False
                    continue
                d[kv.value] = (k, ev(val, scope, depth + 1))
            return V(d, node, known)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, scope)
        if isinstance(node, ast.Call):
            return self._call(node, scope, depth)
        if isinstance(node, ast.BinOp):
            return _binop(node.op, ev(node.left, scope, depth + 1), ev(node.right, scope, depth + 1), node)
        if isinstance(node, ast.UnaryOp):
            o = ev(node.operand, scope, depth + 1)
            if not o.known:
                return _unknown(node)
            try:
                if isinstance(node.op, ast.Not):
                    return V(not o.value, node)
                if isinstance(node.op, ast.USub) and isinstance(o.value, int | float):
                    return V(-o.value, node)
                if isinstance(node.op, ast.UAdd) and isinstance(o.value, int | float):
                    return V(o.value, node)
            except TypeError:
                pass
            return _unknown(node)
        if isinstance(node, ast.IfExp):
            t = ev(node.test, scope, depth + 1)
            if t.known and not isinstance(t.value, list | dict):
                return ev(node.body if t.value else node.orelse, scope, depth + 1)
            return _unknown(node)
        if isinstance(node, ast.BoolOp):
            vals = [ev(v, scope, depth + 1) for v in node.values]
            for v in vals:
                if not v.known:
                    return _unknown(node)
                truthy = bool(plain(v))
                if isinstance(node.op, ast.Or) and truthy:
                    return v
                if isinstance(node.op, ast.And) and not truthy:
                    return v
            return vals[-1]
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = ev(node.left, scope, depth + 1), ev(node.comparators[0], scope, depth + 1)
            if a.known and b.known and fully_known(a) and fully_known(b):
                pa, pb = plain(a), plain(b)
                op = node.ops[0]
                if isinstance(op, ast.Eq):
                    return V(pa == pb, node)
                if isinstance(op, ast.NotEq):
                    return V(pa != pb, node)
                if isinstance(op, ast.Is) and pb is None:
                    return V(pa is None, node)
                if isinstance(op, ast.IsNot) and pb is None:
                    return V(pa is not None, node)
            return _unknown(node)
        if isinstance(node, ast.Subscript):
            base = ev(node.value, scope, depth + 1)
            key = ev(node.slice, scope, depth + 1)
            if base.known and key.known:
                try:
                    if isinstance(base.value, dict) and key.value in base.value:
                        return base.value[key.value][1]
                    if isinstance(base.value, list) and isinstance(key.value, int) and not base.opaque:
                        return base.value[key.value]
                except (IndexError, TypeError):
                    pass
            return _unknown(node)
        return _unknown(node)

    def _attribute(self, node: ast.Attribute, scope: dict[str, V]) -> V:
        if isinstance(node.value, ast.Name) and node.value.id not in scope:
            q = self.imports.names.get(node.value.id, "")
            if q.startswith("module:"):
                mod = self._sibling(q[len("module:") :])
                if mod is not None and node.attr in mod.globals:
                    return mod.globals[node.attr]
        return _unknown(node)

    def _sibling(self, name: str) -> _Module | None:
        """A module next to this file that it imports (``import config``), read once."""
        if name in self.siblings:
            return self.siblings[name]
        self.siblings[name] = None
        if self.depth >= 2:
            return None
        path = self.src.abspath.parent / (name.replace(".", "/") + ".py")
        try:
            src = self.read_file(path)
            mod = _Module(src, self.read_file, self.depth + 1, self.environ)
            mod.run_globals()
        except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        self.siblings[name] = mod
        self.linked.append(path)
        return mod

    def run_globals(self) -> None:
        self._walk(self.tree.body, self.globals, [])

    def _call(self, node: ast.Call, scope: dict[str, V], depth: int) -> V:
        ev = self.eval
        f = node.func
        q = self._callee(f) or ""
        fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        args = [ev(a, scope, depth + 1) for a in node.args if not isinstance(a, ast.Starred)]
        if q in ("os.getenv", "os:getenv", "os.environ.get", "os:environ.get") or (
            isinstance(f, ast.Attribute) and f.attr == "get" and self._callee(f.value) in ("os.environ", "os:environ")
        ):
            name = args[0].value if args and args[0].known and isinstance(args[0].value, str) else None
            if name is not None and name in self.environ:
                tok = self.environ[name]
                return _unknown(node) if tok.unresolved else V(tok.text, node)
            if len(node.args) >= 2:
                return ev(node.args[1], scope, depth + 1)
            for kw in node.keywords:
                if kw.arg == "default":
                    return ev(kw.value, scope, depth + 1)
            return _unknown(node)
        if q in ("shutil.which", "shutil:which") and args and args[0].known and isinstance(args[0].value, str):
            return V(args[0].value, node)
        if isinstance(f, ast.Name) and f.id not in scope:
            if fname in ("int", "float", "str", "bool") and len(args) == 1:
                a = args[0]
                if a.known and not isinstance(a.value, list | dict):
                    try:
                        conv = {"int": int, "float": float, "str": str, "bool": bool}[fname]
                        return V(conv(a.value), node)
                    except (TypeError, ValueError):
                        return _unknown(node)
                return _unknown(node)
            if fname == "dict" and not node.args:
                return V({kw.arg: (kw, ev(kw.value, scope, depth + 1)) for kw in node.keywords if kw.arg}, node)
            if fname in ("list", "tuple") and len(args) == 1 and args[0].known and isinstance(args[0].value, list):
                return V(list(args[0].value), node, True, opaque=args[0].opaque)
        if isinstance(f, ast.Attribute) and f.attr == "join" and len(args) == 1:
            sep = ev(f.value, scope, depth + 1)
            lst = args[0]
            if sep.known and isinstance(sep.value, str) and lst.known and isinstance(lst.value, list):
                texts = [plain(i) for i in lst.value]
                joined = sum(len(str(t)) for t in texts) + len(sep.value) * max(len(texts) - 1, 0)
                if all(i.known for i in lst.value) and not lst.opaque and joined <= MAX_VALUE_CHARS:
                    return V(sep.value.join(str(t) for t in texts), node, True, parts=lst)
                return V(None, node, False, parts=lst)
        return _unknown(node)


#: values vlint keeps track of: longer strings, longer lists/dicts and larger integers become unknown
#: (``s = s + s`` forty times, ``n = n * n``: the file would otherwise take all memory and time)
MAX_VALUE_CHARS = 100_000
MAX_ITEMS = 10_000
MAX_INT_BITS = 4096


def _bounded(v: V) -> V:
    if not v.known:
        return v
    x = v.value
    if isinstance(x, str):
        big = len(x) > MAX_VALUE_CHARS
    elif isinstance(x, list):
        big = len(x) > MAX_ITEMS or sum(len(i.value) for i in x if isinstance(i.value, str)) > MAX_VALUE_CHARS
    elif isinstance(x, dict):
        big = len(x) > MAX_ITEMS
    elif isinstance(x, int) and not isinstance(x, bool):
        big = x.bit_length() > MAX_INT_BITS
    else:
        big = False
    return _unknown(v.node) if big else v


def _same(a: V, b: V) -> bool:
    return a.known == b.known and a.opaque == b.opaque and fully_known(a) and fully_known(b) and plain(a) == plain(b)


def _binop(op: ast.operator, a: V, b: V, node: ast.AST) -> V:
    if isinstance(op, ast.Add) and a.known and b.known:
        if isinstance(a.value, list) and isinstance(b.value, list):
            return V(a.value + b.value, node, True, opaque=a.opaque or b.opaque)
        if isinstance(a.value, str) and isinstance(b.value, str):
            return V(a.value + b.value, node)
    if isinstance(a.value, list) and a.known and not b.known and isinstance(op, ast.Add):
        return V(list(a.value), node, True, opaque=True)
    if a.known and b.known and isinstance(a.value, int | float) and isinstance(b.value, int | float):
        try:
            ops = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y}
            fn = ops.get(type(op))
            if fn is not None:
                return V(fn(a.value, b.value), node)
            if isinstance(op, ast.FloorDiv) and b.value:
                return V(a.value // b.value, node)
            if isinstance(op, ast.Div) and b.value:
                return V(a.value / b.value, node)
        except (OverflowError, TypeError):
            pass
    return _unknown(node)


def _header_exprs(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself (not those of nested bodies)."""
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [i.context_expr for i in stmt.items]
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        return [*stmt.decorator_list, *stmt.args.defaults, *(d for d in stmt.args.kw_defaults if d is not None)]
    if isinstance(stmt, ast.ClassDef):
        return [*stmt.decorator_list]
    if isinstance(stmt, ast.Try) or type(stmt).__name__ in ("TryStar", "Match"):
        return [getattr(stmt, "subject", None)] if hasattr(stmt, "subject") else []
    return [stmt]


def _walk_expr(node: ast.AST) -> list[ast.AST]:
    """Nodes of an expression, not descending into lambdas or nested definitions."""
    out: list[ast.AST] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        out.append(n)
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                stack.append(child)
    return out


# -- invocations ---------------------------------------------------------------------------------
#: Python sources larger than this are not parsed: CPython's AST takes about 500 bytes per node
#: (1 MB of literals: 0.5 GB and 10 s); launch scripts are kilobytes
MAX_PYTHON_BYTES = 256 * 2**10


def extract_ray_serve(src: SourceText, read_file: ReadFile) -> SourceResult:
    """A Ray Serve config or RayService (:func:`vlint.sources.ray_serve.extract`), and the launches of each
    application whose ``import_path`` is a module of the repository (``vllm_serve:deployment`` →
    ``vllm_serve.py`` beside the config): the module's ``EngineArgs``/``LLM`` calls read with the
    application's ``runtime_env.env_vars`` as its environment (``os.getenv("MODEL_ID", default)`` is the
    variable's value there), anchored at the ``import_path``. A module the repository does not have, or
    one that cannot be read, yields nothing (the config's other launches stand)."""
    result = ray_serve.extract(src, read_file)
    for app in ray_serve.custom_applications(src):
        if app.remote:
            result.notes.append(
                f"{app.label} runs {app.import_path} from runtime_env.working_dir {app.remote}, code vlint does "
                "not read: a vLLM launch it starts is not checked"
            )
            continue
        path = src.abspath.parent / app.module
        try:
            module_src = read_file(path)
        except SourceError:
            continue
        sub = _extract(module_src, read_file, app.env)
        if sub.error is not None or not sub.invocations:
            continue
        result.linked.append(path)
        for inv in sub.invocations:
            inv.head = app.span
            inv.label = f"{app.label} ({app.import_path}): {inv.label or inv.program} in {module_src.path}"
            for name, tok in app.env.items():
                inv.env.setdefault(name, tok)
            for key, fact in app.facts.items():
                inv.facts.setdefault(key, fact)
            if not app.uploaded:
                inv.facts["linked_by_name"] = Fact(
                    module_src.path,
                    app.span,
                    f"{module_src.path} is taken for the module {app.import_path} imports (no working_dir names it)",
                )
            result.invocations.append(inv)
    return result


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    return _extract(src, read_file, None)


def _extract(src: SourceText, read_file: ReadFile, environ: dict[str, Token] | None) -> SourceResult:
    result = SourceResult()
    if len(src.text) > MAX_PYTHON_BYTES:
        size = len(src.text.encode("utf-8", "surrogatepass")) / 2**10
        result.error = SourceError(
            f"Python source too large to parse ({size:,.0f} KiB; vlint reads Python files up to "
            f"{MAX_PYTHON_BYTES // 2**10} KiB)"
        )
        return result
    try:
        mod = _Module(src, read_file, environ=environ)
    except SyntaxError as e:
        result.error = SourceError(f"Python syntax error: {e.msg}", e.lineno, e.offset)
        return result
    except (ValueError, RecursionError) as e:
        result.error = SourceError(f"cannot read this Python file: {e}")
        return result
    except MemoryError:  # CPython's parser on thousands of nested unary operators or lambdas
        result.error = SourceError("cannot read this Python file: too deeply nested for Python's parser")
        return result
    mod.run()
    result.assignments.extend(_secret_literals(mod))
    retried = _retries(mod)
    for call, scope in mod.calls:
        kind = mod._kind(call)
        if id(call) in retried:
            continue
        if kind in ("LLM", "EngineArgs", "AsyncEngineArgs"):
            result.invocations.append(_engine_call(call, kind, scope, mod))
        elif kind == "LLMConfig":
            inv = ray_serve.invocation(_llm_config_site(call, scope, mod))
            if inv is not None:
                result.invocations.append(inv)
        elif kind is not None:
            _process_call(call, kind, scope, mod, result)
    result.linked.extend(mod.linked)
    return result


def _retries(mod: _Module) -> set[int]:
    """Engine constructions that repeat an earlier one of the same function word for word
    (``AsyncEngineArgs(**attempt)`` in a retry loop and again after it, a ``try``/``except`` that
    builds the same ``LLM(**cfg)`` once more): one launch, reported at its first call. Identical calls
    in different functions stay apart (each function's names may hold other values)."""
    engine = [c for c, _ in mod.calls if mod._kind(c) in ("LLM", "EngineArgs", "AsyncEngineArgs")]
    if len(engine) < 2:
        return set()
    wanted = {id(c) for c in engine}
    owner: dict[int, int] = {}

    def visit(node: ast.AST, fn: int) -> None:
        for child in ast.iter_child_nodes(node):
            here = id(child) if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) else fn
            if id(child) in wanted:
                owner[id(child)] = fn
            visit(child, here)

    visit(mod.tree, 0)
    seen: set[tuple[int, str]] = set()
    out: set[int] = set()
    for call in sorted(engine, key=lambda c: (c.lineno, c.col_offset)):
        key = (owner.get(id(call), -1), ast.dump(call))
        if key in seen:
            out.add(id(call))
        seen.add(key)
    return out


def _secret_literals(mod: _Module) -> list[tuple[str, Token]]:
    """String literals given to a name that holds credentials, anywhere in the module: keyword
    arguments (``OpenAI(api_key="sk-…")``, ``login(token=…)``) and assignments (``HF_TOKEN = "hf_…"``).
    They are the file's assignments for secret scanning (and masking); implicit concatenation
    (``"sk-" "abc"``) is one literal whose span covers every piece."""
    from vlint.security.secrets import SECRET_ENV

    out: list[tuple[str, Token]] = []
    for node in ast.walk(mod.tree):
        pairs: list[tuple[str, ast.AST]] = []
        if isinstance(node, ast.Call):
            pairs = [(kw.arg, kw.value) for kw in node.keywords if kw.arg]
        elif isinstance(node, ast.Assign):
            pairs = [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            pairs = [(node.target.id, node.value)]
        for name, value in pairs:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and SECRET_ENV.match(name):
                out.append((name, Token(value.value, mod.lines.span(value))))
    return out


def _entry(key: str, key_span: Span, value_node: ast.AST, v: V, mod: _Module) -> Entry:
    known = fully_known(v)
    items = tuple(mod.lines.span(i.node) for i in v.value) if v.known and isinstance(v.value, list) else ()
    value = plain(v) if known else mod.lines.source(value_node)
    return Entry(key, value, key_span, mod.lines.span(value_node), not known, items)


def _engine_call(call: ast.Call, kind: str, scope: dict[str, V], mod: _Module) -> Invocation:
    usage = LLM_CLASS if kind == "LLM" else ENGINE_CONTEXT
    inv = Invocation(source=NAME, program="LLM", span=mod.lines.span(call.func), usage_context=usage, label=kind)
    for k, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            inv.opaque_args = True
            continue
        if k == 0:
            inv.kwargs.append(_entry("model", mod.lines.span(a), a, mod.eval(a, scope), mod))
        else:
            inv.opaque_args = True  # later positional parameters differ between releases
    for kw in call.keywords:
        if kw.arg is None:
            spread = mod.eval(kw.value, scope)
            if spread.known and isinstance(spread.value, dict):
                for key, (knode, v) in spread.value.items():
                    inv.kwargs.append(_entry(str(key), mod.lines.span(knode), v.node, v, mod))
                if not fully_known(spread):
                    inv.opaque_args = True
            else:
                inv.opaque_args = True
            continue
        inv.kwargs.append(_entry(kw.arg, mod.lines.keyword_span(kw), kw.value, mod.eval(kw.value, scope), mod))
    return inv


def _fields(v: V, mod: _Module) -> dict[str, ray_serve.Field]:
    """A ``dict(...)``/``{...}`` value as Ray config fields."""
    out: dict[str, ray_serve.Field] = {}
    if not (v.known and isinstance(v.value, dict)):
        return out
    for key, (knode, iv) in v.value.items():
        kspan = mod.lines.keyword_span(knode) if isinstance(knode, ast.keyword) else mod.lines.span(knode)
        children = _fields(iv, mod) if iv.known and isinstance(iv.value, dict) else None
        items = tuple(mod.lines.span(i.node) for i in iv.value) if iv.known and isinstance(iv.value, list) else ()
        known = fully_known(iv)
        value = plain(iv) if known else mod.lines.source(iv.node)
        out[str(key)] = ray_serve.Field(value, kspan, mod.lines.span(iv.node), not known, children, items)
    return out


def _llm_config_site(call: ast.Call, scope: dict[str, V], mod: _Module) -> ray_serve.LLMConfigSite:
    fields: dict[str, ray_serve.Field] = {}
    for kw in call.keywords:
        if kw.arg is None:
            continue
        v = mod.eval(kw.value, scope)
        children = _fields(v, mod) if v.known and isinstance(v.value, dict) else None
        known = fully_known(v)
        value = plain(v) if known else mod.lines.source(kw.value)
        fields[kw.arg] = ray_serve.Field(
            value, mod.lines.keyword_span(kw), mod.lines.span(kw.value), not known, children
        )
    return ray_serve.LLMConfigSite(fields, mod.lines.span(call.func), "LLMConfig")


def _piece(v: V, mod: _Module) -> Piece:
    """One argv item: its text, shown where it is written."""
    span = mod.lines.span(v.node)
    pm = PositionMap(mod.lines.path, [(0, span.line, span.column)])
    if fully_known(v) and not isinstance(v.value, list | dict):
        text = str(v.value)
        m = Mapped()
        m.add(text, 0, max(1, span.end_column - span.column) if span.line == span.end_line else 1)
        return Piece(m, pm)
    m = Mapped()
    m.add_unresolved(mod.lines.source(v.node), 0, 1)
    return Piece(m, pm)


def _process_call(call: ast.Call, kind: str, scope: dict[str, V], mod: _Module, result: SourceResult) -> None:
    c = Container(NAME, "subprocess", {}, {}, mod.src.abspath.parent, mod.read_file)
    shell = any(
        kw.arg == "shell" and isinstance(kw.value, ast.Constant) and kw.value.value is True for kw in call.keywords
    )
    if kind == "exec_args":
        argv_v = V([mod.eval(a, scope) for a in call.args if not isinstance(a, ast.Starred)], call)
        if any(isinstance(a, ast.Starred) for a in call.args):
            argv_v.opaque = True
    else:
        if not call.args:
            for kw in call.keywords:
                if kw.arg == "args":
                    argv_v = mod.eval(kw.value, scope)
                    break
            else:
                return
        else:
            argv_v = mod.eval(call.args[0], scope)
    if isinstance(argv_v.value, str) or argv_v.parts is not None or kind == "shell":
        if argv_v.parts is not None and (shell or kind == "shell"):
            argv_v = argv_v.parts  # " ".join(cmd) through a shell: the words of cmd
        elif argv_v.known and isinstance(argv_v.value, str) and (shell or kind == "shell"):
            span = mod.lines.span(argv_v.node)
            m = Mapped()
            m.add(argv_v.value, 0, 0)
            found = script_launches(Piece(m, PositionMap(mod.lines.path, [(0, span.line, span.column)])), c)
            merge_result(found, result)
            return
        else:
            return
    if not (argv_v.known and isinstance(argv_v.value, list)):
        return
    pieces = [_piece(i, mod) for i in argv_v.value]
    if argv_v.opaque:
        m = Mapped()
        m.add_unresolved("${…}", 0, 1)  # items added under a condition vlint cannot decide
        span = mod.lines.span(argv_v.node)
        pieces.append(Piece(m, PositionMap(mod.lines.path, [(0, span.line, span.column)]), opaque=True))
    found = container_launches([], pieces, c)
    set_head(found.invocations, mod.lines.span(argv_v.node))  # the list argv is built in
    merge_result(found, result)
