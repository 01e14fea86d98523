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


def row_top() -> bytes:
    """logits [rows, 1, vocab], k [1] -> values, indices [rows, k]: TopK of log_softmax(logits[:, -1]).

    Beam search's candidates without a [rows, vocab] array coming back to Python: adding a
    row's beam score cannot change the order within that row, so each input's top 2K over
    beams x vocab are among its rows' own top entries (ties: lower index first, as TopK).
    """
    v = helper.make_tensor_value_info
    nodes = [
        helper.make_node("Squeeze", ["logits", "axis1"], ["last"]),
        helper.make_node("LogSoftmax", ["last"], ["lsm"], axis=-1),
        helper.make_node("TopK", ["lsm", "k"], ["values", "indices"], axis=-1, largest=1, sorted=1),
    ]
    graph = helper.make_graph(
        nodes,
        "row_top",
        [v("logits", TensorProto.FLOAT, ["rows", 1, "vocab"]), v("k", TensorProto.INT64, [1])],
        [v("values", TensorProto.FLOAT, ["rows", "n"]), v("indices", TensorProto.INT64, ["rows", "n"])],
        [numpy_helper.from_array(np.array([1], np.int64), "axis1")],
    )
    return _model(graph)


if __name__ == "__main__":
    print(repr(row_top()))
