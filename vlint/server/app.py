"""``vlint server``: the Language Server Protocol plumbing (pygls) around :class:`Session`.

- Diagnostics are pushed (``textDocument/publishDiagnostics``) on open at once, and after a change
  once the buffer has been quiet for ``debounceMs`` (75 ms by default). A buffer whose lint read a
  file that changes (another buffer, a file saved or changed on disk) is linted again.
- Every lint, code action and hover runs on one worker thread, in order, so the event loop keeps
  reading messages and the session needs no locks; what the thread keeps between requests (the rule
  catalog, the argument schemas, model facts, the engine per configuration) is loaded once.
- A crash while linting one buffer is logged (``window/logMessage`` and stderr); that buffer's
  diagnostics are cleared and the server goes on serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from vlint import __version__
from vlint.core.typing_names import Any, TypeVar
from vlint.server import actions
from vlint.server.session import FIX_ALL_KIND, DocResult, Session
from vlint.server.setup import EditorSettings

log = logging.getLogger("vlint.server")
_T = TypeVar("_T")
CONFIG_NAMES = frozenset({"pyproject.toml", ".vlint.toml"})


def _path(uri: str) -> Path | None:
    """The file of a ``file:`` URI (None for ``untitled:`` and other schemes: not linted)."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


class VlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("vlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.session = Session()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vlint-lint")
        self.pending: dict[Path, asyncio.Task[None]] = {}
        #: the open documents (kept on the event loop's side; the session's copy lives on the worker)
        self.uris: dict[Path, str] = {}
        self.resolve_edits = False
        self.disabled_support = False
        self.markdown = True
        self.pull_configuration = False

    # -- the worker thread ---------------------------------------------------------------------
    async def on_worker(self, fn: Callable[..., _T], *args: Any) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    def log(self, level: types.MessageType, message: str) -> None:
        {types.MessageType.Error: log.error, types.MessageType.Warning: log.warning}.get(level, log.info)(message)
        with contextlib.suppress(Exception):  # the client is gone: nothing to tell
            self.window_log_message(types.LogMessageParams(type=level, message=message))

    # -- linting ------------------------------------------------------------------------------------
    def schedule(self, path: Path, delay: float | None = None) -> None:
        """Lint ``path`` once it has been quiet for ``delay`` seconds (the debounce)."""
        if delay is None:
            delay = self.session.settings.debounce_ms / 1000
        old = self.pending.pop(path, None)
        if old is not None:
            old.cancel()
        self.pending[path] = asyncio.get_running_loop().create_task(self._lint_later(path, delay))

    def schedule_all(self, paths: list[Path] | None = None, delay: float = 0.0) -> None:
        for p in paths if paths is not None else list(self.uris):
            self.schedule(p, delay)

    async def _lint_later(self, path: Path, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        if self.pending.get(path) is asyncio.current_task():
            del self.pending[path]
        await self.lint(path)

    async def lint(self, path: Path) -> None:
        uri = self.uris.get(path)
        if uri is None:  # closed meanwhile
            return
        try:
            result = await self.on_worker(self._lint_job, path)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.log(
                types.MessageType.Error,
                f"vlint: internal error while linting {path}: {type(e).__name__}: {e}; its diagnostics are "
                f"cleared, other files are still linted. This is a bug in vlint, please report it.\n"
                + traceback.format_exc(),
            )
            self.publish(uri, None, [])
            return
        if result is not None:
            if result.skipped:
                log.info("%s: %s", path, result.skipped)
            self.publish(uri, result.version, result.diagnostics)
            for q in result.relink:  # a --config buffer whose launch was just found (or lost)
                if q in self.uris:
                    self.schedule(q, 0.0)

    def _lint_job(self, path: Path) -> DocResult | None:
        return self.session.lint(path) if path in self.session.buffers else None

    def publish(self, uri: str, version: int | None, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics)
        )

    async def changed(self, path: Path) -> None:
        """``path`` changed (a buffer, or the file on disk): lint the buffers that read it."""
        deps = await self.on_worker(self.session.dependents, path)
        for p in deps:
            self.schedule(p)

    # -- settings -----------------------------------------------------------------------------------
    def apply_settings(self, value: Any) -> None:
        settings, problems = EditorSettings.from_json(value)
        for p in problems:
            self.log(types.MessageType.Warning, f"vlint: {p}")
        self.worker.submit(self.session.set_settings, settings)

    def folders(self) -> list[Path]:
        out = [_path(f.uri) for f in self.workspace.folders.values()]
        if not out and self.workspace.root_uri:
            out = [_path(self.workspace.root_uri)]
        return [p for p in out if p is not None]


server = VlintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: VlintServer, params: types.InitializeParams) -> None:
    caps = params.capabilities
    encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    ls.session.encoding = str(getattr(encoding, "value", encoding))
    workspace = caps.workspace
    edit_caps = workspace.workspace_edit if workspace else None
    ls.session.document_changes = bool(edit_caps and edit_caps.document_changes)
    ls.pull_configuration = bool(workspace and workspace.configuration)
    text = caps.text_document
    action = text.code_action if text else None
    resolve = action.resolve_support if action else None
    ls.resolve_edits = bool(resolve and "edit" in resolve.properties)
    ls.disabled_support = bool(action and action.disabled_support)
    hover = text.hover if text else None
    formats = hover.content_format if hover else None
    ls.markdown = formats is None or types.MarkupKind.Markdown in formats
    ls.session.set_folders(ls.folders())
    ls.apply_settings(params.initialization_options)
    ls.worker.submit(_warm_up)


def _warm_up() -> None:
    """Lint one launch from memory and hover on it, so that the rule catalog, the newest argument
    schema, the shell source, the model and GPU catalogs and the memory model and its report are
    loaded before the first buffer arrives."""
    import tempfile

    try:
        with tempfile.TemporaryDirectory(prefix="vlint-warm-up-") as tmp:
            path = Path(tmp) / "warm-up.sh"
            session = Session([Path(tmp)], EditorSettings(gpu="L4"))
            session.open(path.as_uri(), path, 0, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n")
            session.lint(path)
            session.hover(path, types.Position(line=0, character=1))
    except Exception:  # only a warm-up
        log.debug("warm-up failed", exc_info=True)


@server.feature(types.INITIALIZED)
async def initialized(ls: VlintServer, params: types.InitializedParams) -> None:
    caps = ls.client_capabilities.workspace
    watch = caps.did_change_watched_files if caps else None
    if watch and watch.dynamic_registration:
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="vlint-config-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[
                                    types.FileSystemWatcher(glob_pattern="**/{pyproject.toml,.vlint.toml}"),
                                    types.FileSystemWatcher(glob_pattern="**/*.{yaml,yml,env,sh,json}"),
                                    types.FileSystemWatcher(glob_pattern="**/.env"),
                                ]
                            ),
                        )
                    ]
                )
            )
        except Exception as e:
            log.info("file watching not registered: %s", e)
    if ls.pull_configuration:
        await _pull_configuration(ls)


async def _pull_configuration(ls: VlintServer) -> None:
    try:
        got = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="vlint")])
        )
    except Exception as e:
        log.info("workspace/configuration failed: %s", e)
        return
    if got and isinstance(got[0], dict):
        ls.apply_settings(got[0])
        ls.schedule_all()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: VlintServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    path = _path(doc.uri)
    if path is None:
        return
    ls.uris[path] = doc.uri
    ls.worker.submit(ls.session.open, doc.uri, path, doc.version, doc.text)
    ls.schedule(path, 0.0)
    await ls.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: VlintServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = _path(uri)
    if path is None:
        return
    doc = ls.workspace.get_text_document(uri)
    ls.worker.submit(ls.session.change, uri, path, params.text_document.version, doc.source)
    ls.schedule(path)
    await ls.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: VlintServer, params: types.DidSaveTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    if path.name in CONFIG_NAMES:
        ls.schedule_all()
    else:
        await ls.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: VlintServer, params: types.DidCloseTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is None:
        return
    ls.uris.pop(path, None)
    task = ls.pending.pop(path, None)
    if task is not None:
        task.cancel()
    deps = await ls.on_worker(ls.session.dependents, path)
    ls.worker.submit(ls.session.close, path)
    ls.publish(params.text_document.uri, None, [])
    for p in deps:  # they read the buffer; now they read the file on disk
        ls.schedule(p)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: VlintServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings
    if (settings is None or settings == {}) and ls.pull_configuration:
        await _pull_configuration(ls)
        return
    ls.apply_settings(settings)
    ls.schedule_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
async def did_change_watched_files(ls: VlintServer, params: types.DidChangeWatchedFilesParams) -> None:
    paths = [p for p in (_path(c.uri) for c in params.changes) if p is not None]
    if any(p.name in CONFIG_NAMES for p in paths):
        ls.schedule_all()
        return
    for p in paths:
        await ls.changed(p)


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_workspace_folders(ls: VlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    ls.worker.submit(ls.session.set_folders, ls.folders())
    ls.schedule_all()


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True),
)
async def code_action(ls: VlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    path = _path(params.text_document.uri)
    if path is None or path not in ls.uris:
        return None
    only = [str(getattr(k, "value", k)) for k in params.context.only] if params.context.only else None
    return await ls.on_worker(
        lambda: actions.code_actions(
            ls.session, path, params.range, only, resolve=ls.resolve_edits, disabled_support=ls.disabled_support
        )
    )


@server.feature(types.CODE_ACTION_RESOLVE)
async def code_action_resolve(ls: VlintServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    path = _path(str(data.get("uri", "")))
    if path is None or path not in ls.uris:
        return action
    return await ls.on_worker(actions.resolve_action, ls.session, path, action)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: VlintServer, params: types.HoverParams) -> types.Hover | None:
    path = _path(params.text_document.uri)
    if path is None or path not in ls.uris:
        return None
    return await ls.on_worker(ls.session.hover, path, params.position, ls.markdown)


@server.feature(types.SHUTDOWN)
def shutdown(ls: VlintServer, params: Any) -> None:
    for task in ls.pending.values():
        task.cancel()
    ls.pending.clear()
    ls.worker.shutdown(wait=False, cancel_futures=True)


def main(log_file: Path | None = None, level: str = "warning") -> None:
    handler: logging.Handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.WARNING))
    server.start_io()
