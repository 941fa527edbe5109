"""Credentials written in files: where they are, and how to show them (masked, never in full).

The plaintext-secret rule reports them; every output masks them, whether or not that rule runs (a
code frame of another finding on the same line must not print the token either). Two ways a secret
could leak, and how each is closed:

- **its value** in a message, a fix, JSON ``data``: every spelling of every secret of the run is
  replaced (:meth:`Redactor.text`) — by the variable it came from (``${HF_TOKEN}``) where it reached a
  launch through one, else by its first four characters and ``****``;
- **its source text** in a code frame or a diff: the value as written can differ from the value
  (``"sk-proj-qz60"'abcd…'``, a line continuation, a YAML block scalar, Python's implicit
  concatenation), so the characters of the secret's *span* are masked too (:meth:`Redactor.line`),
  and the exact text found there becomes one more spelling to mask wherever it appears again
  (the edited line of a ``fix --diff``).

Shapes of well-known credentials (``hf_…``, ``sk-…``, ``AKIA…``, ``ghp_…``, ``https://user:pass@``,
``Bearer …``, the credentials of every ``Authorization: <scheme> <credentials>`` header, ``Basic``
credentials, and base64 that decodes to one of those token shapes) are masked in every output even
where nothing marked them as secrets.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable, Iterable, Iterator

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import Span

#: names whose value is a credential: ``HF_TOKEN``, ``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``,
#: ``*PASSWORD*``, ``aws_secret_access_key``… (any case: env files and Python are often lower case)
SECRET_ENV = lazy_compile(
    r"^(HF_TOKEN|HUGGING_FACE_HUB_TOKEN|HUGGINGFACE_HUB_TOKEN|HUGGINGFACEHUB_API_TOKEN|HF_API_TOKEN|"
    r"VLLM_API_KEY|OPENAI_API_KEY|TOKEN|API[_-]?KEY|[A-Z0-9_.-]*[_.-]API[_-]?KEY|[A-Z0-9_.-]*[_.-]TOKEN|"
    r"[A-Z0-9_.-]*SECRET[A-Z0-9_.-]*|[A-Z0-9_.-]*PASSW(OR)?D[A-Z0-9_.-]*|[A-Z0-9_.-]*ACCESS[_-]?KEY(_ID)?|"
    r"[A-Z0-9_.-]*PRIVATE[_-]?KEY|AUTHORIZATION)$",
    re.IGNORECASE,
)
#: values that are placeholders, not secrets; also the words every tool ships as its default login
#: (``GF_SECURITY_ADMIN_PASSWORD=admin`` is Grafana's own default, admin/admin:
#: https://grafana.com/docs/grafana/latest/setup-grafana/configure-grafana/#admin_password): whoever
#: reads them learns nothing they could not guess, so writing them down leaks no secret. Not so the key
#: vLLM's own documentation starts its server with (``--api-key token-abc123``,
#: docs/serving/openai_compatible_server.md): it is a server's key, which anyone can then guess, so it
#: is reported like any other written key
_PLACEHOLDER = lazy_compile(
    r"^(|<.*>|\{.*\}|\[.*\]|x+|X+|\*+|\.\.\.|changeme|change-me|your[-_a-z]*|replace[-_a-z]*|none|null|"
    r"token|secret|dummy|empty|fake|placeholder|example|sk-\.\.\.|hf_\.\.\.|true|false|0|1|"
    r"admin|password|root|guest|test|default)$",
    re.IGNORECASE,
)
#: a number (``PRICE_PER_PROMPT_TOKEN=0.000008``): a price, a count or a limit, not a credential
_NUMBER = lazy_compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
#: an all-caps word stands for a value (``hf_token: HUGGINGFACE_TOKEN``); an all-caps *token* (letters
#: and digits, no underscore, 16 or more) is one
_VARIABLE_NAME = lazy_compile(r"^[A-Z][A-Z0-9_]*$")
_CAPS_TOKEN = lazy_compile(r"^(?=[A-Z0-9]*[0-9])(?=[A-Z0-9]*[A-Z])[A-Z0-9]{16,}$")
#: values shaped like real credentials, whatever variable holds them (linear: no nested repeats)
TOKEN_SHAPES = lazy_compile(
    r"(hf_[A-Za-z0-9]{30,}|sk-[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|"
    r"github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,})"
)
#: what every TOKEN_SHAPES match contains, lower-cased (a cheap test before the pattern runs)
_TOKEN_PREFIXES = ("hf_", "sk-", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox")
#: any of them (one search in C instead of a test per prefix)
_ANY_TOKEN_PREFIX = lazy_compile("|".join(re.escape(p) for p in _TOKEN_PREFIXES))
#: ``scheme://user:password@host``: the password (group 1)
URL_CREDENTIALS = lazy_compile(r"[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/@]{0,200}:([^\s/@]{1,200})@")
#: ``Authorization: Bearer <token>`` (JSON headers, curl lines): the token (group 1)
BEARER = lazy_compile(r"\b[Bb]earer[ \t]+([A-Za-z0-9._~+/=-]{8,})")
#: an auth-param value: a token or a quoted string, its quotes escaped any number of times (``\"…\"``
#: in a JSON string, ``\\\"…\\\"`` in JSON inside a JSON string)
_PARAM_VALUE = r'(?:\\*"(?:[^"\\\r\n]|\\+[^"\\\r\n])*\\*"|[a-z0-9._~+/-]+)'
_PARAM = r"[a-z0-9_-]+[ \t]*=[ \t]*" + _PARAM_VALUE
#: ``Authorization: <scheme> <credentials>``, any scheme (Basic, Bearer, token, Digest…), any case, as a
#: YAML key, a JSON member (``"Authorization": "…"``, escaped or not), a curl ``-H`` or ``AUTHORIZATION=``:
#: the credentials (group 1) — a token68 or an auth-param list (Digest's ``username="…", response="…"``)
AUTHORIZATION = lazy_compile(
    r"\b(?:proxy-)?authorization(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:\\?[\"'][ \t]*)?"
    r"[a-z][a-z0-9._~+/-]*[ \t]+"
    rf"({_PARAM}(?:[ \t]*,[ \t]*{_PARAM})*|[a-z0-9._~+/-]+=*(?![a-z0-9._~+/=*-]))",
    re.IGNORECASE,
)
#: ``Basic <base64>`` wherever it is written (a header given as ``name:``/``value:`` items): the
#: credentials (group 1), masked when they decode to ``user:password``
BASIC = lazy_compile(r"\bbasic[ \t]+([a-z0-9+/]{4,}={0,2})(?![a-z0-9+/=*])", re.IGNORECASE)
#: a run that may be base64 (standard or URL-safe) long enough to hold a token shape
_BASE64_RUN = lazy_compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
#: a reference to a variable, not a value (``${HF_TOKEN}``, ``$HF_TOKEN``)
_REFERENCE = lazy_compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*")
_IDENTIFIER = lazy_compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@record(frozen=True, slots=True)
class Secret:
    name: str
    value: str
    span: Span
    where: str
    #: other spellings of the same secret (a Kubernetes Secret's base64 text)
    spellings: tuple[str, ...] = ()

    @property
    def masked(self) -> str:
        return mask(self.value)

    @property
    def shown(self) -> str:
        """How messages quote it: the variable it is held in (``${HF_TOKEN}``), else masked."""
        return "${" + self.name + "}" if _IDENTIFIER.match(self.name) else self.masked


def mask(value: str) -> str:
    """``hf_AbcDef…`` → ``hf_A****``: enough to recognise, never enough to use."""
    v = value.strip().strip("'\"")
    if len(v) <= 8:
        return "****"
    return v[:4] + "****"


def _mask_keep_width(text: str) -> str:
    keep = 4 if len(text) > 8 else 0
    return text[:keep] + "*" * (len(text) - keep)


def is_secret_value(value: str) -> bool:
    v = value.strip().strip("'\"")
    if not v or _PLACEHOLDER.match(v) or "$" in v or "{{" in v:
        return False
    if _VARIABLE_NAME.match(v) and not _CAPS_TOKEN.match(v):
        return False
    return not _NUMBER.match(v)


def token_shaped(value: str) -> bool:
    """Does ``value`` hold a well-known credential shape (``hf_`` and 30 or more letters and digits)? A
    shape of one repeated character (``hf_XXXX…``) still counts: it is what a redacted real token looks
    like, and a file that once held the real one has it in its history."""
    return TOKEN_SHAPES.search(value) is not None


def _looks_secret(name: str, value: str) -> bool:
    return bool(SECRET_ENV.match(name) and is_secret_value(value)) or token_shaped(value)


def _embedded(value: str) -> Iterator[str]:
    """Credentials inside a longer value: URL passwords, bearer tokens, ``Authorization`` headers,
    well-known token shapes, plain or base64-encoded. Each pattern runs only on a value holding what
    every match of it holds (most values are short words: no pattern runs)."""
    low = value.lower()
    for rx, needle in ((URL_CREDENTIALS, "://"), (BEARER, "bearer"), (AUTHORIZATION, "authorization")):
        if needle in low:
            for m in rx.finditer(value):
                if is_secret_value(m.group(1)):
                    yield m.group(1)
    if "basic" in low:
        for m in BASIC.finditer(value):
            if _is_basic_credentials(m.group(1)):
                yield m.group(1)
    if _ANY_TOKEN_PREFIX.search(low):
        for m in TOKEN_SHAPES.finditer(value):
            yield m.group(0)
    if len(value) < 20:  # the shortest base64 run the pattern takes
        return
    for m in _BASE64_RUN.finditer(value):
        if _encodes_token(m.group(0)):
            yield m.group(0)


def _decoded_run(text: str) -> str | None:
    """A base64 run (standard or URL-safe, padding optional) decoded as Latin-1, or None."""
    bare = text.rstrip("=")
    if len(bare) % 4 == 1:
        return None
    padded = bare + "=" * (-len(bare) % 4)
    import base64  # only for a candidate run: not on every start

    try:
        if "-" in padded or "_" in padded:
            raw = base64.urlsafe_b64decode(padded)
        else:
            raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("latin-1")


def _encodes_token(text: str) -> bool:
    """Is ``text`` base64 of something holding a well-known token shape (``hf_…``, ``user:ghp_…``)?"""
    decoded = _decoded_run(text)
    return decoded is not None and TOKEN_SHAPES.search(decoded) is not None


def _is_basic_credentials(text: str) -> bool:
    """Do ``Basic`` credentials decode to ``user:password`` (so ``basic settings`` is left alone)?"""
    decoded = _decoded_run(text)
    return decoded is not None and ":" in decoded and decoded.isprintable()


def decoded_base64(text: str) -> str | None:
    """A Kubernetes ``Secret.data`` value decoded (text only), or None."""
    t = "".join(text.split())
    import base64

    try:
        raw = base64.b64decode(t, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        out = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return out.strip() or None


# -- showing text without them -------------------------------------------------------------------
LineSource = Callable[[str], "list[str] | None"]


@record(slots=True)
class Redactor:
    """Hides every secret of a run wherever a report would print it (see the module docstring).

    ``lines`` gives a file's lines by display path (the text the run read); it is used to find how
    each secret is written at its span."""

    secrets: list[Secret]
    lines: LineSource = field(default=lambda path: None)
    _values: dict[str, str] = field(default_factory=dict)
    _raw: set[str] = field(default_factory=set)
    _spans: dict[tuple[str, int], list[tuple[int, int]]] = field(default_factory=dict)
    _order: list[str] = field(default_factory=list)
    _raw_order: list[str] = field(default_factory=list)
    _ready: bool = False
    #: text() by input: a report passes the same strings (model names, GPU names, notes) many times
    _shown: dict[str, str] = field(default_factory=dict)

    def _prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        for s in self.secrets:
            for v in (s.value, *s.spellings):
                v = v.strip()
                if len(v) >= 4:
                    self._values.setdefault(v, s.shown)
            self._add_span(s)
        self._order = sorted(self._values, key=len, reverse=True)
        self._raw_order = sorted((r for r in self._raw if r not in self._values), key=len, reverse=True)

    def _add_span(self, s: Secret) -> None:
        sp = s.span
        src = self.lines(sp.path)
        last = sp.end_line if sp.end_line >= sp.line else sp.line
        for n in range(sp.line, last + 1):
            text = src[n - 1] if src is not None and 1 <= n <= len(src) else None
            lo = sp.column - 1 if n == sp.line else 0
            hi = sp.end_column - 1 if n == last and sp.end_column > 0 else (len(text) if text is not None else 10**9)
            if text is not None:
                raw = text[lo:hi]
                # a span that starts with the variable's name (``HF_TOKEN=hf_…``): mask the value only
                if n == sp.line and raw.startswith(s.name):
                    cut = len(s.name)
                    while cut < len(raw) and raw[cut] in "=: \t\"'":
                        cut += 1
                    lo += cut
                    raw = raw[cut:]
                if _REFERENCE.match(raw.strip().strip("'\"")):
                    continue  # the launch names the variable here; the value is elsewhere
                if len(raw.strip()) >= 4:
                    self._raw.add(raw.strip())
            if hi > lo:
                self._spans.setdefault((sp.path, n), []).append((lo, hi))

    def text(self, text: str) -> str:
        """A message, a fix, a JSON string: every secret replaced by how it may be shown."""
        done = self._shown.get(text)
        if done is None:
            done = self._shown[text] = self._text(text)
        return done

    def _text(self, text: str) -> str:
        self._prepare()
        for v in self._order:
            if v in text:
                text = text.replace(v, self._values[v])
        for r in self._raw_order:
            if r in text:
                text = text.replace(r, mask(r))
        return _mask_shapes(text, keep_width=False)

    def line(self, path: str, number: int, text: str) -> str:
        """A source line as a code frame or a diff shows it: the characters of every secret span on
        it, and every spelling of every secret, masked with the line's width kept."""
        self._prepare()
        chars = None
        for lo, hi in self._spans.get((path, number), ()):
            chars = chars if chars is not None else list(text)
            seg = text[lo:hi]
            masked = _mask_keep_width(seg)
            chars[lo : lo + len(seg)] = masked
        if chars is not None:
            text = "".join(chars)
        return self.fragment(text)

    def fragment(self, text: str) -> str:
        """Any text from a file (a diff's added line): every spelling masked, width kept."""
        self._prepare()
        for v in (*self._order, *self._raw_order):
            if v in text:
                text = text.replace(v, _mask_keep_width(v))
        return _mask_shapes(text, keep_width=True)


def _mask_shapes(text: str, *, keep_width: bool) -> str:
    hide = _mask_keep_width if keep_width else mask

    def group1(m: re.Match[str]) -> str:
        a, b = m.span(1)
        return m.group(0)[: a - m.start()] + hide(m.group(1)) + m.group(0)[b - m.start() :]

    def group1_if(test: Callable[[str], bool]) -> Callable[[re.Match[str]], str]:
        return lambda m: group1(m) if test(m.group(1)) else m.group(0)

    if len(text) >= 20:  # the shortest run _BASE64_RUN takes
        text = _BASE64_RUN.sub(lambda m: hide(m.group(0)) if _encodes_token(m.group(0)) else m.group(0), text)
    # each pattern runs only where the words it needs are (a report's every message passes here: most
    # hold none, and then the larger patterns are never compiled)
    low = text.lower()
    if _ANY_TOKEN_PREFIX.search(low):
        text = TOKEN_SHAPES.sub(lambda m: hide(m.group(0)), text)
    if "@" in text:
        text = URL_CREDENTIALS.sub(group1, text)
    if "authorization" in low:
        text = AUTHORIZATION.sub(group1_if(is_secret_value), text)
    if "earer" in text:
        text = BEARER.sub(group1, text)
    if "basic" in low:
        text = BASIC.sub(group1_if(_is_basic_credentials), text)
    return text


def redact(text: str, secrets: Iterable[str], *, keep_width: bool = False) -> str:
    """Replace every secret value in ``text`` (values only; reports use :class:`Redactor`, which also
    masks by span). ``keep_width`` pads the mask to the value's length."""

    def hide(v: str) -> str:
        m = mask(v)
        return m + "*" * (len(v) - len(m)) if keep_width and len(v) > len(m) else m

    for v in sorted(set(secrets), key=len, reverse=True):
        if v:
            text = text.replace(v, hide(v))
    return _mask_shapes(text, keep_width=keep_width)
