"""Reading an ONNX graph: the ``onnx`` package when it is there, every subgraph, constant values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .spec import ConversionRefused

if TYPE_CHECKING:
    import onnx

__all__ = [
    "onnx_module",
    "all_graphs",
    "GraphConstants",
]


def onnx_module() -> Any:
    """The ``onnx`` package, imported when a graph is read or written (it costs ~1.5 s)."""
    try:
        import onnx
    except ImportError as exc:  # the packaged app must ship onnx for this
        raise ConversionRefused(f"converting a downloaded model needs the onnx package ({exc})") from exc
    return onnx


def all_graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """``graph`` and every subgraph (an ``If``'s branches, a ``Loop``'s body), depth first."""
    onnx = onnx_module()
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from all_graphs(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    yield from all_graphs(sub)


class GraphConstants:
    """The nodes of a decoder graph (outer graph and every branch) and its constant values."""

    def __init__(self, model: onnx.ModelProto):
        module = onnx_module()
        self.model = model
        self._numpy = module.numpy_helper
        self._attr = module.helper.get_attribute_value
        self.initializers = {i.name: i for i in model.graph.initializer}
        self.nodes: list[onnx.NodeProto] = []
        self.producer: dict[str, onnx.NodeProto] = {}
        for graph in all_graphs(model.graph):
            self.initializers.update({i.name: i for i in graph.initializer})
            for node in graph.node:
                self.nodes.append(node)
                for out in node.output:
                    self.producer.setdefault(out, node)
        self._cache: dict[str, np.ndarray | None] = {}

    def const(self, name: str) -> np.ndarray | None:
        """The value of ``name`` when it is a constant (through Identity, Transpose, Cast), else None."""
        if name not in self._cache:
            self._cache[name] = self._const(name)
        return self._cache[name]

    def _const(self, name: str) -> np.ndarray | None:
        if name in self.initializers:
            return np.asarray(self._numpy.to_array(self.initializers[name]))
        node = self.producer.get(name)
        if node is None:
            return None
        if node.op_type == "Constant":
            attr = next((a for a in node.attribute if a.name == "value"), None)
            return None if attr is None else np.asarray(self._numpy.to_array(attr.t))
        if node.op_type in ("Identity", "Transpose", "Cast") and node.input:
            value = self.const(node.input[0])
            if value is None:
                return None
            if node.op_type == "Transpose":
                perm = next((list(self._attr(a)) for a in node.attribute if a.name == "perm"), None)
                return np.ascontiguousarray(value.transpose(perm) if perm else value.T)
            return value
        return None
