"""ONNX Runtime sessions for one model variant. The only engine module that imports onnxruntime.

``Seq2SeqSessions`` hides the decoder layout behind three calls: ``encode``, ``decode_first``
(first logits + a cache object from ``kv_cache``) and ``decode_next``. Each layout family is one
class, chosen once from the variant's files (``layout_for``): ``SplitDecoder`` (Optimum's
first-step + with-past decoders), ``MergedDecoder`` (one decoder with an If on
``use_cache_branch``) and ``StepDecoder`` (our decoder step over a caller-owned KV buffer).
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
import onnxruntime as ort  # the package __init__ has set ORT_DISABLE_TELEMETRY before this

from ..base.errors import ModelFormatError, ModelNotFoundError, ProviderUnavailableError
from . import telemetry_disabled
from .kv_cache import ConcatKVCache, KVBuffer
from .model_format import FIX, ModelInfo, config_int
from .native import NATIVE_CALLS
from .options import SessionOptions
from .protocols import DecoderLayout, KVCache

__all__ = [
    "apply_telemetry_switch",
    "available_providers",
    "resolve_provider",
    "ort_session_options",
    "share_thread_pool",
    "shared_thread_pool",
    "GuardedSession",
    "make_session",
    "ROW_TOP_ONNX",
    "ROW_TOP_FLOATS",
    "Seq2SeqSessions",
    "ZeroArrays",
    "DecoderIO",
    "SessionOpener",
    "SplitDecoder",
    "MergedDecoder",
    "StepDecoder",
    "LayoutClass",
    "layout_for",
    "layout_of",
]


def apply_telemetry_switch(runtime: Any = ort) -> bool:
    """Switch ONNX Runtime's telemetry events off in this process when ORT_DISABLE_TELEMETRY
    says "off" (our default); returns whether it did.

    Linux/macOS: the variable itself has stopped the uploader at import; this call adds nothing.
    Windows builds ignore the variable and write ETW events (to any trace session listening,
    such as Windows' own diagnostic-data service): this call is the only switch ONNX Runtime
    offers there. It cannot recall the start-up event written while onnxruntime loaded.
    """
    if not telemetry_disabled():
        return False
    runtime.disable_telemetry_events()
    return True


apply_telemetry_switch()

_PROVIDER_ALIASES = {
    "cpu": "CPUExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "tensorrt": "TensorrtExecutionProvider",
    "dml": "DmlExecutionProvider",
    "directml": "DmlExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "rocm": "ROCMExecutionProvider",
}


# A one-node ONNX graph, LogSoftmax over the last axis of a [rows, vocab] float tensor (opset 13),
# serialized with onnx.helper so that the runtime needs no onnx package. Beam search normalizes
# 4 x batch x vocab scores every step: ORT's kernel is ~4x faster than numpy's exp/sum/log and
# rounds like torch.log_softmax (98% bit-identical on random logits, numpy: 23%).
_LOG_SOFTMAX_ONNX = (
    b'\x08\x07\x12\ndesktop-mt:s\n(\n\x01x\x12\x01y"\nLogSoftmax*\x14\n\x04axis\x18\xff\xff\xff\xff\xff\xff'
    b"\xff\xff\xff\x01\xa0\x01\x02\x12\x0blog_softmaxZ\x1c\n\x01x\x12\x17\n\x15\x08\x01\x12\x11\n\x06\x12\x04rows"
    b"\n\x07\x12\x05vocabb\x1c\n\x01y\x12\x17\n\x15\x08\x01\x12\x11\n\x06\x12\x04rows\n\x07\x12\x05vocabB\x04\n"
    b"\x00\x10\r"
)


def available_providers() -> list[str]:
    """Short names of the execution providers this onnxruntime build offers."""
    reverse = {v: k for k, v in _PROVIDER_ALIASES.items() if k != "directml"}
    return [reverse.get(p, p) for p in ort.get_available_providers()]


def resolve_provider(name: str) -> list[str]:
    full = _PROVIDER_ALIASES.get(name.lower(), name)
    offered = ort.get_available_providers()
    if full not in offered:
        raise ProviderUnavailableError(
            f"execution provider {name!r} is not available in this onnxruntime "
            f"({ort.__version__}); available: {', '.join(available_providers())}. Install the matching "
            f"onnxruntime package (e.g. onnxruntime-gpu, onnxruntime-directml, onnxruntime-openvino) or use 'cpu'"
        )
    return [full] if full == "CPUExecutionProvider" else [full, "CPUExecutionProvider"]


def ort_session_options(options: SessionOptions, inter_op_threads: int | None = None) -> ort.SessionOptions:
    """ORT's options for one of our sessions: full graph optimization, quiet logging, ORT's
    memory pattern on or off (``SessionOptions.memory_pattern``), and the process's shared thread
    pool (``share_thread_pool``) or else a pool of its own with our thread settings, busy-waiting
    threads on or off (``SessionOptions.spin_wait``)."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.enable_mem_pattern = options.memory_pattern
    so.log_severity_level = 3
    if shared_thread_pool() is not None:
        so.use_per_session_threads = False  # the process's one pool (share_thread_pool): its size and spinning
    else:
        so.intra_op_num_threads = options.intra_op_threads
        so.inter_op_num_threads = options.inter_op_threads if inter_op_threads is None else inter_op_threads
        spin = "1" if options.spin_wait else "0"
        so.add_session_config_entry("session.intra_op.allow_spinning", spin)
        so.add_session_config_entry("session.inter_op.allow_spinning", spin)
    if _shared_cpu_arena():
        so.add_session_config_entry("session.use_env_allocators", "1")
    return so


_POOL_LOCK = threading.Lock()
_POOL: list[int] = []  # [threads] once share_thread_pool() was called in this process


def share_thread_pool(threads: int = 0) -> int | None:
    """Run every ONNX Runtime session desktop-mt makes from now on in this process on one
    thread pool of ``threads`` threads (0: ONNX Runtime's choice, one per physical core);
    returns the pool's size (the first call decides: ORT cannot resize it), or None where this
    onnxruntime cannot share one (before 1.23): sessions then keep their own pools. Where other
    code in the process made ORT's global pools first, the sessions use those.

    Why: each session otherwise has its own pool, and a translation alternates several
    sessions (encoder, decoder step, beam candidates). With idle threads sleeping
    (``SessionOptions.spin_wait`` False) every operator pays to wake a thread; with them
    spinning, the pools take the cores from each other. One pool whose worker spins briefly
    after each run (~30 ms, then sleeps; ORT's default for its shared pool) removes both costs.
    Measured on 2 cores, opus-mt's architecture, against a pool per session: batch-1 latency
    0.72-0.76x, batch-32 throughput 1.19-1.22x greedy and 1.10-1.14x beam 4, the same tokens
    (docs/BENCHMARKS.md, the ``ort-int8-own-pools`` lever). The cost: with another process
    busy on one of the cores, a pool of a thread per core waits for the thread the OS took off
    it, 2.2x slower than a pool per session on 2 cores; a pool of one thread fewer avoids it
    but is 24% slower on a quiet machine, and ORT cannot stop the shared pool's spinning from
    Python, so ``threads`` stays the caller's choice (``benchmarks/pool_batch.py``, issue 49).

    Process-wide, so only the owner of the process calls it (the ``desktop-mt`` command and
    the window do; a program that embeds the engine may): once ORT has the shared pool it
    refuses sessions with pools of their own, also sessions other code makes, and the
    thread counts of later ``SessionOptions`` are not used. Sessions made before the call
    keep their own pools.
    """
    with _POOL_LOCK:
        if not _POOL:
            setter = getattr(ort, "set_global_thread_pool_sizes", None)  # onnxruntime >= 1.23
            if setter is None:
                return None
            try:
                setter(max(0, threads), 1)
            except Exception as exc:  # noqa: BLE001 - ORT's private Fail type
                if "already been created" not in str(exc):
                    return None
                # Other code in the process made ORT's global pools first: sessions must use them
                # (ORT refuses any other now); their size is that code's, ``threads`` is recorded.
            _POOL.append(max(0, threads))
        return _POOL[0]


def shared_thread_pool() -> int | None:
    """The size of the process's shared pool (0: ORT's choice), or None when sessions have their own."""
    return _POOL[0] if _POOL else None


_ARENA_LOCK = threading.Lock()
_ARENA: list[bool] = []  # [registered?], decided once per process


def _shared_cpu_arena() -> bool:
    """One CPU memory arena for every session of the process, growing by what is asked
    (``kSameAsRequested``) instead of ORT's default of doubling each new chunk and one arena per
    session. Measured (issue 32, opus-mt-en-zh architecture, batch 32 greedy + beam 4): peak RSS
    529 -> 501 MB, same tokens, same speed. False when this ONNX Runtime cannot register it."""
    with _ARENA_LOCK:
        if not _ARENA:
            try:
                memory = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
                ort.create_and_register_allocator(memory, ort.OrtArenaCfg({"arena_extend_strategy": 1}))
                _ARENA.append(True)
            except Exception:  # noqa: BLE001 - ORT raises private types; sessions then keep their own arenas
                _ARENA.append(False)
        return _ARENA[0]


class GuardedSession(ort.InferenceSession):  # type: ignore[misc]  # onnxruntime ships no type hints
    """An ``InferenceSession`` whose runs are counted by :data:`~.native.NATIVE_CALLS` (see there)."""

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with NATIVE_CALLS:
            return super().run(*args, **kwargs)


def make_session(path: Path, options: SessionOptions, providers: list[str]) -> ort.InferenceSession:
    """One session with full graph optimization; file problems become ModelFormatError."""
    so = ort_session_options(options)
    if not path.is_file():
        raise ModelNotFoundError(f"{path} is missing; {FIX}")
    try:
        return GuardedSession(str(path), sess_options=so, providers=providers)
    except Exception as exc:  # ORT raises several private exception types for bad files
        if "use_per_session_threads" in str(exc):  # not the file: the process's shared pool (share_thread_pool)
            raise RuntimeError(
                f"ONNX Runtime refused a session of {path.name} with a thread pool of its own: this process "
                f"shares one pool (runtime.share_thread_pool), so every session must be made through "
                f"runtime.ort_session_options"
            ) from exc
        raise ModelFormatError(
            f"{path} could not be loaded by ONNX Runtime (corrupt or truncated?): "
            f"{str(exc).splitlines()[0][:300]}; {FIX}"
        ) from exc


# Beam search candidates without a [rows, vocab] array coming back to Python: TopK of each
# row's log-softmax (the same kernel as ``log_softmax`` above). ORT's TopK breaks ties by the
# lower index, as generate()'s stable sort does. Built by ``export_tools.runtime_graphs.row_top()``
# (a test checks these bytes).
ROW_TOP_ONNX = (
    b'\x08\x08\x12\ndesktop-mt:\xbc\x02\n\x1e\n\x06logits\n\x05axis1\x12\x04last"\x07Squeeze\n-\n\x04last\x12'
    b'\x03lsm"\nLogSoftmax*\x14\n\x04axis\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xa0\x01\x02\nT\n\x03lsm\n'
    b'\x01k\x12\x06values\x12\x07indices"\x04TopK*\x14\n\x04axis\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xa0'
    b"\x01\x02*\x0e\n\x07largest\x18\x01\xa0\x01\x02*\r\n\x06sorted\x18\x01\xa0\x01\x02\x12\x07row_top*\x15\x08"
    b"\x01\x10\x07B\x05axis1J\x08\x01\x00\x00\x00\x00\x00\x00\x00Z%\n\x06logits\x12\x1b\n\x19\x08\x01\x12\x15\n"
    b"\x06\x12\x04rows\n\x02\x08\x01\n\x07\x12\x05vocabZ\x0f\n\x01k\x12\n\n\x08\x08\x07\x12\x04\n\x02\x08\x01b"
    b"\x1d\n\x06values\x12\x13\n\x11\x08\x01\x12\r\n\x06\x12\x04rows\n\x03\x12\x01nb\x1e\n\x07indices\x12\x13\n"
    b"\x11\x08\x07\x12\r\n\x06\x12\x04rows\n\x03\x12\x01nB\x04\n\x00\x10\x11"
)


# Rows per row_top call: about this many floats. On 2 cores, 128 rows x 65,001: with the shared
# thread pool 4.7 ms in chunks of 8 rows (2 MB, in a core's L2 cache), 5.3 ms of 32, 8.9 ms in one
# call; with a pool per session 6.4 / 5.8 / 8.8 ms. The same values and ids either way.
ROW_TOP_FLOATS = 1 << 21  # 8 MB: a pool per session
_ROW_TOP_FLOATS_SHARED = 1 << 19  # 2 MB: the shared pool (share_thread_pool)


class Seq2SeqSessions:
    """Encoder + decoder sessions of one variant of a model directory.

    The decoder layout (``split``, ``merged`` or ``step``: see ``SplitDecoder``,
    ``MergedDecoder``, ``StepDecoder``) is chosen once, from the variant's files, and
    ``decode_first`` / ``decode_next`` forward to it. ``decode_first`` returns the first
    logits and a cache object; ``decode_next`` runs one more step and updates that cache.
    """

    def __init__(self, info: ModelInfo, variant: str, options: SessionOptions = SessionOptions()):
        if variant not in info.files:
            raise ModelNotFoundError(
                f"{info.path} has no {variant!r} variant (has: {', '.join(info.variants)}); "
                f"export it with `python -m export_tools export` (int8 is on by default)"
            )
        files = info.files[variant]
        layout_class = layout_for(files, info.path)  # before any loading: a bad file set fails at once
        self.providers = resolve_provider(options.provider)
        self._options = options
        self.encoder = make_session(files["encoder"], options, self.providers)
        self.layout: str = layout_class.name  # for reports and tests; decoding never compares it
        self.decoder_layout: DecoderLayout = layout_class(files, self._open_session, info)
        self.decoder, self.decoder_with_past = self.decoder_layout.first, self.decoder_layout.later
        self.n_layers, self.heads, self.head_dim = self.decoder_layout.kv_shape
        self._small: dict[str, ort.InferenceSession] = {}
        self._small_lock = threading.Lock()  # one tiny session each, even when threads ask at once
        self._check_encoder()

    def _open_session(self, path: Path) -> ort.InferenceSession:
        """A session of this variant's options and providers (what the layouts load with)."""
        return make_session(path, self._options, self.providers)

    def _check_encoder(self) -> None:
        enc_inputs = {i.name for i in self.encoder.get_inputs()}
        if not {"input_ids", "attention_mask"} <= enc_inputs:
            raise ModelFormatError(f"encoder inputs {sorted(enc_inputs)} are not input_ids/attention_mask; {FIX}")

    def _small_session(self, name: str, graph: bytes) -> ort.InferenceSession:
        """A tiny CPU session for search arithmetic (log-softmax, beam candidates), made once."""
        with self._small_lock:
            if name not in self._small:
                so = ort_session_options(self._options, inter_op_threads=1)
                self._small[name] = GuardedSession(graph, sess_options=so, providers=["CPUExecutionProvider"])
            return self._small[name]

    def log_softmax(self, scores: np.ndarray) -> np.ndarray:
        """Row-wise log-softmax of a [rows, vocab] float32 array (a tiny CPU ORT session)."""
        session = self._small_session("log_softmax", _LOG_SOFTMAX_ONNX)
        out: np.ndarray = session.run(None, {"x": np.ascontiguousarray(scores, dtype=np.float32)})[0]
        return out

    def row_top(self, logits: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``n`` (values, token ids) per row of log_softmax(logits[:, -1]); logits [rows, 1, vocab]."""
        session = self._small_session("row_top", ROW_TOP_ONNX)
        logits = np.ascontiguousarray(logits, dtype=np.float32)
        k = np.array([n], dtype=np.int64)
        # A few rows at a time: the log-softmax lives in ORT's arena, which keeps its largest
        # block for good (33 MB at 128 rows x 65k vocabulary, 2-8 MB in chunks); rows are independent.
        floats = ROW_TOP_FLOATS if shared_thread_pool() is None else _ROW_TOP_FLOATS_SHARED
        step = max(1, floats // logits.shape[-1])
        if logits.shape[0] <= step:
            values, ids = session.run(None, {"logits": logits, "k": k})
            return values, ids
        parts = [session.run(None, {"logits": logits[i : i + step], "k": k}) for i in range(0, logits.shape[0], step)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": input_ids, "attention_mask": attention_mask}
        hidden: np.ndarray = self.encoder.run(["last_hidden_state"], feed)[0]
        return hidden

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        """First step: returns its logits and the cache (cross K/V computed once per input).

        ``max_length``: the most positions the search will write (sizes a ``KVBuffer``).
        """
        return self.decoder_layout.decode_first(input_ids, encoder_mask, encoder_hidden, max_length)

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        """A later step on ``cache`` (from ``decode_first``, possibly reordered); updates it."""
        return self.decoder_layout.decode_next(input_ids, cache)


class ZeroArrays:
    """Read-only float32 zero arrays, one per shape, made once.

    The merged decoder takes a placeholder ``encoder_hidden_states`` on every cached step
    (its If branch never reads it) and empty past tensors on the first; allocating them each
    step cost a ``[rows, src, d_model]`` array per token. ORT never writes its inputs.
    """

    LIMIT = 64  # one entry per (rows, source length) seen; keep it bounded

    def __init__(self) -> None:
        self._arrays: dict[tuple[int, ...], np.ndarray] = {}

    def of(self, shape: tuple[int, ...]) -> np.ndarray:
        zeros = self._arrays.get(shape)
        if zeros is None:
            if len(self._arrays) > self.LIMIT:
                self._arrays.clear()
            zeros = self._arrays[shape] = np.zeros(shape, dtype=np.float32)
            zeros.flags.writeable = False
        return zeros


@dataclasses.dataclass(frozen=True)
class DecoderIO:
    """What a layout reads off its decoder graphs once: the cache shape, the cache tensor names
    (``past_key_values.0.decoder.key`` ...; looked up on every step) and each session's inputs."""

    kv_shape: tuple[int, int, int]  # (layers, heads, head_dim)
    first_inputs: frozenset[str]
    next_inputs: frozenset[str]
    past_self: list[str]
    past_cross: list[str]
    present_self: list[str]
    present_cross: list[str]
    new_self: list[str]

    @classmethod
    def read(cls, first: ort.InferenceSession, later: ort.InferenceSession, info: ModelInfo) -> DecoderIO:
        """From the first-step and later-step sessions (the same one where the layout has one)."""
        kv_shape = _cache_shape(later, info)
        next_inputs = _input_names(later)
        if "past_key_values.0.decoder.key" not in next_inputs:
            raise ModelFormatError(f"the decoder has no past_key_values inputs (exported without cache?); {FIX}")
        names = [
            _cache_names(kind, side, kv_shape[0])
            for kind, side in (
                ("past_key_values", "decoder"),
                ("past_key_values", "encoder"),
                ("present", "decoder"),
                ("present", "encoder"),
                ("new", "decoder"),
            )
        ]
        return cls(kv_shape, _input_names(first), next_inputs, *names)


def _input_names(session: ort.InferenceSession) -> frozenset[str]:
    return frozenset(i.name for i in session.get_inputs())


def _cache_names(kind: str, side: str, layers: int) -> list[str]:
    """``{kind}.{layer}.{side}.{key,value}`` in layer order, e.g. past_key_values.0.decoder.key."""
    return [f"{kind}.{i}.{side}.{kv}" for i in range(layers) for kv in ("key", "value")]


def _cache_shape(decoder: ort.InferenceSession, info: ModelInfo) -> tuple[int, int, int]:
    """(layers, heads, head_dim) of the decoder's self-attention cache, read from the graph.

    The layer count is the number of ``past_key_values.N.decoder.key`` inputs; heads and head
    size are the fixed dimensions 1 and 3 of those inputs (symbolic only in hand-made graphs,
    where ``config.json`` must then say them). Reading the graph, as Optimum does, means a
    config without ``decoder_layers`` no longer silently assumes 6 layers and 8 heads.
    """
    keys = [
        i for i in decoder.get_inputs() if i.name.startswith("past_key_values.") and i.name.endswith(".decoder.key")
    ]
    if not keys:
        raise ModelFormatError(
            f"the decoder of {info.path} has no past_key_values inputs (exported without cache?); {FIX}"
        )
    heads, head_dim = keys[0].shape[1], keys[0].shape[3]
    if not isinstance(heads, int):
        heads = _config_int(info, "decoder_attention_heads")
    if not isinstance(head_dim, int):
        head_dim = _config_int(info, "d_model") // heads
    return len(keys), heads, head_dim


def _config_int(info: ModelInfo, key: str) -> int:
    if key not in info.config:
        raise ModelFormatError(
            f"{info.path / 'config.json'} has no {key!r} and the decoder graph does not fix it; "
            f"add it to config.json or {FIX}"
        )
    return config_int(info.path / "config.json", info.config, key, 0)


SessionOpener = Callable[[Path], ort.InferenceSession]  # a path -> a session with the variant's options


def _concat_first(
    session: ort.InferenceSession, io: DecoderIO, feed: dict[str, np.ndarray], encoder_mask: np.ndarray
) -> tuple[np.ndarray, ConcatKVCache]:
    """Run a first step of an Optimum decoder (split or merged) and wrap its presents as a cache.

    ``feed`` may name inputs the graph lacks (exports differ, e.g. no encoder_attention_mask):
    they are dropped rather than rejected by ORT.
    """
    feed = {k: v for k, v in feed.items() if k in io.first_inputs}
    result = session.run(["logits"] + io.present_self + io.present_cross, feed)
    n = len(io.present_self)
    logits: np.ndarray = result[0]
    return logits, ConcatKVCache(result[1 : 1 + n], result[1 + n :], encoder_mask)


def _concat_next(
    session: ort.InferenceSession, io: DecoderIO, feed: dict[str, np.ndarray], cache: ConcatKVCache
) -> np.ndarray:
    """Run a later step of an Optimum decoder on ``cache`` (past K/V fed, grown self K/V kept)."""
    feed.update(zip(io.past_self, cache.self_kv))
    feed.update(zip(io.past_cross, cache.cross_kv))
    feed = {k: v for k, v in feed.items() if k in io.next_inputs}
    result = session.run(["logits"] + io.present_self, feed)
    cache.self_kv = result[1:]
    logits: np.ndarray = result[0]
    return logits


class SplitDecoder:
    """Optimum's split layout: ``decoder_model`` runs the first step (no past), and
    ``decoder_with_past_model`` every later one; the cache is a ``ConcatKVCache``."""

    name = "split"
    roles = frozenset({"decoder", "decoder_with_past"})

    def __init__(self, files: dict[str, Path], open_session: SessionOpener, info: ModelInfo):
        self.first = open_session(files["decoder"])
        self.later = open_session(files["decoder_with_past"])
        self.io = DecoderIO.read(self.first, self.later, info)
        self.kv_shape = self.io.kv_shape

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        """The first step (``max_length`` unused: the graph grows its cache by concatenation)."""
        feed = {"input_ids": input_ids, "encoder_attention_mask": encoder_mask, "encoder_hidden_states": encoder_hidden}
        return _concat_first(self.first, self.io, feed, encoder_mask)

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        """A later step on a cache from ``decode_first``."""
        feed = {"input_ids": input_ids, "encoder_attention_mask": cast(ConcatKVCache, cache).mask}
        return _concat_next(self.later, self.io, feed, cast(ConcatKVCache, cache))


class MergedDecoder:
    """Optimum's merged layout: one ``decoder_model_merged`` whose If on ``use_cache_branch``
    picks the first-step or the with-past graph. The branch not taken still needs its inputs:
    placeholder zeros (``ZeroArrays``), made once per shape."""

    name = "merged"
    roles = frozenset({"decoder_merged"})

    def __init__(self, files: dict[str, Path], open_session: SessionOpener, info: ModelInfo):
        self.first = self.later = open_session(files["decoder_merged"])
        self.io = DecoderIO.read(self.first, self.later, info)
        self.kv_shape = self.io.kv_shape
        self.zeros = ZeroArrays()
        # Optimum's merged graphs take encoder_hidden_states on the cached branch too; hand-merged
        # ones (export_tools.merge) may not: feed the placeholder only where the graph asks for it.
        self._placeholder_states = "encoder_hidden_states" in self.io.next_inputs

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        """The first step: empty past tensors for the with-past branch it does not take."""
        _, heads, head_dim = self.kv_shape
        empty = self.zeros.of((input_ids.shape[0], heads, 0, head_dim))
        feed = {
            "input_ids": input_ids,
            "encoder_attention_mask": encoder_mask,
            "encoder_hidden_states": encoder_hidden,
            "use_cache_branch": np.array([False]),
        }
        feed.update((name, empty) for name in self.io.past_self + self.io.past_cross)
        return _concat_first(self.first, self.io, feed, encoder_mask)

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        """A later step: placeholder encoder states (the cached branch reads the cross K/V)."""
        concat = cast(ConcatKVCache, cache)
        feed = {"input_ids": input_ids, "encoder_attention_mask": concat.mask, "use_cache_branch": np.array([True])}
        if self._placeholder_states:
            _, heads, head_dim = self.kv_shape
            rows, src = concat.mask.shape
            feed["encoder_hidden_states"] = self.zeros.of((rows, src, heads * head_dim))
        return _concat_next(self.later, self.io, feed, concat)


class StepDecoder:
    """Our decoder-step layout (``models.convert.graphs``, which ``export --layout step`` writes too):
    ``cross_kv`` computes the cross K/V once per input, ``decoder_step`` reads the first
    ``past_length`` positions of a caller-owned ``KVBuffer`` and returns only the new position (no
    per-step cache copy)."""

    name = "step"
    roles = frozenset({"decoder_step", "cross_kv"})

    def __init__(self, files: dict[str, Path], open_session: SessionOpener, info: ModelInfo):
        self.cross_kv = open_session(files["cross_kv"])
        self.first = self.later = open_session(files["decoder_step"])
        self.io = DecoderIO.read(self.first, self.later, info)
        self.kv_shape = self.io.kv_shape
        if "past_length" not in self.io.next_inputs:
            raise ModelFormatError(f"the decoder-step graph has no past_length input; {FIX}")

    def decode_first(
        self, input_ids: np.ndarray, encoder_mask: np.ndarray, encoder_hidden: np.ndarray, max_length: int = 0
    ) -> tuple[np.ndarray, KVCache]:
        """Cross K/V, a ``KVBuffer`` for at most ``max_length`` positions (0: no cap), the first step."""
        cross = self.cross_kv.run(self.io.present_cross, {"encoder_hidden_states": encoder_hidden})
        _, heads, head_dim = self.kv_shape
        cache = KVBuffer(
            len(self.io.past_self), input_ids.shape[0], heads, head_dim, cross, encoder_mask, capacity=max_length
        )
        return self._step(input_ids, cache), cache

    def decode_next(self, input_ids: np.ndarray, cache: KVCache) -> np.ndarray:
        """A later step on a ``KVBuffer`` from ``decode_first``."""
        return self._step(input_ids, cast(KVBuffer, cache))

    def _step(self, input_ids: np.ndarray, cache: KVBuffer) -> np.ndarray:
        feed: dict[str, np.ndarray] = {
            "input_ids": input_ids,
            "encoder_attention_mask": cache.mask,
            "past_length": np.array(cache.length, dtype=np.int64),
        }
        feed.update(zip(self.io.past_self, cache.buffers))
        feed.update(zip(self.io.past_cross, cache.cross_kv))
        result = self.first.run(["logits"] + self.io.new_self, feed)
        # The feed holds the buffers: when append grows them, the old ones must be freed one by
        # one as they are replaced, not all kept until this returns (batch 32, beam 4: 45 MB).
        del feed
        cache.append(result[1:])
        logits: np.ndarray = result[0]
        return logits


LayoutClass = type[StepDecoder] | type[SplitDecoder] | type[MergedDecoder]

# Tried in this order: a folder holding both split and merged files decodes with the split
# ones (as it always has); the step files are ours and win over Optimum's.
_LAYOUTS: tuple[LayoutClass, ...] = (StepDecoder, SplitDecoder, MergedDecoder)


def layout_for(files: dict[str, Path], folder: Path | None = None) -> LayoutClass:
    """The layout class whose files ``files`` (role -> path) has; ModelFormatError naming
    ``folder`` (default: the files' folder) when none matches."""
    for layout in _LAYOUTS:
        if layout.roles <= files.keys():
            return layout
    if folder is None:
        folder = Path(os.path.commonpath([p.parent for p in files.values()])) if files else Path(".")
    wanted = "; ".join(f"{layout.name}: {' + '.join(sorted(layout.roles))}" for layout in _LAYOUTS)
    raise ModelFormatError(
        f"{folder}: the files ({', '.join(sorted(files)) or 'none'}) form no decoder layout "
        f"(wanted, besides the encoder: {wanted}); {FIX}"
    )


def layout_of(files: dict[str, Path]) -> str:
    """Which decoder layout a variant's files form (``step``, ``merged`` or ``split``)."""
    return layout_for(files).name
