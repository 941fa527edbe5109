"""What is free on the launch's GPU when vLLM starts, and the notes that say what vlint assumed (never silent).

vLLM's V1 worker snapshots the GPU at start and refuses when less than ``gpu_memory_utilization × total``
is free ([0.10.2] vllm/v1/worker/gpu_worker.py:175-188 in ``Worker.init_device``; [0.33.0]
vllm/v1/worker/utils.py:761-770 in ``request_memory``, called from vllm/v1/worker/gpu_worker.py:542).
What other processes hold is a fact of the machine, not of the files: ``--gpu-free-gib`` /
``gpu-free-gib`` state it (:attr:`Deployment.gpu_free_gib`), and otherwise vlint takes the whole GPU as
free. Each note here says one such assumption, with the fix:

- ``free_not_applied``: a free figure is given, but the launch's GPU is not known, so it applies to
  nothing (the reference GPUs are checked with all of their memory free);
- ``free_capped``: the figure is above the GPU's total memory and is taken as the total;
- ``consumer_gpu``: the launch's GPU is a consumer card (:attr:`GpuSpec.consumer`), its memory was
  checked, and no figure is given: a desktop may hold some of it.
"""

from __future__ import annotations

from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

#: where the free memory comes from when nothing states it
ASSUMED = "the GPU total, assuming nothing else holds memory"
#: how to name a launch's GPU
NAME_THE_GPU = "name it with --gpu, a node selector (nvidia.com/gpu.product) or [tool.vlint] gpu"
#: how to state what is free
STATE_FREE = "pass --gpu-free-gib N (the free memory nvidia-smi shows) or set gpu-free-gib"


@record(frozen=True, slots=True)
class Note:
    """One assumption about a launch's environment: ``kind`` (for grouping), ``subject`` (what the summary
    lists: the figure's source, the GPU) and ``text``, the sentence for this launch alone."""

    kind: str
    subject: str
    text: str


def free_source(dep: Deployment) -> str:
    """Where the free memory of the launch's GPU comes from: ``--gpu-free-gib 20``, ``gpu-free-gib 20 in
    .vlint.toml`` (``, capped at the GPU's 23.99 GiB`` when above it), or :data:`ASSUMED`."""
    if dep.gpu_free_gib is None or dep.gpu is None:
        return ASSUMED
    src = dep.gpu_free_source or f"gpu-free-gib {dep.gpu_free_gib:g}"
    if dep.gpu_free_gib > dep.gpu.total_gib:
        src += f", capped at the {dep.gpu.name}'s {dep.gpu.total_gib:.2f} GiB"
    return src


def environment_notes(dep: Deployment) -> tuple[Note, ...]:
    """The notes of one launch (none when vlint assumed nothing it should say)."""
    return _environment_notes(dep) + unread_words_notes(dep) + inference_notes(dep)


#: facts of a launch that are inferences (its errors are warnings that say so): each is said once more
#: under the memory line, where the answer that rests on it is printed
INFERENCES = ("example_env", "linked_by_name")


def inference_notes(dep: Deployment) -> tuple[Note, ...]:
    """What the launch's values rest on when vlint inferred it (an example ``.env``, a module found by its
    name): one note each, with the fact's own sentence."""
    out = []
    for key in INFERENCES:
        fact = dep.invocation.facts.get(key)
        if fact is not None and fact.detail:
            out.append(Note(key, str(fact.value), f"{fact.detail} (an inference: check with the real file)"))
    return tuple(out)


#: what a launch with words vlint cannot read is told to do
WRITE_THEM_OUT = "write those options out (or try values with vlint explain --set) to check them"


def unread_words_notes(dep: Deployment) -> tuple[Note, ...]:
    """A launch whose argv holds words vlint cannot read (``$EXTRA_ARGS``, an unknown array element)
    that the memory model still answered: it assumed they set none of the options the launch leaves
    to their defaults (its errors that rest on that are warnings, :meth:`Engine._soften_opaque`)."""
    unread = sorted({t.text for t in dep.invocation.args if t.unresolved}) if dep.args.opaque else []
    if not unread or dep.arch is None:
        return ()  # (a --config file not read is opaque too: its VL010 says so)
    words = ", ".join(unread[:3]) + (", …" if len(unread) > 3 else "")
    return (
        Note(
            "unread_words",
            words,
            f"the memory model assumes {words} set{'s' if len(unread) == 1 else ''} none of the options the launch "
            f"leaves to their defaults; {WRITE_THEM_OUT}",
        ),
    )


def _environment_notes(dep: Deployment) -> tuple[Note, ...]:
    src = dep.gpu_free_source or (f"gpu-free-gib {dep.gpu_free_gib:g}" if dep.gpu_free_gib is not None else "")
    if dep.gpu_free_gib is not None and dep.gpu is None:
        return (
            Note(
                "free_not_applied",
                src,
                f"{src} is not applied: the launch's GPU is not known (the reference GPUs are checked with all "
                f"of their memory free); {NAME_THE_GPU}",
            ),
        )
    if dep.gpu is None:
        return ()
    gpu = dep.gpu
    if dep.gpu_free_gib is not None:
        if dep.gpu_free_gib <= gpu.total_gib:
            return ()
        what = f"{src} is above the {gpu.name}'s {gpu.total_gib:.2f} GiB"
        return (Note("free_capped", what, f"{what}: capped at it"),)
    m = dep.memory
    if gpu.consumer and m is not None and m.platform == "cuda":
        return (
            Note(
                "consumer_gpu",
                gpu.name,
                f"the {gpu.name} is a consumer GPU, checked as if all of its {gpu.total_gib:.2f} GiB were free: "
                "a desktop or another program may hold some, and vLLM refuses to start when less than "
                f"gpu_memory_utilization × total is free; {STATE_FREE}",
            ),
        )
    return ()


def _launches(n: int) -> str:
    return f"{n} launch{'es' if n != 1 else ''}"


def note_lines(notes: list[tuple[str, Note]]) -> list[str]:
    """One ``note:`` line per kind over ``(where, note)`` pairs (``where`` is ``path:line``): what the text
    report prints under the memory line."""
    out = []
    for kind in ("free_not_applied", "free_capped", "consumer_gpu", "unread_words", *INFERENCES):
        mine = [(w, n) for w, n in notes if n.kind == kind]
        if not mine:
            continue
        places = [w for w, _ in mine]
        shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
        subjects = ", ".join(dict.fromkeys(n.subject for _, n in mine))
        if len(mine) == 1:
            out.append(f"note: {shown}: {mine[0][1].text}.")
        elif kind == "free_not_applied":
            out.append(
                f"note: {subjects} not applied to {_launches(len(mine))} ({shown}): the GPU is not known; "
                f"{NAME_THE_GPU}."
            )
        elif kind in INFERENCES:
            out.append(f"note: {_launches(len(mine))} rest on an inference ({shown}): {mine[0][1].text}.")
        elif kind == "unread_words":
            out.append(
                f"note: {_launches(len(mine))} hold words vlint cannot read ({subjects}: {shown}): the memory model "
                f"assumes they set none of the options left to their defaults; {WRITE_THEM_OUT}."
            )
        elif kind == "free_capped":
            out.append(
                f"note: {'; '.join(dict.fromkeys(n.subject for _, n in mine))}: capped at it "
                f"({_launches(len(mine))}: {shown})."
            )
        else:
            out.append(
                f"note: {_launches(len(mine))} on a consumer GPU ({subjects}: {shown}) checked as if all of its "
                "memory were free: a desktop or another program may hold some, and vLLM refuses to start when "
                f"less than gpu_memory_utilization × total is free; {STATE_FREE}."
            )
    return out
