"""Where the converted graphs go and how they are written and recorded in the manifest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...engine import model_format as mf
from .builder import WEIGHT_MAX
from .onnx_graph import all_graphs, onnx_module

if TYPE_CHECKING:
    import onnx

__all__ = [
    "CONVERTED_DIR",
    "FILES",
    "INT8_ENTRY",
    "save_mapped",
    "file_entry",
    "relative",
]

CONVERTED_DIR = "converted"  # inside the model folder
FILES = {  # variant -> role -> file name in CONVERTED_DIR
    "fp32": {
        "encoder": "encoder_model.onnx",
        "cross_kv": "cross_kv_model.onnx",
        "decoder_step": "decoder_step_model.onnx",
    },
    "int8": {
        "encoder": "encoder_model_quantized.onnx",
        "cross_kv": "cross_kv_model_quantized.onnx",
        "decoder_step": "decoder_step_model_quantized.onnx",
    },
}
INT8_ENTRY = {  # the manifest's "int8": how the int8 variant was quantized
    "kind": mf.INT8_PER_ROW,
    "weights": f"int8 symmetric per output column in [-{WEIGHT_MAX}, {WEIGHT_MAX}]; embeddings int8 per row",
    "weight_max": WEIGHT_MAX,
    "activations": "uint8 symmetric (zero point 128), one scale per row",
}
_ALIGN = 65536  # external data offsets: Windows' allocation granularity, a multiple of the page size
_EXTERNAL_THRESHOLD = 4096


def save_mapped(model: onnx.ModelProto, path: Path) -> None:
    """Save ``model`` with every initializer of 4 KiB or more in ``path.data`` at 64 KiB-aligned
    offsets (as ``export_tools.external_data`` writes them): ONNX Runtime maps the weights instead
    of copying them out of the protobuf, so the load peak is lower and embedding rows nobody
    gathers never become resident."""
    onnx = onnx_module()
    data_path = path.with_name(path.name + ".data")
    moved = 0
    with open(data_path, "wb") as f:
        for graph in all_graphs(model.graph):
            for init in graph.initializer:
                # raw_data holds the little-endian bytes already (numpy_helper.from_array): one copy, not two
                raw = init.raw_data if init.HasField("raw_data") else onnx.numpy_helper.to_array(init).tobytes()
                if len(raw) < _EXTERNAL_THRESHOLD:
                    continue
                f.write(b"\0" * ((-f.tell()) % _ALIGN))
                offset = f.tell()
                f.write(raw)
                _point_at(onnx, init, data_path.name, offset, len(raw))
                del raw
                moved += 1
    if not moved:
        data_path.unlink()
    onnx.save(model, str(path))


def _point_at(onnx: Any, init: Any, location: str, offset: int, length: int) -> None:
    """Empty the initializer ``init`` but for its name, type and shape, and point it at its bytes."""
    name, dims, dtype = init.name, list(init.dims), init.data_type
    init.Clear()
    init.name, init.data_type = name, dtype
    init.dims.extend(dims)
    init.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = init.external_data.add()
        entry.key, entry.value = key, value


def file_entry(model_dir: Path, rel: str) -> dict[str, Any]:
    """The manifest's record of a file (and of its external data): path, sha256, size."""
    path = Path(model_dir) / rel
    entry: dict[str, Any] = {"file": rel, "sha256": mf.sha256_file(path), "bytes": path.stat().st_size}
    data = path.with_name(path.name + ".data")
    if data.is_file():
        entry["external_data"] = {"file": data.name, "bytes": data.stat().st_size, "sha256": mf.sha256_file(data)}
    return entry


def relative(path: Path, root: Path) -> str:
    return str(Path(path).resolve().relative_to(Path(root).resolve()).as_posix())
