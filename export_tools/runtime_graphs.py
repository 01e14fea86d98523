"""The small search graphs the runtime embeds as bytes (it must not need the onnx package).

``python -m export_tools.runtime_graphs`` prints them; ``tests/engine/test_kv_cache.py``
checks that the bytes in ``desktop_mt.engine.runtime`` are what these functions build.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def _model(graph) -> bytes:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="desktop-mt")
    model.ir_version = 8
    return model.SerializeToString()


def beam_top() -> bytes:
    """logits [rows, 1, vocab], scores [items, beams], ban [vocab], k [1] -> values, indices [items, k].

    TopK over each input's beams x vocab of log_softmax(logits) + ban + the row's beam score:
    generate()'s candidate selection (log-softmax, processors, + beam score, top 2K).
    """
    v = helper.make_tensor_value_info
    nodes = [
        helper.make_node("Squeeze", ["logits", "axis1"], ["last"]),
        helper.make_node("LogSoftmax", ["last"], ["lsm"], axis=-1),
        helper.make_node("Add", ["lsm", "ban"], ["processed"]),
        helper.make_node("Reshape", ["scores", "column"], ["per_row"]),
        helper.make_node("Add", ["processed", "per_row"], ["acc"]),
        helper.make_node("Shape", ["scores"], ["items"], end=1),
        helper.make_node("Concat", ["items", "minus_one"], ["flat_shape"], axis=0),
        helper.make_node("Reshape", ["acc", "flat_shape"], ["flat"]),
        helper.make_node("TopK", ["flat", "k"], ["values", "indices"], axis=-1, largest=1, sorted=1),
    ]
    inits = [numpy_helper.from_array(np.array([1], np.int64), "axis1"),
             numpy_helper.from_array(np.array([-1, 1], np.int64), "column"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus_one")]
    graph = helper.make_graph(
        nodes, "beam_top",
        [v("logits", TensorProto.FLOAT, ["rows", 1, "vocab"]), v("scores", TensorProto.FLOAT, ["items", "beams"]),
         v("ban", TensorProto.FLOAT, ["vocab"]), v("k", TensorProto.INT64, [1])],
        [v("values", TensorProto.FLOAT, ["items", "n"]), v("indices", TensorProto.INT64, ["items", "n"])], inits)
    return _model(graph)


if __name__ == "__main__":
    print(repr(beam_top()))
