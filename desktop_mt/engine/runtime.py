"""ONNX Runtime sessions for one model variant. The only engine module that imports onnxruntime.

``Seq2SeqSessions`` hides the layout (split first-step / with-past decoders, or one merged
decoder) behind three calls: ``encode``, ``decode_first`` and ``decode_next``. Key/value
caches travel as lists of numpy arrays in the order ``[layer0.key, layer0.value, ...]``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnxruntime as ort

from ..errors import ModelFormatError, ModelNotFoundError, ProviderUnavailableError
from .model_format import FIX, ModelInfo
from .options import SessionOptions

PROVIDER_ALIASES = {
    "cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider", "tensorrt": "TensorrtExecutionProvider",
    "dml": "DmlExecutionProvider", "directml": "DmlExecutionProvider", "coreml": "CoreMLExecutionProvider",
    "openvino": "OpenVINOExecutionProvider", "rocm": "ROCMExecutionProvider",
}


# A one-node ONNX graph, LogSoftmax over the last axis of a [rows, vocab] float tensor (opset 13),
# serialized with onnx.helper so that the runtime needs no onnx package. Beam search normalizes
# 4 x batch x vocab scores every step: ORT's kernel is ~4x faster than numpy's exp/sum/log and
# rounds like torch.log_softmax (98% bit-identical on random logits, numpy: 23%).
LOG_SOFTMAX_ONNX = (
    b'\x08\x07\x12\ndesktop-mt:s\n(\n\x01x\x12\x01y"\nLogSoftmax*\x14\n\x04axis\x18\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\x01\xa0\x01\x02\x12\x0blog_softmaxZ\x1c\n\x01x\x12\x17\n\x15\x08\x01\x12\x11\n\x06\x12\x04rows'
    b'\n\x07\x12\x05vocabb\x1c\n\x01y\x12\x17\n\x15\x08\x01\x12\x11\n\x06\x12\x04rows\n\x07\x12\x05vocabB\x04\n'
    b'\x00\x10\r')


def available_providers() -> list[str]:
    """Short names of the execution providers this onnxruntime build offers."""
    reverse = {v: k for k, v in PROVIDER_ALIASES.items() if k != "directml"}
    return [reverse.get(p, p) for p in ort.get_available_providers()]


def resolve_provider(name: str) -> list[str]:
    full = PROVIDER_ALIASES.get(name.lower(), name)
    offered = ort.get_available_providers()
    if full not in offered:
        raise ProviderUnavailableError(
            f"execution provider {name!r} is not available in this onnxruntime "
            f"({ort.__version__}); available: {', '.join(available_providers())}. Install the matching "
            f"onnxruntime package (e.g. onnxruntime-gpu, onnxruntime-directml, onnxruntime-openvino) or use 'cpu'")
    return [full] if full == "CPUExecutionProvider" else [full, "CPUExecutionProvider"]


def make_session(path: Path, options: SessionOptions, providers: list[str]) -> ort.InferenceSession:
    """One session with full graph optimization; file problems become ModelFormatError."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = options.intra_op_threads
    so.inter_op_num_threads = options.inter_op_threads
    so.log_severity_level = 3
    if not path.is_file():
        raise ModelNotFoundError(f"{path} is missing; {FIX}")
    try:
        return ort.InferenceSession(str(path), sess_options=so, providers=providers)
    except Exception as exc:  # ORT raises several private exception types for bad files
        raise ModelFormatError(f"{path} could not be loaded by ONNX Runtime (corrupt or truncated?): "
                               f"{str(exc).splitlines()[0][:300]}; {FIX}") from exc


class Seq2SeqSessions:
    """Encoder + decoder sessions of one variant of a model directory."""

    def __init__(self, info: ModelInfo, variant: str, options: SessionOptions = SessionOptions()):
        if variant not in info.files:
            raise ModelNotFoundError(f"{info.path} has no {variant!r} variant (has: {', '.join(info.variants)}); "
                                     f"export it with `python -m export_tools export` (int8 is on by default)")
        files = info.files[variant]
        providers = resolve_provider(options.provider)
        self.providers = providers
        self.encoder = make_session(files["encoder"], options, providers)
        self.merged = "decoder" not in files or "decoder_with_past" not in files
        if self.merged:
            self.decoder = self.decoder_with_past = make_session(files["decoder_merged"], options, providers)
        else:
            self.decoder = make_session(files["decoder"], options, providers)
            self.decoder_with_past = make_session(files["decoder_with_past"], options, providers)
        self.n_layers = int(info.config.get("decoder_layers", info.config.get("num_layers", 6)))
        self.heads = int(info.config.get("decoder_attention_heads", 8))
        self.head_dim = int(info.config["d_model"]) // self.heads
        self._options = options
        self._log_softmax = None
        # Later decoder steps write logits and the grown self cache straight into numpy buffers
        # we own (IO binding), instead of ORT allocating them and copying them out every step.
        self.io_binding = os.environ.get("DESKTOP_MT_IO_BINDING", "0") == "1"  # measured: no gain, off
        self._pool: dict[str, list] = {}
        # Cache tensor names, computed once: they are looked up on every decode step.
        self._past_self = self._cache_names("past_key_values", "decoder")
        self._past_cross = self._cache_names("past_key_values", "encoder")
        self._present_self = self._cache_names("present", "decoder")
        self._present_cross = self._cache_names("present", "encoder")
        self._first_inputs = {i.name for i in self.decoder.get_inputs()}
        self._next_inputs = {i.name for i in self.decoder_with_past.get_inputs()}
        self._check_io()

    def _check_io(self) -> None:
        enc_inputs = {i.name for i in self.encoder.get_inputs()}
        if not {"input_ids", "attention_mask"} <= enc_inputs:
            raise ModelFormatError(f"encoder inputs {sorted(enc_inputs)} are not input_ids/attention_mask; {FIX}")
        if "past_key_values.0.decoder.key" not in self._next_inputs:
            raise ModelFormatError(f"the decoder has no past_key_values inputs (exported without cache?); {FIX}")

    def log_softmax(self, scores: np.ndarray) -> np.ndarray:
        """Row-wise log-softmax of a [rows, vocab] float32 array (a tiny CPU ORT session)."""
        if self._log_softmax is None:
            so = ort.SessionOptions()
            so.intra_op_num_threads = self._options.intra_op_threads
            so.inter_op_num_threads = 1
            so.log_severity_level = 3
            self._log_softmax = ort.InferenceSession(LOG_SOFTMAX_ONNX, sess_options=so,
                                                     providers=["CPUExecutionProvider"])
        return self._log_softmax.run(None, {"x": np.ascontiguousarray(scores, dtype=np.float32)})[0]

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        return self.encoder.run(["last_hidden_state"], {"input_ids": input_ids, "attention_mask": attention_mask})[0]

    def _cache_names(self, kind: str, side: str) -> list[str]:
        """``{kind}.{layer}.{side}.{key,value}`` in layer order, e.g. past_key_values.0.decoder.key."""
        return [f"{kind}.{i}.{side}.{kv}" for i in range(self.n_layers) for kv in ("key", "value")]

    def decode_first(self, input_ids, encoder_mask, encoder_hidden):
        """First step: returns logits, self K/V and cross K/V (the latter computed once per input)."""
        feed = {"input_ids": input_ids, "encoder_attention_mask": encoder_mask, "encoder_hidden_states": encoder_hidden}
        if self.merged:
            batch = input_ids.shape[0]
            empty = np.zeros((batch, self.heads, 0, self.head_dim), dtype=np.float32)
            for name in self._past_self + self._past_cross:
                feed[name] = empty
            feed["use_cache_branch"] = np.array([False])
        feed = {k: v for k, v in feed.items() if k in self._first_inputs}
        outs = ["logits"] + self._present_self + self._present_cross
        result = self.decoder.run(outs, feed)
        n = len(self._present_self)
        return result[0], result[1: 1 + n], result[1 + n:]

    def decode_next(self, input_ids, encoder_mask, self_kv, cross_kv, encoder_hidden=None, reuse: bool = False):
        """A later step: feeds the grown self cache and the fixed cross cache.

        ``reuse`` lets the outputs live in buffers that are overwritten two calls later (no
        allocation per step); the search loops use it, callers that keep outputs must not.
        """
        feed = {"input_ids": input_ids, "encoder_attention_mask": encoder_mask}
        feed.update(zip(self._past_self, self_kv))
        feed.update(zip(self._past_cross, cross_kv))
        if self.merged:
            feed["use_cache_branch"] = np.array([True])
            if "encoder_hidden_states" in self._next_inputs and encoder_hidden is None:
                batch, src = encoder_mask.shape
                encoder_hidden = np.zeros((batch, src, self.heads * self.head_dim), dtype=np.float32)
        if encoder_hidden is not None:
            feed["encoder_hidden_states"] = encoder_hidden
        feed = {k: v for k, v in feed.items() if k in self._next_inputs}
        names = ["logits"] + self._present_self
        if not self.io_binding or self.vocab_size is None:
            result = self.decoder_with_past.run(names, feed)
            return result[0], result[1:]
        rows, step = input_ids.shape
        past = self_kv[0].shape[2]
        shapes = [(rows, step, self.vocab_size)] + [(rows, self.heads, past + step, self.head_dim)] * (len(names) - 1)
        result = self._run_bound(self.decoder_with_past, feed, names, shapes, reuse)
        return result[0], result[1:]

    @property
    def vocab_size(self) -> int:
        if not hasattr(self, "_vocab"):
            dims = [o.shape for o in self.decoder_with_past.get_outputs() if o.name == "logits"][0]
            self._vocab = dims[-1] if isinstance(dims[-1], int) else None
        return self._vocab

    def _buffer(self, name: str, shape: tuple) -> np.ndarray:
        """A contiguous float32 array of ``shape`` from a two-buffer pool per output name.

        Two alternate, so a step never writes into the buffer its inputs (last step's
        outputs) live in; the caller must be done with an output two steps later (the search
        functions use logits at once, and caches only as the next step's input).
        """
        need = int(np.prod(shape))
        slot = self._pool.setdefault(name, [None, None, 0])
        i = slot[2] = 1 - slot[2]
        if slot[i] is None or slot[i].size < need:
            slot[i] = np.empty(max(need, int(need * 1.25) + 1024), dtype=np.float32)
        return slot[i][:need].reshape(shape)

    def _run_bound(self, session, feed: dict, names: list[str], shapes: list[tuple], reuse: bool) -> list[np.ndarray]:
        io = session.io_binding()
        for name, value in feed.items():
            io.bind_cpu_input(name, np.ascontiguousarray(value))
        outs = []
        for name, shape in zip(names, shapes):
            buf = self._buffer(name, shape) if reuse else np.empty(shape, dtype=np.float32)
            io.bind_output(name, "cpu", 0, np.float32, list(shape), buf.ctypes.data)
            outs.append(buf)
        session.run_with_iobinding(io)
        return outs
